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

#[path = "../common/mod.rs"]
mod common;
use common::grain_box;

/// The shared box of grains, `count` discs (or random 5-8-gons) with friction.
fn scenario(polygons: bool, gear: bool, count: usize) -> String {
    grain_box(count, polygons, gear, [0.04, 0.06], 1400)
}

fn simulation(text: &str) -> Simulation {
    let sc = parse_scenario(text, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"));
    build(&sc, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}")).sim
}

/// Write a checkpoint of `sim` into `dir` with the background writer; its path.
fn checkpoint(sim: &Simulation, dir: &Path, text: &str) -> PathBuf {
    let mut c = Checkpointer::new(
        dir,
        "checkpoint",
        2,
        fnv1a(text.as_bytes()),
        vec![("scenario.toml", text.as_bytes().to_vec())],
        sim,
    )
    .unwrap();
    c.write(sim).unwrap();
    let stats = c.finish().unwrap();
    stats.last.expect("one checkpoint written")
}

/// Every section of the two states, byte for byte; the first difference named.
fn assert_same_state(a: &Simulation, b: &Simulation, what: &str) {
    let (sa, sb) = (a.sections(), b.sections());
    let names = |s: &[talus::engine::Section]| s.iter().map(|x| x.name).collect::<Vec<_>>();
    assert_eq!(names(&sa), names(&sb), "{what}: different sections");
    for (x, y) in sa.iter().zip(&sb) {
        assert!(
            x.bytes == y.bytes,
            "{what}: section {} differs after the restart ({} vs {} bytes)",
            x.name,
            x.bytes.len(),
            y.bytes.len()
        );
    }
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

#[test]
fn discs_with_friction_restart_bitwise_with_both_integrators() {
    for gear in [false, true] {
        let text = scenario(false, gear, 400);
        let (end, free) = check_restart(|| simulation(&text), 700, &text, if gear { "gear" } else { "verlet" });
        assert!(free >= 2, "{free} free slots in the contact table at the checkpoint");
        // The test means something only if springs were carried across the restart.
        let sliding = end.contacts.xi.iter().filter(|x| **x != 0.0).count();
        assert!(sliding > 20, "only {sliding} pairs with a tangential spring");
        assert!(end.last_contacts > 20, "{} contacts", end.last_contacts);
    }
}

/// A checkpoint taken just after the particles were renumbered (every 1000 steps) and
/// before the neighbour search next ran, when box ends of equal value sit out of index
/// order in the sweep. Every method must restart from it and go on bitwise.
#[test]
fn restart_just_after_a_renumbering_is_bitwise() {
    // One row of equal discs drifting slowly (found by review: the renumbered sweep then
    // holds y ends of equal value out of index order).
    let text = r#"
[domain]
min = [0.0, 0.0]
max = [1.0, 1.0]
[[material]]
name = "g"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5
[[particles]]
material = "g"
count = 40
radius = { kind = "fixed", value = 0.01 }
packing = "lattice"
region = { min = [0.0, 0.48999], max = [0.9, 0.52] }
velocity_jitter = 0.005
[integrator]
scheme = "verlet"
dt = 1.0e-5
[run]
steps = 3000
"#;
    for &m in NeighborMethod::ALL {
        let make = || {
            let mut s = simulation(text);
            s.set_neighbor_method(m);
            s
        };
        let mut before = make();
        before.run(1000).unwrap();
        let updates = before.neighbor_updates;
        let mut first = make();
        first.run(1001).unwrap();
        assert_eq!(
            first.neighbor_updates,
            updates,
            "{}: the search ran in step 1001: the checkpoint is not between the renumbering and the next search",
            m.name()
        );
        let mut straight = make();
        straight.run(1400).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = checkpoint(&first, dir.path(), text);
        let mut resumed = Checkpoint::open(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", m.name()))
            .simulation()
            .unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        resumed.run(399).unwrap();
        assert_same_state(&straight, &resumed, m.name());
    }
}

#[test]
fn every_neighbour_method_restarts_bitwise() {
    let text = scenario(false, false, 300);
    for &m in NeighborMethod::ALL {
        let make = || {
            let mut s = simulation(&text);
            s.set_neighbor_method(m);
            s
        };
        check_restart(make, 300, &text, m.name());
    }
}

#[test]
fn polygons_with_cached_features_restart_bitwise() {
    let text = scenario(true, false, 300);
    let (end, _) = check_restart(|| simulation(&text), 700, &text, "polygons");
    let cached = end.contacts.features.iter().filter(|f| **f != 0).count();
    assert!(cached > 20, "only {cached} pairs with cached features");
    assert!(end.narrow.touching > 0);
    // The restart carried tracked crossings and gap budgets (and their counters, compared
    // with the other sections).
    let n = &end.narrow;
    assert!(
        n.tracked > n.clipped && n.gap_skips > 0,
        "tracked {}, clipped {}, walks skipped {}",
        n.tracked,
        n.clipped,
        n.gap_skips
    );
    assert!(end.contacts.area.iter().any(|a| *a < 0.0), "no pair holds a gap budget");
}

/// A checkpoint written before the tracking counters existed (no `narrow.tracking`
/// section) still loads, with those counters at zero.
#[test]
fn checkpoint_without_the_tracking_counters_loads() {
    let dir = tempfile::tempdir().unwrap();
    let text = scenario(true, false, 300);
    let mut sim = simulation(&text);
    // Long enough for the grains to have landed and lasting contacts to be tracked.
    sim.run(1000).unwrap();
    let path = checkpoint(&sim, dir.path(), &text);
    let good = std::fs::read(&path).unwrap();
    let ck = Checkpoint::open(&path).unwrap();
    let k = ck.entries.iter().position(|e| e.name() == "narrow.tracking").unwrap();
    let mut old = good.clone();
    // Renamed in the table: to the reader the section is not there.
    old[HEADER_BYTES + 64 * k] = b'q';
    seal(&mut old).unwrap();
    let file = dir.path().join("old.talus");
    std::fs::write(&file, &old).unwrap();
    let sim = Checkpoint::open(&file).unwrap().simulation().unwrap();
    let orig = ck.simulation().unwrap();
    assert!(
        orig.narrow.tracked > 0,
        "the valid file has no tracked overlaps to lose"
    );
    assert_eq!(
        (sim.narrow.tracked, sim.narrow.clipped, sim.narrow.gap_skips),
        (0, 0, 0)
    );
    assert_eq!(sim.narrow.touching, orig.narrow.touching);
}

/// A checkpoint of format version 1 (before drive start times and insertion streams: no
/// `drives.motion`, `insert.spec` or `insert.state` sections, and a settings digest
/// without them) still loads: its drives start at once and it inserts nothing, so it is
/// the same simulation as the version 2 file of the same state, and runs on the same.
#[test]
fn a_format_1_checkpoint_loads() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    let mut sim = simulation(&text);
    sim.run(200).unwrap();
    let path = checkpoint(&sim, dir.path(), &text);
    let mut old = std::fs::read(&path).unwrap();
    let ck = Checkpoint::open(&path).unwrap();
    for name in ["drives.motion", "insert.spec", "insert.state"] {
        let k = ck.entries.iter().position(|e| e.name() == name).unwrap();
        // Renamed in the table: to the reader the section is not there.
        old[HEADER_BYTES + 64 * k] = b'q';
    }
    // The digest as version 1 computed it: the names and bytes of its five settings
    // sections (all always present).
    let mut digested = Vec::new();
    for name in ["config", "materials", "material.names", "walls", "drives"] {
        let e = ck.entries.iter().find(|e| e.name() == name).unwrap();
        digested.extend_from_slice(name.as_bytes());
        digested.extend_from_slice(&old[e.offset as usize..(e.offset + e.len) as usize]);
    }
    let mut h = header(&old);
    assert_eq!(h.version, 2);
    h.version = 1;
    h.settings_hash = fnv1a(&digested);
    old[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    seal(&mut old).unwrap();
    let file = dir.path().join("v1.talus");
    std::fs::write(&file, &old).unwrap();
    let mut from_v1 = Checkpoint::open(&file)
        .and_then(|c| c.simulation())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut from_v2 = ck.simulation().unwrap();
    assert!(from_v1.insertions().is_empty());
    assert_same_state(&from_v2, &from_v1, "format 1 against 2");
    from_v1.run(300).unwrap();
    from_v2.run(300).unwrap();
    assert_same_state(&from_v2, &from_v1, "format 1 against 2, run on");
}

/// Insertion streams and drive start times that no scenario could make, with their
/// checksums and the settings digest made right: each refused, naming the section.
#[test]
fn impossible_insertion_and_drive_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}{}",
        scenario(false, false, 40).replace("[integrator]", "[[drum]]\nmaterial = \"grain\"\ncentre = [0.02, 0.03]\nradius = 0.008\nthickness = 0.002\nsegments = 8\nomega = 1.0\nstart = 0.01\nramp = 0.01\n[integrator]"),
        r#"
[[insert]]
material = "grain"
region = { min = [0.001, 0.04], max = [0.039, 0.059] }
radius = { kind = "fixed", value = 0.8e-3 }
per_insert = 5
every = 50
total = 40
"#
    );
    let mut sim = simulation(&text);
    sim.run(120).unwrap();
    assert!(sim.insertions()[0].counts.inserted > 0);
    let path = checkpoint(&sim, dir.path(), &text);
    let good = std::fs::read(&path).unwrap();
    let ck = Checkpoint::open(&path).unwrap();
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    let set_u64 = |k: usize, v: u64| -> Spoil {
        Box::new(move |b: &mut [u8]| b[8 * k..8 * k + 8].copy_from_slice(&v.to_ne_bytes()))
    };
    // insert.spec: [record length, region min x, min y, max x, max y, ...];
    // insert.state: [next id, events, inserted, requested, short events].
    let cases: Vec<(&str, Spoil, &[&str])> = vec![
        ("insert.spec", set_f64(4, 1.0), &["stream 0", "inside the domain"]),
        ("insert.spec", set_u64(8, 2), &["stream 0", "amount kind 2"]),
        ("insert.spec", set_u64(0, 3), &["stream 0", "cut short"]),
        ("insert.state", set_u64(1, 0), &["stream 0", "before the current step"]),
        ("insert.state", set_u64(2, 1000), &["stream 0", "inserted of"]),
        ("insert.state", Box::new(|b: &mut [u8]| b[8..].fill(0)), &["stream 0"]),
        ("drives.motion", set_f64(1, -1.0), &["drive 0", "ramp -1"]),
        ("drives.motion", set_f64(0, f64::NAN), &["drive 0", "start NaN"]),
    ];
    for (name, spoil, words) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "spoilt.talus", &bad);
        assert!(msg.contains(&format!("section {name}:")), "{name}: {msg}");
        for w in words {
            assert!(msg.contains(w), "{name}: {msg} lacks {w:?}");
        }
    }
}

