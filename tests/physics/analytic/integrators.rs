//! The two integrators agree.
use super::*;

/// 200 discs (radii uniform in [0.5, 1.5] mm) on a lattice, dropped into a 40 mm wide box
/// with friction 0.5 and e = 0.5. Returns the kinetic energy sampled every 1000 steps, and
/// the final simulation.
fn drop_bed(integrator: Integrator, steps: usize) -> (Vec<f64>, Simulation) {
    let w = 0.04;
    let radii = RadiusDist::Uniform {
        mean: 1.0e-3,
        width: 0.5,
    };
    let discs = generate::lattice(200, &radii, [0.0, 0.005], [w, 0.1], 3).unwrap();
    let parts: Vec<ParticleInit> = discs
        .iter()
        .enumerate()
        .map(|(k, d)| disc(k as u64 + 1, d.centre[0], d.centre[1], 0.0, 0.0, d.r))
        .collect();
    let m_min = parts.iter().map(|p| p.mass).fold(f64::INFINITY, f64::min);
    let p = frictional(0.5, 0.5 * disc_mass(1.0e-3), 0.5);
    let dt = p.contact_time(0.5 * m_min) / 50.0;
    let walls = vec![
        wall([0.0, 0.0], [0.0, 1.0]),
        wall([0.0, 0.0], [1.0, 0.0]),
        wall([w, 0.0], [-1.0, 0.0]),
    ];
    let cfg = config(dt, [0.0, -G], [-0.01, -0.01], [w + 0.01, 0.12], integrator);
    let mut sim = Simulation::new(cfg, vec![material(p)], walls, &parts).unwrap();
    let mut ke = Vec::new();
    for k in 1..=steps {
        sim.step().unwrap();
        if k % 1000 == 0 {
            ke.push(sim.energies().kinetic);
        }
    }
    (ke, sim)
}

/// Verlet and Gear on the same 200-disc drop (bed 45 mm tall, 5 mm above the floor) for
/// the same simulated time (0.33 s, 120,000 steps of t_c/50):
/// - while the bed falls and lands (every sample with a kinetic energy above 20 % of the
///   peak) the two kinetic energies agree within 10 %; measured: identical to 5 digits in
///   free fall, at most 6 % apart during the landing (peaks 0.1386 J and 0.1398 J);
/// - at the end both beds are at rest: the kinetic energy averaged over the last 10
///   samples is below 1e-3 of the peak (measured 1e-7 and 3e-5 of it). The residual values
///   themselves are not comparable: they come from a few discs rolling on the floor or on
///   the surface (no rolling resistance), and differ by orders of magnitude between runs;
/// - the mean centre heights agree within one mean radius (measured 9.67 and 9.83 mm);
/// - no disc sinks into the floor by more than 2 % of its radius (the whole weight of the
///   bed on one disc would give 1.5 %); measured at most 0.3 %.
#[test]
fn integrators_agree_on_a_dropped_bed() {
    let steps = 120_000;
    let t = Instant::now();
    let (ke_v, sim_v) = drop_bed(Integrator::Verlet, steps);
    let (ke_g, sim_g) = drop_bed(Integrator::Gear, steps);
    assert_eq!(sim_v.time, sim_g.time);
    let peak = |ke: &[f64]| ke.iter().copied().fold(0.0, f64::max);
    let (peak_v, peak_g) = (peak(&ke_v), peak(&ke_g));
    let tail = |ke: &[f64]| ke[ke.len() - 10..].iter().sum::<f64>() / 10.0;
    let (end_v, end_g) = (tail(&ke_v), tail(&ke_g));
    let mean_y = |s: &Simulation| s.particles.pos[1].iter().sum::<f64>() / s.len() as f64;
    let (h_v, h_g) = (mean_y(&sim_v), mean_y(&sim_g));
    let sink = |s: &Simulation| {
        let ps = &s.particles;
        (0..s.len())
            .map(|p| (ps.radius[p] - ps.pos[1][p]) / ps.radius[p])
            .fold(f64::MIN, f64::max)
    };
    let (sink_v, sink_g) = (sink(&sim_v), sink(&sim_g));
    let mut worst = 0.0f64;
    for (k, (&a, &b)) in ke_v.iter().zip(&ke_g).enumerate() {
        if a.max(b) > 0.2 * peak_v.max(peak_g) {
            let dev = (a - b) / a.max(b);
            worst = worst.max(dev.abs());
            assert!(
                dev.abs() < 0.1,
                "step {}: kinetic energy Verlet {a:.5e} J, Gear {b:.5e} J",
                1000 * (k + 1)
            );
        }
    }
    println!(
        "{steps} steps in {:.1} s; kinetic energies during the landing at most {:.2} % apart; peaks: Verlet \
         {peak_v:.4e} J, Gear {peak_g:.4e} J; final (mean of the last 10 samples): Verlet {end_v:.3e} J, Gear \
         {end_g:.3e} J; mean height: Verlet {h_v:.5e} m, Gear {h_g:.5e} m; deepest floor overlap / r: Verlet \
         {sink_v:.3e}, Gear {sink_g:.3e}",
        t.elapsed().as_secs_f64(),
        100.0 * worst
    );
    assert!(
        end_v < 1e-3 * peak_v && end_g < 1e-3 * peak_g,
        "not at rest: final kinetic energy Verlet {end_v:.3e} J, Gear {end_g:.3e} J (peaks {peak_v:.3e} J, \
         {peak_g:.3e} J)"
    );
    assert!(
        (h_v - h_g).abs() < 1.0e-3,
        "mean heights differ: Verlet {h_v:.5e} m, Gear {h_g:.5e} m"
    );
    assert!(
        sink_v < 0.02 && sink_g < 0.02,
        "a disc sank into the floor: overlap / r = {sink_v:.3e} (Verlet), {sink_g:.3e} (Gear)"
    );
}
