//! The `talus` program on 3D scenarios (`dimension = 3`), run as a separate process: the
//! build is picked by the file, the output is 3D (VTU points, the LAMMPS dump's x y z
//! columns), checkpoints restart bit for bit with the 3D build and are refused by the 2D
//! one's readers only where they are of the other dimension.
#[path = "../common/mod.rs"]
mod common;
use std::path::Path;

use common::{describe, run, text};

/// 300 spheres on a lattice in a turning drum (a cylinder about z) with a floor, falling
/// under gravity; 300 steps, output every 100, checkpoints every 100 into `out`.
const SMALL: &str = r#"dimension = 3
title = "cli test: 300 spheres in a drum"
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.02, -0.02, -0.002]
max = [0.02, 0.02, 0.04]
[[material]]
name = "glass"
density = 2500.0
kn = 200.0
restitution = 0.5
friction = 0.5
[[wall]]
kind = "cylinder"
point = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 1.0]
radius = 0.015
omega = 5.0
[[wall]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[particles]]
material = "glass"
count = 300
radius = { kind = "uniform", mean = 1.0e-3, width = 0.1 }
packing = "lattice"
region = { min = [-0.009, -0.009, 0.0], max = [0.009, 0.009, 0.03] }
[run]
steps = 300
[output]
every = 100
dir = "out"
[checkpoint]
every = 100
"#;