#[test]
fn rotating_drum_restarts_bitwise() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    check_restart(|| simulation(&text), 400, &text, "drum");
}

#[test]
fn worker_pool_deterministic_restart_is_bitwise() {
    let text = scenario(true, false, 300);
    let make = || {
        let mut s = simulation(&text);
        s.set_parallel(&[None, None], ForceStrategy::Deterministic).unwrap();
        s
    };
    let mut straight = make();
    straight.run(600).unwrap();
    let mut first = make();
    first.run(300).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = checkpoint(&first, dir.path(), &text);
    let mut resumed = Checkpoint::open(&path).unwrap().simulation().unwrap();
    resumed
        .set_parallel(&[None, None], ForceStrategy::Deterministic)
        .unwrap();
    resumed.run(300).unwrap();
    assert_same_state(&straight, &resumed, "two threads, deterministic");
}

#[test]
fn keeps_the_newest_k_and_leaves_no_temporary_files() {
    let text = scenario(false, false, 100);
    let mut sim = simulation(&text);
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 3, 0, Vec::new(), &sim).unwrap();
    for _ in 0..7 {
        sim.run(10).unwrap();
        c.write(&sim).unwrap();
    }
    let stats = c.finish().unwrap();
    assert_eq!(stats.count, 7);
    let kept = list(dir.path(), "checkpoint").unwrap();
    let names: Vec<String> = kept
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "checkpoint-000000000050.talus",
            "checkpoint-000000000060.talus",
            "checkpoint-000000000070.talus"
        ]
    );
    let all = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(all, 3, "temporary files left behind");
    for p in &kept {
        Checkpoint::open(p).unwrap();
    }
}

