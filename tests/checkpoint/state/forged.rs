//! Forged files with valid checksums but impossible contents are refused.
use super::*;

/// Insertion streams and drive start times that no scenario could make, with their
/// checksums and the settings digest made right: each refused, naming the section.
#[test]
fn impossible_insertion_and_drive_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}{}",
        scenario(false, false, 40).replace("[integrator]", "[[drum]]\nmaterial = \"grain\"\ncentre = [0.02, 0.03]\nradius = 0.008\nthickness = 0.002\nsegments = 8\nomega = 1.0\nstart = 0.01\nramp = 0.01\n[integrator]"),
        r#"
[[insert]]
material = "grain"
region = { min = [0.001, 0.04], max = [0.039, 0.059] }
radius = { kind = "fixed", value = 0.8e-3 }
per_insert = 5
every = 50
total = 40
"#
    );
    let mut sim = simulation(&text);
    sim.run(120).unwrap();
    assert!(sim.insertions()[0].counts.inserted > 0);
    let path = checkpoint(&sim, dir.path(), &text);
    let good = std::fs::read(&path).unwrap();
    let ck = Checkpoint::open(&path).unwrap();
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    let set_u64 = |k: usize, v: u64| -> Spoil {
        Box::new(move |b: &mut [u8]| b[8 * k..8 * k + 8].copy_from_slice(&v.to_ne_bytes()))
    };
    // insert.spec: [record length, region min x, min y, max x, max y, ...];
    // insert.state: [next id, events, inserted, requested, short events].
    let cases: Vec<(&str, Spoil, &[&str])> = vec![
        ("insert.spec", set_f64(4, 1.0), &["stream 0", "inside the domain"]),
        ("insert.spec", set_u64(8, 2), &["stream 0", "amount kind 2"]),
        ("insert.spec", set_u64(0, 3), &["stream 0", "cut short"]),
        ("insert.state", set_u64(1, 0), &["stream 0", "before the current step"]),
        ("insert.state", set_u64(2, 1000), &["stream 0", "inserted of"]),
        ("insert.state", Box::new(|b: &mut [u8]| b[8..].fill(0)), &["stream 0"]),
        ("drives.motion", set_f64(1, -1.0), &["drive 0", "ramp -1"]),
        ("drives.motion", set_f64(0, f64::NAN), &["drive 0", "start NaN"]),
    ];
    for (name, spoil, words) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "spoilt.talus", &bad);
        assert!(msg.contains(&format!("section {name}:")), "{name}: {msg}");
        for w in words {
            assert!(msg.contains(w), "{name}: {msg} lacks {w:?}");
        }
    }
}

/// Drives' laws no scenario could make, checksums and digest made right: refused by name.
#[test]
fn impossible_drive_laws_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = super::restart::rocking_drum();
    let mut sim = simulation(&text);
    sim.run(50).unwrap();
    let path = checkpoint(&sim, dir.path(), &text);
    let good = std::fs::read(&path).unwrap();
    let ck = Checkpoint::open(&path).unwrap();
    let e = *ck.entries.iter().find(|e| e.name() == "drives.laws").unwrap();
    // Words: drive 0 (the plate: bodies come before drums): 1 (laws), 1 (slide),
    // direction 0, 1, kind 1 (sine), count 3, amplitude, frequency, phase, 1 (turn), kind
    // 0, count 1, 3.0; drive 1 (the drum): 1, 0 (no slide), 1, kind 1, count 3, ...
    let cases: Vec<(Spoil, &[&str])> = vec![
        (set_f64(0, 2.0), &["drive 0", "laws flag 2"]),
        (set_f64(5, 5.0), &["drive 0", "law 1 with 5 values"]),
        (set_f64(7, -1.0), &["drive 0", "slide:", "frequency > 0"]),
        (set_f64(3, 0.5), &["drive 0", "not a unit vector"]),
        (set_f64(14, 2.0), &["drive 1", "slide flag 2"]),
        (set_f64(13, 0.0), &["words past the last drive"]),
    ];
    for (spoil, words) in cases {
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "spoilt.talus", &bad);
        assert!(msg.contains("section drives.laws:"), "{msg}");
        for w in words {
            assert!(msg.contains(w), "{msg} lacks {w:?}");
        }
    }
}

