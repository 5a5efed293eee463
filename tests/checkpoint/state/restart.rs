//! Exact restart: discs, polygons, every neighbour method, a drum, the worker pool.
use super::*;

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

#[test]
fn rotating_drum_restarts_bitwise() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    check_restart(|| simulation(&text), 400, &text, "drum");
}

/// The drum rocked by a sine (`turn`) and a small plate outside it slid and turned by
/// laws of time (section "drives.laws").
pub(super) fn rocking_drum() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    let rocking = text.replace(
        "omega = 5.0             # rad/s, counter-clockwise",
        "turn = { sine = { amplitude = 0.6, frequency = 2.0 } }",
    );
    assert_ne!(rocking, text, "drum.toml's omega line changed");
    format!(
        "{rocking}\n[[body]]\nmaterial = \"steel\"\nvertices = [[0.130, 0.006], [0.134, 0.006], [0.134, 0.010], \
         [0.130, 0.010]]\nmotion = \"driven\"\ndrive = {{ centre = [0.132, 0.008], start = 0.0005, slide = {{ \
         direction = [0.0, 1.0], sine = {{ amplitude = 1e-3, frequency = 20.0 }} }}, turn = {{ velocity = 3.0 }} }}\n"
    )
}

#[test]
fn drives_by_laws_restart_bitwise() {
    let text = rocking_drum();
    check_restart(|| simulation(&text), 400, &text, "rocking drum");
}

/// Polygons with cohesion (their contacts pulled along the contact line) and the box's
/// walls: bitwise.
#[test]
fn cohesive_polygons_restart_bitwise() {
    let text = scenario(true, false, 300).replacen("friction = 0.5\n", "friction = 0.5\ncohesion = 30.0\n", 1);
    assert!(text.contains("cohesion = 30.0"));
    let (straight, _) = check_restart(|| simulation(&text), 400, &text, "cohesive polygons");
    assert_eq!(straight.pair_table().extras(0, 0).cohesion, 30.0);
    assert!(straight.narrow.touching > 0, "no polygon touched another");
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
