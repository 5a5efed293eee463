//! Lines and planes turned about a pivot by a law of time (issue 20, item 3), against
//! closed forms: a floor tilted to theta under a grain lets it roll down at g sin(theta)
//! / (1 + I / m r^2), 2/3 of g sin(theta) for a disc and 5/7 for a sphere; a floor
//! turning at a constant rate lifts a grain at its own speed there, so the contact's
//! damping sees no approach and the overlap holds the weight alone; a ball on a
//! turntable (3D) rolls round a circle at 2/7 of the table's rate (Weltner 1979).
use std::f64::consts::PI;

use super::{DENSITY, G, KN, R};

macro_rules! tilt_tests {
    ($engine:path, $dim:expr, $wall:ident, $($extra:ident: $value:expr),*) => {
        use super::*;
        use $engine as engine;
        use engine::wall_motion::Displacement;
        use engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};

        const D: usize = $dim;
        const A: usize = if D == 2 { 1 } else { 3 };
        const UP: usize = D - 1;

        fn mass() -> f64 {
            DENSITY * PI * R * R
        }

        fn along(k: usize, v: f64) -> [f64; D] {
            std::array::from_fn(|a| if a == k { v } else { 0.0 })
        }

        fn dot(a: [f64; D], b: [f64; D]) -> f64 {
            (0..D).map(|k| a[k] * b[k]).sum()
        }

        /// The axis the floor tilts about: z in 2D (the plane's normal), x in 3D.
        fn axis() -> [f64; A] {
            std::array::from_fn(|k| if k == 0 { 1.0 } else { 0.0 })
        }

        /// One grain resting (at its weight's overlap) on a floor through the origin, under
        /// gravity down the floor's normal; friction mu, restitution 0.5, the tangential
        /// spring damped (its oscillations would otherwise ride on the rolling).
        fn on_floor(mu: f64, x: f64) -> Simulation {
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.5);
            let contact = ContactParams {
                kn: KN,
                kt: 2.0 / 7.0 * KN,
                gamma_n,
                gamma_t: 0.5 * gamma_n,
                mu,
            };
            let config = Config {
                dt: PI * (m / KN).sqrt() / 50.0,
                gravity: along(UP, -G),
                domain_min: [-0.05; D],
                domain_max: [0.05; D],
                integrator: Integrator::Verlet,
                neighbor: NeighborMethod::Sweep,
                margin: 1e-4,
                every_step: false,
                sort_every: 0,
                $($extra: $value),*
            };
            let mut pos = along(UP, R - m * G / KN);
            pos[0] = x;
            let grain = ParticleInit {
                id: 1,
                pos,
                angle: 0.0,
                vel: [0.0; D],
                omega: [0.0; A],
                radius: R,
                mass: m,
                material: 0,
                ptype: 1,
                flags: 0,
            };
            let material = Material { name: "m".into(), density: DENSITY, contact };
            let floor = Wall::$wall([0.0; D], along(UP, 1.0), 0);
            Simulation::new(config, vec![material], vec![floor], &[grain]).unwrap()
        }

        fn velocity(s: &Simulation) -> [f64; D] {
            std::array::from_fn(|a| s.particles.vel[a][0])
        }

        /// The floor tilted to 0.2 rad in 10 ms about the point under the grain, then held
        /// there by the table: the grain rolls down the slope at g sin(theta) / (1 + k),
        /// k = I / m r^2 (1/2 a disc, 2/5 a sphere), within 1 %.
        #[test]
        fn a_tilted_floor_lets_a_grain_roll_down_it() {
            let theta = 0.2;
            let mut s = on_floor(0.5, 0.0);
            let ramp = Displacement::Table(vec![[0.0, 0.0], [0.01, theta], [1.0, theta]]);
            s.tilt_wall(0, [0.0; D], axis(), ramp).unwrap();
            let dt = s.config.dt;
            let steps = |t: f64| (t / dt).round() as u64;
            let settle = steps(0.02);
            s.run(settle).unwrap();
            let n = s.walls[0].normal_at([0.0; D]);
            assert!((n[UP] - theta.cos()).abs() < 1e-12, "normal {n:?}");
            // Down the slope: gravity less its part along the normal.
            let g = along(UP, -G);
            let down: [f64; D] = std::array::from_fn(|a| g[a] - dot(g, n) * n[a]);
            let down = down.map(|x| x / dot(down, down).sqrt());
            let (t0, v0) = (s.time, dot(velocity(&s), down));
            s.run(steps(0.05)).unwrap();
            let a = (dot(velocity(&s), down) - v0) / (s.time - t0);
            let k = if D == 2 { 0.5 } else { 0.4 };
            let expect = G * theta.sin() / (1.0 + k);
            assert!((a / expect - 1.0).abs() < 0.01, "a = {a}, closed form {expect}");
        }

        /// A frictionless grain 20 mm from the pivot of a floor turning up at 1 rad/s: the
        /// floor lifts it at 20 mm/s. The contact sees the floor's velocity there, so its
        /// damping (gamma_n m v = 3 g, were the floor's speed missed) adds nothing, and the
        /// overlap carries the weight's normal part: kn delta = m g cos(theta), within 1 %.
        #[test]
        fn a_turning_floor_lifts_a_grain_at_its_own_speed() {
            let mut s = on_floor(0.0, 0.02);
            s.tilt_wall(0, [0.0; D], axis(), Displacement::Velocity(1.0)).unwrap();
            let m = mass();
            let gamma = ContactParams::gamma_for_restitution(KN, m, 0.5);
            assert!(gamma * 0.02 > 3.0 * G, "damping {gamma}");
            let every = (0.01 / s.config.dt).round() as u64;
            for _ in 0..10 {
                s.run(every).unwrap();
                let x: [f64; D] = std::array::from_fn(|a| s.particles.pos[a][0]);
                let theta = s.wall_tilts()[0].angle(s.time).0;
                let overlap = R - s.walls[0].distance(x);
                let expect = m * G * theta.cos();
                assert!(
                    (KN * overlap / expect - 1.0).abs() < 0.01,
                    "at {theta} rad: kn delta {}, m g cos {expect}",
                    KN * overlap
                );
            }
        }
    };
}