/// A second run writing into the same folder prunes only its own checkpoints: the first
/// run's stay, whatever their steps.
#[test]
fn a_writer_never_prunes_another_runs_checkpoints() {
    let text = scenario(false, false, 100);
    let dir = tempfile::tempdir().unwrap();
    let mut first = simulation(&text);
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &first).unwrap();
    for _ in 0..3 {
        first.run(100).unwrap();
        c.write(&first).unwrap();
    }
    c.finish().unwrap();
    let names = |d: &Path| -> Vec<String> {
        list(d, "checkpoint")
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(dir.path()),
        ["checkpoint-000000000200.talus", "checkpoint-000000000300.talus"]
    );
    // A new run from the start, in the same folder, writing steps below and between.
    let mut second = simulation(&text);
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &second).unwrap();
    for _ in 0..5 {
        second.run(50).unwrap();
        c.write(&second).unwrap();
    }
    c.finish().unwrap();
    assert_eq!(
        names(dir.path()),
        [
            "checkpoint-000000000200.talus",
            "checkpoint-000000000250.talus",
            "checkpoint-000000000300.talus"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Bad files.

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

#[test]
fn truncated_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, good) = valid_file(dir.path());
    for len in [
        0,
        7,
        100,
        HEADER_BYTES,
        HEADER_BYTES + 10,
        good.len() / 2,
        good.len() - 1,
    ] {
        let msg = refused(dir.path(), &format!("cut-{len}.talus"), &good[..len]);
        assert!(
            msg.contains("truncated") || msg.contains("checksum mismatch in the header"),
            "cut to {len}: {msg}"
        );
    }
    // Appended to is not the file that was written either.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 64]);
    let msg = refused(dir.path(), "longer.talus", &longer);
    assert!(msg.contains("header says"), "{msg}");
}

