//! A 3D checkpoint's far and apart pairs (`contact.far`, `contact.apart`): forged ones
//! refused by name, and files of the formats before them (every pair, or every pair that
//! may touch, in a slot) read.
use super::*;

fn words<T: bytemuck::Pod>(saved: &Saved, name: &str) -> Vec<T> {
    saved.0[name]
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

fn bytes<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

/// The bed of the state tests after `N` steps, its saved sections and their far pairs.
fn settled_bed() -> (Simulation, Saved, Vec<[u32; 2]>) {
    let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
    sim.run(N).unwrap();
    let good = save(&sim);
    let far = words(&good, "contact.far");
    (sim, good, far)
}

/// Out of order, past the particles, a pair both apart and far, and an apart pair in a
/// slot as well: each refused, by the section and the pair.
#[test]
fn forged_apart_pairs_are_refused_by_name() {
    let (_, good, far) = settled_bed();
    let apart: Vec<[u32; 2]> = words(&good, "contact.apart");
    assert!(apart.len() > 10, "the bed has apart pairs");
    let mut swapped = apart.clone();
    swapped.swap(0, 1);
    let mut past = apart.clone();
    past.last_mut().unwrap()[1] = u32::MAX - 1;
    for (forged, words) in [(swapped, "pair 1: "), (past, "particles")] {
        let mut bad = Saved(good.0.clone());
        *bad.0.get_mut("contact.apart").unwrap() = bytes(&forged);
        let msg = refused(&bad);
        assert!(msg.starts_with("contact.apart: ") && msg.contains(words), "{msg}");
    }
    let twice = |p: [u32; 2]| format!("pair ({}, {}) is in the table twice", p[0], p[1]);
    // A far pair listed apart too.
    let f = far[far.len() / 2];
    let mut both = apart.clone();
    let at = both.partition_point(|p| *p < f);
    both.insert(at, f);
    let mut bad = Saved(good.0.clone());
    *bad.0.get_mut("contact.apart").unwrap() = bytes(&both);
    let msg = refused(&bad);
    assert!(msg.contains(&twice(f)), "{msg}");
    // An apart pair in a slot too.
    let a = apart[apart.len() / 2];
    let mut bad = Saved(good.0.clone());
    for (name, v) in [("contact.i", a[0]), ("contact.j", a[1])] {
        let mut w: Vec<u32> = words(&good, name);
        w.push(v);
        *bad.0.get_mut(name).unwrap() = bytes(&w);
    }
    let mut springs: Vec<f64> = words(&good, "contact.xi");
    springs.extend([0.0; 3]);
    *bad.0.get_mut("contact.xi").unwrap() = bytes(&springs);
    let msg = refused(&bad);
    assert!(msg.starts_with("contact.i: ") && msg.contains(&twice(a)), "{msg}");
}

/// Out of order, past the particles, a touching pair (in a slot, its spring loaded) kept
/// far too, and a far pair in a slot as well: each refused, by the section and the pair.
#[test]
fn forged_far_pairs_are_refused_by_name() {
    let (_, good, far) = settled_bed();
    assert!(far.len() > 10, "the bed has far pairs");
    let (ci, cj): (Vec<u32>, Vec<u32>) = (words(&good, "contact.i"), words(&good, "contact.j"));
    let xi: Vec<f64> = words(&good, "contact.xi");
    let loaded = (0..ci.len())
        .find(|&s| ci[s] != crate::contacts::FREE && xi[3 * s..3 * s + 3] != [0.0; 3])
        .expect("a loaded spring");
    let touching = [ci[loaded], cj[loaded]];
    let mut with_touching = far.clone();
    let at = with_touching.partition_point(|p| *p < touching);
    with_touching.insert(at, touching);
    let mut swapped = far.clone();
    swapped.swap(0, 1);
    let mut past = far.clone();
    past.last_mut().unwrap()[1] = u32::MAX - 1;
    let kept_far = format!(
        "pair ({}, {}) kept far, but its boxes' cores are within reach",
        touching[0], touching[1]
    );
    for (forged, words) in [
        (swapped, "pair 1: "),
        (past, "particles"),
        (with_touching, kept_far.as_str()),
    ] {
        let mut bad = Saved(good.0.clone());
        *bad.0.get_mut("contact.far").unwrap() = bytes(&forged);
        let msg = refused(&bad);
        assert!(msg.starts_with("contact.far: ") && msg.contains(words), "{msg}");
    }
    // A far pair in a slot too: the table would hold it twice.
    let [i, j] = far[far.len() / 2];
    let mut bad = Saved(good.0.clone());
    for (name, v) in [("contact.i", i), ("contact.j", j)] {
        let mut w: Vec<u32> = words(&good, name);
        w.push(v);
        *bad.0.get_mut(name).unwrap() = bytes(&w);
    }
    let mut springs = xi.clone();
    springs.extend([0.0; 3]);
    *bad.0.get_mut("contact.xi").unwrap() = bytes(&springs);
    let msg = refused(&bad);
    assert!(
        msg.starts_with("contact.i: ") && msg.contains(&format!("pair ({i}, {j}) is in the table twice")),
        "{msg}"
    );
}

/// A file of format version 2 has every candidate pair in a slot (and may have the near
/// marks of the versions before, not read), one of version 3 every pair that may touch:
/// read so, each holds the same pairs, and runs on as the file it was made from does.
#[test]
fn files_with_more_pairs_in_slots_are_read() {
    let (sim, good, far) = settled_bed();
    let apart: Vec<[u32; 2]> = words(&good, "contact.apart");
    a_file_with_these_in_slots_is_read(&sim, &good, &apart, &["contact.apart"]);
    let mut both = [far, apart].concat();
    both.sort_unstable();
    a_file_with_these_in_slots_is_read(&sim, &good, &both, &["contact.apart", "contact.far"]);
}

/// The file `good` of `sim` with the pairs `slotted` moved into slots (their springs zero)
/// and the sections `gone` removed: read, and run on.
fn a_file_with_these_in_slots_is_read(sim: &Simulation, good: &Saved, slotted: &[[u32; 2]], gone: &[&str]) {
    let mut old = Saved(good.0.clone());
    for name in gone {
        old.0.remove(*name).unwrap();
    }
    for (name, k) in [("contact.i", 0), ("contact.j", 1)] {
        let mut w: Vec<u32> = words(good, name);
        w.extend(slotted.iter().map(|p| p[k]));
        *old.0.get_mut(name).unwrap() = bytes(&w);
    }
    let mut springs: Vec<f64> = words(good, "contact.xi");
    springs.extend(std::iter::repeat_n(0.0, 3 * slotted.len()));
    *old.0.get_mut("contact.xi").unwrap() = bytes(&springs);
    if gone.contains(&"contact.far") {
        old.0.insert("contact.near", vec![1; springs.len() / 3]);
    }
    let mut read = Simulation::from_sections(&old).unwrap();
    assert!(read.contacts.apart.is_empty());
    assert_eq!(read.contacts.far.is_empty(), gone.contains(&"contact.far"));
    assert_eq!(read.contacts.len(), sim.contacts.len());
    let mut again = Simulation::from_sections(good).unwrap();
    read.run(M).unwrap();
    again.run(M).unwrap();
    let ids = |s: &Simulation| s.particles.id.clone();
    assert_eq!(ids(&read), ids(&again));
    let (pr, pa) = (&read.particles.pos, &again.particles.pos);
    for a in 0..DIM {
        let worst = (0..read.len()).map(|p| (pr[a][p] - pa[a][p]).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-9, "axis {a}: positions {worst} apart after {M} steps");
    }
}
