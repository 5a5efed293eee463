//! Running `talus` as a batch job would: everything under `--out`, progress lines in a
//! log, SIGTERM ending a run cleanly with a final checkpoint, one run per folder,
//! `restart` and `inspect` of a run's folder, `restart --append` giving the uninterrupted
//! run's files from any checkpoint, and the command line's argument checks.
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

#[path = "../common/mod.rs"]
mod common;
use common::{describe, grain_box, run, talus, text};

/// Every file under `dir`, recursively, relative to it, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, d: &Path, v: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, v);
            } else {
                v.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, dir, &mut v);
    v.sort();
    v
}

/// Wait up to a minute for `what` to hold.
fn wait_for(mut what: impl FnMut() -> bool, doing: &str) {
    let t0 = Instant::now();
    while !what() {
        assert!(t0.elapsed() < Duration::from_secs(60), "timed out waiting for {doing}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// 1,500 discs in a closed box, for ever, the energy series on.
fn endless() -> String {
    grain_box(1500, false, false, [0.08, 0.08], 10_000_000).replace("energy = false", "energy = true")
}

/// `talus ARGS` in `cwd`, in the background, its streams into files in `cwd`.
fn spawn(args: &[&str], cwd: &Path, log: &str) -> Child {
    Command::new(talus())
        .args(args)
        .current_dir(cwd)
        .stdout(File::create(cwd.join(format!("{log}.out"))).unwrap())
        .stderr(File::create(cwd.join(format!("{log}.err"))).unwrap())
        .spawn()
        .expect("talus starts")
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {sig} failed");
}

/// The step in "now at step N" of a summary.
fn now_at(summary: &str) -> u64 {
    summary
        .split("now at step ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no 'now at step' in {summary}"))
}

/// SIGTERM (a batch system's time limit) stops a run on a whole step: it writes a
/// final checkpoint of that step (although its interval would write none for a million
/// steps), prints the summary and says how to continue, exits with 128 + 15, and leaves
/// neither the prepared checkpoint file it held nor its folder lock behind. `talus restart`
/// of the output folder then continues from that step. Its log (standard error is a file)
/// has progress lines.
#[test]
fn sigterm_stops_with_a_final_checkpoint_and_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), endless()).unwrap();
    let mut child = spawn(
        &[
            "run",
            "s.toml",
            "--out",
            "job",
            "--every",
            "50",
            "--checkpoint-every",
            "1000000",
            "--thermo",
            "0",
        ],
        d,
        "job",
    );
    let ck = d.join("job/checkpoints");
    // Running, with its next checkpoint's file prepared (the temporary file a kill leaves).
    wait_for(
        || {
            let rows = std::fs::read_to_string(d.join("job/energy.csv")).map_or(0, |t| t.lines().count());
            let tmp = std::fs::read_dir(&ck)
                .is_ok_and(|r| r.flatten().any(|e| e.file_name().to_string_lossy().ends_with(".tmp")));
            rows >= 3 && tmp
        },
        "the run to write output and prepare a checkpoint file",
    );
    signal(&child, "-TERM");
    let status = child.wait().unwrap();
    let (so, se) = (
        std::fs::read_to_string(d.join("job.out")).unwrap(),
        std::fs::read_to_string(d.join("job.err")).unwrap(),
    );
    assert_eq!(status.code(), Some(143), "{so}\n{se}");
    assert!(so.contains("stopped             by SIGTERM at step"), "{so}");
    assert!(se.contains("continue with: talus restart job"), "{se}");
    let step = now_at(&so);
    assert!(step > 0);
    let files = tree(&d.join("job"));
    let final_ck = format!("checkpoints/checkpoint-{step:012}.talus");
    assert!(files.contains(&final_ck), "no {final_ck} in {files:?}");
    assert!(
        !files.iter().any(|f| f.ends_with(".tmp") || f.ends_with(".talus.lock")),
        "left behind: {files:?}"
    );
    // Progress lines in the log: the header, then step numbers rising to the final step.
    let steps: Vec<u64> = se
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect();
    assert!(se.contains("updates/s") && se.contains("ETA"), "{se}");
    assert!(steps.len() >= 3 && steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
    assert_eq!(steps.last(), Some(&step), "{se}");

    let out = run(&["restart", "job", "--steps", "3", "-q", "--no-output"], d);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        text(&out.stderr).contains(&format!("at step {step} (")),
        "{}",
        describe(&out)
    );
    assert_eq!(now_at(&text(&out.stdout)), step + 3);
}

