//! Checkpoints through the `talus` program: killed runs restart from their newest
//! checkpoint, `talus inspect` finds damage, `talus restart` refuses a checkpoint of
//! another scenario.
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::io::checkpoint::list;

#[path = "../common/mod.rs"]
mod common;
use common::{grain_box, run, talus, text};

/// 1,500 discs on a lattice with random velocities, in a closed box, for ever.
fn scenario() -> String {
    grain_box(1500, false, false, [0.08, 0.08], 10_000_000)
}

/// The step of a checkpoint file name (`checkpoint-STEP.talus`).
fn step_of(p: &Path) -> u64 {
    let name = p.file_stem().unwrap().to_string_lossy().into_owned();
    name.trim_start_matches("checkpoint-").parse().unwrap()
}

/// A chain: `talus run` with a checkpoint every 4 steps is killed (SIGKILL) at a random
/// moment, then `talus restart` on the folder (checkpointing the same way) continues from
/// the newest checkpoint and is killed in turn, and so on, at least 20 times. Every
/// restart must start from the newest checkpoint in the folder, which must be complete
/// (no fallback to an older one), and the chain must make progress: at least 20 of the
/// killed processes wrote checkpoints of their own before they died. The writes come every
/// few milliseconds, with their flush and rename in the background, so the kills land in
/// every stage of the writing.
#[test]
fn killed_runs_always_restart_from_their_newest_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kill.toml"), scenario()).unwrap();
    let ck = dir.path().join("ck");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let ckpt = ["-q", "--checkpoint-every", "4", "--keep", "2", "--checkpoint-dir", "ck"];
    let start = |args: &[&str]| {
        Command::new(talus())
            .args(args)
            .args(ckpt)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("talus starts")
    };
    let mut child = start(&["run", "kill.toml"]);
    let mut from_step = 0; // the step the running process started from
    let mut restarted = false; // whether it is a restart (or a fresh run)
    let (mut kills, mut productive) = (0, 0);
    let t0 = Instant::now();
    while productive < 20 {
        assert!(
            kills < 60,
            "only {productive} of {kills} killed processes wrote a checkpoint"
        );
        std::thread::sleep(Duration::from_millis(rng.random_range(150..600)));
        assert!(child.try_wait().unwrap().is_none(), "the run ended by itself");
        child.kill().unwrap(); // SIGKILL
        let out = child.wait_with_output().unwrap();
        kills += 1;
        let err = text(&out.stderr);
        if restarted {
            // It must have started from the newest checkpoint when it was started.
            assert!(
                err.contains(&format!("at step {from_step} (")),
                "restart {kills} did not start from the newest checkpoint (step {from_step}):\n{err}"
            );
            assert!(!err.contains("skipped"), "the newest checkpoint was not usable:\n{err}");
        }
        let all = list(&ck, "checkpoint").unwrap_or_default();
        let Some(newest) = all.last().cloned() else {
            child = start(&["run", "kill.toml"]); // killed before its first checkpoint
            restarted = false;
            continue;
        };
        if step_of(&newest) > from_step {
            productive += 1;
        }
        // The next process: a restart from the folder, which must take the newest file.
        from_step = step_of(&newest);
        child = start(&["restart", "ck", "--no-output"]);
        restarted = true;
    }
    child.kill().unwrap();
    let _ = child.wait();
    println!(
        "{kills} kills, {productive} of them after the process wrote checkpoints, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}

fn first_checkpoint(dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("s.toml"), scenario()).unwrap();
    let out = run(
        &[
            "run",
            "s.toml",
            "--steps",
            "20",
            "-q",
            "--checkpoint-every",
            "10",
            "--checkpoint-dir",
            "ck",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = list(&dir.join("ck"), "checkpoint").unwrap();
    assert_eq!(all.len(), 2, "{all:?}");
    all[1].clone()
}

#[test]
fn inspect_verifies_and_names_damaged_sections() {
    let dir = tempfile::tempdir().unwrap();
    let file = first_checkpoint(dir.path());
    let out = run(&["inspect", file.to_str().unwrap()], dir.path());
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}{}", text(&out.stderr));
    assert!(
        so.contains("step            20") && so.contains("particles       1500"),
        "{so}"
    );
    assert!(so.contains("p.vx") && !so.contains("DAMAGED"), "{so}");

    let mut bytes = std::fs::read(&file).unwrap();
    let ck = talus::io::checkpoint::Checkpoint::open(&file).unwrap();
    let e = *ck.entries.iter().find(|e| e.name() == "contact.xi").unwrap();
    drop(ck);
    bytes[(e.offset + e.len / 2) as usize] ^= 4;
    let bad = dir.path().join("bad.talus");
    std::fs::write(&bad, &bytes).unwrap();
    let out = run(&["inspect", "bad.talus"], dir.path());
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("DAMAGED"));
    let err = text(&out.stderr);
    assert!(err.contains("bad.talus") && err.contains("contact.xi"), "{err}");
    // And restart refuses it, running nothing.
    let out = run(&["restart", "bad.talus", "--out", "never"], dir.path());
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("section contact.xi: checksum mismatch"), "{err}");
    assert!(!dir.path().join("never").exists());

    // A byte no checksum covers (alignment padding between two sections): inspect fails
    // as restart does, naming it, after every checksum passed.
    let mut bytes = std::fs::read(&file).unwrap();
    let ck = talus::io::checkpoint::Checkpoint::open(&file).unwrap();
    let mut spans: Vec<(u64, u64)> = ck.entries.iter().map(|e| (e.offset, e.offset + e.len)).collect();
    spans.sort();
    let at = spans
        .windows(2)
        .find(|w| w[1].0 > w[0].1)
        .map(|w| w[0].1)
        .expect("some padding between sections");
    drop(ck);
    bytes[at as usize] = 7;
    std::fs::write(dir.path().join("pad.talus"), &bytes).unwrap();
    let out = run(&["inspect", "pad.talus"], dir.path());
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(!text(&out.stdout).contains("DAMAGED"));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("padding byte {at}")) && err.contains("0x07"),
        "{err}"
    );
    let out = run(&["inspect", file.to_str().unwrap()], dir.path());
    assert!(
        text(&out.stdout).contains("contents        valid"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn restart_refuses_a_checkpoint_of_another_scenario() {
    let dir = tempfile::tempdir().unwrap();
    let file = first_checkpoint(dir.path());
    std::fs::write(
        dir.path().join("other.toml"),
        scenario().replace("count = 1500", "count = 1400"),
    )
    .unwrap();
    let out = run(
        &[
            "restart",
            file.to_str().unwrap(),
            "--scenario",
            "other.toml",
            "--out",
            "never",
        ],
        dir.path(),
    );
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("was not made from scenario other.toml"), "{err}");
    assert!(!dir.path().join("never").exists(), "something was written");
    // The right scenario is accepted.
    let out = run(
        &[
            "restart",
            file.to_str().unwrap(),
            "--scenario",
            "s.toml",
            "--steps",
            "5",
            "--no-output",
            "-q",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("now at step 25"), "{}", text(&out.stdout));
}

/// The polygons of `grain_box` with every output on, and `extra` sections: run for 60
/// steps straight ("straight/"), and for 40 steps with a checkpoint at 20 then restarted
/// from it with --append ("pieces/"), frames every 10. The two folders hold the same files,
/// byte for byte; their names, with the folder.
fn straight_and_appended(extra: &str) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let toml = grain_box(300, true, false, [0.04, 0.06], 60)
        .replace("vtk = false", "vtk = true")
        .replace("dump = false", "dump = true")
        .replace("energy = false", "energy = true")
        + extra;
    std::fs::write(dir.path().join("s.toml"), &toml).unwrap();
    let ok = |args: &[&str]| {
        let out = run(args, dir.path());
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    };
    ok(&["run", "s.toml", "-q", "--out", "straight", "--every", "10"]);
    ok(&[
        "run",
        "s.toml",
        "-q",
        "--out",
        "pieces",
        "--every",
        "10",
        "--steps",
        "40",
        "--checkpoint-every",
        "20",
        "--keep",
        "5",
        "--checkpoint-dir",
        "ck",
    ]);
    ok(&[
        "restart",
        "ck/checkpoint-000000000020.talus",
        "--append",
        "-q",
        "--out",
        "pieces",
        "--steps",
        "40",
        "--checkpoint-every",
        "0",
    ]);
    let files = |d: &str| {
        let mut v: Vec<String> = std::fs::read_dir(dir.path().join(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let straight = files("straight");
    assert_eq!(straight, files("pieces"));
    for f in &straight {
        let a = std::fs::read(dir.path().join("straight").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("pieces").join(f)).unwrap();
        assert!(
            a == b,
            "{f} differs between the straight run and run + restart --append"
        );
    }
    (dir, straight)
}

/// `talus restart --append` continues the first run's output series: after a run of 40
/// steps (frames every 10, a checkpoint at 20) and a restart from step 20 for 40 steps,
/// the folder's .pvd, .vtu frames, dump and energy series are byte for byte those of one
/// run of 60 steps (the frames of steps 30 and 40 the first run wrote are replaced by the
/// restart's, which are the same).
#[test]
fn restart_append_continues_the_output_series_exactly() {
    let (_dir, files) = straight_and_appended("");
    for series in ["particles_", "walls_"] {
        let frames = files
            .iter()
            .filter(|f| f.starts_with(series) && f.ends_with(".vtu"))
            .count();
        assert_eq!(frames, 7, "{series}");
    }
}

/// The same with `[analysis]` (polygons and walls: every kind of contact) and an outflow
/// region along the floor (checked every step, the checkpoint's and the next too): the
/// analysis series, the contact network, the frames that carry each grain's stress and the
/// outflow series come out byte for byte as one run's, the files of the checkpoint's own
/// step kept as the first run wrote them.
#[test]
fn restart_append_continues_the_analysis_exactly() {
    let (dir, files) = straight_and_appended(
        "[analysis]\nevery = 10\nregion = { min = [0.0, 0.0], max = [0.04, 0.02] }\n\
         [[outflow]]\nregion = { min = [0.0, 0.0], max = [0.04, 0.004] }\nevery = 1\n",
    );
    let csv = std::fs::read_to_string(dir.path().join("straight/analysis.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    let network = files.iter().filter(|f| f.starts_with("contacts_")).count();
    assert_eq!(network, 6);
    let outflow = std::fs::read_to_string(dir.path().join("straight/outflow.csv")).unwrap();
    // A row every step (the restart's first step among them, once).
    assert_eq!(outflow.lines().count(), 61, "{outflow}");
}
