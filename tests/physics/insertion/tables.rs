//! Every neighbour method sees the poured particles; the contact tables stay complete.
use super::*;

/// Every touching pair (brute force) is in the contact table, every particle touching a
/// wall in the wall contacts: the neighbour search saw the new particles.
fn assert_tables_complete(sim: &Simulation, what: &str) -> usize {
    let ps = &sim.particles;
    let mut touching = 0;
    for i in 0..sim.len() {
        for j in i + 1..sim.len() {
            let d = (ps.pos[0][j] - ps.pos[0][i]).hypot(ps.pos[1][j] - ps.pos[1][i]);
            if d < ps.radius[i] + ps.radius[j] {
                touching += 1;
                assert!(
                    sim.contacts.find(i as u32, j as u32).is_some(),
                    "{what}, step {}: ids {} and {} may touch but are not in the contact table",
                    sim.step,
                    ps.id[i],
                    ps.id[j]
                );
            }
        }
        for (w, wall) in sim.walls.iter().enumerate() {
            if wall.line.distance(ps.pos[0][i], ps.pos[1][i]) < ps.radius[i] {
                let wc = &sim.wall_contacts;
                assert!(
                    (0..wc.len()).any(|k| wc.p[k] as usize == i && wc.w[k] as usize == w),
                    "{what}, step {}: id {} touches wall {w} but is not in the wall contacts",
                    sim.step,
                    ps.id[i]
                );
            }
        }
    }
    touching
}

#[test]
fn every_neighbour_method_sees_the_new_particles() {
    let text = crowded_scenario(5, "verlet");
    for &m in NeighborMethod::ALL {
        let mut sim = simulation(&text);
        sim.set_neighbor_method(m);
        let mut most = 0;
        while sim.step < 1500 {
            sim.run(25).unwrap();
            most = most.max(assert_tables_complete(&sim, m.name()));
        }
        assert!(
            sim.len() > 300 && most > 100,
            "{}: {} particles, {most} touching",
            m.name(),
            sim.len()
        );
    }
}
