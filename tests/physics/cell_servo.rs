//! A periodic cell whose y length a servo sets to hold a normal stress (issue 20, items 2
//! and 3: the pressure-imposed shear cell), in 2D and 3D, against closed forms and brute
//! force: grains at rest are stretched with the cell and nothing else; a square (cubic)
//! lattice squeezed along y settles where its contacts carry the stress (kn delta = 2 R
//! P in 2D, 4 R^2 P in 3D) and the analysis agrees with the servo's measurement; in a
//! gas whose cell shrinks and grows past its images' give, every method's touching pairs
//! are the brute-force minimum-image set and momentum is kept.
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const R: f64 = 1.0e-3;
const KN: f64 = 1.0e5;
const DENSITY: f64 = 2500.0;
const DT: f64 = 1.0e-6;

macro_rules! cell_servo_tests {
    ($engine:path, $dim:expr, $omega:expr, $($extra:ident: $value:expr),*) => {
        use super::*;
        use $engine::{wall_motion::Servo, CellServo, Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation};

        const D: usize = $dim;

        /// A disc's mass, in 3D too (a heavy sphere).
        fn mass() -> f64 {
            DENSITY * std::f64::consts::PI * R * R
        }

        fn material(gamma_n: f64) -> Material {
            Material {
                name: "glass".into(),
                density: DENSITY,
                contact: ContactParams { kn: KN, kt: 2.0 / 7.0 * KN, gamma_n, gamma_t: 0.5 * gamma_n, mu: 0.5 },
            }
        }

        fn config(l: [f64; D], neighbor: NeighborMethod) -> Config {
            Config {
                dt: DT,
                gravity: [0.0; D],
                domain_min: [0.0; D],
                domain_max: l,
                integrator: Integrator::Verlet,
                neighbor,
                margin: 0.1e-3,
                every_step: false,
                sort_every: 0,
                $($extra: $value),*
            }
        }

        fn grain(id: u64, pos: [f64; D], vel: [f64; D]) -> ParticleInit {
            ParticleInit { id, pos, angle: 0.0, vel, omega: $omega, radius: R, mass: mass(), material: 0, ptype: 1, flags: 0 }
        }

        /// Grains at the centres of a lattice of `per` cells per axis of side `side`.
        fn lattice(per: [usize; D], side: f64) -> Vec<ParticleInit> {
            let n: usize = per.iter().product();
            (0..n)
                .map(|p| {
                    let mut rest = p;
                    let pos = std::array::from_fn(|a| {
                        let c = rest % per[a];
                        rest /= per[a];
                        (c as f64 + 0.5) * side
                    });
                    grain(p as u64 + 1, pos, [0.0; D])
                })
                .collect()
        }

        fn servo(target: f64, gain: f64, max_speed: f64, every: u64, l: f64, range: [f64; 2]) -> CellServo {
            CellServo {
                servo: Servo { target, gain, max_speed },
                every,
                min_length: range[0] * l,
                max_length: range[1] * l,
            }
        }

        fn length_y(sim: &Simulation) -> f64 {
            sim.config.domain_max[1] - sim.config.domain_min[1]
        }

        /// Grains at rest, apart: they carry no stress, so the servo shrinks the cell at
        /// its largest speed from the first measurement on, and each grain keeps its
        /// place relative to the cell along y and its place along the other axes.
        #[test]
        fn a_resting_gas_is_stretched_with_its_cell() {
            let l = 24.0 * R;
            let grains = lattice([6; D], l / 6.0);
            let mut sim = Simulation::new(config([l; D], NeighborMethod::Sweep), vec![material(0.0)], vec![], &grains).unwrap();
            sim.set_periodic([true; D]).unwrap();
            sim.set_cell_servo(servo(100.0, 1.0e3, 0.5, 5, l, [0.5, 1.5])).unwrap();
            let before = sim.particles.pos.clone();
            sim.run(200).unwrap();
            let (_, speed, stress) = sim.cell_servo().unwrap();
            assert_eq!((speed, stress), (-0.5, 0.0));
            // Shrunk from the step after the first measurement (step 5) on.
            let want = l - 0.5 * DT * 195.0;
            assert!((length_y(&sim) - want).abs() < 1e-14, "length {} against {want}", length_y(&sim));
            let ps = &sim.particles;
            for p in 0..ps.len() {
                for a in 0..D {
                    assert_eq!(ps.vel[a][p], 0.0);
                    if a == 1 {
                        let (was, is) = (before[1][p] / l, ps.pos[1][p] / length_y(&sim));
                        assert!((was - is).abs() < 1e-13, "grain {p}: y fraction {was} -> {is}");
                    } else {
                        assert_eq!(ps.pos[a][p], before[a][p], "grain {p} axis {a}");
                    }
                }
            }
            assert_eq!(sim.last_contacts, 0);
        }

        /// A lattice of grains touching along every axis, squeezed along y: the cell
        /// shrinks until each column's contacts carry the stress. In a square lattice a
        /// contact along y of overlap delta carries kn delta over the area 2 R (2D) or
        /// 4 R^2 (3D) across y: the cell settles at length rows (2 R - delta) with
        /// delta = 2 R P / kn (4 R^2 P / kn); the grains stay on the lattice (every grain
        /// is pressed alike from above and below), and the analysis's stress of a logged
        /// step is the servo's measurement.
        #[test]
        fn a_squeezed_lattice_settles_where_its_contacts_carry_the_stress() {
            let per = [if D == 2 { 10 } else { 5 }; D];
            let side = 2.0 * R;
            let l: [f64; D] = std::array::from_fn(|a| per[a] as f64 * side);
            let (target, gain, across) = if D == 2 { (100.0, 1.0e-2, 2.0 * R) } else { (1.0e5, 2.0e-3, 4.0 * R * R) };
            let delta = across * target / KN;
            for method in NeighborMethod::ALL.iter().copied() {
                let mut sim =
                    Simulation::new(config(l, method), vec![material(0.0)], vec![], &lattice(per, side)).unwrap();
                sim.set_periodic([true; D]).unwrap();
                sim.set_cell_servo(servo(target, gain, 0.1, 10, l[1], [0.9, 1.1])).unwrap();
                sim.run(20_000).unwrap();
                let want = per[1] as f64 * (side - delta);
                let got = length_y(&sim);
                assert!(
                    (got - want).abs() < 1e-3 * delta,
                    "{method:?}: cell {got} m, closed form {want} m (delta {delta})"
                );
                // A measuring step (every 10th), logged for the analysis as well.
                sim.log_next_run();
                sim.run(10).unwrap();
                let measured = sim.cell_servo().unwrap().2;
                let a = sim.analyse(None).unwrap();
                assert!((-a.stress[1][1] - measured).abs() < 1e-9 * target, "{method:?}: analysis {} servo {measured}", -a.stress[1][1]);
                assert!((measured - target).abs() < 1e-4 * target, "{method:?}: stress {measured}, target {target}");
                assert_eq!(a.cell, Some((length_y(&sim), 0.0)));
                // On the lattice still: every grain's y is its row's, scaled with the cell.
                let ps = &sim.particles;
                let row = length_y(&sim) / per[1] as f64;
                for p in 0..ps.len() {
                    let k = ps.pos[1][p] / row - 0.5;
                    assert!((k - k.round()).abs() < 1e-9, "{method:?}: grain {p} off its row ({k})");
                }
            }
        }

        /// A dense gas in a cell periodic on every axis whose y length a servo shrinks and
        /// then grows (a target it cannot reach, then a tension) at 4 m/s, past the images'
        /// give again and again: each method's touching pairs are the brute-force
        /// minimum-image set at every check, and momentum is kept.
        #[test]
        fn a_gas_in_a_breathing_cell_touches_as_brute_force_says() {
            let l = 24.0 * R;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
            let per: usize = if D == 2 { 10 } else { 9 };
            let grains: Vec<ParticleInit> = lattice([per; D], l / per as f64)
                .into_iter()
                .map(|mut g| {
                    g.pos.iter_mut().for_each(|x| *x += 0.2 * R * (rng.random::<f64>() - 0.5));
                    g.vel = std::array::from_fn(|_| 2.0 * (rng.random::<f64>() - 0.5));
                    g
                })
                .collect();
            let momentum = |s: &Simulation| -> [f64; D] { std::array::from_fn(|k| s.particles.vel[k].iter().sum::<f64>() * mass()) };
            let touching = |sim: &Simulation| -> u64 {
                let n = sim.len();
                let mut k = 0;
                for i in 0..n {
                    for j in i + 1..n {
                        let d = sim.separation(i, j);
                        k += (d.iter().map(|v| v * v).sum::<f64>() < (2.0 * R) * (2.0 * R)) as u64;
                    }
                }
                k
            };
            for method in NeighborMethod::ALL.iter().copied() {
                let mut sim = Simulation::new(config([l; D], method), vec![material(0.0)], vec![], &grains).unwrap();
                sim.set_periodic([true; D]).unwrap();
                let p0 = momentum(&sim);
                let (mut touched, mut shortest, mut longest) = (0, l, l);
                for (target, checks) in [(1.0e9, 15), (-1.0e9, 25)] {
                    sim.set_cell_servo(servo(target, 1.0, 4.0, 3, l, [0.6, 1.4])).unwrap();
                    for _ in 0..checks {
                        sim.run(40).unwrap();
                        let want = touching(&sim);
                        assert_eq!(sim.last_contacts, want, "{method:?} at cell length {}", length_y(&sim));
                        touched += want;
                        shortest = shortest.min(length_y(&sim));
                        longest = longest.max(length_y(&sim));
                    }
                }
                let p1 = momentum(&sim);
                for k in 0..D {
                    assert!((p1[k] - p0[k]).abs() < 1e-12 * mass() * sim.len() as f64, "{method:?} momentum {p0:?} -> {p1:?}");
                }
                // Shrunk at 4 m/s over most of 600 steps, then grown over most of 1,000.
                assert!(l - shortest > 2.0e-3 && longest - shortest > 3.5e-3, "{method:?}: {shortest}..{longest}");
                assert!(touched > 30, "{method:?}: the gas hardly touched ({touched})");
            }
        }
    };
}