/// A second run into a folder a run is writing is refused, naming the folder and the
/// process, and writes nothing; once the first is killed (SIGKILL: no clean-up), the
/// folder is free again.
#[test]
fn a_second_run_into_a_busy_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), endless()).unwrap();
    let mut child = spawn(&["run", "s.toml", "-q", "--out", "busy", "--every", "50"], d, "first");
    wait_for(|| d.join("busy/energy.csv").exists(), "the first run to start");
    let before = std::fs::metadata(d.join("busy/energy.csv")).unwrap().len();
    let out = run(&["run", "s.toml", "-q", "--out", "busy", "--steps", "5"], d);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains("busy: another talus run")
            && err.contains(&format!("(process {})", child.id()))
            && !err.contains("panicked"),
        "{err}"
    );
    // The first run's series was not restarted (truncated) by the second.
    assert!(std::fs::metadata(d.join("busy/energy.csv")).unwrap().len() >= before);
    child.kill().unwrap();
    child.wait().unwrap();
    let out = run(&["run", "s.toml", "-q", "--out", "busy", "--steps", "5"], d);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(!d.join("busy/.talus.lock").exists());
}

/// Progress lines go to standard error when it is not a terminal (here a pipe): a header
/// and a line after every batch of steps with `--thermo 0`, from the first step to the last;
/// `-q` has none.
#[test]
fn progress_lines_when_standard_error_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), grain_box(200, false, false, [0.03, 0.03], 120)).unwrap();
    let out = run(&["run", "s.toml", "--thermo", "0", "--every", "50"], d);
    assert!(out.status.success(), "{}", describe(&out));
    let err = text(&out.stderr);
    let header = err
        .lines()
        .find(|l| l.contains("kinetic/J"))
        .unwrap_or_else(|| panic!("no header: {err}"));
    assert_eq!(header.split_whitespace().count(), 8, "{header}");
    let rows: Vec<Vec<&str>> = err
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.first().is_some_and(|s| s.parse::<u64>().is_ok()))
        .collect();
    // A line per batch: batches end at the output steps (and more often, as they are cut
    // to a time).
    let steps: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(
        steps.first() == Some(&0)
            && steps.last() == Some(&120)
            && steps.windows(2).all(|w| w[0] < w[1])
            && steps.contains(&50)
            && steps.contains(&100),
        "{err}"
    );
    assert!(rows.iter().all(|r| r.len() == 8), "{err}");
    // Contacts and energies are numbers; the kinetic energy of the jittered grains > 0.
    assert!(rows[1][2].parse::<f64>().unwrap() > 0.0 && rows[1][5].parse::<u64>().is_ok());

    let out = run(&["run", "s.toml", "--thermo", "0", "-q"], d);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(!text(&out.stderr).contains("kinetic/J"), "{}", describe(&out));
}

