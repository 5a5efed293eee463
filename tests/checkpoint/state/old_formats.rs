//! Checkpoints of earlier formats still load.
use super::*;

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
/// the same simulation as the current version's file of the same state (2D: the far pairs
/// and apart pairs of versions 3 and 4 are 3D only), and runs on the same.
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
    assert_eq!(h.version, 5);
    h.version = 1;
    h.settings_hash = fnv1a(&digested);
    old[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    seal(&mut old).unwrap();
    let file = dir.path().join("v1.talus");
    std::fs::write(&file, &old).unwrap();
    let mut from_v1 = Checkpoint::open(&file)
        .and_then(|c| c.simulation())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut from_v4 = ck.simulation().unwrap();
    assert!(from_v1.insertions().is_empty());
    assert_same_state(&from_v4, &from_v1, "format 1 against 4");
    from_v1.run(300).unwrap();
    from_v4.run(300).unwrap();
    assert_same_state(&from_v4, &from_v1, "format 1 against 4, run on");
}