#[test]
fn a_3d_scenario_runs_writes_3d_output_and_restarts_exactly() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("drum.toml"), SMALL).unwrap();
    let out = run(&["run", "-q", "drum.toml"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let particles = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("particles "))
        .unwrap();
    assert_eq!(particles.split_whitespace().last(), Some("300"), "{stdout}");
    assert!(stdout.contains("by sweep ("), "{stdout}");

    let o = dir.path().join("out");
    for s in [0, 100, 200, 300] {
        let vtu = std::fs::read(o.join(format!("particles_{s:08}.vtu"))).unwrap();
        let head = text(&vtu[..vtu.len().min(2000)]);
        assert!(head.contains("NumberOfPoints=\"300\""), "{head}");
        assert!(head.contains("Name=\"diameter\""), "{head}");
    }
    assert!(o.join("walls.pvd").exists());
    let dump = std::fs::read_to_string(o.join("particles.dump")).unwrap();
    assert!(
        dump.contains("ITEM: ATOMS id type x y z vx vy vz fx fy fz omegax omegay omegaz radius"),
        "{}",
        &dump[..300]
    );
    assert_eq!(dump.matches("ITEM: TIMESTEP").count(), 4);
    // The spheres stay in the drum and above the floor: every z of the last snapshot is
    // positive and every point within the radius.
    let last = dump.rsplit("ITEM: ATOMS").next().unwrap();
    for row in last.lines().skip(1) {
        let f: Vec<f64> = row.split_whitespace().map(|x| x.parse().unwrap()).collect();
        assert!(f[2].hypot(f[3]) < 0.015 && f[4] > 0.0, "{row}");
    }

    // inspect says the dimension; restart --append from step 100 gives the files of the
    // uninterrupted run byte for byte.
    let ck = o.join("checkpoints/checkpoint-000000000100.talus");
    let out = run(&["inspect", ck.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    assert!(text(&out.stdout).contains("dimension 3"), "{}", describe(&out));
    let before: Vec<Vec<u8>> = ["particles.dump", "energy.csv", "particles_00000300.vtu"]
        .iter()
        .map(|f| std::fs::read(o.join(f)).unwrap())
        .collect();
    let out = run(&["restart", "-q", "--append", ck.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    for (f, b) in ["particles.dump", "energy.csv", "particles_00000300.vtu"]
        .iter()
        .zip(&before)
    {
        assert!(
            std::fs::read(o.join(f)).unwrap() == *b,
            "{f} differs after restart --append"
        );
    }
}

#[test]
fn neighbour_methods_of_the_3d_build_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("drum.toml"), SMALL).unwrap();
    let out = run(
        &[
            "run",
            "drum.toml",
            "--steps",
            "100",
            "--no-output",
            "-q",
            "--neighbor",
            "auto",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    let line = err.lines().find(|l| l.contains("neighbour search auto")).unwrap();
    for m in ["sweep ", "cells ", "verlet "] {
        assert!(line.contains(m), "{line}");
    }
    let out = run(
        &[
            "run",
            "drum.toml",
            "--steps",
            "20",
            "-q",
            "--no-output",
            "--neighbor",
            "brute",
        ],
        dir.path(),
    );
    assert!(
        out.status.success() && text(&out.stdout).contains("by brute ("),
        "{}",
        describe(&out)
    );
    let out = run(
        &[
            "run",
            "drum.toml",
            "--steps",
            "20",
            "--no-output",
            "--neighbor",
            "hashing",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("hashing"), "{}", describe(&out));
}

#[test]
fn a_3d_scenario_with_2d_vectors_is_refused_by_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = SMALL.replace("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81]");
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let out = run(&["run", "bad.toml"], dir.path());
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.toml:3:") && err.contains("gravity") && err.contains("[x, y, z]"),
        "{err}"
    );
    // No output folder was made.
    assert!(!Path::new(&dir.path().join("out")).exists());
}

/// `talus scale` on the 3D build: the S3D bed of spheres and a 3D scenario file.
#[test]
fn scale_sweeps_3d_beds_and_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let base = root.join("data/s3d_base.data");
    let quick = [
        "--threads",
        "1",
        "--strategies",
        "deterministic,mutex",
        "--steps",
        "5",
        "--warmup",
        "2",
        "--repeats",
        "1",
    ];
    let mut args = vec![
        "scale",
        "--bed",
        "spheres",
        "--n",
        "5832",
        "--base",
        base.to_str().unwrap(),
        "--out",
        "s",
    ];
    args.extend(quick);
    let out = run(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("LAMMPS S3D bed of spheres tiled to 5832") && stdout.contains("N = 5832"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(dir.path().join("s/scale.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3, "{csv}");

    std::fs::write(dir.path().join("drum.toml"), SMALL).unwrap();
    let mut args = vec!["scale", "drum.toml", "--out", "d"];
    args.extend(quick);
    let out = run(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        text(&out.stdout).contains("cli test: 300 spheres in a drum"),
        "{}",
        describe(&out)
    );
    let mut args = vec![
        "scale",
        "--bed",
        "spheres",
        "--n",
        "1000",
        "--base",
        base.to_str().unwrap(),
    ];
    args.extend(quick);
    let out = run(&args, dir.path());
    assert!(
        !out.status.success() && text(&out.stderr).contains("not a multiple of the base bed (5832)"),
        "{}",
        describe(&out)
    );
}

/// `talus neighbors --experiments muth3d`: the 3D build's searches on the same spheres
/// find the same pairs (the octree named as such; the 2D-only hashing left out).
#[test]
fn neighbors_muth3d_series_methods_agree() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "neighbors",
        "--experiments",
        "muth3d",
        "--sizes",
        "500,2000",
        "--methods",
        "sweep,quadtree,cells,verlet,brute,hashing",
        "--steps",
        "3",
        "--repeats",
        "1",
        "--out",
        "nb",
    ];
    let out = run(&args, dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let csv = std::fs::read_to_string(dir.path().join("nb/muth3d.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "{csv}");
    for n in ["500", "2000"] {
        let of_n: Vec<&Vec<&str>> = rows.iter().filter(|r| r[3] == n).collect();
        let methods: Vec<&str> = of_n.iter().map(|r| r[1]).collect();
        assert_eq!(methods, ["sweep", "octree", "cells", "verlet", "brute"], "{csv}");
        assert!(
            of_n.iter().all(|r| r[6] == of_n[0][6]),
            "pairs per particle differ: {csv}"
        );
    }
    assert!(dir.path().join("nb/muth3d.png").exists());
}

/// 150 spheres poured into an open box of planes (2 cm square, floor at z = 0) from a
/// region in its upper part, then left to fall and settle.
const POUR: &str = r#"dimension = 3
title = "cli test: 150 spheres poured into a box"
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.011, -0.011, -0.001]
max = [0.011, 0.011, 0.04]
[[material]]
name = "glass"
density = 2500.0
kn = 200.0
restitution = 0.5
friction = 0.5
[[wall]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[wall]]
kind = "plane"
point = [-0.01, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
[[wall]]
kind = "plane"
point = [0.01, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
[[wall]]
kind = "plane"
point = [0.0, -0.01, 0.0]
normal = [0.0, 1.0, 0.0]
[[wall]]
kind = "plane"
point = [0.0, 0.01, 0.0]
normal = [0.0, -1.0, 0.0]
[[insert]]
material = "glass"
region = { min = [-0.0095, -0.0095, 0.02], max = [0.0095, 0.0095, 0.035] }
radius = { kind = "uniform", mean = 1.0e-3, width = 0.15 }
velocity = [0.0, 0.0, -0.5]
velocity_jitter = 0.1
rate = 20000.0
total = 150
every = 20
[run]
steps = 40000
[output]
every = 20000
dir = "out"
"#;

#[test]
fn spheres_poured_into_a_box_stay_in_it_apart() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pour.toml"), POUR).unwrap();
    let out = run(&["run", "-q", "pour.toml"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("inserted "))
        .unwrap_or_else(|| panic!("no insertion line: {stdout}"));
    assert!(
        line.contains("insert[0]: 150 particles of 150 requested in ") && line.ends_with("(done)"),
        "{line}"
    );
    assert!(!text(&out.stderr).contains("warning"), "{}", describe(&out));
    let dump = std::fs::read_to_string(dir.path().join("out/particles.dump")).unwrap();
    let last = dump.rsplit("ITEM: ATOMS").next().unwrap();
    // id type x y z vx vy vz fx fy fz omegax omegay omegaz radius
    let rows: Vec<Vec<f64>> = last
        .lines()
        .skip(1)
        .map(|row| row.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 150, "the stream's total");
    let mut ids: Vec<u64> = rows.iter().map(|f| f[0] as u64).collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=150).collect::<Vec<u64>>());
    for f in &rows {
        let (x, r) = ([f[2], f[3], f[4]], f[14]);
        let slack = 0.05 * r;
        assert!(
            x[0].abs() + r < 0.01 + slack && x[1].abs() + r < 0.01 + slack && x[2] - r > -slack,
            "outside the box: {f:?}"
        );
        // Settled (0.32 s): below the region, at rest.
        assert!(
            x[2] < 0.01 && f[5].hypot(f[6]).hypot(f[7]) < 0.01,
            "still moving: {f:?}"
        );
    }
    for (k, a) in rows.iter().enumerate() {
        for b in &rows[k + 1..] {
            let d = (a[2] - b[2]).hypot(a[3] - b[3]).hypot(a[4] - b[4]);
            let rs = a[14] + b[14];
            assert!(
                d > 0.99 * rs,
                "{} and {} overlap by {:.3} of their radii",
                a[0],
                b[0],
                1.0 - d / rs
            );
        }
    }
}
