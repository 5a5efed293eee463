//! The same seed pours the same grains; restarts and the deterministic pool continue
//! the pouring bit for bit.
use super::*;

#[test]
fn the_same_seed_pours_the_same_grains_another_does_not() {
    let run_of = |text: &str| {
        let mut s = simulation(text);
        s.run(800).unwrap();
        s
    };
    let (a, b) = (
        run_of(&crowded_scenario(5, "verlet")),
        run_of(&crowded_scenario(5, "verlet")),
    );
    assert_same_state(&a, &b, "same seed");
    let c = run_of(&crowded_scenario(6, "verlet"));
    // The first disc of the first insertion (id 31: after the 30 generated) is elsewhere.
    let at = |s: &Simulation, id: u64| {
        let p = s.particles.index_of(id).unwrap();
        (s.particles.pos[0][p], s.particles.pos[1][p])
    };
    assert_ne!(at(&a, 31), at(&c, 31));
    let moved = (0..a.len())
        .filter(|&p| {
            let id = a.particles.id[p];
            c.particles
                .index_of(id)
                .is_none_or(|q| c.particles.pos[0][q] != a.particles.pos[0][p])
        })
        .count();
    assert!(moved > a.len() / 2, "only {moved} of {} grains differ", a.len());
}

#[test]
fn a_restart_in_the_middle_of_pouring_is_bitwise() {
    for (scheme, method, at) in [
        // Step 500: both streams insert before the next step (at 500 = 5 x 100, and
        // 66 + 62 x 7), after the checkpoint.
        ("verlet", NeighborMethod::Sweep, 500),
        ("gear", NeighborMethod::Sweep, 500),
        ("verlet", NeighborMethod::Quadtree, 501),
        ("verlet", NeighborMethod::Verlet, 457),
    ] {
        let text = crowded_scenario(5, scheme);
        let make = || {
            let mut s = simulation(&text);
            s.set_neighbor_method(method);
            s
        };
        let what = format!("{scheme}, {}, checkpoint at {at}", method.name());
        let end = check_restart(&make, at, 1100, &text, &what);
        let c: Vec<_> = end.insertions().iter().map(|i| i.counts).collect();
        assert!(
            c.iter().all(|c| c.inserted > 50 && c.events > 5),
            "{what}: too little poured to test anything: {c:?}"
        );
        assert!(
            end.contacts.xi.iter().filter(|x| **x != 0.0).count() > 20,
            "{what}: no springs"
        );
    }
}

/// A small drum, at rest while discs are poured in, starting to turn at 2 ms and
/// reaching 20 rad/s over 3 ms: the wall segments do not move before the start, then
/// follow the ramp's angle exactly; a restart in the middle of the ramp (and of the
/// pouring) continues bit for bit.
#[test]
fn a_drum_starts_on_its_ramp_and_restarts_bitwise() {
    let text = format!(
        r#"
gravity = [0.0, -9.81]
[domain]
min = [0.0, 0.0]
max = [0.1, 0.1]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[drum]]
material = "grain"
centre = [0.05, 0.05]
radius = 0.03
thickness = 0.004
segments = 24
omega = 20.0
start = 0.001953125
ramp = 0.0029296875
[[insert]]
material = "grain"
region = {{ min = [0.03, 0.035], max = [0.07, 0.065] }}
radius = {{ kind = "uniform", mean = 1.0e-3, width = 0.3 }}
velocity = [0.0, -0.5]
per_insert = 30
every = 50
total = 90
[integrator]
dt = 7.62939453125e-6
[run]
steps = 1500
{OUTPUT_OFF}"#
    );
    // Start at step 256, full speed from step 640.
    let (start, ramp_end) = (256u64, 640u64);
    let mut sim = simulation(&text);
    let seg = |s: &Simulation| {
        let p = s.particles.index_of(1).unwrap();
        (
            s.particles.pos[0][p],
            s.particles.pos[1][p],
            s.particles.angle[p],
            s.particles.omega[0][p],
        )
    };
    let first = seg(&sim);
    let mut last_spin = 0.0;
    while sim.step < 1000 {
        sim.run(8).unwrap();
        let (x, y, angle, spin) = seg(&sim);
        let t = sim.time;
        if sim.step <= start {
            assert_eq!(
                (x, y, angle, spin),
                first,
                "step {}: the drum moved before its start",
                sim.step
            );
            continue;
        }
        // The angle turned so far: 20 rad/s x the integral of the ramp profile.
        let s = t - 0.001953125;
        let turned = 20.0
            * if s < 0.0029296875 {
                0.5 * s * s / 0.0029296875
            } else {
                s - 0.5 * 0.0029296875
            };
        assert!(
            (angle - turned).abs() < 1e-9,
            "step {}: angle {angle}, ramp gives {turned}",
            sim.step
        );
        let r0 = ((first.0 - 0.05) as f64).hypot(first.1 - 0.05);
        assert!(((x - 0.05).hypot(y - 0.05) - r0).abs() < 1e-12, "off the ring");
        if sim.step <= ramp_end {
            assert!(
                spin > last_spin && spin < 20.0,
                "step {}: spin {spin} while starting",
                sim.step
            );
        } else {
            assert_eq!(spin, 20.0, "step {}: spin at full speed", sim.step);
        }
        last_spin = spin;
    }
    assert_eq!(sim.insertions()[0].counts.inserted, 90);
    check_restart(&|| simulation(&text), 400, 1000, &text, "drum mid-ramp and mid-pour");
}

#[test]
fn the_deterministic_pool_pours_the_serial_run_bit_for_bit() {
    let text = crowded_scenario(5, "verlet");
    let mut serial = simulation(&text);
    serial.run(1200).unwrap();
    for threads in [2, 3] {
        let mut sim = simulation(&text);
        sim.set_parallel(&vec![None; threads], ForceStrategy::Deterministic)
            .unwrap();
        while sim.step < 1200 {
            sim.run(50).unwrap();
        }
        assert_same_state(&serial, &sim, &format!("{threads} threads"));
    }
    assert!(serial.len() > 300);
}
