//! Checkpoints: exact restart and refusal of bad files.
//!
//! Exact restart: a run of 2N steps and a run of N steps, checkpoint (written to disk by
//! the background checkpointer, read back through the map), restart, N more steps, must
//! end in the same state *bit for bit*: every section of the state (positions,
//! velocities, forces, Gear history, the contact table slot by slot with its springs and
//! cached closest features, the wall contacts, the broad phase's boxes and sorted ends)
//! is compared byte for byte. Cases: discs with friction (both integrators, every
//! neighbour method), polygons with cached features, the rotating drum (driven walls),
//! and the worker pool in deterministic mode. N is chosen so that the 2N-step run crosses
//! a renumbering of the particles (every 1000 steps) after the checkpoint.
//!
//! Bad files: truncated, a byte flipped in each section or in the header, a wrong magic
//! or version, the other byte order, contents that pass their checksums but break the
//! engine's invariants: each refused with an error naming the file and the section.
use std::path::{Path, PathBuf};

use talus::engine::{ForceStrategy, NeighborMethod, SectionSource, Simulation};
use talus::io::build::build;
use talus::io::checkpoint::{
    fnv1a, list, seal, settings_hash, Checkpoint, Entry, Header, BYTE_ORDER_MARK, HEADER_BYTES,
};
use talus::io::checkpointer::Checkpointer;
use talus::io::scenario::parse_scenario;

#[path = "../../common/mod.rs"]
mod common;
use common::{assert_same_state, checkpoint, grain_box};

mod damaged;
mod forged;
mod old_formats;
mod restart;
mod writer;

/// The shared box of grains, `count` discs (or random 5-8-gons) with friction.
fn scenario(polygons: bool, gear: bool, count: usize) -> String {
    grain_box(count, polygons, gear, [0.04, 0.06], 1400)
}

fn simulation(text: &str) -> Simulation {
    let sc = parse_scenario(text, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"));
    build(&sc, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}")).sim
}

/// Run n steps, then on until the contact table has at least two free slots (so that
/// the order of its free list, which decides where new pairs go, is carried across), at
/// most 300 more; checkpoint, restart, run as many steps again; compare with a run of
/// twice as many steps straight. Returns the straight run and the free slots there were.
fn check_restart(make: impl Fn() -> Simulation, n: u64, text: &str, what: &str) -> (Simulation, usize) {
    let mut first = make();
    first.run(n).unwrap();
    while first.contacts.free_slots() < 2 && first.step < n + 300 {
        first.run(1).unwrap();
    }
    let n = first.step;
    let free = first.contacts.free_slots();
    let mut straight = make();
    straight.run(2 * n).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = checkpoint(&first, dir.path(), text);
    drop(first);
    let ck = Checkpoint::open(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut resumed = ck.simulation().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resumed.step, n);
    resumed.run(n).unwrap();
    assert_same_state(&straight, &resumed, what);
    (straight, free)
}

// Making bad files (for `damaged` and `forged`).

/// A valid checkpoint of a small polygon run (every kind of section present), as bytes.
fn valid_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    valid_file_with(dir, NeighborMethod::Sweep)
}

fn valid_file_with(dir: &Path, method: NeighborMethod) -> (PathBuf, Vec<u8>) {
    let text = scenario(true, true, 60);
    let mut sim = simulation(&text);
    sim.set_neighbor_method(method);
    sim.run(100).unwrap();
    let path = checkpoint(&sim, dir, &text);
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// Write `bytes` as a file and open it: the error message.
fn refused(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let msg = match Checkpoint::open(&path).and_then(|c| c.simulation()) {
        Ok(_) => panic!("{name}: a bad checkpoint was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(msg.contains(name), "{name}: the message does not name the file: {msg}");
    msg
}

fn header(bytes: &[u8]) -> Header {
    bytemuck::pod_read_unaligned(&bytes[..HEADER_BYTES])
}

fn with_header(bytes: &[u8], h: &Header) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(h));
    b
}

/// Overwrite element `k` of an f64 (or u64) section.
type Spoil = Box<dyn Fn(&mut [u8])>;
