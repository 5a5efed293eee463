//! The `talus` command line program, run as a separate process.
//!
#[path = "../common/mod.rs"]
mod common;
use std::path::Path;

use common::{describe, run, text};

/// 1-based number of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?}"))
        + 1
}

/// A small scenario: 200 polydisperse discs on a lattice in an open box, falling under
/// gravity, 300 steps, output every 100 steps into `out` (relative to the working folder).
const SMALL: &str = r#"title = "cli test: 200 discs"
seed = 3
gravity = [0.0, -9.81]

[domain]
min = [-0.005, -0.005]
max = [0.045, 0.06]

[[material]]
name = "glass"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5

[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.04, 0.055]
open_top = true

[[particles]]
material = "glass"
count = 200
radius = { kind = "uniform", mean = 1.0e-3, width = 0.5 }
packing = "lattice"
region = { min = [0.0, 0.0], max = [0.04, 0.055] }

[run]
steps = 300

[output]
every = 100
dir = "out"
"#;

/// Ten discs at rest and one disc (id 11, the first id after the first source's) thrown
/// at 20 m/s towards the right boundary of the domain, where there is no wall; no gravity.
/// It leaves the domain after about 174 steps; output every 50 steps.
const ESCAPE: &str = r#"title = "cli test: a disc escapes"

[domain]
min = [0.0, 0.0]
max = [0.02, 0.02]

[[material]]
name = "glass"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5

[[particles]]
material = "glass"
count = 10
radius = { kind = "fixed", value = 1.0e-3 }
packing = "lattice"
region = { min = [0.0, 0.0], max = [0.02, 0.005] }

[[particles]]
material = "glass"
count = 1
radius = { kind = "fixed", value = 1.0e-3 }
packing = "lattice"
region = { min = [0.005, 0.01], max = [0.01, 0.015] }
velocity = [20.0, 0.0]

[run]
steps = 1000

[output]
every = 50
dir = "out"
"#;

/// The rows of energy.csv after its header (which must be the documented one).
fn energy_rows(path: &Path) -> Vec<Vec<f64>> {
    let csv = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("step,time,kinetic,rotational,elastic,potential,total,contacts"),
        "header of {}",
        path.display()
    );
    lines
        .map(|l| {
            let row: Vec<f64> = l
                .split(',')
                .map(|v| v.parse().unwrap_or_else(|_| panic!("row {l:?}")))
                .collect();
            assert_eq!(row.len(), 8, "row {l:?}");
            assert!(
                (row[6] - (row[2] + row[3] + row[4] + row[5])).abs() <= 1e-12 * row[6].abs(),
                "total is not the sum of the energies: {l:?}"
            );
            row
        })
        .collect()
}

/// The steps of the snapshots of a LAMMPS dump, checking each holds `atoms` atom lines.
fn dump_steps(path: &Path, atoms: usize) -> Vec<u64> {
    let dump = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = dump.lines().collect();
    let mut steps = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        assert_eq!(lines[k], "ITEM: TIMESTEP", "{} line {}", path.display(), k + 1);
        steps.push(lines[k + 1].parse().unwrap());
        assert_eq!(lines[k + 2], "ITEM: NUMBER OF ATOMS");
        let n: usize = lines[k + 3].parse().unwrap();
        assert_eq!(n, atoms, "{} snapshot {}", path.display(), steps.len());
        assert!(lines[k + 8].starts_with("ITEM: ATOMS id type x y"), "{}", lines[k + 8]);
        let rows = &lines[k + 9..k + 9 + n];
        assert!(
            rows.iter().all(|r| r.split_whitespace().count() >= 4),
            "truncated snapshot"
        );
        k += 9 + n;
    }
    steps
}

/// The `.vtu` files of a folder, sorted, and the files the `.pvd` collection lists.
fn frames(dir: &Path) -> (Vec<String>, Vec<String>) {
    let mut vtu: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("particles_") && n.ends_with(".vtu"))
        .collect();
    vtu.sort();
    let pvd = std::fs::read_to_string(dir.join("particles.pvd")).unwrap();
    assert!(
        pvd.trim_end().ends_with("</VTKFile>"),
        "incomplete particles.pvd:\n{pvd}"
    );
    let listed = pvd
        .split("file=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect();
    (vtu, listed)
}

