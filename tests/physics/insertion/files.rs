//! `[[insert]]` in scenario files and through the `talus` program: bad sections named,
//! the shipped drum pour, run and restart --append.
use super::*;

#[test]
fn bad_insert_sections_are_refused_with_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let base = timing_scenario();
    for (from, to, key) in [
        ("rate = 16384.0", "rate = -3.0", "insert[0].rate: must be > 0"),
        (
            "max = [0.1, 0.1] }",
            "max = [0.1, 0.2] }",
            "insert[0].region: must lie inside the domain",
        ),
        ("total = 20\n", "", "one of `total` (particles in all) or `stop`"),
        (
            "rate = 16384.0\n",
            "",
            "one of `rate` (particles per second) or `per_insert`",
        ),
        (
            "stop = 0.001220703125",
            "stop = 0.0001",
            "insert[1].stop: must be later than start",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let t = base.replacen(from, to, 1);
        std::fs::write(dir.path().join("bad.toml"), &t).unwrap();
        let out = run(&["run", "bad.toml", "--no-output", "-q"], dir.path());
        let se = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{se}");
        assert!(se.contains(key), "{key:?} not in {se}");
        assert!(se.contains("bad.toml:"), "{se}");
    }
    // What only the time step decides: a start and a stop within one step (79.25 dt and
    // 79.75 dt: both at step 80).
    let t = base
        .replacen("start = 0.0006103515625", "start = 0.0006046295166015625", 1)
        .replacen("stop = 0.001220703125", "stop = 0.0006084442138671875", 1);
    let sc = parse_scenario(&t, Path::new("t.toml")).unwrap();
    let e = build(&sc, Path::new("t.toml")).err().expect("refused").to_string();
    assert!(e.contains("insert[1]") && e.contains("after the start"), "{e}");
}

/// The shipped scenario's first 0.07 s: the discs come at the rate asked for (spread over
/// insertions about one particle apart), the polygons 5 at a time, all inside the drum.
#[test]
fn the_shipped_drum_pour_pours() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("scenarios/drum_pour.toml");
    let mut sim = talus::io::build::build_file(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .sim;
    sim.run(30_000).unwrap();
    let ins = sim.insertions();
    let dt = sim.config.dt;
    let disc = &ins[0];
    let scheduled: u64 = (0..disc.counts.events).map(|k| disc.spec.scheduled(k, dt)).sum();
    assert_eq!(disc.counts.inserted, scheduled, "no shortfall");
    let poured = 1000.0 * sim.time;
    assert!(
        (disc.counts.inserted as f64 - poured).abs() <= 2.0,
        "{} discs in {} s at 1000 /s",
        disc.counts.inserted,
        sim.time
    );
    assert_eq!(ins[1].counts.inserted, 5 * ins[1].counts.events);
    let ps = &sim.particles;
    let mut types: HashMap<u16, usize> = HashMap::new();
    for p in 0..sim.len() {
        *types.entry(ps.ptype[p]).or_default() += 1;
        if ps.flags[p] == 0 {
            let d = (ps.pos[0][p] - 0.07).hypot(ps.pos[1][p] - 0.07);
            assert!(
                d + ps.radius[p] < 0.0505,
                "id {} at {d} from the drum's centre",
                ps.id[p]
            );
        }
    }
    assert_eq!(
        types[&2],
        64 + ins[1].counts.inserted as usize,
        "drum segments and polygons"
    );
}

/// `talus run` straight, against `talus run` to a checkpoint and `talus restart --append`:
/// the same output files, byte for byte, through the pouring.
#[test]
fn run_and_restart_append_give_the_uninterrupted_files() {
    let dir = tempfile::tempdir().unwrap();
    let t = crowded_scenario(5, "verlet").replace(OUTPUT_OFF, "[output]\nevery = 100\nvtk = false\n");
    std::fs::write(dir.path().join("pour.toml"), &t).unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, dir.path());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        text(&out.stdout)
    };
    let summary = ok(&["run", "pour.toml", "--steps", "900", "--out", "a", "-q"]);
    assert!(summary.contains("inserted            insert[0]: "), "{summary}");
    ok(&[
        "run",
        "pour.toml",
        "--steps",
        "500",
        "--out",
        "b",
        "--checkpoint-every",
        "500",
        "-q",
    ]);
    ok(&["restart", "b", "--steps", "400", "--append", "-q"]);
    for f in ["particles.dump", "energy.csv"] {
        let (a, b) = (
            std::fs::read(dir.path().join("a").join(f)).unwrap(),
            std::fs::read(dir.path().join("b").join(f)).unwrap(),
        );
        assert!(a == b, "{f} differs after the restart");
    }
}
