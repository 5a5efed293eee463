//! Damaged files are refused and the damage named: truncation, flipped bytes, a wrong
//! header, non-zero padding, the fuzzer's findings.
use super::*;

#[test]
fn truncated_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, good) = valid_file(dir.path());
    for len in [
        0,
        7,
        100,
        HEADER_BYTES,
        HEADER_BYTES + 10,
        good.len() / 2,
        good.len() - 1,
    ] {
        let msg = refused(dir.path(), &format!("cut-{len}.talus"), &good[..len]);
        assert!(
            msg.contains("truncated") || msg.contains("checksum mismatch in the header"),
            "cut to {len}: {msg}"
        );
    }
    // Appended to is not the file that was written either.
    let mut longer = good.clone();
    longer.extend_from_slice(&[0; 64]);
    let msg = refused(dir.path(), "longer.talus", &longer);
    assert!(msg.contains("header says"), "{msg}");
}

#[test]
fn a_flipped_byte_in_any_section_is_found_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let mut tested = 0;
    for e in &ck.entries {
        if e.len == 0 {
            continue;
        }
        for at in [e.offset, e.offset + e.len / 2, e.offset + e.len - 1] {
            let mut bad = good.clone();
            bad[at as usize] ^= 0x10;
            let msg = refused(dir.path(), "flipped.talus", &bad);
            assert!(
                msg.contains(&format!("section {}:", e.name())) && msg.contains("checksum mismatch"),
                "byte {at} of {}: {msg}",
                e.name()
            );
        }
        tested += 1;
    }
    assert!(tested > 30, "{tested} sections");
    // In the header and in the section table.
    for at in [20, 60, HEADER_BYTES + 3, HEADER_BYTES + 64 * 5 + 40] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        let msg = refused(dir.path(), "header.talus", &bad);
        assert!(msg.contains("checksum mismatch in the header"), "byte {at}: {msg}");
    }
}

#[test]
fn wrong_magic_version_and_byte_order_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, good) = valid_file(dir.path());
    let mut h = header(&good);
    h.magic = *b"NOTTALUS";
    let msg = refused(dir.path(), "magic.talus", &with_header(&good, &h));
    assert!(msg.contains("not a talus checkpoint"), "{msg}");

    // A newer format, its header checksum correct: refused for its version.
    let mut h = header(&good);
    h.version = 99;
    let mut newer = with_header(&good, &h);
    seal(&mut newer).unwrap();
    let msg = refused(dir.path(), "version.talus", &newer);
    assert!(msg.contains("format version 99"), "{msg}");

    // Written on a machine of the other byte order: the mark reads swapped.
    let mut h = header(&good);
    h.byte_order = BYTE_ORDER_MARK.swap_bytes();
    let msg = refused(dir.path(), "endian.talus", &with_header(&good, &h));
    assert!(msg.contains("other byte order"), "{msg}");
}

/// The alignment padding no checksum covers must be zero: a byte set in it (after the
/// table, between two sections, after the last) is refused, naming where it is.
#[test]
fn padding_bytes_must_be_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let mut ends: Vec<(u64, u64)> = ck.entries.iter().map(|e| (e.offset, e.offset + e.len)).collect();
    ends.sort();
    // The gaps: after the table, and after each section that does not end on the
    // alignment.
    let mut gaps = vec![(ck.header.table_end, ends[0].0)];
    gaps.extend(ends.windows(2).map(|w| (w[0].1, w[1].0)).filter(|g| g.1 > g.0));
    gaps.push((ends.last().unwrap().1, good.len() as u64));
    let gaps: Vec<(u64, u64)> = gaps.into_iter().filter(|g| g.1 > g.0).collect();
    assert!(gaps.len() >= 3, "the test file needs some padding: {gaps:?}");
    for (from, to) in [gaps[0], gaps[gaps.len() / 2], gaps[gaps.len() - 1]] {
        let at = (from + to) / 2;
        let mut bad = good.clone();
        bad[at as usize] = 0x5a;
        seal(&mut bad).unwrap();
        let msg = refused(dir.path(), "padding.talus", &bad);
        assert!(
            msg.contains(&format!("padding byte {at}")) && msg.contains("0x5a"),
            "byte {at}: {msg}"
        );
    }
    // Two sections sharing bytes: the second one's table entry pointed into the first.
    let mut bad = good.clone();
    let k = ck.entries.iter().position(|e| e.name() == "p.y").unwrap();
    let x = ck.entries.iter().find(|e| e.name() == "p.x").unwrap();
    let at = HEADER_BYTES + 64 * k + 40; // Entry::offset
    bad[at..at + 8].copy_from_slice(&x.offset.to_ne_bytes());
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "overlap.talus", &bad);
    assert!(msg.contains("overlaps"), "{msg}");
}

/// The inputs the fuzzer (fuzz/) found that once made the reader or the first steps after
/// it panic, hang or run out of memory: a contact table that did not match the neighbour
/// search (a pair added twice), a stored box hundreds of metres long and a radius of
/// 100 m (the quadtree cut them into millions of tiles). Each must now be refused; none
/// may panic.
#[test]
fn fuzzer_findings_are_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut tested = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".py") || name.ends_with(".md") {
            continue;
        }
        // Unverified: the raw artifacts reached the engine without valid section CRCs.
        let result = Checkpoint::open_unverified(&path).and_then(|c| c.simulation());
        let msg = match result {
            Ok(mut sim) => panic!(
                "{name}: accepted ({} particles; 2 steps: {:?})",
                sim.len(),
                sim.run(2).err()
            ),
            Err(e) => e.to_string(),
        };
        println!("{name}: {msg}");
        // The hand-made ones: refused for what was done to them.
        let expected: &[&str] = if name.starts_with("contact-pair-not-in-broad-phase") {
            &["section broad.boxes", "section contact.i"]
        } else if name.starts_with("quadtree-huge-radius") {
            &["section p.radius"]
        } else if name.starts_with("quadtree-restore-long-box") {
            &["section broad.boxes"]
        } else if name.starts_with("quadtree-huge-domain") {
            &["section p.radius"]
        } else if name.starts_with("scalars-") {
            &["section scalars"]
        } else {
            &["checkpoint"]
        };
        assert!(expected.iter().any(|e| msg.contains(e)), "{name}: {msg}");
        tested += 1;
    }
    assert!(tested >= 6, "{tested} regression inputs");
}
