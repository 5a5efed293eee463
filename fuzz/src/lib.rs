//! Shared code of the checkpoint fuzz targets (see README.md).
//!
//! The checkpoint reader maps a *file*, so every input is written to a temporary file
//! first: one per process (`talus-fuzz-<pid>.talus` in `std::env::temp_dir()`),
//! overwritten at every iteration. Every `Checkpoint` (and so every mapping of the file)
//! is dropped before the next iteration rewrites it.
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use talus_engine::{SectionSource, Simulation};
use talus_io::checkpoint::{
    self, Checkpoint, Entry, Header, BYTE_ORDER_MARK, ENTRY_BYTES, HEADER_BYTES, MAGIC, VERSION,
};

/// The per-process temporary file the inputs are written to.
pub fn temp_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| std::env::temp_dir().join(format!("talus-fuzz-{}.talus", std::process::id())))
}

/// `TALUS_FUZZ_VERBOSE=1` in the environment: say what happened to each input (for
/// checking the seeds: `cargo fuzz run <target> corpus/<target>/*.talus`).
fn verbose() -> bool {
    static V: OnceLock<bool> = OnceLock::new();
    *V.get_or_init(|| std::env::var_os("TALUS_FUZZ_VERBOSE").is_some_and(|v| v != "0"))
}

/// Write `bytes` to the temporary file and run the whole reader on it: `open_unverified`,
/// `verify`, `text`, `open`, `simulation` (on both), and for a simulation that loads,
/// a checkpoint round trip and `run(2)`. Panics only where talus panicked (or where the
/// round trip does not give back the same sections).
///
/// `TALUS_FUZZ_WRITE=<file>` in the environment: also copy the file as read to `<file>`
/// (for `checkpoint_sealed`: the sealed file, which passes `Checkpoint::open` and so
/// `talus restart`).
pub fn exercise(bytes: &[u8]) {
    let path = temp_path();
    std::fs::write(path, bytes).expect("write the temporary checkpoint file");
    if let Some(keep) = std::env::var_os("TALUS_FUZZ_WRITE") {
        std::fs::write(keep, bytes).expect("write TALUS_FUZZ_WRITE");
    }

    let mut loaded = None;
    if let Ok(c) = Checkpoint::open_unverified(path) {
        let verified = c.verify();
        assert_eq!(verified.len(), c.entries.len());
        for name in ["scenario", "run", "config", "material.names"] {
            let _ = c.text(name);
        }
        // `simulation` does not require the CRCs to match: a file whose header and table
        // are intact but whose section bytes were changed reaches `from_sections` here.
        match c.simulation() {
            Ok(sim) => loaded = Some(sim),
            Err(e) if verbose() => eprintln!("talus-fuzz: simulation: {e}"),
            Err(_) => {}
        }
        let all_ok = verified.iter().all(|(_, ok)| *ok);
        drop(c);
        match Checkpoint::open(path) {
            Ok(c) => {
                assert!(all_ok, "open accepted a file whose verify() reported a bad section");
                let again = c.simulation();
                assert_eq!(again.is_ok(), loaded.is_some(), "simulation() of the same file differs");
            }
            Err(_) => assert!(!all_ok, "open refused a file that open_unverified + verify accepted"),
        }
    } else {
        if verbose() {
            if let Err(e) = Checkpoint::open_unverified(path) {
                eprintln!("talus-fuzz: open_unverified: {e}");
            }
        }
        // open_unverified refused it: open must refuse it too.
        assert!(Checkpoint::open(path).is_err(), "open accepted a file open_unverified refused");
    }

    if let Some(mut sim) = loaded {
        round_trip(&sim);
        // Ok or Err, never a panic.
        let r = sim.run(2);
        if verbose() {
            eprintln!("talus-fuzz: {} particles loaded, run(2): {r:?}", sim.len());
        }
    }
}

/// A simulation read from sections writes the same sections again, and those read back
/// give the same sections once more (sections -> from_sections -> sections is the
/// identity on everything from_sections accepts).
fn round_trip(sim: &Simulation) {
    struct Mem<'a>(Vec<talus_engine::Section<'a>>);
    impl SectionSource for Mem<'_> {
        fn section(&self, name: &str) -> Option<&[u8]> {
            self.0.iter().find(|s| s.name == name).map(|s| &*s.bytes)
        }
    }
    let first = Mem(sim.sections());
    let back = match Simulation::from_sections(&first) {
        Ok(b) => b,
        Err(e) => panic!("a loaded simulation's own sections are refused: {e}"),
    };
    let second = back.sections();
    let names = |v: &[talus_engine::Section<'_>]| v.iter().map(|s| s.name).collect::<Vec<_>>();
    assert_eq!(names(&first.0), names(&second), "section lists differ after a round trip");
    for (a, b) in first.0.iter().zip(&second) {
        assert!(a.bytes == b.bytes, "section {} differs after a round trip", a.name);
    }
}

fn read<T: bytemuck::Pod>(bytes: &[u8], at: usize) -> T {
    bytemuck::pod_read_unaligned(&bytes[at..at + std::mem::size_of::<T>()])
}

/// Make `data` a file that passes every check of the header and all the checksums, or
/// None if its section table does not fit the file (the cases `seal` is not meant for).
///
/// Fixed up: magic, version, byte-order mark, dimension, file length, the particle count
/// and step (copied from the "scalars" section, if there is one of at least 16 bytes),
/// the settings digest (computed from the sections), then every CRC (`seal`). Left to
/// the fuzzer: the section count, the table (names, element types, offsets, lengths) and
/// every section's bytes.
pub fn fix_up_and_seal(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < HEADER_BYTES {
        return None;
    }
    let mut file = data.to_vec();
    let len = file.len();
    let mut h: Header = read(&file, 0);
    h.magic = MAGIC;
    h.version = VERSION;
    h.byte_order = BYTE_ORDER_MARK;
    h.dimension = 2;
    h.file_bytes = len as u64;
    // What `seal` needs (it slices without checking): the table inside the file and every
    // section inside the file. The same checks as open_unverified makes before it looks at
    // the sections.
    let n = h.sections as usize;
    let table_end = HEADER_BYTES + n * ENTRY_BYTES;
    if n > 10_000 || table_end > len {
        return None;
    }
    let entries: Vec<Entry> = (0..n).map(|k| read(&file, HEADER_BYTES + k * ENTRY_BYTES)).collect();
    if entries
        .iter()
        .any(|e| e.offset.checked_add(e.len).is_none_or(|end| end > len as u64))
    {
        return None;
    }
    let section = |name: &str| {
        entries
            .iter()
            .find(|e| e.name() == name)
            .map(|e| &data[e.offset as usize..(e.offset + e.len) as usize])
    };
    h.settings_hash = checkpoint::settings_hash(section);
    if let Some(s) = section("scalars").filter(|s| s.len() >= 16) {
        h.particles = read(s, 0);
        h.step = read(s, 8);
    }
    file[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    checkpoint::seal(&mut file).ok()?;
    Some(file)
}