/// `--out DIR` takes the checkpoints too (into DIR/checkpoints, or a relative [checkpoint]
/// dir inside DIR), and the summary says where each kind went. `talus restart DIR` finds
/// the newest checkpoint there and writes into DIR: restart-STEP/ for new series, the
/// checkpoints beside the ones it came from; this holds after the folder was moved.
/// `talus inspect DIR` shows the newest checkpoint.
#[test]
fn out_holds_everything_and_restart_and_inspect_take_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let toml = grain_box(200, false, false, [0.03, 0.03], 100).replace("energy = false", "energy = true");
    std::fs::write(d.join("s.toml"), &toml).unwrap();
    let out = run(
        &[
            "run",
            "s.toml",
            "-q",
            "--out",
            "a",
            "--steps",
            "40",
            "--checkpoint-every",
            "20",
        ],
        d,
    );
    assert!(out.status.success(), "{}", describe(&out));
    let so = text(&out.stdout);
    assert!(so.contains("output              a/energy.csv"), "{so}");
    assert!(
        so.contains("in a/checkpoints, newest a/checkpoints/checkpoint-000000000040.talus"),
        "{so}"
    );
    assert_eq!(
        tree(&d.join("a")),
        [
            "checkpoints/checkpoint-000000000020.talus",
            "checkpoints/checkpoint-000000000040.talus",
            "energy.csv"
        ]
    );
    assert!(!d.join("talus-out").exists());

    let out = run(&["inspect", "a"], d);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(text(&out.stdout).contains("step            40"), "{}", describe(&out));

    // Moved: the checkpoints' place in the run's folder still tells where the run is.
    std::fs::rename(d.join("a"), d.join("moved")).unwrap();
    let out = run(
        &["restart", "moved", "--steps", "20", "-q", "--checkpoint-every", "10"],
        d,
    );
    assert!(out.status.success(), "{}", describe(&out));
    assert!(text(&out.stderr).contains("at step 40 ("), "{}", describe(&out));
    assert_eq!(
        tree(&d.join("moved")),
        [
            "checkpoints/checkpoint-000000000020.talus",
            "checkpoints/checkpoint-000000000040.talus",
            "checkpoints/checkpoint-000000000050.talus",
            "checkpoints/checkpoint-000000000060.talus",
            "energy.csv",
            "restart-40/energy.csv",
        ]
    );
    let out = run(&["inspect", "moved"], d);
    assert!(text(&out.stdout).contains("step            60"), "{}", describe(&out));

    // A relative [checkpoint] dir is inside the output folder.
    std::fs::write(
        d.join("c.toml"),
        format!("{toml}[checkpoint]\nevery = 10\ndir = \"ck\"\n"),
    )
    .unwrap();
    let out = run(
        &["run", "c.toml", "-q", "--out", "b", "--steps", "10", "--no-output"],
        d,
    );
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(tree(&d.join("b")), ["ck/checkpoint-000000000010.talus"]);

    let out = run(&["inspect", "."], d);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no checkpoints"), "{}", describe(&out));
}

/// Wrong arguments are refused with a message that names them, before anything runs.
#[test]
fn arguments_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let toml = grain_box(100, false, false, [0.03, 0.03], 10).replace("energy = false", "energy = true");
    std::fs::write(d.join("s.toml"), toml).unwrap();
    let refused = |args: &[&str], says: &str| {
        let out = run(args, d);
        assert!(!out.status.success(), "{args:?}: {}", describe(&out));
        let err = text(&out.stderr);
        assert!(err.contains(says) && !err.contains("panicked"), "{args:?}: {err}");
    };
    refused(&["run", "s.toml", "--every", "0"], "'0' for '--every <EVERY>'");
    refused(&["run", "s.toml", "--steps", "0"], "'0' for '--steps <STEPS>'");
    refused(&["run", "s.toml", "--keep", "0"], "'0' for '--keep <KEEP>'");
    refused(&["run", "s.toml", "--thermo", "inf"], "is not a number of seconds");
    refused(&["restart", "x", "--steps", "0"], "'0' for '--steps <STEPS>'");
    refused(
        &["run", "s.toml", "-q", "--threads", "50000", "--placement", "none"],
        "--threads 50000: this machine has",
    );
    refused(
        &[
            "scale",
            "--bed",
            "discs",
            "--n",
            "10000",
            "--threads",
            "1,50000",
            "--placements",
            "none",
        ],
        "--threads 50000: this machine has",
    );
    std::fs::write(d.join("file"), "").unwrap();
    refused(
        &["run", "s.toml", "-q", "--out", "file"],
        "file: is a file, not a folder",
    );
    refused(&["run", "s.toml", "-q", "--out", "file/sub"], "because file is a file");
    refused(
        &["run", "s.toml", "-q", "--vector-build", "sse9"],
        "--vector-build sse9: not a build of this target",
    );
    let out = run(
        &[
            "run",
            "s.toml",
            "-q",
            "--no-output",
            "--force-strategy",
            "per-thread",
            "--vector-build",
            "baseline",
        ],
        d,
    );
    assert!(out.status.success(), "{}", describe(&out));
    // One thread is the pool of one: the strategy asked for is the one that runs, and the
    // build asked for is the one named.
    assert!(
        text(&out.stdout)
            .contains("threads             1 (per-thread force summation; baseline build of the hot loops)"),
        "{}",
        describe(&out)
    );
}

