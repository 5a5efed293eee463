//! The checkpoint reader on arbitrary bytes: open_unverified, verify, open, simulation
//! (and a round trip and `run(2)` of any simulation that loads). None may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    talus_fuzz::exercise(data);
});
