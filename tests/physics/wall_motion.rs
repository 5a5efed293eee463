//! Walls moved by a function of time (issue 20, item 3) in 2D and 3D, against closed forms:
//! a wall moving at v into a grain at rest throws it at v (1 + e); a floor moved by a table
//! or a sine carries a grain resting on it along that path; a wall sweeping through a bed
//! lets no grain through (its contact list is built again as it moves, not only at the
//! broad phase's updates); a lid under a servo holds its target load on a grain. What a
//! stage does to walls: a motion begun late runs its law from its start, a held wall
//! stays, a grain falls through a gate taken away.
use std::f64::consts::PI;

const R: f64 = 1.0e-3;
const KN: f64 = 1.0e5;
const DENSITY: f64 = 2500.0;
const G: f64 = 9.81;

mod wall_tilt;

macro_rules! motion_tests {
    ($engine:path, $dim:expr, $wall:ident, $($extra:ident: $value:expr),*) => {
        use super::*;
        use $engine as engine;
        use engine::wall_motion::{Displacement, Servo};
        use engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};

        const D: usize = $dim;
        const UP: usize = D - 1;

        fn mass() -> f64 {
            DENSITY * PI * R * R
        }

        fn along(k: usize, v: f64) -> [f64; D] {
            std::array::from_fn(|a| if a == k { v } else { 0.0 })
        }

        fn grain(id: u64, pos: [f64; D]) -> ParticleInit {
            ParticleInit {
                id,
                pos,
                angle: 0.0,
                vel: [0.0; D],
                omega: [0.0; if D == 2 { 1 } else { 3 }],
                radius: R,
                mass: mass(),
                material: 0,
                ptype: 1,
                flags: 0,
            }
        }

        fn sim(grains: &[ParticleInit], walls: Vec<Wall>, g: f64, gamma_n: f64, dt: f64, margin: f64) -> Simulation {
            let config = Config {
                dt,
                gravity: along(UP, -g),
                domain_min: [-0.05; D],
                domain_max: [0.05; D],
                integrator: Integrator::Verlet,
                neighbor: NeighborMethod::Sweep,
                margin,
                every_step: false,
                sort_every: 0,
                $($extra: $value),*
            };
            let contact = ContactParams { kn: KN, kt: 2.0 / 7.0 * KN, gamma_n, gamma_t: 0.5 * gamma_n, mu: 0.5 };
            let material = Material { name: "m".into(), density: DENSITY, contact };
            Simulation::new(config, vec![material], walls, grains).unwrap()
        }

        /// A wall of infinite mass moving at v along its normal into a grain at rest: the
        /// grain leaves at v (1 + e), e the restitution of the grain against a wall
        /// (m_eff = m).
        #[test]
        fn a_moving_wall_throws_a_grain_at_v_times_1_plus_e() {
            let (v, e) = (0.5, 0.6);
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, e);
            let tc = PI / (KN / m).sqrt();
            let mut s = sim(&[grain(1, along(0, R + 1e-4))], vec![Wall::$wall([0.0; D], along(0, 1.0), 0)], 0.0, gamma_n, tc / 400.0, 1e-4);
            s.move_wall(0, along(0, 1.0), Displacement::Velocity(v)).unwrap();
            s.run(4000).unwrap();
            let got = s.particles.vel[0][0];
            assert!((got / (v * (1.0 + e)) - 1.0).abs() < 2e-3, "grain at {got}, closed form {}", v * (1.0 + e));
            // The wall is where the law puts it.
            assert!((s.walls[0].point().unwrap()[0] - v * s.time).abs() < 1e-15);
        }

        /// A floor lifted by 1 mm over 20 ms (a table), then held, carries a grain resting
        /// on it up by 1 mm; a floor vibrating at 20 Hz with 0.1 mm (peak acceleration 1.6
        /// m/s^2 < g) carries it along the sine.
        #[test]
        fn a_moving_floor_carries_a_grain_along_its_path() {
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.1);
            let rest = R - m * G / KN;
            let floor = || vec![Wall::$wall([0.0; D], along(UP, 1.0), 0)];
            let dt = 1e-6;
            let table = Displacement::Table(vec![[0.0, 0.0], [0.02, 1e-3], [1.0, 1e-3]]);
            let mut s = sim(&[grain(1, along(UP, rest))], floor(), G, gamma_n, dt, 1e-4);
            s.move_wall(0, along(UP, 1.0), table).unwrap();
            s.run(40_000).unwrap();
            let y = s.particles.pos[UP][0];
            assert!((y - (rest + 1e-3)).abs() < 1e-9, "grain at {y}, floor at {:?}", s.walls[0].point());
            // Phase pi/2: s = A (cos(w t) - 1), starting at rest.
            let (a, f) = (1e-4, 20.0);
            let sine = Displacement::Sine { amplitude: a, frequency: f, phase: 0.5 * PI };
            let mut s = sim(&[grain(1, along(UP, rest))], floor(), G, gamma_n, dt, 1e-4);
            s.move_wall(0, along(UP, 1.0), sine).unwrap();
            // The start of the floor's acceleration rings the contact for a few of its
            // periods (0.3 ms): looked at from 10 ms on.
            s.run(10_000).unwrap();
            let mut worst: f64 = 0.0;
            for _ in 0..100 {
                s.run(500).unwrap();
                // The floor's own acceleration changes the load by m a: the overlap by
                // m a / kn (below 2e-7 m here), which the closed form includes.
                let w = 2.0 * PI * f;
                let acc = -a * w * w * (w * s.time).cos();
                let expect = rest + a * ((w * s.time).cos() - 1.0) - m * acc / KN;
                worst = worst.max((s.particles.pos[UP][0] - expect).abs());
            }
            assert!(worst < 2e-8, "the grain strays {worst:e} m from the floor's path");
        }

        /// A wall sweeping at 2 m/s through 200 grains (no gravity) with a margin of 1 %
        /// of R: it moves 100 margins in the run, and its contact list is built again
        /// each time; no grain gets through it.
        #[test]
        fn a_wall_sweeping_through_grains_lets_none_through() {
            let mut grains = Vec::new();
            for k in 0..200u64 {
                let mut p = [0.0; D];
                p[0] = 0.004 + (k / 20) as f64 * 2.5 * R;
                p[1] = -0.02 + (k % 20) as f64 * 2.5 * R;
                grains.push(grain(k + 1, p));
            }
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.5);
            let mut s = sim(&grains, vec![Wall::$wall([0.0; D], along(0, 1.0), 0)], 0.0, gamma_n, 1e-6, 0.01 * R);
            s.move_wall(0, along(0, 1.0), Displacement::Velocity(2.0)).unwrap();
            for _ in 0..50 {
                s.run(100).unwrap();
                let x = s.walls[0].point().unwrap()[0];
                let behind = s.particles.pos[0].iter().filter(|&&p| p < x).count();
                assert_eq!(behind, 0, "{behind} grains behind the wall at x = {x}");
            }
            assert!(s.wall_relists() > 50, "{} relists", s.wall_relists());
        }

        /// A lid under a servo to 1 N comes down on a grain resting on a floor and holds
        /// it: then the lid's load is 1 N, the grain's overlap with the floor (1 N + m g) /
        /// kn and with the lid 1 N / kn.
        #[test]
        fn a_servo_lid_holds_its_target_load() {
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.3);
            let target = 1.0;
            let top = 2.4 * R;
            let walls = vec![Wall::$wall([0.0; D], along(UP, 1.0), 0), Wall::$wall(along(UP, top), along(UP, -1.0), 0)];
            let mut s = sim(&[grain(1, along(UP, R - m * G / KN))], walls, G, gamma_n, 1e-6, 1e-4);
            let servo = Servo { target, gain: 0.02, max_speed: 0.05 };
            s.servo_wall(1, along(UP, -1.0), servo).unwrap();
            s.run(40_000).unwrap();
            let load = s.wall_servos()[0].load;
            assert!((load / target - 1.0).abs() < 1e-6, "the lid carries {load} N");
            let y = s.particles.pos[UP][0];
            assert!((y - (R - (target + m * G) / KN)).abs() < 1e-10, "grain at {y}");
            let lid = s.walls[1].point().unwrap()[UP];
            assert!((lid - (y + R - target / KN)).abs() < 1e-10, "lid at {lid}, grain at {y}");
        }

        /// A motion begun later (as a stage begins it) runs its law from its start: a table
        /// set at t0 puts the wall at s(t - t0) from where it was; held, the wall stays
        /// there at rest, and may be moved again.
        #[test]
        fn a_motion_begun_later_runs_its_law_from_its_start() {
            let mut s = sim(&[grain(1, along(UP, 0.01))], vec![Wall::$wall([0.0; D], along(0, 1.0), 0)], 0.0, 0.0, 1e-6, 1e-4);
            s.run(1000).unwrap();
            let t0 = s.time;
            let table = Displacement::Table(vec![[0.0, 1.0], [0.002, 1.0 + 1e-3]]);
            s.move_wall(0, along(0, 1.0), table).unwrap();
            assert_eq!(s.walls[0].point().unwrap()[0], 0.0, "the wall starts where it was");
            s.run(1500).unwrap();
            let x = s.walls[0].point().unwrap()[0];
            let expect = 1e-3 * (s.time - t0) / 0.002;
            assert!((x - expect).abs() < 1e-15, "wall at {x}, law {expect}");
            s.hold_wall(0).unwrap();
            assert!(s.wall_motions().is_empty());
            s.run(500).unwrap();
            assert_eq!(s.walls[0].point().unwrap()[0], x, "held where it was");
            s.move_wall(0, along(0, 1.0), Displacement::Velocity(-0.1)).unwrap();
            s.run(100).unwrap();
            assert!((s.walls[0].point().unwrap()[0] - (x - 0.1 * 100.0 * 1e-6)).abs() < 1e-15);
        }

        /// A grain resting on a gate falls, once the gate is taken away, to the floor 5 mm
        /// under it and rests there at the closed-form overlap m g / kn. The gate keeps its
        /// number and meets nothing; it cannot be removed twice, or moved.
        #[test]
        fn a_grain_falls_through_a_removed_gate() {
            let m = mass();
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.3);
            let gate = 5e-3;
            let walls = vec![Wall::$wall([0.0; D], along(UP, 1.0), 0), Wall::$wall(along(UP, gate), along(UP, 1.0), 0)];
            let rest = R - m * G / KN;
            let mut s = sim(&[grain(1, along(UP, gate + rest))], walls, G, gamma_n, 1e-6, 1e-4);
            s.run(20_000).unwrap();
            assert!((s.particles.pos[UP][0] - (gate + rest)).abs() < 1e-9, "resting on the gate");
            s.remove_wall(1).unwrap();
            assert_eq!(s.walls.len(), 2);
            assert!(s.walls[1].removed);
            s.run(100_000).unwrap();
            let y = s.particles.pos[UP][0];
            assert!((y - rest).abs() < 1e-9, "grain at {y}, resting on the floor at {rest}");
            assert!(s.wall_contacts.w.iter().all(|&w| w == 0), "contacts only with the floor");
            let err = |r: Result<(), engine::EngineError>| r.unwrap_err().to_string();
            assert!(err(s.remove_wall(1)).contains("removed already"));
            assert!(err(s.move_wall(1, along(UP, 1.0), Displacement::Velocity(1.0))).contains("removed"));
        }

        /// Every face of a closed box under a servo to one stress (Yade's
        /// TriaxialStressController, isotropic): the bed of 25 discs (125 spheres) is
        /// pressed until each face carries the stress times its extent (the distances
        /// between the other faces, which move too), and the bed's Love-Weber stress over
        /// the box's volume, an independent sum over every contact, is that stress on each
        /// axis (without friction, which would let the faces' shear take a part).
        #[test]
        fn a_box_under_a_stress_servo_holds_its_stress() {
            let l = 0.0102;
            let mut walls = Vec::new();
            for a in 0..D {
                walls.push(Wall::$wall([0.0; D], along(a, 1.0), 0));
                walls.push(Wall::$wall(along(a, l), along(a, -1.0), 0));
            }
            let per_axis = 5usize;
            let mut grains = Vec::new();
            for k in 0..per_axis.pow(D as u32) {
                let p: [f64; D] = std::array::from_fn(|a| 1.02 * R + 2.01 * R * ((k / per_axis.pow(a as u32)) % per_axis) as f64);
                grains.push(grain(k as u64 + 1, p));
            }
            let gamma_n = ContactParams::gamma_for_restitution(KN, mass() / 2.0, 0.2);
            let mut s = sim(&grains, walls, 0.0, gamma_n, 2e-6, 1e-4);
            // Frictionless: friction at the faces would carry part of the load past the
            // bed (the faces' shear tractions enter its stress).
            let mut table = s.pair_table().clone();
            let frictionless = engine::ContactParams { mu: 0.0, ..s.contact_params(0, 0) };
            table.set(0, 0, frictionless, Default::default());
            s.set_pair_table(table).unwrap();
            // N/m in 2D (a force of 0.6 N on a 12 mm face), N/m^2 in 3D (0.72 N).
            let sigma = if D == 2 { 50.0 } else { 5000.0 };
            // The load answers the wall's speed through the contacts' dashpots: the gain
            // times their damping (gamma_n m summed over a face's grains: 130 kg/s for 5,
            // 650 kg/s for 25) is kept below 1, or the servo rings from one step to the
            // next (it does at 0.02 m/s/N in 3D).
            let gain = if D == 2 { 3e-3 } else { 7e-4 };
            let servo = Servo { target: sigma, gain, max_speed: 0.05 };
            for w in 0..2 * D {
                let a = w / 2;
                let across: Vec<[usize; 2]> = (0..D).filter(|&b| b != a).map(|b| [2 * b, 2 * b + 1]).collect();
                let inward = along(a, if w % 2 == 0 { 1.0 } else { -1.0 });
                s.servo_face(w, inward, servo, across).unwrap();
            }
            s.run(250_000).unwrap();
            s.log_next_run();
            s.run(1).unwrap();
            for sv in s.wall_servos() {
                let want = sigma * sv.extent(&s.walls);
                assert!((sv.load / want - 1.0).abs() < 1e-3, "wall {}: load {} N, stress x extent {want} N", sv.wall, sv.load);
                assert!(sv.extent(&s.walls) < l.powi(D as i32 - 1), "the faces came in");
            }
            let an = s.analyse(None).unwrap();
            let size: Vec<f64> = (0..D).map(|a| s.walls[2 * a + 1].point().unwrap()[a] - s.walls[2 * a].point().unwrap()[a]).collect();
            let v_box: f64 = size.iter().product();
            for a in 0..D {
                let box_stress = an.stress[a][a] * an.volume / v_box;
                assert!((box_stress / -sigma - 1.0).abs() < 1e-2, "axis {a}: the bed's stress {box_stress}, the servo's {sigma}");
            }
        }

        /// Refused by name: an unknown wall, a wall moving twice, a direction of no length,
        /// a table whose times do not increase.
        #[test]
        fn bad_motions_are_refused() {
            let mut s = sim(&[grain(1, along(UP, R))], vec![Wall::$wall([0.0; D], along(UP, 1.0), 0)], G, 0.0, 1e-6, 1e-4);
            let err = |r: Result<(), engine::EngineError>| r.unwrap_err().to_string();
            assert!(err(s.move_wall(3, along(0, 1.0), Displacement::Velocity(1.0))).contains("no such wall"));
            assert!(err(s.move_wall(0, [0.0; D], Displacement::Velocity(1.0))).contains("has no length"));
            let t = Displacement::Table(vec![[0.0, 0.0], [0.1, 1.0], [0.05, 0.0]]);
            assert!(err(s.move_wall(0, along(0, 1.0), t)).contains("table row 2"));
            s.move_wall(0, along(0, 1.0), Displacement::Velocity(1.0)).unwrap();
            assert!(err(s.move_wall(0, along(0, 1.0), Displacement::Velocity(1.0))).contains("moves already"));
            let servo = Servo { target: 1.0, gain: 0.01, max_speed: 0.1 };
            assert!(err(s.servo_wall(0, along(0, 1.0), servo)).contains("moves already"));
            let bad = Servo { gain: -1.0, ..servo };
            assert!(err(s.servo_wall(0, along(0, 1.0), bad)).contains("gain > 0"));
        }
    };
}