/// `talus restart --append` leaves the files of the uninterrupted run byte for byte, from
/// every checkpoint of a run, whether or not the checkpoint's step is an output step
/// (frames every 4 steps, checkpoints every 6): both after a run that ended at the
/// checkpoint (whose last frame, at a step that is no output step, must go) and after a
/// run that went on to the end (whose later frames are replaced).
#[test]
fn restart_append_is_the_uninterrupted_run_from_every_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let toml = grain_box(120, true, false, [0.03, 0.03], 26)
        .replace("vtk = false", "vtk = true")
        .replace("dump = false", "dump = true")
        .replace("energy = false", "energy = true");
    std::fs::write(d.join("s.toml"), &toml).unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, d);
        assert!(out.status.success(), "{args:?}: {}", describe(&out));
    };
    let common = ["-q", "--every", "4", "--keep", "10"];
    let with = |args: &[&str]| -> Vec<String> { args.iter().chain(&common).map(|s| s.to_string()).collect() };
    let go = |args: Vec<String>| ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    go(with(&["run", "s.toml", "--out", "straight"]));
    go(with(&[
        "run",
        "s.toml",
        "--out",
        "full",
        "--checkpoint-every",
        "6",
        "--checkpoint-dir",
        "ck",
    ]));
    let expected = tree(&d.join("straight"));
    assert_eq!(
        expected
            .iter()
            .filter(|f| f.starts_with("particles_") && f.ends_with(".vtu"))
            .count(),
        8,
        "{expected:?}"
    );
    assert_eq!(
        expected
            .iter()
            .filter(|f| f.starts_with("walls_") && f.ends_with(".vtu"))
            .count(),
        8,
        "{expected:?}"
    );
    let same = |folder: &str, what: &str| {
        assert_eq!(tree(&d.join(folder)), expected, "{what}");
        for f in &expected {
            let a = std::fs::read(d.join("straight").join(f)).unwrap();
            let b = std::fs::read(d.join(folder).join(f)).unwrap();
            assert!(a == b, "{f} differs from the uninterrupted run's: {what}");
        }
    };
    let steps = [6u64, 12, 18, 24];
    let listed: Vec<PathBuf> = talus::io::checkpoint::list(&d.join("ck"), "checkpoint").unwrap();
    assert_eq!(listed.len(), steps.len());
    for r in steps {
        let file = format!("checkpoint-{r:012}.talus");
        // A run that ended at the checkpoint, continued.
        let (out, ck) = (format!("upto{r}"), format!("ck{r}"));
        let rs = r.to_string();
        go(with(&[
            "run",
            "s.toml",
            "--out",
            &out,
            "--steps",
            &rs,
            "--checkpoint-every",
            "6",
            "--checkpoint-dir",
            &ck,
        ]));
        go(with(&[
            "restart",
            &format!("{ck}/{file}"),
            "--append",
            "--out",
            &out,
            "--checkpoint-every",
            "0",
        ]));
        same(&out, &format!("run to step {r}, restart --append"));
        // The whole run's folder, continued from its checkpoint.
        let copy = format!("again{r}");
        std::fs::create_dir(d.join(&copy)).unwrap();
        for f in tree(&d.join("full")) {
            std::fs::copy(d.join("full").join(&f), d.join(&copy).join(&f)).unwrap();
        }
        go(with(&[
            "restart",
            &format!("ck/{file}"),
            "--append",
            "--out",
            &copy,
            "--checkpoint-every",
            "0",
        ]));
        same(&copy, &format!("whole run, restart --append from step {r}"));
    }
}