/// Sections whose checksums are right but whose contents break the engine's invariants
/// (as a bug or a hand-made file would): refused, naming the section, never a panic.
#[test]
fn inconsistent_contents_with_valid_checksums_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    let n = ck.header.particles as u32;
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    type Spoil = Box<dyn Fn(&mut [u8])>;
    let cases: Vec<(&str, Spoil)> = vec![
        // A pair naming a particle that does not exist.
        (
            "contact.j",
            Box::new(move |b: &mut [u8]| b[..4].copy_from_slice(&(n + 5).to_le_bytes())),
        ),
        // A particle outside the domain.
        (
            "p.x",
            Box::new(|b: &mut [u8]| b[..8].copy_from_slice(&1.0e9f64.to_le_bytes())),
        ),
        // A polygon with 2 vertices.
        (
            "shape.start",
            Box::new(|b: &mut [u8]| b[4..8].copy_from_slice(&2u32.to_le_bytes())),
        ),
        // Box ends out of order: the lowest on x and the highest swapped.
        (
            "broad.order.x",
            Box::new(|b: &mut [u8]| {
                let n = b.len();
                let (first, last) = ([b[0], b[1], b[2], b[3]], [b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
                b[..4].copy_from_slice(&last);
                b[n - 4..].copy_from_slice(&first);
            }),
        ),
        // A material that does not exist.
        (
            "p.material",
            Box::new(|b: &mut [u8]| b[..2].copy_from_slice(&77u16.to_le_bytes())),
        ),
        // A gap far larger than the pairs' distance (it would let them pass through
        // each other without a walk).
        (
            "contact.area",
            Box::new(|b: &mut [u8]| {
                b.chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&(-1.0e9f64).to_le_bytes()))
            }),
        ),
        // Radii smaller than the polygons they bound.
        (
            "p.radius",
            Box::new(|b: &mut [u8]| {
                b.chunks_exact_mut(8)
                    .for_each(|c| c.copy_from_slice(&(1.0e-5f64).to_le_bytes()))
            }),
        ),
        // Wall contacts out of order (the pool cuts the list at particles).
        (
            "wallc.p",
            Box::new(|b: &mut [u8]| {
                let mut v: Vec<u32> = b
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                assert!(v.first() != v.last(), "the test file needs two particles at walls");
                v.reverse();
                b.copy_from_slice(bytemuck::cast_slice(&v));
            }),
        ),
        // An unknown integrator.
        (
            "config",
            Box::new(|b: &mut [u8]| b[64..72].copy_from_slice(&9u64.to_le_bytes())),
        ),
    ];
    for (name, spoil) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        seal(&mut bad).unwrap();
        let msg = refused(dir.path(), "inconsistent.talus", &bad);
        // A changed settings section no longer matches the header's digest, checked first.
        let named = if name == "config" {
            msg.contains("config") && msg.contains("digest")
        } else {
            msg.contains(&format!("section {name}"))
        };
        assert!(named, "{name}: {msg}");
    }
    // A stored box moved onto another particle's (inside the domain; linked cells, which
    // keep no sorted ends that would give it away): the neighbour search's pair set and
    // the contact table no longer agree, and the run would add a pair it already has.
    let sub = dir.path().join("cells");
    let (cpath, cgood) = valid_file_with(&sub, NeighborMethod::Cells);
    let cck = Checkpoint::open(&cpath).unwrap();
    let e = *cck.entries.iter().find(|e| e.name() == "broad.boxes").unwrap();
    let mut bad = cgood.clone();
    let at = e.offset as usize;
    let get = |b: &[u8], p: usize| -> [f32; 4] { bytemuck::pod_read_unaligned(&b[at + 16 * p..at + 16 * p + 16]) };
    // Particle 0's box, its size kept, moved onto particle 20's.
    let (b0, b20) = (get(&bad, 0), get(&bad, 20));
    let moved = [b20[0], b20[0] + (b0[1] - b0[0]), b20[2], b20[2] + (b0[3] - b0[2])];
    bad[at..at + 16].copy_from_slice(bytemuck::bytes_of(&moved));
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "moved-box.talus", &bad);
    assert!(msg.contains("section contact.i"), "{msg}");
    // A missing section: renamed in the table.
    let mut bad = good.clone();
    let k = ck.entries.iter().position(|e| e.name() == "p.vx").unwrap();
    bad[HEADER_BYTES + 64 * k] = b'q';
    seal(&mut bad).unwrap();
    let msg = refused(dir.path(), "missing.talus", &bad);
    assert!(msg.contains("section p.vx: missing"), "{msg}");
}