mod plane {
    cell_servo_tests!(talus::engine, 2, [0.0], rejection: Default::default());

    /// Two squares at rest, 0.1 mm apart along y, in a cell that a servo shrinks at 1 m/s:
    /// the stretch closes the gap (the narrow phase's record of it is dropped as the cell
    /// moves), and once they overlap they push each other apart (faster than the cell
    /// brings them together: they are apart again by the end).
    #[test]
    fn polygons_brought_together_by_the_cell_push_apart() {
        use talus::engine::PolygonShape;
        let (l, h) = (40.0e-3, 5.0e-3);
        let square = || Some(PolygonShape::new(&[[-h, -h], [h, -h], [h, h], [-h, h]]).unwrap());
        let mut grains = [
            grain(1, [0.5 * l, 10.0e-3], [0.0; 2]),
            grain(2, [0.5 * l, 20.1e-3], [0.0; 2]),
        ];
        for g in &mut grains {
            g.radius = h * 2f64.sqrt();
        }
        let mut sim = Simulation::new_with_shapes(
            config([l; 2], NeighborMethod::Sweep),
            vec![material(0.0)],
            vec![],
            &grains,
            &[square(), square()],
        )
        .unwrap();
        sim.set_periodic([true, true]).unwrap();
        sim.set_cell_servo(servo(1.0e6, 1.0, 1.0, 1, l, [0.9, 1.1])).unwrap();
        let at = |sim: &Simulation, id: u64| sim.particles.id.iter().position(|&i| i == id).unwrap();
        // The centres close at 1 m/s x 10.1 / 40: the gap in about 400 steps.
        sim.run(300).unwrap();
        assert_eq!(sim.last_contacts, 0);
        assert_eq!(sim.narrow.touching, 0);
        sim.run(700).unwrap();
        assert!(sim.narrow.touching > 100, "touching in {} steps", sim.narrow.touching);
        let v = |id: u64| sim.particles.vel[1][at(&sim, id)];
        assert!(
            v(2) - v(1) > 1e-3,
            "the squares do not push apart: {} and {} m/s",
            v(1),
            v(2)
        );
    }
}

mod space {
    cell_servo_tests!(talus::engine3d, 3, [0.0; 3], normal_model: talus::kernels3d::contact::law::NormalModel::Hooke);
}
