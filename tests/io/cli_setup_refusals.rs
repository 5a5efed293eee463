//! Bad input found at set-up: refused (or warned about) before anything runs or is
//! written (a module of the `cli` tests, sharing their scenarios and helpers).
use super::*;

/// Run `talus` with `args` in `cwd`, which must refuse (exit status 1): its stderr.
fn refused(args: &[&str], cwd: &Path) -> String {
    let out = run(args, cwd);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    text(&out.stderr)
}

/// Particles that start behind a wall or outside the domain explode the bed at the first
/// step (a region reaching through the floor: kinetic energy of 98 J where the bed holds
/// 3e-4 J). They are refused, naming the `[[particles]]` entry, how many, and one of them;
/// nothing is written. A settled contact's overlap (a region that reaches a little into the
/// floor) is accepted.
#[test]
fn particles_behind_walls_or_outside_the_domain_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let through = SMALL.replace(
        "region = { min = [0.0, 0.0], max",
        "region = { min = [-0.004, -0.004], max",
    );
    std::fs::write(d.join("through.toml"), &through).unwrap();
    let err = refused(&["run", "-q", "through.toml"], d);
    for says in [
        "through.toml: particles[0] (source = \"generate\", region [-0.004, -0.004]..[0.04, 0.055]): ",
        " of its 200 particles start behind or inside a wall or reach into one by more than 10 % of their \
         radius, e.g. particle id 1 at (",
        "m behind wall[0] (box, ",
    ] {
        assert!(err.contains(says) && !err.contains("panicked"), "{says:?} not in {err}");
    }
    assert!(!d.join("out").exists(), "output written for a refused scenario");

    let touching = SMALL.replace(
        "region = { min = [0.0, 0.0], max",
        "region = { min = [0.0, -0.0001], max",
    );
    std::fs::write(d.join("touching.toml"), &touching).unwrap();
    let out = run(&["run", "-q", "touching.toml", "--steps", "5", "--no-output"], d);
    assert!(out.status.success(), "{}", describe(&out));

    // A data file's atom beyond the domain.
    std::fs::write(
        d.join("far.data"),
        "far\n\n3 atoms\n\nAtoms # sphere\n\n1 1 0.002 2500 0.005 0.005 0\n\
         2 1 0.002 2500 0.01 0.005 0\n3 1 0.002 2500 0.03 0.005 0\n",
    )
    .unwrap();
    std::fs::write(d.join("far.toml"), lammps_scenario("far.data", 1.0)).unwrap();
    let err = refused(&["run", "-q", "far.toml"], d);
    assert!(
        err.contains(
            "far.toml: particles[0] (data file far.data): 1 of its 3 particles start outside the domain \
             [0.0, 0.0]..[0.02, 0.02], e.g. particle id 3 at (0.03, 0.005) with radius 0.001"
        ),
        "{err}"
    );
}

/// A scenario of discs from the data file `file` in a 2 cm square domain, no walls, no
/// gravity, stiffness `kn`; 100 steps with energy rows every 10.
fn lammps_scenario(file: &str, kn: f64) -> String {
    format!(
        r#"title = "cli test: discs from a data file"
[domain]
min = [0.0, 0.0]
max = [0.02, 0.02]
[[material]]
name = "m"
density = 2500.0
kn = {kn:e}
restitution = 0.9
friction = 0.5
[[particles]]
material = "m"
source = "lammps"
file = "{file}"
[run]
steps = 100
[output]
every = 10
dir = "out"
vtk = false
dump = false
"#
    )
}