#[test]
fn help_lists_commands_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--help"], &["run", "bench", "default-scenario"]),
        (
            &["run", "--help"],
            &["--steps", "--out", "--every", "--no-output", "--quiet"],
        ),
        (&["bench", "--help"], &["--sizes", "--integrators", "--repeats"]),
    ];
    for (args, words) in cases {
        let out = run(args, dir.path());
        assert!(out.status.success(), "talus {}: {}", args.join(" "), describe(&out));
        let help = text(&out.stdout);
        for w in words {
            assert!(
                help.contains(w),
                "talus {} does not mention {w}:\n{help}",
                args.join(" ")
            );
        }
    }
}

/// The measuring commands refuse counts of nothing where the command line is read (exit 2,
/// naming the option), before any bed is built: `bench --sizes 0` and `--updates inf`
/// stepped for ever, `bench-polygons --sizes 0`, `bench-checkpoint --checkpoints 0`,
/// `scale --bed polygons --n 0` and `neighbors --tree-n 0` panicked, and `scale --steps 0`
/// printed rates of 0/0.
#[test]
fn counts_of_nothing_are_refused_by_option() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 11] = [
        (&["bench", "--sizes", "10000,0"], "'0' for '--sizes <SIZES>'"),
        (&["bench", "--updates", "inf"], "'inf' for '--updates <UPDATES>'"),
        (&["bench", "--updates", "nan"], "'nan' for '--updates <UPDATES>'"),
        (&["bench-polygons", "--sizes", "0"], "'0' for '--sizes <SIZES>'"),
        (
            &["bench-checkpoint", "--discs", "--polygons", "100", "--checkpoints", "0"],
            "'0' for '--checkpoints <CHECKPOINTS>'",
        ),
        (&["scale", "--bed", "polygons", "--n", "0"], "'0' for '--n <N>'"),
        (&["scale", "--dry-run", "--steps", "0"], "'0' for '--steps <STEPS>'"),
        (
            &["neighbors", "--experiments", "tree-update", "--tree-n", "0"],
            "'0' for '--tree-n <TREE_N>'",
        ),
        (
            &[
                "bench-drum",
                "--sizes",
                "10",
                "--warmup",
                "0",
                "--steps",
                "1",
                "--segments",
                "2",
            ],
            "\"2\" is not a whole number from 3 to ",
        ),
        (
            &["bench-narrow", "--queries", "0"],
            "\"0\" is not a whole number from 1 to ",
        ),
        (&["topology", "--threads", "2,0"], "'0' for '--threads <THREADS>'"),
    ];
    for (args, says) in cases {
        let out = run(args, dir.path());
        let err = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "talus {}: {}",
            args.join(" "),
            describe(&out)
        );
        assert!(err.contains(says), "talus {}: {says:?} not in {err}", args.join(" "));
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "a refused command wrote something"
    );
    // Without a value, a bed kind's option runs no bed of it (as its help says).
    let out = run(&["bench-checkpoint", "--discs", "--polygons"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
}

/// `talus bench --model hertz` runs the peers' beds under Hertz (docs/bench/in.s2d_hertz_run,
/// in.s3d_hertz_run): the header names the law and its factor, and the beds stay near rest
/// (coordination near the Hooke run's; LAMMPS's DIAG after those decks' 2,000 and 3,429
/// steps: S2D 2.99, S3D 3.67) yet differ from it, so the law reached the contacts.
#[test]
fn bench_runs_the_peer_beds_under_hertz() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (base, n, factor, z_range) in [
        ("data/s2d_base.data", "10000", "3.333e-5 m", 2.5..3.5),
        ("data/s3d_base.data", "5832", "4.000e-6 m", 3.2..4.2),
    ] {
        let base = root.join(base);
        let z = |model: &str| {
            let args = [
                "bench",
                "--base",
                base.to_str().unwrap(),
                "--sizes",
                n,
                "--integrators",
                "verlet",
                "--modes",
                "skin",
                "--updates",
                "2000000",
                "--warmup",
                "5",
                "--repeats",
                "1",
                "--in-process",
                "--model",
                model,
            ];
            let out = run(&args, dir.path());
            assert!(out.status.success(), "{}", describe(&out));
            let stdout = text(&out.stdout);
            let header = stdout.lines().next().unwrap_or_default();
            let law = if model == "hertz" {
                format!("Hertz (the Hooke coefficients / {factor})")
            } else {
                "Hooke,".to_string()
            };
            assert!(header.contains(&law), "{model}: {law} not in {header}");
            let row: Vec<&str> = stdout
                .lines()
                .find(|l| l.split_whitespace().next() == Some(n))
                .unwrap_or_else(|| panic!("no row of N = {n}: {stdout}"))
                .split_whitespace()
                .collect();
            row[6].parse::<f64>().unwrap()
        };
        let (hooke, hertz) = (z("hooke"), z("hertz"));
        assert!(z_range.contains(&hertz), "{n}: z = {hertz} under Hertz");
        assert!((hooke - hertz).abs() > 1e-3, "{n}: z {hooke} under both laws");
    }
}

