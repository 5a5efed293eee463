//! `[[stage]]` (issue 20, item 3): a run in stages, each ending at its steps or once
//! settled, each making its changes as it begins. Through `talus run` and `restart`: a
//! gate holds grains until the stage that takes it away, in 2D and 3D, and a restart from
//! a checkpoint at the stage boundary or before it gives the straight run's files byte
//! for byte. Through the io build and the stage plans: a drum rests until its stage and
//! turns exactly as its drive says from then on; a named box lid moves by its law from
//! its stage's start; gravity turns.
use std::path::Path;

#[path = "../common/mod.rs"]
mod common;
use common::{describe, run, text};

/// 60 discs (2D) or 60 spheres (3D) above a gate 2 cm over the floor of a box, settling
/// on it ("fill", until the kinetic energy is below 1e-6 J (3D: 3e-8 J), checked every
/// 1,000 steps),
/// then falling through once it is taken away ("open"); grains below 1 cm are taken out
/// every 100 steps. Checkpoints every 1,000 steps (so one falls on the boundary).
fn gate(dim: usize) -> String {
    let v = |xy: [f64; 2], z: f64| {
        if dim == 2 {
            format!("[{}, {}]", xy[0], xy[1])
        } else {
            format!("[{}, {}, {}]", xy[0], xy[1], z)
        }
    };
    // The last axis is up.
    let (lo, hi, gate_point, up) = if dim == 2 {
        (
            v([-0.001, -0.001], 0.0),
            v([0.021, 0.041], 0.0),
            v([0.0, 0.02], 0.0),
            v([0.0, 1.0], 0.0),
        )
    } else {
        (
            v([-0.001, -0.001], -0.001),
            v([0.011, 0.011], 0.041),
            v([0.0, 0.0], 0.02),
            v([0.0, 0.0], 1.0),
        )
    };
    let (bmin, bmax, pmin, pmax, omin, omax) = if dim == 2 {
        (
            v([0.0, 0.0], 0.0),
            v([0.02, 0.04], 0.0),
            v([0.0, 0.021], 0.0),
            v([0.02, 0.04], 0.0),
            v([0.0, 0.0], 0.0),
            v([0.02, 0.01], 0.0),
        )
    } else {
        (
            v([0.0, 0.0], 0.0),
            v([0.01, 0.01], 0.04),
            v([0.0, 0.0], 0.021),
            v([0.01, 0.01], 0.04),
            v([0.0, 0.0], 0.0),
            v([0.01, 0.01], 0.01),
        )
    };
    let gravity = if dim == 2 {
        v([0.0, -9.81], 0.0)
    } else {
        v([0.0, 0.0], -9.81)
    };
    let (kind, dimension) = if dim == 2 {
        ("line", "")
    } else {
        ("plane", "dimension = 3\n")
    };
    // Spheres are lighter than discs of a metre's depth: a softer spring keeps their time
    // step (and so the steps they take to fall) alike.
    let kn = if dim == 2 { "1.0e6" } else { "1.0e3" };
    // Settled, for these grains.
    let kinetic = if dim == 2 { "1e-6" } else { "3e-8" };
    format!(
        r#"{dimension}title = "a gate opened by a stage"
gravity = {gravity}
[domain]
min = {lo}
max = {hi}
[[material]]
name = "grain"
density = 2500.0
kn = {kn}
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = {bmin}
max = {bmax}
[[wall]]
name = "gate"
kind = "{kind}"
point = {gate_point}
normal = {up}
[[particles]]
material = "grain"
count = 60
radius = {{ kind = "uniform", mean = 0.8e-3, width = 0.3 }}
packing = "lattice"
region = {{ min = {pmin}, max = {pmax} }}
[[outflow]]
region = {{ min = {omin}, max = {omax} }}
every = 100
[[stage]]
name = "fill"
steps = 60000
until = {{ kinetic = {kinetic}, every = 1000 }}
[[stage]]
name = "open"
steps = 30000
remove = ["gate"]
[output]
every = 1000
vtk = false
dump = true
energy = true
[checkpoint]
every = 1000
keep = 1000
"#
    )
}

/// The step a stage began at, from the run's log.
fn began(log: &str, stage: &str) -> u64 {
    step_of(log, &format!("stage `{stage}` begins"))
}