mod plane {
    motion_tests!(talus::engine, 2, fixed, rejection: Default::default(), normal_model: Default::default());
}

mod space {
    motion_tests!(talus::engine3d, 3, plane, normal_model: talus::kernels3d::contact::law::NormalModel::Hooke);
}

/// A drum (3D) closing in on its grains under a servo to a force: six spheres round a
/// seventh, all in one plane across the axis, without friction or gravity. At rest each
/// of the ring's spheres is pressed by the drum with F / 6, which its contacts with the
/// centre and its two neighbours (all of one overlap d, at 60 degrees) carry: F / 6 = 2
/// kn d, and the drum's radius is 3 R - 3 d = 3 R - F / (4 kn).
mod cylinder {
    use super::*;
    use talus::engine3d::wall_motion::Servo;
    use talus::engine3d::{
        Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall,
    };

    #[test]
    fn a_drum_under_a_servo_closes_to_the_closed_form_radius() {
        let mass = DENSITY * PI * R * R;
        let gamma_n = ContactParams::gamma_for_restitution(KN, mass / 2.0, 0.2);
        let contact = ContactParams {
            kn: KN,
            kt: 0.0,
            gamma_n,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let material = Material {
            name: "m".into(),
            density: DENSITY,
            contact,
        };
        let config = Config {
            dt: 1e-6,
            gravity: [0.0; 3],
            domain_min: [-0.01; 3],
            domain_max: [0.01; 3],
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 1e-4,
            every_step: false,
            sort_every: 0,
            normal_model: talus::kernels3d::contact::law::NormalModel::Hooke,
        };
        let sphere = |id: u64, pos: [f64; 3]| ParticleInit {
            id,
            pos,
            angle: 0.0,
            vel: [0.0; 3],
            omega: [0.0; 3],
            radius: R,
            mass,
            material: 0,
            ptype: 1,
            flags: 0,
        };
        // The ring a little apart (2.02 R from the centre), the drum 0.1 R outside it.
        let mut grains = vec![sphere(1, [0.0; 3])];
        for k in 0..6u64 {
            let a = k as f64 * PI / 3.0 + 0.1;
            grains.push(sphere(k + 2, [2.02 * R * a.cos(), 2.02 * R * a.sin(), 0.0]));
        }
        let drum = Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], 3.12 * R, 0.0, 0);
        let mut s = Simulation::new(config.clone(), vec![material.clone()], vec![drum], &grains).unwrap();
        let force = 3.0;
        let servo = Servo {
            target: force,
            gain: 2e-3,
            max_speed: 0.05,
        };
        s.servo_wall(0, [0.0; 3], servo).unwrap();
        s.run(60_000).unwrap();
        let load = s.wall_servos()[0].load;
        assert!((load / force - 1.0).abs() < 1e-6, "the drum carries {load} N");
        let radius = match &s.walls[0].surface {
            talus::engine3d::walls::Surface::Cylinder(c) => c.radius,
            _ => unreachable!(),
        };
        let expect = 3.0 * R - force / (4.0 * KN);
        assert!((radius - expect).abs() < 1e-10, "radius {radius}, closed form {expect}");
        drop(s);