#[test]
fn a_flipped_byte_in_any_section_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let mut tested = 0;
    for e in &ck.entries {
        if e.len == 0 {
            continue;
        }
        for at in [e.offset, e.offset + e.len / 2, e.offset + e.len - 1] {
            let mut bad = good.clone();
            bad[at as usize] ^= 0x10;
            let msg = refused(dir.path(), "flipped.talus", &bad);
            assert!(
                msg.contains(&format!("section {}:", e.name())) && msg.contains("checksum mismatch"),
                "byte {at} of {}: {msg}",
                e.name()
            );
        }
        tested += 1;
    }
    assert!(tested > 30, "{tested} sections");
    // In the header and in the section table.
    for at in [20, 60, HEADER_BYTES + 3, HEADER_BYTES + 64 * 5 + 40] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        let msg = refused(dir.path(), "header.talus", &bad);
        assert!(msg.contains("checksum mismatch in the header"), "byte {at}: {msg}");
    }
}

#[test]
fn wrong_magic_version_and_byte_order_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, good) = valid_file(dir.path());
    let mut h = header(&good);
    h.magic = *b"NOTTALUS";
    let msg = refused(dir.path(), "magic.talus", &with_header(&good, &h));
    assert!(msg.contains("not a talus checkpoint"), "{msg}");

    // A newer format, its header checksum correct: refused for its version.
    let mut h = header(&good);
    h.version = 99;
    let mut newer = with_header(&good, &h);
    seal(&mut newer).unwrap();
    let msg = refused(dir.path(), "version.talus", &newer);
    assert!(msg.contains("format version 99"), "{msg}");

    // Written on a machine of the other byte order: the mark reads swapped.
    let mut h = header(&good);
    h.byte_order = BYTE_ORDER_MARK.swap_bytes();
    let msg = refused(dir.path(), "endian.talus", &with_header(&good, &h));
    assert!(msg.contains("other byte order"), "{msg}");
}