/// `talus run` of a 200-disc scenario for 300 steps with output every 100 steps: exit 0,
/// the summary, and 4 frames (steps 0, 100, 200, 300) in each of the three outputs.
#[test]
fn run_writes_summary_and_all_outputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), SMALL).unwrap();
    let out = run(&["run", "-q", "small.toml"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    for key in ["particle-updates/s", "contacts", "talus run summary"] {
        assert!(stdout.contains(key), "the summary has no {key:?}:\n{stdout}");
    }
    let particles = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("particles "))
        .unwrap_or("");
    assert!(
        particles.split_whitespace().last() == Some("200"),
        "particle count line {particles:?}"
    );
    let contacts = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("contacts "))
        .unwrap_or("");
    assert!(contacts.contains("pairs"), "contacts line {contacts:?}");

    let o = dir.path().join("out");
    let (vtu, listed) = frames(&o);
    let expected: Vec<String> = [0, 100, 200, 300]
        .iter()
        .map(|s| format!("particles_{s:08}.vtu"))
        .collect();
    assert_eq!(vtu, expected, "vtu frames in {}", o.display());
    assert_eq!(listed, expected, "frames listed in particles.pvd");
    for f in &vtu {
        let head = std::fs::read(o.join(f)).unwrap();
        let head = text(&head[..head.len().min(400)]);
        assert!(head.contains("NumberOfPoints=\"200\""), "{f}: {head}");
    }
    assert_eq!(dump_steps(&o.join("particles.dump"), 200), vec![0, 100, 200, 300]);
    let rows = energy_rows(&o.join("energy.csv"));
    let steps: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(steps, vec![0.0, 100.0, 200.0, 300.0], "energy.csv steps");
    // The discs fall from rest: the kinetic energy grows.
    assert!(
        rows[0][2] == 0.0 && rows[3][2] > rows[1][2] && rows[1][2] > 0.0,
        "kinetic energies {rows:?}"
    );
}

/// The rates in the summary are plausible: finite, positive, below 1e11 particle-updates
/// per second (far beyond any machine), the rate without output at least the overall rate,
/// and the reported output time not longer than the wall time it is part of.
#[test]
fn run_summary_rates_are_sane() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), SMALL).unwrap();
    let out = run(&["run", "-q", "small.toml"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    let numbers = |line: &str| -> Vec<f64> {
        line.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',' || c == ':')
            .filter_map(|w| w.parse::<f64>().ok())
            .collect()
    };
    let rates_line = stdout
        .lines()
        .find(|l| l.contains("particle-updates/s"))
        .expect("rates line");
    let rates = numbers(rates_line);
    assert_eq!(rates.len(), 2, "{rates_line:?}");
    for r in &rates {
        assert!(
            r.is_finite() && *r > 0.0 && *r < 1e11,
            "implausible rate {r:e} in {rates_line:?}"
        );
    }
    assert!(rates[1] >= rates[0], "{rates_line:?}");
    // The memory line's parts add up to its total (each rounded to a byte, parts under
    // half a byte left out), and the particle store is one of them.
    let memory_line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("memory"))
        .expect("memory line");
    let m = numbers(memory_line);
    assert!(
        m.len() >= 3 && memory_line.contains("particle store "),
        "{memory_line:?}"
    );
    let parts: f64 = m[1..].iter().sum();
    assert!(
        (parts - m[0]).abs() <= 4.0,
        "parts {parts} against {}: {memory_line:?}",
        m[0]
    );
    let wall_line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("wall time"))
        .expect("wall time line");
    let w = numbers(wall_line);
    assert_eq!(w.len(), 3, "{wall_line:?}");
    // Printed with 3 decimals.
    assert!(
        w[2] <= w[0] + 1.5e-3,
        "output time {} s exceeds the wall time {} s: {wall_line:?}",
        w[2],
        w[0]
    );
}

