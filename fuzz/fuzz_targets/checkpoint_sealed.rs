//! The checkpoint reader past its checksums: the bytes get a valid header (magic,
//! version, length, particle count, step, settings digest) and valid CRCs (`seal`)
//! before they are read, so that mutations of the sections and the table reach
//! `Simulation::from_sections` and `run(2)` instead of a checksum mismatch.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(file) = talus_fuzz::fix_up_and_seal(data) {
        talus_fuzz::exercise(&file);
    }
});