/// Sections whose checksums are right but whose contents break the engine's invariants
/// (as a bug or a hand-made file would): refused, naming the section, never a panic.
#[test]
fn inconsistent_contents_with_valid_checksums_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let n = ck.header.particles as u32;
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    type Spoil = Box<dyn Fn(&mut [u8])>;
    let cases: Vec<(&str, Spoil)> = vec![
        // A pair naming a particle that does not exist.
        (
            "contact.j",
            Box::new(move |b: &mut [u8]| b[..4].copy_from_slice(&(n + 5).to_le_bytes())),
        ),
        // A particle outside the domain.
        (
            "p.x",
            Box::new(|b: &mut [u8]| b[..8].copy_from_slice(&1.0e9f64.to_le_bytes())),
        ),
        // A polygon with 2 vertices.
        (
            "shape.start",
            Box::new(|b: &mut [u8]| b[4..8].copy_from_slice(&2u32.to_le_bytes())),
        ),
        // Box ends out of order.
        ("broad.ends.x", Box::new(|b: &mut [u8]| b.swap(8, 16))),
        // A material that does not exist.
        (
            "p.material",
            Box::new(|b: &mut [u8]| b[..2].copy_from_slice(&77u16.to_le_bytes())),
        ),
        // A gap far larger than the pairs' distance (it would let them pass through
        // each other without a walk).
        (
            "contact.area",
            Box::new(|b: &mut [u8]| {
                b.chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&(-1.0e9f64).to_le_bytes()))
            }),
        ),
        // Radii smaller than the polygons they bound.
        (
            "p.radius",
            Box::new(|b: &mut [u8]| {
                b.chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&(1.0e-5f64).to_le_bytes()))
            }),
        ),
        // Wall contacts out of order (the pool cuts the list at particles).
        (
            "wallc.p",
            Box::new(|b: &mut [u8]| {
                let mut v: Vec<u32> = b
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert!(v.first() != v.last(), "the test file needs two particles at walls");
                v.reverse();
                b.copy_from_slice(bytemuck::cast_slice(&v));
            }),
        ),
        // An unknown integrator.
        (
            "config",
            Box::new(|b: &mut [u8]| b[64..72].copy_from_slice(&9u64.to_le_bytes())),
        ),
    ];
    for (name, spoil) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        seal(&mut bad).unwrap();
        let msg = refused(dir.path(), "inconsistent.talus", &bad);
        // A changed settings section no longer matches the header's digest, checked first.
        let named = if name == "config" {
            msg.contains("config") && msg.contains("digest")
        } else {
            msg.contains(&format!("section {name}"))
        };
        assert!(named, "{name}: {msg}");
    }
    // A stored box moved onto another particle's (inside the domain; linked cells, which
    // keep no sorted ends that would give it away): the neighbour search's pair set and
    // the contact table no longer agree, and the run would add a pair it already has.
    let sub = dir.path().join("cells");
    let (cpath, cgood) = valid_file_with(&sub, NeighborMethod::Cells);
    let cck = Checkpoint::open(&cpath).unwrap();
    let e = *cck.entries.iter().find(|e| e.name() == "broad.boxes").unwrap();
    let mut bad = cgood.clone();
    let at = e.offset as usize;
    let get = |b: &[u8], p: usize| -> [f32; 4] { bytemuck::pod_read_unaligned(&b[at + 16 * p..at + 16 * p + 16]) };
    // Particle 0's box, its size kept, moved onto particle 20's.
    let (b0, b20) = (get(&bad, 0), get(&bad, 20));
    let moved = [b20[0], b20[0] + (b0[1] - b0[0]), b20[2], b20[2] + (b0[3] - b0[2])];
    bad[at..at + 16].copy_from_slice(bytemuck::bytes_of(&moved));
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "moved-box.talus", &bad);
    assert!(msg.contains("section contact.i"), "{msg}");
    // A missing section: renamed in the table.
    let mut bad = good.clone();
    let k = ck.entries.iter().position(|e| e.name() == "p.vx").unwrap();
    bad[HEADER_BYTES + 64 * k] = b'q';
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "missing.talus", &bad);
    assert!(msg.contains("section p.vx: missing"), "{msg}");
}