        // To a stress over its area between two planes H = 10 R apart (clear of the
        // grains): the load is s 2 pi r H with r = 3 R - load / (4 kn), so the drum closes
        // to r = 3 R / (1 + s 2 pi H / (4 kn)).
        let h = 10.0 * R;
        let planes = [
            Wall::plane([0.0, 0.0, -0.5 * h], [0.0, 0.0, 1.0], 0),
            Wall::plane([0.0, 0.0, 0.5 * h], [0.0, 0.0, -1.0], 0),
        ];
        let drum = Wall::cylinder([0.0; 3], [0.0, 0.0, 1.0], 3.12 * R, 0.0, 0);
        let walls = vec![drum, planes[0].clone(), planes[1].clone()];
        let mut s = Simulation::new(config, vec![material], walls, &grains).unwrap();
        let stress = force / (2.0 * PI * 3.0 * R * h);
        let servo = Servo {
            target: stress,
            gain: 2e-3,
            max_speed: 0.05,
        };
        s.servo_face(0, [-1.0, 0.0, 0.0], servo, vec![[1, 2]]).unwrap();
        s.run(60_000).unwrap();
        let radius = match &s.walls[0].surface {
            talus::engine3d::walls::Surface::Cylinder(c) => c.radius,
            _ => unreachable!(),
        };
        let expect = 3.0 * R / (1.0 + stress * 2.0 * PI * h / (4.0 * KN));
        assert!((radius - expect).abs() < 1e-10, "radius {radius}, closed form {expect}");
        let (load, area) = (s.wall_servos()[0].load, 2.0 * PI * radius * h);
        assert!(
            (load / (stress * area) - 1.0).abs() < 1e-6,
            "the drum carries {load} N over {area} m^2"
        );
        // A plane the stress spans cannot be taken away under it.
        let e = s.remove_wall(2).unwrap_err().to_string();
        assert!(
            e.contains("bounds the face that wall 0's servo holds a stress over"),
            "{e}"
        );
    }
}