/// Bad scenario files: exit status non-zero, and stderr names the file, the line and the key.
#[test]
fn bad_scenarios_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = SMALL.replace("friction = 0.5\n", "friction = 0.5\ncolour = \"red\"\n");
    let negative = SMALL.replace("kn = 1.0e6", "kn = -1.0e6");
    let cases = [
        ("unknown_key.toml", unknown, "colour = ", "material[0].colour"),
        ("negative_kn.toml", negative, "kn = -1.0e6", "material[0].kn"),
    ];
    for (name, body, needle, key) in cases {
        std::fs::write(dir.path().join(name), &body).unwrap();
        let out = run(&["run", "-q", name], dir.path());
        assert!(!out.status.success(), "{name}: {}", describe(&out));
        let stderr = text(&out.stderr);
        let line = line_of(&body, needle);
        assert!(
            stderr.contains(&format!("{name}:{line}:")),
            "{name}: no file:line {line} in {stderr:?}"
        );
        assert!(stderr.contains(key), "{name}: the key {key} is not named in {stderr:?}");
        assert!(
            !dir.path().join("out").exists(),
            "{name}: output written for a bad scenario"
        );
    }
    let out = run(&["run", "-q", "no_such_file.toml"], dir.path());
    assert!(!out.status.success(), "missing file: {}", describe(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no_such_file.toml"),
        "the missing file is not named: {stderr:?}"
    );
}

/// A disc leaving the domain: exit status non-zero, the message names the particle id and
/// the step, and what was written before the failure (frames every 50 steps) is complete.
#[test]
fn escape_fails_and_keeps_earlier_output() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("escape.toml"), ESCAPE).unwrap();
    let out = run(&["run", "-q", "escape.toml"], dir.path());
    assert!(!out.status.success(), "{}", describe(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("id 11 "),
        "the escaping particle (id 11) is not named: {stderr:?}"
    );
    // "step N: particle id 11 left the domain ..."
    let step: u64 = stderr
        .split("step ")
        .nth(1)
        .and_then(|s| s.split(':').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no step in {stderr:?}"));
    assert!(
        (150..200).contains(&step),
        "escape at step {step}, expected about 174: {stderr:?}"
    );

    let o = dir.path().join("out");
    let rows = energy_rows(&o.join("energy.csv"));
    let written: Vec<u64> = rows.iter().map(|r| r[0] as u64).collect();
    let last = *written.last().expect("no energy rows");
    assert!(
        last <= step && step - last <= 50,
        "last row at step {last}, failure at step {step}"
    );
    let expected: Vec<u64> = (0..=last / 50).map(|k| 50 * k).collect();
    assert_eq!(written, expected, "energy.csv rows");
    assert_eq!(dump_steps(&o.join("particles.dump"), 11), expected, "dump snapshots");
    let (vtu, listed) = frames(&o);
    let names: Vec<String> = expected.iter().map(|s| format!("particles_{s:08}.vtu")).collect();
    assert_eq!(vtu, names, "vtu frames");
    assert_eq!(listed, names, "frames listed in particles.pvd");
}

/// A run that fails (a particle escapes at about step 174) while writing checkpoints
/// (every 40 steps, its next file always prepared) keeps the checkpoints it completed and
/// leaves neither a temporary checkpoint file nor its folder lock behind.
#[test]
fn failed_run_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("escape.toml"), ESCAPE).unwrap();
    let out = run(
        &["run", "-q", "escape.toml", "--checkpoint-every", "40", "--keep", "9"],
        dir.path(),
    );
    assert!(!out.status.success(), "{}", describe(&out));
    let mut left: Vec<String> = std::fs::read_dir(dir.path().join("out/checkpoints"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let expected: Vec<String> = [40, 80, 120, 160]
        .iter()
        .map(|s| format!("checkpoint-{s:012}.talus"))
        .collect();
    assert_eq!(left, expected);
    assert!(!dir.path().join("out/.talus.lock").exists());
}

/// The built-in default scenario runs: `talus run --steps 20 --no-output -q`, exit 0, and no
/// file is written.
#[test]
fn default_scenario_runs_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["run", "--steps", "20", "--no-output", "-q"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("particle-updates/s"), "no summary:\n{stdout}");
    let steps = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("steps "))
        .unwrap_or("");
    assert!(steps.split_whitespace().nth(1) == Some("20"), "steps line {steps:?}");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "--no-output wrote {} entries", left.len());
}