/// Seal a forged image: the settings digest of the header recomputed (so that a changed
/// settings section is judged on its contents), then every CRC.
fn reseal(bytes: &mut [u8]) {
    let mut h = header(bytes);
    let n = h.sections as usize;
    let entries: Vec<Entry> = (0..n)
        .map(|k| bytemuck::pod_read_unaligned(&bytes[HEADER_BYTES + 64 * k..][..64]))
        .collect();
    h.settings_hash = settings_hash(|name| {
        entries
            .iter()
            .find(|e| e.name() == name)
            .map(|e| &bytes[e.offset as usize..(e.offset + e.len) as usize])
    });
    bytes[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    seal(bytes).unwrap();
}

/// Overwrite element `k` of an f64 (or u64) section.
type Spoil = Box<dyn Fn(&mut [u8])>;

fn set_f64(k: usize, v: f64) -> Spoil {
    Box::new(move |b: &mut [u8]| b[8 * k..8 * k + 8].copy_from_slice(&v.to_ne_bytes()))
}

/// Values no scenario could produce, in sections whose checksums (and settings digest)
/// are made right again: each refused by the content checks, naming the section and the
/// particle, slot or entry, and the problem.
#[test]
fn impossible_contents_with_valid_checksums_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    // (section, forgery, words the message must hold)
    let cases: Vec<(&str, Spoil, &[&str])> = vec![
        ("p.inv_mass", set_f64(3, -2.0), &["particle index 3", "inverse mass -2"]),
        (
            "p.inv_mass",
            set_f64(3, f64::INFINITY),
            &["particle index 3", "not finite"],
        ),
        (
            "p.id",
            Box::new(|b: &mut [u8]| {
                let first: [u8; 8] = b[..8].try_into().unwrap();
                b[40..48].copy_from_slice(&first);
            }),
            &["particle indices 0 and 5", "both have id"],
        ),
        ("scalars", set_f64(2, f64::NAN), &["simulated time NaN"]),
        ("scalars", set_f64(2, -1.0), &["simulated time -1"]),
        (
            "p.angle",
            set_f64(7, f64::NAN),
            &["particle index 7", "NaN is not finite"],
        ),
        (
            "p.omega",
            set_f64(2, f64::INFINITY),
            &["particle index 2", "inf is not finite"],
        ),
        (
            "p.vy",
            set_f64(9, f64::NEG_INFINITY),
            &["particle index 9", "not finite"],
        ),
        ("p.fx", set_f64(1, f64::NAN), &["particle index 1", "not finite"]),
        ("p.torque", set_f64(1, f64::NAN), &["particle index 1", "not finite"]),
        ("contact.xi", set_f64(0, f64::NAN), &["slot 0", "tangential spring NaN"]),
        (
            "wallc.xi",
            set_f64(0, f64::INFINITY),
            &["entry 0", "tangential spring inf"],
        ),
        ("wallc.area", set_f64(0, f64::NAN), &["entry 0", "overlap area NaN"]),
        (
            "gear.b.angle",
            set_f64(4, f64::NAN),
            &["particle index 4", "not finite"],
        ),
        (
            "p.inv_inertia",
            set_f64(6, -1.0),
            &["particle index 6", "inverse moment of inertia -1"],
        ),
        (
            "p.inv_inertia",
            Box::new(|b: &mut [u8]| {
                let v = f64::from_ne_bytes(b[48..56].try_into().unwrap());
                b[48..56].copy_from_slice(&(2.0 * v).to_ne_bytes())
            }),
            &["particle index 6", "its mass and shape give"],
        ),
        (
            "p.flags",
            Box::new(|b: &mut [u8]| b[2] = 0x40),
            &["particle index 2", "flags 0x40"],
        ),
        // Fixed, but with the mass of a free grain.
        (
            "p.flags",
            Box::new(|b: &mut [u8]| b[2] = 1),
            &[
                "section p.inv_mass: particle index 2",
                "fixed or driven with inverse mass",
            ],
        ),
        // The first polygon's body frame moved off its centroid (shrunk so that it still
        // fits its bounding radius and stays convex).
        (
            "shape.body",
            Box::new(|b: &mut [u8]| {
                let mut v: Vec<f64> = b
                    .chunks_exact(8)
                    .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                    .collect();
                v.iter_mut().for_each(|c| *c *= 0.5);
                v[0] += 1e-4;
                b.copy_from_slice(bytemuck::cast_slice(&v));
            }),
            &["particle index 0", "centroid at"],
        ),
        // Two corners of the first polygon swapped: concave (a bow tie) and not where
        // the body frame and pose put them.
        (
            "shape.world",
            Box::new(|b: &mut [u8]| {
                let (c0, c1): ([u8; 16], [u8; 16]) = (b[..16].try_into().unwrap(), b[16..32].try_into().unwrap());
                b[..16].copy_from_slice(&c1);
                b[16..32].copy_from_slice(&c0);
            }),
            &["particle index 0", "corner 0", "its shape and pose put it"],
        ),
        // Settings sections (the header's digest recomputed).
        ("materials", set_f64(5, -0.3), &["material 0", "mu = -0.3"]),
        ("materials", set_f64(0, f64::NAN), &["material 0", "density = NaN"]),
        ("walls", set_f64(0, f64::NAN), &["wall 0", "must be finite"]),
    ];
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    for (name, spoil, words) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "impossible.talus", &bad);
        // The forged section is named, unless the case names another one.
        if !words.iter().any(|w| w.starts_with("section ")) {
            assert!(msg.contains(&format!("section {name}:")), "{name}: {msg}");
        }
        for w in words {
            assert!(msg.contains(w), "{name}: {msg} lacks {w:?}");
        }
    }

    // The rotating drum's drives: a driven wall segment that lost its flag, a drive
    // spinning at an infinite rate.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    let mut sim = simulation(&text);
    sim.run(10).unwrap();
    let sub = dir.path().join("drum");
    let dpath = checkpoint(&sim, &sub, &text);
    let dgood = std::fs::read(&dpath).unwrap();
    let dck = Checkpoint::open(&dpath).unwrap();
    let dentry = |name: &str| *dck.entries.iter().find(|e| e.name() == name).unwrap();
    let first_driven = {
        let e = dentry("driven.index");
        u32::from_ne_bytes(dgood[e.offset as usize..][..4].try_into().unwrap()) as usize
    };
    let cases: Vec<(&str, Spoil, String)> = vec![
        (
            "drives",
            set_f64(4, f64::INFINITY),
            "section drives: drive 0".to_string(),
        ),
        ("driven.t0", set_f64(0, 1e9), "section driven.t0: entry 0".to_string()),
        (
            "driven.rel",
            set_f64(1, f64::NAN),
            "section driven.rel: entry 0".to_string(),
        ),
    ];
    for (name, spoil, words) in cases {
        let e = dentry(name);
        let mut bad = dgood.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "drum.talus", &bad);
        assert!(msg.contains(&words), "{name}: {msg}");
    }
    // The driven particle made free: its inverse mass stays 0.
    let e = dentry("p.flags");
    let mut bad = dgood.clone();
    bad[e.offset as usize + first_driven] = 0;
    reseal(&mut bad);
    let msg = refused(dir.path(), "drum.talus", &bad);
    assert!(
        msg.contains("section p.inv_mass") && msg.contains(&format!("particle index {first_driven}")),
        "{msg}"
    );
}