mod plane {
    tilt_tests!(talus::engine, 2, fixed, rejection: Default::default(), normal_model: Default::default());
}

mod space {
    tilt_tests!(talus::engine3d, 3, plane, normal_model: talus::kernels3d::contact::law::NormalModel::Hooke);

    /// A ball set down at rest on a turntable 10 mm from its axis, turning at 20 rad/s:
    /// friction spins it up until it rolls, and from then its centre goes round a circle
    /// at 2/7 of the table's rate (a solid sphere, I = 2/5 m r^2; Weltner, Am. J. Phys. 47,
    /// 984 (1979)): its velocity turns at 2/7 x 20 rad/s, within 1 %, at a constant speed.
    #[test]
    fn a_ball_on_a_turntable_circles_at_two_sevenths_of_its_rate() {
        let omega = 20.0;
        let mut s = on_floor(0.5, 0.01);
        s.tilt_wall(0, [0.0; 3], [0.0, 0.0, 1.0], Displacement::Velocity(omega))
            .unwrap();
        let dt = s.config.dt;
        let steps = |t: f64| (t / dt).round() as u64;
        s.run(steps(0.05)).unwrap();
        let heading = |s: &Simulation| {
            let v = velocity(s);
            (v[1].atan2(v[0]), v[0].hypot(v[1]))
        };
        let (mut last, speed0) = heading(&s);
        let (mut turned, t0) = (0.0, s.time);
        for _ in 0..20 {
            s.run(steps(0.01)).unwrap();
            let (a, speed) = heading(&s);
            turned += (a - last + PI).rem_euclid(2.0 * PI) - PI;
            last = a;
            assert!((speed / speed0 - 1.0).abs() < 0.01, "speed {speed}, was {speed0}");
        }
        let rate = turned / (s.time - t0);
        let expect = 2.0 / 7.0 * omega;
        assert!(
            (rate / expect - 1.0).abs() < 0.01,
            "the path turns at {rate} rad/s, closed form {expect}"
        );
        // The floor stays where it was: a turn about its own normal moves no point of it.
        assert_eq!(s.walls[0].normal_at([0.0; 3]), [0.0, 0.0, 1.0]);
    }
}