/// Seal a forged image: the settings digest of the header recomputed (so that a changed
/// settings section is judged on its contents), then every CRC.
fn reseal(bytes: &mut [u8]) {
    let mut h = header(bytes);
    let n = h.sections as usize;
    let entries: Vec<Entry> = (0..n)
        .map(|k| bytemuck::pod_read_unaligned(&bytes[HEADER_BYTES + 64 * k..][..64]))
        .collect();
    h.settings_hash = settings_hash(|name| {
        entries
            .iter()
            .find(|e| e.name() == name)
            .map(|e| &bytes[e.offset as usize..(e.offset + e.len) as usize])
    });
    bytes[..HEADER_BYTES].copy_from_slice(bytemuck::bytes_of(&h));
    seal(bytes).unwrap();
}

fn set_f64(k: usize, v: f64) -> Spoil {
    Box::new(move |b: &mut [u8]| b[8 * k..8 * k + 8].copy_from_slice(&v.to_ne_bytes()))
}

/// Values no scenario could produce, in sections whose checksums (and settings digest)
/// are made right again: each refused by the content checks, naming the section and the
/// particle, slot or entry, and the problem.
#[test]
fn impossible_contents_with_valid_checksums_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (path, good) = valid_file(dir.path());
    let ck = Checkpoint::open(&path).unwrap();
    // (section, forgery, words the message must hold)
    let cases: Vec<(&str, Spoil, &[&str])> = vec![
        ("p.inv_mass", set_f64(3, -2.0), &["particle index 3", "inverse mass -2"]),
        (
            "p.inv_mass",
            set_f64(3, f64::INFINITY),
            &["particle index 3", "not finite"],
        ),
        (
            "p.id",
            Box::new(|b: &mut [u8]| {
                let first: [u8; 8] = b[..8].try_into().unwrap();
                b[40..48].copy_from_slice(&first);
            }),
            &["particle indices 0 and 5", "both have id"],
        ),
        ("scalars", set_f64(2, f64::NAN), &["simulated time NaN"]),
        ("scalars", set_f64(2, -1.0), &["simulated time -1"]),
        (
            "p.angle",
            set_f64(7, f64::NAN),
            &["particle index 7", "NaN is not finite"],
        ),
        (
            "p.omega",
            set_f64(2, f64::INFINITY),
            &["particle index 2", "inf is not finite"],
        ),
        (
            "p.vy",
            set_f64(9, f64::NEG_INFINITY),
            &["particle index 9", "not finite"],
        ),
        ("p.fx", set_f64(1, f64::NAN), &["particle index 1", "not finite"]),
        ("p.torque", set_f64(1, f64::NAN), &["particle index 1", "not finite"]),
        ("contact.xi", set_f64(0, f64::NAN), &["slot 0", "tangential spring NaN"]),
        (
            "wallc.xi",
            set_f64(0, f64::INFINITY),
            &["entry 0", "tangential spring inf"],
        ),
        ("wallc.area", set_f64(0, f64::NAN), &["entry 0", "overlap area NaN"]),
        (
            "gear.b.angle",
            set_f64(4, f64::NAN),
            &["particle index 4", "not finite"],
        ),
        (
            "p.inv_inertia",
            set_f64(6, -1.0),
            &["particle index 6", "inverse moment of inertia -1"],
        ),
        (
            "p.inv_inertia",
            Box::new(|b: &mut [u8]| {
                let v = f64::from_ne_bytes(b[48..56].try_into().unwrap());
                b[48..56].copy_from_slice(&(2.0 * v).to_ne_bytes())
            }),
            &["particle index 6", "its mass and shape give"],
        ),
        (
            "p.flags",
            Box::new(|b: &mut [u8]| b[2] = 0x40),
            &["particle index 2", "flags 0x40"],
        ),
        // Fixed, but with the mass of a free grain.
        (
            "p.flags",
            Box::new(|b: &mut [u8]| b[2] = 1),
            &[
                "section p.inv_mass: particle index 2",
                "fixed or driven with inverse mass",
            ],
        ),
        // The first polygon's body frame moved off its centroid (shrunk so that it still
        // fits its bounding radius and stays convex).
        (
            "shape.body",
            Box::new(|b: &mut [u8]| {
                let mut v: Vec<f64> = b
                    .chunks_exact(8)
                    .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
                    .collect();
                v.iter_mut().for_each(|c| *c *= 0.5);
                v[0] += 1e-4;
                b.copy_from_slice(bytemuck::cast_slice(&v));
            }),
            &["particle index 0", "centroid at"],
        ),
        // Two corners of the first polygon swapped: concave (a bow tie) and not where
        // the body frame and pose put them.
        (
            "shape.world",
            Box::new(|b: &mut [u8]| {
                let (c0, c1): ([u8; 16], [u8; 16]) = (b[..16].try_into().unwrap(), b[16..32].try_into().unwrap());
                b[..16].copy_from_slice(&c1);
                b[16..32].copy_from_slice(&c0);
            }),
            &["particle index 0", "corner 0", "its shape and pose put it"],
        ),
        // Settings sections (the header's digest recomputed).
        ("materials", set_f64(5, -0.3), &["material 0", "mu = -0.3"]),
        ("materials", set_f64(0, f64::NAN), &["material 0", "density = NaN"]),
        ("walls", set_f64(0, f64::NAN), &["wall 0", "must be finite"]),
    ];
    let entry = |name: &str| *ck.entries.iter().find(|e| e.name() == name).unwrap();
    for (name, spoil, words) in cases {
        let e = entry(name);
        let mut bad = good.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "impossible.talus", &bad);
        // The forged section is named, unless the case names another one.
        if !words.iter().any(|w| w.starts_with("section ")) {
            assert!(msg.contains(&format!("section {name}:")), "{name}: {msg}");
        }
        for w in words {
            assert!(msg.contains(w), "{name}: {msg} lacks {w:?}");
        }
    }

    // The rotating drum's drives: a driven wall segment that lost its flag, a drive
    // spinning at an infinite rate.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenarios/drum.toml")).unwrap();
    let mut sim = simulation(&text);
    sim.run(10).unwrap();
    let sub = dir.path().join("drum");
    let dpath = checkpoint(&sim, &sub, &text);
    let dgood = std::fs::read(&dpath).unwrap();
    let dck = Checkpoint::open(&dpath).unwrap();
    let dentry = |name: &str| *dck.entries.iter().find(|e| e.name() == name).unwrap();
    let first_driven = {
        let e = dentry("driven.index");
        u32::from_ne_bytes(dgood[e.offset as usize..][..4].try_into().unwrap()) as usize
    };
    let cases: Vec<(&str, Spoil, String)> = vec![
        (
            "drives",
            set_f64(4, f64::INFINITY),
            "section drives: drive 0".to_string(),
        ),
        ("driven.t0", set_f64(0, 1e9), "section driven.t0: entry 0".to_string()),
        (
            "driven.rel",
            set_f64(1, f64::NAN),
            "section driven.rel: entry 0".to_string(),
        ),
    ];
    for (name, spoil, words) in cases {
        let e = dentry(name);
        let mut bad = dgood.clone();
        spoil(&mut bad[e.offset as usize..(e.offset + e.len) as usize]);
        reseal(&mut bad);
        let msg = refused(dir.path(), "drum.talus", &bad);
        assert!(msg.contains(&words), "{name}: {msg}");
    }
    // The driven particle made free: its inverse mass stays 0.
    let e = dentry("p.flags");
    let mut bad = dgood.clone();
    bad[e.offset as usize + first_driven] = 0;
    reseal(&mut bad);
    let msg = refused(dir.path(), "drum.talus", &bad);
    assert!(
        msg.contains("section p.inv_mass") && msg.contains(&format!("particle index {first_driven}")),
        "{msg}"
    );
}