/// `talus restart DIR --append` with no other option continues the run as its command line
/// ran it: the frame, energy and checkpoint intervals, the kept count and the end step come
/// from the checkpoint's run settings, not from the scenario (whose values all differ
/// here), so the files are those of the uninterrupted run byte for byte.
#[test]
fn restart_append_keeps_the_command_line_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let toml = grain_box(120, false, false, [0.03, 0.03], 40)
        .replace("vtk = false", "vtk = true")
        .replace("dump = false", "dump = true")
        .replace("energy = false", "energy = true");
    // The scenario: frames and energy rows every 2 steps (steps / 20), no checkpoints.
    std::fs::write(d.join("s.toml"), &toml).unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, d);
        assert!(out.status.success(), "{args:?}: {}", describe(&out));
        out
    };
    let flags = ["-q", "--steps", "26", "--every", "4", "--energy-every", "3"];
    let straight: Vec<&str> = ["run", "s.toml", "--out", "straight"]
        .iter()
        .chain(&flags)
        .copied()
        .collect();
    ok(&straight);
    let first: Vec<&str> = [
        "run",
        "s.toml",
        "--out",
        "run",
        "--checkpoint-every",
        "6",
        "--keep",
        "10",
    ]
    .iter()
    .chain(&flags)
    .copied()
    .collect();
    ok(&first);
    // Back to step 12: drop the later checkpoints, as a run stopped there would have left.
    for s in [18u64, 24] {
        std::fs::remove_file(d.join(format!("run/checkpoints/checkpoint-{s:012}.talus"))).unwrap();
    }
    ok(&["restart", "run", "--append", "-q"]);
    let outputs = |folder: &str| -> Vec<String> {
        tree(&d.join(folder))
            .into_iter()
            .filter(|f| !f.starts_with("checkpoints") && !f.starts_with(".talus"))
            .collect()
    };
    let expected = outputs("straight");
    assert_eq!(outputs("run"), expected);
    for f in &expected {
        let a = std::fs::read(d.join("straight").join(f)).unwrap();
        let b = std::fs::read(d.join("run").join(f)).unwrap();
        assert!(a == b, "{f} differs from the uninterrupted run's");
    }
    // The restart wrote checkpoints every 6 steps again (and its frames, compared above,
    // end at step 26, not the scenario's 40).
    let steps: Vec<String> = tree(&d.join("run/checkpoints"))
        .into_iter()
        .filter(|f| f.ends_with(".talus"))
        .collect();
    assert_eq!(
        steps,
        [6u64, 12, 18, 24]
            .iter()
            .map(|s| format!("checkpoint-{s:012}.talus"))
            .collect::<Vec<_>>()
    );
}

