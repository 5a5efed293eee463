//! The checkpoint writer: keeps the newest K, leaves no temporary files, never prunes
//! another run's, and the newest complete checkpoint is found among leftovers.
use super::*;

#[test]
fn keeps_the_newest_k_and_leaves_no_temporary_files() {
    let text = scenario(false, false, 100);
    let mut sim = simulation(&text);
    let dir = tempfile::tempdir().unwrap();
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 3, 0, Vec::new(), &sim).unwrap();
    for _ in 0..7 {
        sim.run(10).unwrap();
        c.write(&sim).unwrap();
    }
    let stats = c.finish().unwrap();
    assert_eq!(stats.count, 7);
    let kept = list(dir.path(), "checkpoint").unwrap();
    let names: Vec<String> = kept
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "checkpoint-000000000050.talus",
            "checkpoint-000000000060.talus",
            "checkpoint-000000000070.talus"
        ]
    );
    let all = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(all, 3, "temporary files left behind");
    for p in &kept {
        Checkpoint::open(p).unwrap();
    }
}

/// A second run writing into the same folder prunes only its own checkpoints: the first
/// run's stay, whatever their steps.
#[test]
fn a_writer_never_prunes_another_runs_checkpoints() {
    let text = scenario(false, false, 100);
    let dir = tempfile::tempdir().unwrap();
    let mut first = simulation(&text);
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &first).unwrap();
    for _ in 0..3 {
        first.run(100).unwrap();
        c.write(&first).unwrap();
    }
    c.finish().unwrap();
    let names = |d: &Path| -> Vec<String> {
        list(d, "checkpoint")
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(dir.path()),
        ["checkpoint-000000000200.talus", "checkpoint-000000000300.talus"]
    );
    // A new run from the start, in the same folder, writing steps below and between.
    let mut second = simulation(&text);
    let mut c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &second).unwrap();
    for _ in 0..5 {
        second.run(50).unwrap();
        c.write(&second).unwrap();
    }
    c.finish().unwrap();
    assert_eq!(
        names(dir.path()),
        [
            "checkpoint-000000000200.talus",
            "checkpoint-000000000250.talus",
            "checkpoint-000000000300.talus"
        ]
    );
}

#[test]
fn the_newest_complete_checkpoint_is_found_among_leftovers() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    // A temporary file of a killed writer and an unrelated file: ignored by the listing.
    // (pid 4294967 is above any pid_max: no such process)
    std::fs::write(dir.path().join(".checkpoint-4294967-0.tmp"), &good[..1000]).unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
    assert_eq!(list(dir.path(), "checkpoint").unwrap(), vec![path.clone()]);
    // The checkpointer clears leftovers of its own kind when it starts.
    let sim = Checkpoint::open(&path).unwrap().simulation().unwrap();
    let c = Checkpointer::new(dir.path(), "checkpoint", 2, 0, Vec::new(), &sim).unwrap();
    c.finish().unwrap();
    assert!(!dir.path().join(".checkpoint-4294967-0.tmp").exists());
    assert!(dir.path().join("notes.txt").exists());
    assert!(Checkpoint::open(&path).unwrap().section("p.x").is_some());
}