/// The step of the log's first line that says `what` (`... step N: ...`).
fn step_of(log: &str, what: &str) -> u64 {
    let line = log
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no {what:?} in\n{log}"));
    line.split("step ")
        .nth(1)
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The grains are held by the gate while it stands (none out, the fill settles before
/// its 60,000 steps), and all fall out once it is gone; a restart from the boundary's
/// checkpoint, and from the one before, writes the straight run's files byte for byte.
fn gate_holds_until_its_stage(dim: usize) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), gate(dim)).unwrap();
    let out = run(&["run", "s.toml", "-q", "--out", "a"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let log = text(&out.stderr);
    let boundary = began(&log, "open");
    assert!(
        boundary > 1000 && boundary < 60000 && boundary.is_multiple_of(1000),
        "open at {boundary}"
    );
    assert!(
        log.contains("stage `open` begins: wall 4 removed") || log.contains("stage `open` begins: wall 6 removed"),
        "{log}"
    );
    let summary = text(&out.stdout);
    assert!(
        summary.contains(&format!("`fill`: steps 0 to {boundary}, settled: kinetic energy")),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("`open`: steps {boundary} to {}", boundary + 30000)),
        "{summary}"
    );
    let csv = std::fs::read_to_string(dir.path().join("a/outflow.csv")).unwrap();
    let mut out_before = 0;
    let mut out_all = 0;
    for row in csv.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let (step, removed): (u64, u64) = (cols[0].parse().unwrap(), cols[3].parse().unwrap());
        out_all += removed;
        if step <= boundary {
            out_before += removed;
        }
    }
    assert_eq!(out_before, 0, "grains got past the gate before it opened");
    assert_eq!(out_all, 60, "every grain falls out once the gate is gone");
    for from in [boundary, boundary - 1000] {
        let b = dir.path().join(format!("b{from}"));
        copy_dir(&dir.path().join("a"), &b);
        let ck = b.join(format!("checkpoints/checkpoint-{from:012}.talus"));
        let out = run(&["restart", ck.to_str().unwrap(), "--append", "-q"], dir.path());
        assert!(out.status.success(), "{}", describe(&out));
        for f in ["particles.dump", "energy.csv", "outflow.csv"] {
            let (x, y) = (dir.path().join("a").join(f), b.join(f));
            assert!(
                std::fs::read(&x).unwrap() == std::fs::read(&y).unwrap(),
                "{f} differs after a restart from step {from}"
            );
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_gate_holds_the_grains_until_its_stage_2d() {
    gate_holds_until_its_stage(2);
}

#[test]
fn a_gate_holds_the_grains_until_its_stage_3d() {
    gate_holds_until_its_stage(3);
}

/// A drum (2D) named by a stage rests until it: its segments do not move through the
/// first stage, and from the second one's start they turn about the centre exactly as
/// the drive says, omega (t - t_start). A box lid named by the second stage moves by its
/// table from that stage's start; gravity turns with it.
#[test]
fn a_drum_rests_until_its_stage_and_a_lid_moves_from_its_start() {
    let text = r#"
title = "drum and lid"
gravity = [0.0, -9.81]
[domain]
min = [0.0, 0.0]
max = [0.14, 0.14]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5
[[drum]]
name = "drum"
material = "grain"
centre = [0.07, 0.07]
radius = 0.05
thickness = 0.005
segments = 16
omega = 5.0
ramp = 0.01
[[wall]]
name = "lid"
kind = "line"
point = [0.0, 0.13]
normal = [0.0, -1.0]
[[particles]]
material = "grain"
count = 50
radius = { kind = "fixed", value = 1.5e-3 }
packing = "lattice"
region = { min = [0.05, 0.05], max = [0.09, 0.09] }
[[stage]]
name = "settle"
steps = 2000
[[stage]]
name = "turn"
steps = 3000
start = ["drum"]
gravity = [1.0, -9.81]
move = { lid = { table = [[0.0, 0.0], [0.01, 0.002]] } }
"#;
    let scenario = talus::io::scenario::parse_scenario(text, Path::new("drum.toml")).unwrap();
    let built = talus::io::build::build(&scenario, Path::new("drum.toml")).unwrap();
    let mut sim = built.sim;
    let stages = built.stages;
    assert_eq!(stages.len(), 2);
    let ps = &sim.particles;
    let segs: Vec<u64> = (0..ps.len())
        .filter(|&p| ps.is_wall_body(p))
        .map(|p| ps.id[p])
        .collect();
    assert_eq!(segs.len(), 16);
    let pose = |sim: &talus::engine::Simulation, id: u64| {
        let p = sim.particles.index_of(id).unwrap();
        let ps = &sim.particles;
        ([ps.pos[0][p], ps.pos[1][p]], ps.angle[p])
    };
    let start: Vec<_> = segs.iter().map(|&id| pose(&sim, id)).collect();
    stages[0].begin(&mut sim).unwrap();
    sim.run(stages[0].steps).unwrap();
    for (k, &id) in segs.iter().enumerate() {
        assert_eq!(pose(&sim, id), start[k], "segment {id} moved before its stage");
    }
    let t0 = sim.time;
    stages[1].begin(&mut sim).unwrap();
    assert_eq!(sim.config.gravity, [1.0, -9.81]);
    sim.run(stages[1].steps).unwrap();
    // The drive's angle, its speed rising linearly over the 0.01 s ramp.
    let s = sim.time - t0;
    let turned = 5.0 * if s < 0.01 { 0.5 * s * s / 0.01 } else { s - 0.005 };
    assert!(turned > 0.0);
    let (c, sn) = (turned.cos(), turned.sin());
    for (k, &id) in segs.iter().enumerate() {
        let ([x, y], a) = pose(&sim, id);
        let ([x0, y0], a0) = start[k];
        let (dx, dy) = (x0 - 0.07, y0 - 0.07);
        let (ex, ey) = (0.07 + c * dx - sn * dy, 0.07 + sn * dx + c * dy);
        assert!(
            (x - ex).abs() < 1e-12 && (y - ey).abs() < 1e-12,
            "segment {id} at ({x}, {y}), drive ({ex}, {ey})"
        );
        assert!((a - a0 - turned).abs() < 1e-12, "segment {id} angle {a}");
    }
    // The lid: wall 0 (the drum's ring is made of bodies), 2 mm down (along its normal)
    // over 10 ms from t0.
    let lid = sim.walls[0].point().unwrap()[1];
    let expect = 0.13 - 0.002 * (s / 0.01).min(1.0);
    assert!((lid - expect).abs() < 1e-15, "lid at {lid}, table {expect}");
}

/// A 3D drum (a cylinder wall) a stage starts is built still and turns at its omega from
/// that stage on.
#[test]
fn a_cylinder_drum_spins_from_its_stage() {
    let text = r#"
dimension = 3
title = "drum"
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.06, -0.06, -0.02]
max = [0.06, 0.06, 0.02]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5
[[wall]]
name = "drum"
kind = "cylinder"
point = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
radius = 0.05
omega = 4.0
[[particles]]
material = "grain"
count = 20
radius = { kind = "fixed", value = 2e-3 }
packing = "lattice"
region = { min = [-0.02, -0.02, -0.01], max = [0.02, 0.02, 0.01] }
[[stage]]
steps = 10
[[stage]]
steps = 10
start = ["drum"]
"#;
    let scenario = talus_io3d::scenario::parse_scenario(text, Path::new("drum.toml")).unwrap();
    let built = talus_io3d::build::build(&scenario, Path::new("drum.toml")).unwrap();
    let mut sim = built.sim;
    let spin = |sim: &talus::engine3d::Simulation| match &sim.walls[0].surface {
        talus::engine3d::walls::Surface::Cylinder(c) => c.spin,
        _ => panic!("not a cylinder"),
    };
    assert_eq!(spin(&sim), 0.0);
    built.stages[0].begin(&mut sim).unwrap();
    sim.run(10).unwrap();
    assert_eq!(spin(&sim), 0.0);
    built.stages[1].begin(&mut sim).unwrap();
    assert_eq!(spin(&sim), 4.0);
    assert_eq!(built.stages[1].name, "stage 2");
}

/// A small triaxial test (3D): a box's faces under a servo to 10 kPa, then a stage moves
/// its top down at 0.01 m/s and holds its floor by their face names. Through the shear
/// the floor stays where the stage found it, the top follows its law to 1e-12 m, the four
/// sides hold 10 kPa times their area within 5 %, and the top carries more than that (the
/// deviator).
#[test]
fn a_triaxial_stage_moves_one_face_and_keeps_the_others_stress() {
    let text = small_triaxial("");
    let scenario = talus_io3d::scenario::parse_scenario(&text, Path::new("t.toml")).unwrap();
    let built = talus_io3d::build::build(&scenario, Path::new("t.toml")).unwrap();
    let (mut sim, stages) = (built.sim, built.stages);
    stages[0].begin(&mut sim).unwrap();
    sim.run(stages[0].steps).unwrap();
    let z = |sim: &talus::engine3d::Simulation, w: usize| sim.walls[w].point().unwrap()[2];
    let (floor, top, t0) = (z(&sim, 0), z(&sim, 5), sim.time);
    stages[1].begin(&mut sim).unwrap();
    assert_eq!(sim.wall_servos().len(), 4, "the sides keep their servos");
    sim.run(stages[1].steps).unwrap();
    assert_eq!(z(&sim, 0), floor, "the floor holds");
    let want = top - 0.01 * (sim.time - t0);
    assert!(
        (z(&sim, 5) - want).abs() < 1e-12,
        "top at {}, its law {want}",
        z(&sim, 5)
    );
    for sv in sim.wall_servos() {
        let target = 1.0e4 * sv.extent(&sim.walls);
        assert!(
            (sv.load / target - 1.0).abs() < 0.05,
            "side {}: {} N against {target} N",
            sv.wall,
            sv.load
        );
    }
    // The top's load: the contacts' forces on wall 5, from an analysis of the last step.
    sim.log_next_run();
    sim.run(1).unwrap();
    let a = sim.analyse(None).unwrap();
    let area =
        |w: [usize; 2], axis: usize| sim.walls[w[1]].point().unwrap()[axis] - sim.walls[w[0]].point().unwrap()[axis];
    let sigma1 = a.wall_forces[5][2] / (area([1, 2], 0) * area([3, 4], 1));
    assert!(sigma1 > 1.2e4, "the top carries {sigma1} Pa: no deviator");
}

/// The small triaxial test of the test above, its consolidation ended by `until` (a line,
/// or nothing).
fn small_triaxial(until: &str) -> String {
    format!(
        r#"
dimension = 3
title = "small triaxial"
gravity = [0.0, 0.0, 0.0]
[domain]
min = [-0.001, -0.001, -0.001]
max = [0.007, 0.007, 0.007]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e3
restitution = 0.3
friction = 0.5
[[material]]
name = "face"
density = 2500.0
kn = 1.0e3
restitution = 0.3
friction = 0.0
[[wall]]
name = "cell"
kind = "box"
material = "face"
min = [0.0, 0.0, 0.0]
max = [0.006, 0.006, 0.006]
move = {{ servo = {{ stress = 1.0e4, gain = 0.5, max_speed = 0.05 }} }}
[[particles]]
material = "grain"
count = 100
radius = {{ kind = "uniform", mean = 0.5e-3, width = 0.2 }}
packing = "random"
region = {{ min = [0.0, 0.0, 0.0], max = [0.006, 0.006, 0.006] }}
[[stage]]
name = "consolidate"
steps = 25000
{until}
[[stage]]
name = "shear"
steps = 20000
hold = ["cell.floor"]
move = {{ "cell.top" = {{ velocity = 0.01 }} }}
"#
    )
}

/// `until = { servo }` ends a stage once every servo holds its target to that fraction:
/// the consolidation of the small triaxial test ends before its 25,000 steps, and the
/// log says how close the loads were.
#[test]
fn a_stage_ends_once_its_servos_hold() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.toml"),
        small_triaxial("until = { servo = 0.01, every = 1000 }"),
    )
    .unwrap();
    let out = run(&["run", "t.toml", "-q", "--no-output"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let log = text(&out.stderr);
    let at = began(&log, "shear");
    assert!(at < 25000, "the consolidation ran all its steps: {log}");
    assert!(log.contains("servo loads within"), "{log}");
}

/// `until = { servo }` waits for a cell servo too: 100 discs on a loose lattice in a
/// periodic cell that a servo closes until they carry 200 N/m across y. The run stops once
/// the last measured stress is within 2 % of it: not at the first checks (the cell is
/// still closing on grains that do not touch), and well before its 50,000 steps.
#[test]
fn a_run_ends_once_its_cell_servo_holds() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = r#"
title = "until a cell servo holds"
seed = 2
[domain]
min = [0.0, 0.0]
max = [0.012, 0.012]
periodic = ["x", "y"]
servo = { stress = 200.0, gain = 2.0e-2, max_speed = 0.05 }
[[material]]
name = "g"
density = 2500.0
kn = 1.0e4
restitution = 0.3
friction = 0.5
[[particles]]
material = "g"
count = 100
radius = { kind = "uniform", mean = 0.5e-3, width = 0.1 }
packing = "lattice"
region = { min = [0.0, 0.0], max = [0.012, 0.012] }
[run]
steps = 50000
until = { servo = 0.02, every = 200 }
"#;
    std::fs::write(dir.path().join("c.toml"), scenario).unwrap();
    let out = run(&["run", "c.toml", "--no-output"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let log = text(&out.stderr);
    let at = step_of(&log, "settled at step");
    assert!((2_000..50_000).contains(&at), "settled at step {at}: {log}");
    assert!(log.contains("servo loads within"), "{log}");
}