/// `[run] until`: 300 discs dropped into a box settle, and the run stops at the first check
/// (every 2,000 steps) where both the kinetic energy and the unbalanced-force ratio are
/// below their thresholds, long before its million steps; the energy and analysis series
/// end at that step, whose analysis row shows the ratio below the threshold, and the row
/// of the check before shows the bed not yet settled.
#[test]
fn until_stops_a_settled_run() {
    let dir = tempfile::tempdir().unwrap();
    let toml = grain_box(300, false, false, [0.04, 0.04], 1_000_000)
        .replace("energy = false", "energy = true")
        .replace(
            "[run]\nsteps = 1000000",
            "[run]\nsteps = 1000000\nuntil = { kinetic = 1e-7, unbalanced = 0.05, every = 2000 }",
        )
        + "[analysis]\nevery = 2000\nnetwork = false\n";
    std::fs::write(dir.path().join("s.toml"), &toml).unwrap();
    let out = run(&["run", "s.toml", "-q", "--out", "o"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let summary = text(&out.stdout);
    let step = now_at(&summary);
    assert!(summary.contains("settled "), "{summary}");
    assert!(step < 1_000_000 && step.is_multiple_of(2000), "stopped at {step}");
    let last_step = |file: &str| -> (Vec<String>, Vec<String>) {
        let t = std::fs::read_to_string(dir.path().join("o").join(file)).unwrap();
        let lines: Vec<&str> = t.lines().collect();
        let cols = |l: &str| l.split(',').map(String::from).collect::<Vec<_>>();
        (cols(lines[0]), cols(lines[lines.len() - 1]))
    };
    let (_, energy) = last_step("energy.csv");
    assert_eq!(energy[0].parse::<u64>().unwrap(), step);
    let (header, row) = last_step("analysis.csv");
    assert_eq!(row[0].parse::<u64>().unwrap(), step);
    let col = header.iter().position(|h| h == "unbalanced").unwrap();
    assert!(row[col].parse::<f64>().unwrap() < 0.05);
    let kinetic: f64 = [2, 3].iter().map(|&k| row[k].parse::<f64>().unwrap()).sum();
    assert!(kinetic < 1e-7, "kinetic {kinetic}");
    let csv = std::fs::read_to_string(dir.path().join("o/analysis.csv")).unwrap();
    let before: Vec<&str> = csv.lines().rev().nth(1).unwrap().split(',').collect();
    let unsettled = before[col].parse::<f64>().unwrap() >= 0.05
        || before[2].parse::<f64>().unwrap() + before[3].parse::<f64>().unwrap() >= 1e-7;
    assert!(unsettled, "the check before was settled already: {before:?}");
}

/// `[[outflow]]`: 200 discs of one size fall onto a floor through a region that takes
/// them out every 100 steps: by the end every one is out, and `outflow.csv` counts them
/// all, with their mass, check by check, each row's rate its mass over the 100 steps.
#[test]
fn outflow_takes_out_and_counts_every_grain() {
    let dir = tempfile::tempdir().unwrap();
    let r = 1.0e-3;
    let toml = format!(
        r#"
title = "discs falling out"
gravity = [0.0, -9.81]
[domain]
min = [-0.001, -0.001]
max = [0.041, 0.06]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e6
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.04, 0.059]
[[particles]]
material = "grain"
count = 200
radius = {{ kind = "fixed", value = {r} }}
packing = "lattice"
region = {{ min = [0.0, 0.03], max = [0.04, 0.05] }}
[[outflow]]
region = {{ min = [0.0, 0.0], max = [0.04, 0.01] }}
every = 100
[integrator]
dt = 2.0e-6
[run]
steps = 60000
[output]
vtk = false
dump = false
energy = false
"#
    );
    std::fs::write(dir.path().join("s.toml"), toml).unwrap();
    let out = run(&["run", "s.toml", "-q", "--out", "o"], dir.path());
    assert!(out.status.success(), "{}", describe(&out));
    let summary = text(&out.stdout);
    assert!(summary.contains("outflow[0]          200 grains out"), "{summary}");
    let csv = std::fs::read_to_string(dir.path().join("o/outflow.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("step,time,outflow,removed,mass,mass_rate"));
    let (mut count, mut mass, mut rows) = (0u64, 0.0, 0);
    for line in lines {
        let f: Vec<f64> = line.split(',').map(|v| v.parse().unwrap()).collect();
        rows += 1;
        assert_eq!(f[0] as u64, 100 * rows, "a row per check");
        count += f[3] as u64;
        mass += f[4];
        let rate = f[4] / (100.0 * 2.0e-6);
        assert!((f[5] - rate).abs() <= 1e-12 * rate.abs().max(1.0), "{line}");
    }
    assert_eq!((count, rows), (200, 600));
    let one = 2500.0 * std::f64::consts::PI * r * r;
    assert!((mass - 200.0 * one).abs() < 1e-12 * mass, "{mass}");
    assert!(summary.contains("particles           0"), "{summary}");
}