/// The alignment padding no checksum covers must be zero: a byte set in it (after the
/// table, between two sections, after the last) is refused, naming where it is.
#[test]
fn padding_bytes_must_be_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let mut ends: Vec<(u64, u64)> = ck.entries.iter().map(|e| (e.offset, e.offset + e.len)).collect();
    ends.sort();
    // The gaps: after the table, and after each section that does not end on the
    // alignment.
    let mut gaps = vec![(ck.header.table_end, ends[0].0)];
    gaps.extend(ends.windows(2).map(|w| (w[0].1, w[1].0)).filter(|g| g.1 > g.0));
    gaps.push((ends.last().unwrap().1, good.len() as u64));
    let gaps: Vec<(u64, u64)> = gaps.into_iter().filter(|g| g.1 > g.0).collect();
    assert!(gaps.len() >= 3, "the test file needs some padding: {gaps:?}");
    for (from, to) in [gaps[0], gaps[gaps.len() / 2], gaps[gaps.len() - 1]] {
        let at = (from + to) / 2;
        let mut bad = good.clone();
        bad[at as usize] = 0x5a;
        seal(&mut bad).unwrap();
        let msg = refused(dir.path(), "padding.talus", &bad);
        assert!(
            msg.contains(&format!("padding byte {at}")) && msg.contains("0x5a"),
            "byte {at}: {msg}"
        );
    }
    // Two sections sharing bytes: the second one's table entry pointed into the first.
    let mut bad = good.clone();
    let k = ck.entries.iter().position(|e| e.name() == "p.y").unwrap();
    let x = ck.entries.iter().find(|e| e.name() == "p.x").unwrap();
    let at = HEADER_BYTES + 64 * k + 40; // Entry::offset
    bad[at..at + 8].copy_from_slice(&x.offset.to_ne_bytes());
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "overlap.talus", &bad);
    assert!(msg.contains("overlaps"), "{msg}");
}

