//! The 3D contact table's pairs without slots (`ContactTable::far`, the candidates that
//! cannot touch before one of their boxes is made anew, and `ContactTable::apart`, those
//! that may but do not touch: both kept out of the slots the sphere loop reads), checked
//! step by step in a bed that falls, collides and settles, against a brute-force search of
//! the touching pairs.
use super::*;
use std::collections::BTreeSet;
use talus::engine3d::contacts::SlotlessPairs;

/// At every step no far or apart pair touches, every touching pair (brute force over all
/// pairs) is in a slot and counted by the step, and pairs move both ways between the slots
/// and the lists (into slots when they touch, out at compactions): with every neighbour
/// method, and across the removal of some spheres (the particles renumbered).
#[test]
fn no_far_pair_touches_and_every_touching_pair_is_slotted() {
    for &method in NeighborMethod::ALL {
        far_pairs_against_brute_force(method);
    }
}

fn far_pairs_against_brute_force(method: NeighborMethod) {
    let LatticeBed { inits, prm, dt, half } = lattice_bed(6, 2.2, 2.0, 0.8..1.05, 31);
    let mut cfg = config(dt, [0.0, 0.0, -9.81], 2.0 * half, method, Integrator::Verlet);
    cfg.sort_every = 1000;
    let mut sim = Simulation::new(cfg, vec![material(prm)], box_of_planes(half), &inits).unwrap();
    // Pairs by their particles' ids: the reorderings and the removal renumber the particles.
    let ids = |s: &Simulation, p: [u32; 2]| {
        let (a, b) = (s.particles.id[p[0] as usize], s.particles.id[p[1] as usize]);
        [a.min(b), a.max(b)]
    };
    // The pairs of a list without slots (a mark left by a pair that took a slot skipped).
    let listed = |s: &Simulation, l: &SlotlessPairs| -> BTreeSet<[u64; 2]> {
        l.pairs()
            .iter()
            .filter(|p| p[1] != u32::MAX)
            .map(|&p| ids(s, p))
            .collect()
    };
    let far_set = |s: &Simulation| -> BTreeSet<[u64; 2]> {
        let mut set = listed(s, &s.contacts.far);
        set.extend(listed(s, &s.contacts.apart));
        set
    };
    let slotted =
        |s: &Simulation| -> BTreeSet<[u64; 2]> { s.contacts.iter().map(|(_, i, j)| ids(s, [i, j])).collect() };
    let mut before = far_set(&sim);
    let mut apart_before = listed(&sim, &sim.contacts.apart);
    let (mut moved_in, mut moved_out, mut touching_steps, mut started) = (0, 0, 0, 0);
    for step in 0..6000 {
        if step == 3000 {
            let gone: Vec<usize> = (0..sim.len()).step_by(13).collect();
            sim.remove_particles(&gone);
        }
        sim.step().unwrap();
        let ps = &sim.particles;
        let n = sim.len();
        let gap = |i: usize, j: usize| {
            let d = (0..3)
                .map(|a| (ps.pos[a][j] - ps.pos[a][i]).powi(2))
                .sum::<f64>()
                .sqrt();
            d - ps.radius[i] - ps.radius[j]
        };
        let lists = [("far", &sim.contacts.far), ("apart", &sim.contacts.apart)];
        for (what, list) in lists {
            for &[i, j] in list.pairs().iter().filter(|p| p[1] != u32::MAX) {
                assert!(
                    gap(i as usize, j as usize) > 0.0,
                    "{method:?}, step {step}: {what} pair ({i}, {j}) touches"
                );
                assert!(
                    sim.contacts.find(i, j).is_none(),
                    "{method:?}, step {step}: ({i}, {j}) {what} and in a slot"
                );
            }
        }
        let (far, slots) = (far_set(&sim), slotted(&sim));
        let mut touching = 0;
        for i in 0..n {
            for j in i + 1..n {
                if gap(i, j) < 0.0 {
                    touching += 1;
                    assert!(
                        sim.contacts.find(i as u32, j as u32).is_some(),
                        "{method:?}, step {step}: touching pair ({i}, {j}) not in a slot"
                    );
                }
            }
        }
        assert_eq!(sim.last_contacts, touching, "{method:?}, step {step}: contacts counted");
        touching_steps += (touching > 0) as u64;
        moved_in += before.intersection(&slots).count();
        moved_out += far.difference(&before).count();
        started += apart_before.intersection(&slots).count();
        before = far;
        apart_before = listed(&sim, &sim.contacts.apart);
    }
    assert!(touching_steps > 2000, "{method:?}: the bed barely collided");
    assert!(
        moved_in >= 5 && moved_out >= 5 && started >= 5,
        "{method:?}: {moved_in} pairs into slots ({started} from the apart list), {moved_out} out"
    );
}
