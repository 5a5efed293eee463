//! Restarts of turning walls: a drum turned by a law (3D), a line or plane tilted about a
//! pivot; and forged "walls.turn" and "walls.tilt" sections refused by name.
use super::*;

/// A drum turned by a law (3D): a restart in the middle of the law continues it bit for
/// bit (its clock started after time 0); "walls.turn" naming the floor, a wall twice, or
/// a table out of order is refused by name.
#[cfg(feature = "dim3")]
#[test]
fn a_drum_turned_by_a_law_restarts_bitwise() {
    use crate::wall_motion::Displacement;
    let turned = || {
        let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
        sim.run(50).unwrap();
        let law = Displacement::Sine {
            amplitude: 0.05,
            frequency: 40.0,
            phase: 0.2,
        };
        sim.turn_wall(1, law).unwrap();
        sim
    };
    let mut straight = turned();
    straight.run(2 * N).unwrap();
    let mut first = turned();
    first.run(N).unwrap();
    let saved = save(&first);
    let mut restored = Simulation::from_sections(&saved).unwrap();
    assert_eq!(restored.wall_turns(), first.wall_turns());
    restored.run(N).unwrap();
    same_bits(
        &restored.particles.vel,
        &straight.particles.vel,
        "turned drum: velocities",
    );
    same_bits(
        &restored.particles.omega,
        &straight.particles.omega,
        "turned drum: spins",
    );
    assert_same_state(&restored, &straight, "turned drum");
    // Words: wall, start, kind, count, values.
    for (k, v, words) in [
        (0, 0.0, "wall 0: not a drum"),
        (0, 5.0, "not one of 2 walls"),
        (1, -1.0, "start -1"),
        (4, f64::NAN, "finite values"),
    ] {
        let mut bad = Saved(saved.0.clone());
        set_f64(&mut bad, "walls.turn", k, v);
        let msg = refused(&bad);
        assert!(
            msg.starts_with("walls.turn: ") && msg.contains(words),
            "[{k}] = {v}: {msg}"
        );
    }
    let mut twice = Saved(saved.0.clone());
    let once = twice.0["walls.turn"].clone();
    twice.0.get_mut("walls.turn").unwrap().extend(once);
    assert!(refused(&twice).contains("turns twice"), "{}", refused(&twice));
}

/// The floor tilted about a pivot (2D: in the plane; 3D: about x) at 20 rad/s, its
/// contacts listed again as it turns: a restart in the middle continues bit for bit;
/// forged "walls.tilt" words are refused by name.
#[test]
fn a_tilted_floor_restarts_bitwise() {
    use crate::wall_motion::Displacement;
    let axis: [f64; ANG] = std::array::from_fn(|k| if k == 0 { 1.0 } else { 0.0 });
    let tilted = || {
        let mut sim = bed(NeighborMethod::Sweep, Integrator::Verlet);
        sim.run(50).unwrap();
        sim.tilt_wall(0, [1e-3; DIM], axis, Displacement::Velocity(20.0))
            .unwrap();
        sim
    };
    let mut straight = tilted();
    straight.run(2 * N).unwrap();
    let mut first = tilted();
    first.run(N).unwrap();
    let saved = save(&first);
    let mut restored = Simulation::from_sections(&saved).unwrap();
    assert_eq!(restored.wall_tilts(), first.wall_tilts());
    assert_eq!(restored.walls, first.walls, "the walls, spins included");
    restored.run(N).unwrap();
    same_bits(
        &restored.particles.vel,
        &straight.particles.vel,
        "tilted floor: velocities",
    );
    assert_same_state(&restored, &straight, "tilted floor");
    assert!(
        straight.wall_relists() > 0,
        "the floor's contacts were never listed again"
    );
    let n = straight.walls[0].normal_at([0.0; DIM]);
    let angle = straight.wall_tilts()[0].angle(straight.time).0;
    assert!((n[DIM - 1] - angle.cos()).abs() < 1e-12, "{n:?} at {angle} rad");
    // Words: wall, start, pivot, axis, point, normal, listed, lever, law.
    let at_normal = 2 + 2 * DIM + ANG;
    for (k, v, words) in [
        (0, 7.0, "not one of"),
        (1, -1.0, "start -1"),
        (2, f64::INFINITY, "not finite"),
        (at_normal, 2.0, "not of unit length"),
        (2 + 4 * DIM + ANG, -1.0, "negative lever"),
        (2 + 4 * DIM + ANG, 1e-3, "short of the domain's farthest corner"),
    ] {
        let mut bad = Saved(saved.0.clone());
        set_f64(&mut bad, "walls.tilt", k, v);
        let msg = refused(&bad);
        assert!(
            msg.starts_with("walls.tilt: ") && msg.contains(words),
            "[{k}] = {v}: {msg}"
        );
    }
    let mut twice = Saved(saved.0.clone());
    let once = twice.0["walls.tilt"].clone();
    twice.0.get_mut("walls.tilt").unwrap().extend(once);
    assert!(refused(&twice).contains("wall 0: moves twice"), "{}", refused(&twice));
}
