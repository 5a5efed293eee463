//! Run errors name the particle.
use super::*;

/// A particle thrown at an open domain boundary stops the run with `EngineError::Escaped`
/// naming its id and the step; a NaN velocity stops it with `NonFinite` naming the id.
#[test]
fn escape_and_nan_name_the_particle() {
    for integrator in BOTH {
        // Domain [0, 0.02]^2, no walls, no gravity; id 17 runs to the right at 4.3 m/s.
        let (dt, v, x0, xmax) = (1.0e-5, 4.3, 0.01, 0.02);
        let parts = [
            disc(4242, 0.005, 0.005, 0.0, 0.0, 1e-3),
            disc(17, x0, 0.01, v, 0.0, 1e-3),
        ];
        let cfg = config(dt, [0.0; 2], [0.0; 2], [xmax; 2], integrator);
        let mut sim = Simulation::new(cfg.clone(), vec![material(elastic())], vec![], &parts).unwrap();
        // The first step after which the centre is beyond x = 0.02: (0.02 - 0.01) / (v dt) = 232.6.
        let k_out = ((xmax - x0) / (v * dt)).ceil() as u64;
        assert_eq!(k_out, 233);
        let err = loop {
            match sim.step() {
                Ok(()) => assert!(
                    sim.step < k_out,
                    "{integrator:?}: step {} passed without an error",
                    sim.step
                ),
                Err(e) => break e,
            }
        };
        let msg = err.to_string();
        match err {
            EngineError::Escaped { step, id, pos, .. } => {
                let x = pos[0];
                assert_eq!(id, 17, "{integrator:?}: {msg}");
                assert!(x > xmax && x < xmax + v * dt * 1.001, "{integrator:?}: x = {x}: {msg}");
                // The error names the step that moved the disc out.
                assert!(step == k_out, "{integrator:?}: step {step}, expected {k_out}: {msg}");
                assert!(msg.contains(&format!("step {step}")), "{integrator:?}: {msg}");
            }
            other => panic!("{integrator:?}: expected Escaped, got {other:?}"),
        }
        assert!(
            msg.contains("id 17 "),
            "{integrator:?}: the message does not name id 17: {msg}"
        );
        println!("{integrator:?}: {msg}");

        // A NaN velocity.
        let mut sim = Simulation::new(cfg, vec![material(elastic())], vec![], &parts).unwrap();
        for _ in 0..10 {
            sim.step().unwrap();
        }
        let p = index(&sim, 4242);
        sim.particles.vel[0][p] = f64::NAN;
        let err = sim.step().expect_err("a NaN velocity must stop the run");
        let msg = err.to_string();
        match err {
            EngineError::NonFinite { id, step, .. } | EngineError::Escaped { id, step, .. } => {
                assert_eq!(id, 4242, "{integrator:?}: {msg}");
                assert_eq!(
                    step, 11,
                    "{integrator:?}: the error names the step being computed: {msg}"
                );
            }
            other => panic!("{integrator:?}: expected NonFinite, got {other:?}"),
        }
        assert!(
            msg.contains("id 4242 "),
            "{integrator:?}: the message does not name id 4242: {msg}"
        );
        println!("{integrator:?}: {msg}");
    }
}
