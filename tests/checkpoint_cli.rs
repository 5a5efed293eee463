//! Checkpoints through the `talus` program: killed runs restart from their newest
//! checkpoint, `talus inspect` finds damage, `talus restart` refuses a checkpoint of
//! another scenario.
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::io::checkpoint::list;

mod common;
use common::{grain_box, run, talus, text};

/// 1,500 discs on a lattice with random velocities, in a closed box, for ever.
fn scenario() -> String {
    grain_box(1500, false, false, [0.08, 0.08], 10_000_000)
}

/// `talus run` with a checkpoint every 4 steps is killed (SIGKILL) at random moments, at
/// least 20 times after its first checkpoint; each time `talus restart` on the folder must
/// continue from the newest checkpoint, which must be complete (no fallback to an older
/// one). The runs write a checkpoint every few milliseconds, with its flush and rename in
/// the background, so the kills land in every stage of the writing.
#[test]
fn killed_runs_always_restart_from_their_newest_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("kill.toml");
    std::fs::write(&scenario, self::scenario()).unwrap();
    let ck = dir.path().join("ck");
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2026);
    let (mut restarts, mut attempts) = (0, 0);
    let t0 = Instant::now();
    while restarts < 20 {
        attempts += 1;
        assert!(
            attempts < 60,
            "only {restarts} kills after a first checkpoint in {attempts} attempts"
        );
        let mut child = Command::new(talus())
            .args([
                "run",
                "kill.toml",
                "-q",
                "--checkpoint-every",
                "4",
                "--keep",
                "2",
                "--checkpoint-dir",
                "ck",
            ])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("talus starts");
        std::thread::sleep(Duration::from_millis(rng.random_range(100..700)));
        let exited = child.try_wait().unwrap();
        assert!(
            exited.is_none(),
            "the run ended by itself: {:?}",
            child.wait_with_output().unwrap()
        );
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if list(&ck, "checkpoint").map(|l| l.is_empty()).unwrap_or(true) {
            continue; // killed before its first checkpoint
        }
        let out = run(
            &[
                "restart",
                "ck",
                "--steps",
                "3",
                "--no-output",
                "-q",
                "--checkpoint-every",
                "0",
            ],
            dir.path(),
        );
        let err = text(&out.stderr);
        assert!(out.status.success(), "restart after kill {attempts} failed:\n{err}");
        assert!(err.contains("restarted from"), "{err}");
        assert!(!err.contains("skipped"), "the newest checkpoint was not usable:\n{err}");
        restarts += 1;
    }
    println!(
        "{restarts} restarts after {attempts} kills in {:.1} s",
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
