//! The insertion schedule, step by step, and a grain's free fall after it.
use super::*;

#[test]
fn the_schedule_is_kept_step_by_step() {
    let mut sim = simulation(&timing_scenario());
    assert_eq!(sim.config.dt, DT);
    assert_eq!(sim.len(), 0, "the box starts empty");
    let mut seen = HashSet::new();
    let region = ([0.0, 0.05], [0.1, 0.1]);
    for step in 0..400u64 {
        assert_eq!(sim.step, step);
        sim.insert_due().unwrap();
        // After the insertions before step `step + 1`: a disc at steps 0, 8, 16, ... up to
        // 20, three hexagons at each of steps 80, 96, 112, 128 and 144.
        let discs = (step / 8 + 1).min(20) as usize;
        let hexagons = 3 * [80, 96, 112, 128, 144].iter().filter(|&&s| s <= step).count();
        let ps = &sim.particles;
        let of_type = |t: u16| ps.ptype.iter().filter(|&&p| p == t).count();
        assert_eq!((of_type(1), of_type(2)), (discs, hexagons), "before step {}", step + 1);
        for p in new_since(&sim, &seen) {
            let (x, y, r) = (ps.pos[0][p], ps.pos[1][p], ps.radius[p]);
            let inside = x - r >= region.0[0] && x + r <= region.1[0] && y - r >= region.0[1] && y + r <= region.1[1];
            assert!(
                inside,
                "step {step}: id {} at ({x}, {y}) r {r} is not inside the region",
                ps.id[p]
            );
            if ps.ptype[p] == 1 {
                assert!((0.8e-3..=1.2e-3).contains(&r), "disc radius {r}");
                assert!((0.05..=0.15).contains(&ps.vel[0][p]) && (-0.25..=-0.15).contains(&ps.vel[1][p]));
                assert!(sim.shapes.as_ref().is_none_or(|sh| !sh.is_polygon(p)));
            } else {
                assert!((r - 1.5e-3).abs() < 1e-15, "hexagon radius {r}");
                assert_eq!((ps.vel[0][p], ps.vel[1][p], ps.omega[0][p]), (0.0, 0.0, 0.0));
                assert_eq!(sim.shapes.as_ref().unwrap().range(p).len(), 6);
            }
        }
        seen = ids(&sim);
        sim.run(1).unwrap();
    }
    assert_eq!(seen.len(), 35, "ids are unique");
    let ins = sim.insertions();
    let c: Vec<_> = ins
        .iter()
        .map(|i| (i.counts.inserted, i.counts.requested, i.counts.events))
        .collect();
    // The disc stream's 20th particle came with its 153rd insertion (step 152).
    assert_eq!(c, vec![(20, 20, 153), (15, 15, 5)]);
    assert!(ins
        .iter()
        .all(|i| i.next_step().is_none() && i.counts.short_events == 0));
}

/// An inserted disc in free fall follows its parabola to rounding with both integrators
/// (both are exact for a constant force): it starts with the acceleration of gravity and
/// no other kick, whether it was inserted in the middle of a batch of steps or not.
#[test]
fn an_inserted_grain_falls_on_its_parabola() {
    for scheme in ["verlet", "gear"] {
        let text = timing_scenario().replace(
            "dt = 7.62939453125e-6",
            &format!("scheme = \"{scheme}\"\ndt = 7.62939453125e-6"),
        );
        // Where and how fast the particles inserted before steps 1 and 9 were inserted,
        // seen step by step on a twin.
        let mut twin = simulation(&text);
        let mut start = HashMap::new();
        for _ in 0..9 {
            let before = ids(&twin);
            twin.insert_due().unwrap();
            let ps = &twin.particles;
            for p in new_since(&twin, &before) {
                start.insert(
                    ps.id[p],
                    (ps.pos[0][p], ps.pos[1][p], ps.vel[0][p], ps.vel[1][p], twin.time),
                );
            }
            twin.run(1).unwrap();
        }
        assert_eq!(start.len(), 2);
        // The run: the second insertion falls in the middle of a batch.
        let mut sim = simulation(&text);
        sim.run(1).unwrap();
        sim.run(300).unwrap();
        let g = 9.81;
        for (id, (x0, y0, vx0, vy0, t0)) in start {
            let p = sim.particles.index_of(id).unwrap();
            let t = sim.time - t0;
            let (x, y) = (x0 + vx0 * t, y0 + vy0 * t - 0.5 * g * t * t);
            let off = (sim.particles.pos[0][p] - x).hypot(sim.particles.pos[1][p] - y);
            assert!(
                off < 1e-12,
                "{scheme}: id {id} is {off:e} m off its parabola after {t} s"
            );
        }
    }
}