/// The shipped polygon scenarios (a box, a rotating drum, a hopper) build and run, and the
/// summary reports what each stage of the polygon narrow phase did.
#[test]
fn polygon_scenarios_run_and_report_the_narrow_phase() {
    // Grains, and wall bodies (the drum's segments, the hopper's plates) apart.
    for (file, n) in [
        ("polygons.toml", "2000\n"),
        ("drum.toml", "500 (and 64 wall bodies)"),
        ("hopper.toml", "600 (and 2 wall bodies)"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(file);
        let out = run(
            &["run", scenario.to_str().unwrap(), "--steps", "30", "--no-output", "-q"],
            dir.path(),
        );
        assert!(out.status.success(), "{file}: {}", describe(&out));
        let stdout = text(&out.stdout);
        assert!(stdout.contains(&format!("particles           {n}")), "{file}: {stdout}");
        assert!(
            stdout.contains("narrow phase") && stdout.contains("bounding circles"),
            "{file}: {stdout}"
        );
    }
}

/// `--neighbor auto` times the methods on the scenario and says which it picked; an
/// explicit method is used and named in the summary; a wrong name is an error naming the
/// choices.
#[test]
fn neighbor_choice_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/drum.toml");
    let s = scenario.to_str().unwrap();
    let out = run(
        &["run", s, "--steps", "200", "--no-output", "-q", "--neighbor", "auto"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("neighbour search auto"))
        .unwrap_or_else(|| panic!("no auto line:\n{err}"));
    for m in ["sweep", "quadtree", "cells"] {
        assert!(line.contains(&format!("{m} ")), "{line}");
    }
    let picked = line.rsplit("picked ").next().unwrap().trim();
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("by {picked} (")),
        "summary does not name {picked}:\n{stdout}"
    );

    let out = run(
        &["run", s, "--steps", "20", "--no-output", "-q", "--neighbor", "cells"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", describe(&out));
    assert!(text(&out.stdout).contains("by cells ("), "{}", text(&out.stdout));

    let out = run(&["run", s, "--steps", "20", "--neighbor", "octree"], dir.path());
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("octree") && err.contains("quadtree"), "{err}");
}

/// `talus neighbors` on small sizes: the tables, CSV and plots are written; on the
/// kinematic test1 every method sees the same motion and so reports the same pair set;
/// test1-dem is a real DEM run (the discs collide, at a time step far below the
/// kinematic test's 2 % of a radius); tree-update reports both motions.
#[test]
fn neighbors_study_writes_tables_and_methods_agree() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &[
            "neighbors",
            "--experiments",
            "test1,test1-dem,tree-update",
            "--sizes",
            "400,1600",
            "--methods",
            "sweep,cells,quadtree,verlet,brute",
            "--steps",
            "3",
            "--repeats",
            "1",
            "--dem-warmup",
            "150",
            "--tree-n",
            "2000",
            "--out",
            "nb",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", describe(&out));
    let nb = dir.path().join("nb");
    for f in [
        "report.txt",
        "test1.csv",
        "test1-dem.csv",
        "test1-dem.png",
        "test1-dem.svg",
    ] {
        assert!(nb.join(f).is_file(), "{f} not written");
    }
    let rows = |f: &str| -> Vec<Vec<String>> {
        std::fs::read_to_string(nb.join(f))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let test1 = rows("test1.csv");
    for n in ["400", "1600"] {
        let pairs: Vec<&str> = test1.iter().filter(|r| r[3] == n).map(|r| r[6].as_str()).collect();
        assert_eq!(pairs.len(), 5, "test1 N = {n}: {pairs:?}");
        assert!(pairs.iter().all(|p| *p == pairs[0]), "test1 N = {n}: {pairs:?}");
        let dem: Vec<Vec<String>> = rows("test1-dem.csv").into_iter().filter(|r| r[3] == n).collect();
        assert_eq!(dem.len(), 5, "test1-dem N = {n}");
        assert!(dem.iter().all(|r| r[4].parse::<f64>().unwrap() > 0.0), "{dem:?}");
    }
    let stdout = text(&out.stdout);
    let dem_line = stdout
        .lines()
        .find(|l| l.contains("test1-dem N = 1600") && l.contains("radii per step"))
        .unwrap_or_else(|| panic!("no test1-dem line:\n{stdout}"));
    let words: Vec<&str> = dem_line.split_whitespace().collect();
    let step: f64 = words[words.iter().position(|w| *w == "radii").unwrap() - 1]
        .parse()
        .unwrap();
    let contacts: f64 = words[words.iter().position(|w| *w == "contacts").unwrap() - 1]
        .parse()
        .unwrap();
    assert!(step > 1e-5 && step < 2e-3, "{dem_line}");
    assert!(contacts > 0.05, "the discs do not collide: {dem_line}");
    assert!(
        stdout.contains("insertion-sort swaps per particle per step"),
        "{stdout}"
    );
    let report = std::fs::read_to_string(nb.join("report.txt")).unwrap();
    for motion in ["over test1 (", "over test1-dem ("] {
        assert!(report.contains(motion), "no tree-update {motion}:\n{report}");
    }
}

/// Bad input found at set-up: refused (or warned about) before anything runs or is written.
#[path = "cli_setup_refusals.rs"]
mod setup_refusals;