#[test]
fn the_newest_complete_checkpoint_is_found_among_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    // A temporary file of a killed writer and an unrelated file: ignored by the listing.
    // (pid 4294967 is above any pid_max: no such process)
    std::fs::write(dir.path().join(".checkpoint-4294967-0.tmp"), &good[..1000]).unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
    assert_eq!(list(dir.path(), "checkpoint").unwrap(), vec![path.clone()]);
    // The checkpointer clears leftovers of its own kind when it starts.
    let sim = Checkpoint::open(&path).unwrap().simulation().unwrap();
    let c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &sim).unwrap();
    c.finish().unwrap();
    assert!(!dir.path().join(".checkpoint-4294967-0.tmp").exists());
    assert!(dir.path().join("notes.txt").exists());
    assert!(Checkpoint::open(&path).unwrap().section("p.x").is_some());
}

/// The inputs the fuzzer (fuzz/) found that once made the reader or the first steps after
/// it panic, hang or run out of memory: a contact table that did not match the neighbour
/// search (a pair added twice), a stored box hundreds of metres long and a radius of
/// 100 m (the quadtree cut them into millions of tiles). Each must now be refused; none
/// may panic.
#[test]
fn fuzzer_findings_are_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut tested = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".py") || name.ends_with(".md") {
            continue;
        }
        // Unverified: the raw artifacts reached the engine without valid section CRCs.
        let result = Checkpoint::open_unverified(&path).and_then(|c| c.simulation());
        let msg = match result {
            Ok(mut sim) => panic!(
                "{name}: accepted ({} particles; 2 steps: {:?})",
                sim.len(),
                sim.run(2).err()
            ),
            Err(e) => e.to_string(),
        };
        println!("{name}: {msg}");
        // The hand-made ones: refused for what was done to them.
        let expected: &[&str] = if name.starts_with("contact-pair-not-in-broad-phase") {
            &["section broad.boxes", "section contact.i"]
        } else if name.starts_with("quadtree-huge-radius") {
            &["section p.radius"]
        } else if name.starts_with("quadtree-restore-long-box") {
            &["section broad.boxes"]
        } else if name.starts_with("quadtree-huge-domain") {
            &["section p.radius"]
        } else if name.starts_with("scalars-") {
            &["section scalars"]
        } else {
            &["checkpoint"]
        };
        assert!(expected.iter().any(|e| msg.contains(e)), "{name}: {msg}");
        tested += 1;
    }
    assert!(tested >= 6, "{tested} regression inputs");
}
