//! A 3D checkpoint's far pairs (`contact.far`): forged ones refused by name, and a file
//! of the format before them (every pair in a slot) read.
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
/// marks of the versions before, not read): read so, it holds the same pairs, and runs on
/// as the file it was made from does.
#[test]
fn a_file_with_every_pair_in_a_slot_is_read() {
    let (sim, good, far) = settled_bed();
    let mut old = Saved(good.0.clone());
    old.0.remove("contact.far").unwrap();
    for (name, k) in [("contact.i", 0), ("contact.j", 1)] {
        let mut w: Vec<u32> = words(&good, name);
        w.extend(far.iter().map(|p| p[k]));
        *old.0.get_mut(name).unwrap() = bytes(&w);
    }
    let mut springs: Vec<f64> = words(&good, "contact.xi");
    springs.extend(std::iter::repeat_n(0.0, 3 * far.len()));
    *old.0.get_mut("contact.xi").unwrap() = bytes(&springs);
    old.0.insert("contact.near", vec![1; springs.len() / 3]);
    let mut read = Simulation::from_sections(&old).unwrap();
    assert!(read.contacts.far.is_empty());
    assert_eq!(read.contacts.len(), sim.contacts.len());
    let mut again = Simulation::from_sections(&good).unwrap();
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