/// Coincident particles (two atoms of a data file at one x, y; two sources filling one
/// region) used to get no force and stay together: set-up warns with how many and a
/// pair (ids, centres, sources), as it does for deep overlaps, and the run pushes them
/// apart. A Velocities section for some atoms only is refused at its line.
#[test]
fn coincident_and_deep_overlaps_are_warned_about_and_pushed_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let atoms = "1 1 0.002 2500 0.008 0.005 0\n2 1 0.002 2500 0.008 0.005 0\n\
                 3 1 0.002 2500 0.014 0.015 0\n4 1 0.002 2500 0.0155 0.015 0\n";
    std::fs::write(
        d.join("twice.data"),
        format!("twice\n\n4 atoms\n\nAtoms # sphere\n\n{atoms}"),
    )
    .unwrap();
    std::fs::write(d.join("twice.toml"), lammps_scenario("twice.data", 1.0)).unwrap();
    let out = run(&["run", "-q", "twice.toml"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    for says in [
        "talus: warning: 1 pair of particles start at the same centre, e.g. ids 1 at (0.008, 0.005), \
         particles[0] (data file twice.data) and 2 at (0.008, 0.005), particles[0] (data file twice.data)",
        "talus: warning: 1 pair of particles start overlapping by more than 10 % of the smaller radius, \
         the deepest 50 % (5.000e-4 m): ids 3 at (0.014, 0.015)",
    ] {
        assert!(err.contains(says), "{says:?} not in {err}");
    }
    // Nothing moves at first (no gravity, no velocities); the overlaps push the pairs apart.
    let rows = energy_rows(&d.join("out/energy.csv"));
    assert_eq!(rows[0][2], 0.0);
    assert!(rows.last().unwrap()[2] > 0.0, "nothing moved: {rows:?}");

    // Only the coincident pair: still pushed apart (the deep pair alone would move too).
    let pair = "1 1 0.002 2500 0.008 0.005 0\n2 1 0.002 2500 0.008 0.005 0\n";
    std::fs::write(
        d.join("pair.data"),
        format!("pair\n\n2 atoms\n\nAtoms # sphere\n\n{pair}"),
    )
    .unwrap();
    std::fs::write(d.join("pair.toml"), lammps_scenario("pair.data", 1.0)).unwrap();
    let out = run(&["run", "-q", "pair.toml", "--out", "pair"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let rows = energy_rows(&d.join("pair/energy.csv"));
    assert!(
        rows.last().unwrap()[2] > 0.0,
        "the coincident pair stayed together: {rows:?}"
    );

    // Two sources filling one region: every disc has a twin.
    let src = &SMALL[SMALL.find("[[particles]]").unwrap()..SMALL.find("[run]").unwrap()];
    let twins = SMALL.replace("[run]", &format!("{src}[run]"));
    std::fs::write(d.join("twins.toml"), &twins).unwrap();
    let out = run(&["run", "-q", "twins.toml", "--steps", "1", "--no-output"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains("talus: warning: 200 pairs of particles start at the same centre, e.g. ids 1 at (")
            && err.contains("particles[0] (source = \"generate\"")
            && err.contains("and 201 at (")
            && err.contains("particles[1] (source = \"generate\""),
        "{err}"
    );

    // Velocities for some atoms only.
    std::fs::write(
        d.join("some.data"),
        format!("some\n\n4 atoms\n\nAtoms # sphere\n\n{atoms}\nVelocities\n\n2 0.1 0 0 0 0 0\n"),
    )
    .unwrap();
    std::fs::write(d.join("some.toml"), lammps_scenario("some.data", 1.0)).unwrap();
    let err = refused(&["run", "-q", "some.toml", "--out", "some"], d);
    assert!(
        err.contains("some.data:12: the Velocities section gives 1 of the 4 atoms a velocity: 3 atoms have none, e.g. atom 1 (line 7)"),
        "{err}"
    );
    assert!(!d.join("some").exists());
}

/// A count the machine cannot hold used to abort the process (SIGABRT) when the generator
/// allocated it: it is refused up front with the memory it needs and what there is, and
/// one the engine cannot index at all, whatever the memory.
#[test]
fn huge_counts_are_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 10^9 discs fit the lattice of a 115 m box (33,000 a row, 38,000 rows).
    let big = |count: &str| {
        SMALL
            .replace("count = 200", &format!("count = {count}"))
            .replace("max = [0.045, 0.06]", "max = [120.0, 120.0]")
            .replace("max = [0.04, 0.055]", "max = [115.0, 115.0]")
    };
    let need = 1e9 * talus::io::preflight::Footprint::of(0, false).total() as f64;
    match talus::io::preflight::available_memory() {
        Some((have, _)) if (have as f64) < need => {
            std::fs::write(d.join("big.toml"), big("1000000000")).unwrap();
            let err = refused(&["run", "-q", "big.toml"], d);
            assert!(
                err.contains("big.toml: particles[0] (count = 1000000000): 1000000000 particles would need about ")
                    && err.contains(" bytes per particle: 109 in the particle store, ")
                    && err.contains(" in the contact table at about 4 candidate pairs per particle")
                    && err.contains("but this machine has ")
                    && err.contains(" GiB available ("),
                "{err}"
            );
        }
        other => println!("this machine has {other:?} bytes available, enough for 10^9 discs: not tried"),
    }
    std::fs::write(d.join("huge.toml"), big("10000000000")).unwrap();
    let err = refused(&["run", "-q", "huge.toml"], d);
    assert!(
        err.contains("particles[0] (count = 10000000000): 10000000000 particles are more than talus can hold: at most 2147483647"),
        "{err}"
    );
    assert!(!d.join("out").exists());
    // A pouring stream's total counts too: the store must hold it all by the end.
    let poured = SMALL.replace(
        "[run]",
        "[[insert]]\nmaterial = \"glass\"\nregion = { min = [0.0, 0.04], max = [0.04, 0.055] }\n\
         radius = { kind = \"fixed\", value = 1.0e-3 }\nrate = 1000.0\ntotal = 10000000000\n\n[run]",
    );
    std::fs::write(d.join("poured.toml"), poured).unwrap();
    let err = refused(&["run", "-q", "poured.toml"], d);
    assert!(
        err.contains("[[insert]] totals: 10000000000)")
            && err.contains("particles are more than talus can hold: at most 2147483647"),
        "{err}"
    );
    assert!(!d.join("out").exists());
}

/// A time step that is a large part of the contact duration, or so small that a second
/// takes 10^12 steps and more, runs (it is valid) with a warning giving the numbers.
#[test]
fn odd_time_steps_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let coarse = format!("{SMALL}[integrator]\nscheme = \"verlet\"\ndt = 5.0e-5\n");
    std::fs::write(d.join("coarse.toml"), coarse).unwrap();
    let out = run(&["run", "-q", "coarse.toml", "--steps", "3", "--no-output"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "talus: warning: dt = 5.0000e-5 s is a large fraction of a contact: the shortest contact lasts t_c = "
        ) && err.contains("steps per contact; DEM practice, as in LAMMPS and LIGGGHTS, is 10 to 50 or more")
            && err.contains("2.000e4 steps per simulated second. dt_fraction = 50 gives dt = "),
        "{err}"
    );
    let stiff = SMALL.replace("kn = 1.0e6", "kn = 1.0e30");
    std::fs::write(d.join("stiff.toml"), stiff).unwrap();
    let out = run(&["run", "-q", "stiff.toml", "--steps", "2", "--no-output"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains("talus: warning: dt = ") && err.contains(" s is tiny: ") && err.contains("300 steps simulate "),
        "{err}"
    );
    // The default dt (t_c / 50) says nothing.
    std::fs::write(d.join("small.toml"), SMALL).unwrap();
    let out = run(&["run", "-q", "small.toml", "--steps", "2", "--no-output"], d);
    assert!(
        out.status.success() && !text(&out.stderr).contains("warning"),
        "{}",
        describe(&out)
    );
}
