//! Periodic boundaries (issue 20, item 2) in 2D and 3D, against independent computations:
//! a pair that touches across a periodic face moves as the same pair does in an open
//! domain, spring included, while it crosses the face; in a gas of grains that cross the
//! faces again and again, every method's touching pairs are the brute-force minimum-image
//! set, and momentum is kept; settings that cannot hold are refused by name. A cell whose
//! y length a servo sets to hold a normal stress (items 2 and 3: the pressure-imposed
//! shear cell) against closed forms and brute force: grains at rest are stretched with
//! the cell and nothing else; a square (cubic) lattice squeezed along y settles where its
//! contacts carry the stress (kn delta = 2 R P in 2D, 4 R^2 P in 3D) and the analysis
//! agrees with the servo's measurement; in a gas whose cell shrinks and grows past its
//! images' give, every method's touching pairs are the brute-force set and momentum is
//! kept; two squares brought together by the cell push apart.
use std::f64::consts::PI;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const R: f64 = 1.0e-3;
const KN: f64 = 1.0e5;
const DENSITY: f64 = 2500.0;

macro_rules! periodic_tests {
    ($engine:path, $dim:expr, $omega:expr, $($extra:ident: $value:expr),*) => {
        use super::*;
        use $engine::{wall_motion::Servo, CellServo, Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};

        const D: usize = $dim;

        /// The mass of a disc of areal density DENSITY, in 3D too: a heavy sphere, so that
        /// the pair below stays in contact for hundreds of steps.
        fn mass() -> f64 {
            DENSITY * PI * R * R
        }

        fn material(mu: f64, gamma_n: f64) -> Material {
            Material {
                name: "glass".into(),
                density: DENSITY,
                contact: ContactParams { kn: KN, kt: 2.0 / 7.0 * KN, gamma_n, gamma_t: 0.5 * gamma_n, mu },
            }
        }

        fn config(min: [f64; D], max: [f64; D], neighbor: NeighborMethod) -> Config {
            Config {
                dt: 1.0e-6,
                gravity: [0.0; D],
                domain_min: min,
                domain_max: max,
                integrator: Integrator::Verlet,
                neighbor,
                margin: 0.1e-3,
                every_step: false,
                sort_every: 0,
                $($extra: $value),*
            }
        }

        fn grain(id: u64, pos: [f64; D], vel: [f64; D]) -> ParticleInit {
            ParticleInit {
                id,
                pos,
                angle: 0.0,
                vel,
                omega: $omega,
                radius: R,
                mass: mass(),
                material: 0,
                ptype: 1,
                flags: 0,
            }
        }

        fn at(sim: &Simulation, id: u64) -> usize {
            sim.particles.id.iter().position(|&i| i == id).unwrap()
        }

        /// Two grains pressed together with a sliding velocity, drifting along x: in a
        /// periodic cell they touch across the face at x = 0 and cross it; in an open
        /// domain the same pair moves in the open. Their relative motion (and so the
        /// spring that shapes it) agrees to rounding through the crossing.
        #[test]
        fn a_pair_across_a_face_moves_as_in_the_open() {
            let l = 20.0 * R;
            let drift = 2.0;
            let a = |x: f64| -> [f64; D] { std::array::from_fn(|k| if k == 0 { x } else { 5.0 * R }) };
            let va: [f64; D] = std::array::from_fn(|k| if k == 0 { drift } else if k == 1 { 0.05 } else { 0.0 });
            let vb: [f64; D] = std::array::from_fn(|k| if k == 0 { drift - 0.02 } else if k == 1 { -0.05 } else { 0.0 });
            // A at the right of x = 0 inside, B just left of it: across the face.
            let (xa, xb) = (0.3 * R, 0.3 * R - 1.9 * R);
            let hi: [f64; D] = std::array::from_fn(|k| if k == 0 { l } else { 10.0 * R });
            let periodic: [bool; D] = std::array::from_fn(|k| k == 0);
            for method in [NeighborMethod::Sweep, NeighborMethod::Quadtree, NeighborMethod::Cells, NeighborMethod::Verlet] {
                let mut cell = Simulation::new(
                    config([0.0; D], hi, method),
                    vec![material(0.3, 0.2)],
                    vec![],
                    &[grain(1, a(xa), va), grain(2, a(xb + l), vb)],
                )
                .unwrap();
                cell.set_periodic(periodic).unwrap();
                let open_min: [f64; D] = std::array::from_fn(|k| if k == 0 { -l } else { 0.0 });
                let open_max: [f64; D] = std::array::from_fn(|k| if k == 0 { 2.0 * l } else { 10.0 * R });
                let mut open = Simulation::new(
                    config(open_min, open_max, method),
                    vec![material(0.3, 0.2)],
                    vec![],
                    &[grain(1, a(xa), va), grain(2, a(xb), vb)],
                )
                .unwrap();
                let (mut crossed, mut touched) = (0, 0);
                for _ in 0..40 {
                    let before = cell.particles.pos[0][at(&cell, 2)];
                    cell.run(50).unwrap();
                    open.run(50).unwrap();
                    crossed += (cell.particles.pos[0][at(&cell, 2)] < before) as u32;
                    touched += open.last_contacts;
                    let rel = |s: &Simulation, v: &[Vec<f64>]| -> [f64; D] {
                        let (i, j) = (at(s, 1), at(s, 2));
                        std::array::from_fn(|k| v[k][j] - v[k][i])
                    };
                    // The open pair's separation, by the minimum image of the cell.
                    let mut po = rel(&open, &open.particles.pos);
                    po[0] -= l * (po[0] / l).round();
                    let pc = cell.separation(at(&cell, 1), at(&cell, 2));
                    let (vc, vo) = (rel(&cell, &cell.particles.vel), rel(&open, &open.particles.vel));
                    for k in 0..D {
                        assert!((pc[k] - po[k]).abs() < 1e-12, "{method:?} separation {pc:?} vs {po:?}");
                        assert!((vc[k] - vo[k]).abs() < 1e-9, "{method:?} velocity {vc:?} vs {vo:?}");
                    }
                    assert_eq!(cell.last_contacts, open.last_contacts, "{method:?}");
                }
                // B went through the face at x = l (and was wrapped to 0) while touching A.
                assert_eq!(crossed, 1, "{method:?}: crossings");
                assert!(touched >= 3, "{method:?}: the pair hardly touched");
            }
        }

        /// Brute force: the pairs whose grains overlap by the minimum image.
        fn touching(sim: &Simulation) -> u64 {
            let n = sim.len();
            let mut k = 0;
            for i in 0..n {
                for j in i + 1..n {
                    let d = sim.separation(i, j);
                    k += (d.iter().map(|v| v * v).sum::<f64>() < (2.0 * R) * (2.0 * R)) as u64;
                }
            }
            k
        }

        /// A dense gas in a cell periodic on every axis: grains cross the faces again and
        /// again; each method's touching pairs are the brute-force set at every check,
        /// and the total momentum is kept.
        #[test]
        fn a_periodic_gas_touches_as_brute_force_says() {
            let l = 24.0 * R;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(20);
            let per: usize = if D == 2 { 10 } else { 9 };
            let n = per.pow(D as u32);
            let grains: Vec<ParticleInit> = (0..n)
                .map(|p| {
                    let mut rest = p;
                    let pos = std::array::from_fn(|_| {
                        let c = rest % per;
                        rest /= per;
                        (c as f64 + 0.5) * l / per as f64 + 0.2 * R * (rng.random::<f64>() - 0.5)
                    });
                    grain(p as u64 + 1, pos, std::array::from_fn(|_| 2.0 * (rng.random::<f64>() - 0.5)))
                })
                .collect();
            let momentum = |s: &Simulation| -> [f64; D] {
                std::array::from_fn(|k| s.particles.vel[k].iter().sum::<f64>() * mass())
            };
            for method in NeighborMethod::ALL.iter().copied() {
                let mut sim = Simulation::new(config([0.0; D], [l; D], method), vec![material(0.5, 0.0)], vec![], &grains).unwrap();
                sim.set_periodic([true; D]).unwrap();
                let p0 = momentum(&sim);
                let mut touched = 0;
                for _ in 0..30 {
                    sim.run(40).unwrap();
                    let want = touching(&sim);
                    assert_eq!(sim.last_contacts, want, "{method:?}");
                    touched += want;
                    for k in 0..D {
                        assert!(sim.particles.pos[k].iter().all(|&x| x > -0.2 * l && x < 1.2 * l));
                    }
                }
                let p1 = momentum(&sim);
                for k in 0..D {
                    assert!((p1[k] - p0[k]).abs() < 1e-12 * mass() * n as f64, "{method:?} momentum {p0:?} -> {p1:?}");
                }
                assert!(touched > 30, "{method:?}: the gas hardly touched ({touched})");
            }
        }

        /// Lees-Edwards: two grains touching across the face y = 0 of a cell sheared at
        /// 200 / s move as the same pair in an open domain where the upper grain is its
        /// image in the cell below (moved back by the offset, slower by the cells'
        /// relative velocity), while the offset slides past them.
        #[test]
        fn a_pair_across_a_sheared_face_moves_as_in_the_open() {
            let (l, rate) = (20.0 * R, 200.0);
            let dv = rate * l;
            let at_y = |x: f64, y: f64| -> [f64; D] { std::array::from_fn(|k| match k { 0 => x, 1 => y, _ => 5.0 * R }) };
            let (a, b) = (at_y(8.0 * R, 0.3 * R), at_y(8.5 * R, l - 1.6 * R));
            let va: [f64; D] = std::array::from_fn(|k| if k == 1 { 0.05 } else { 0.0 });
            let vb: [f64; D] = std::array::from_fn(|k| if k == 0 { 0.4 } else { 0.0 });
            let axes: [bool; D] = [true; D];
            for method in [NeighborMethod::Sweep, NeighborMethod::Cells] {
                let mut cell = Simulation::new(config([0.0; D], [l; D], method), vec![material(0.3, 0.2)], vec![], &[grain(1, a, va), grain(2, b, vb)]).unwrap();
                cell.set_lees_edwards(axes, rate).unwrap();
                assert_eq!(cell.shear_rate(), rate);
                let b_open = at_y(b[0], b[1] - l);
                let vb_open: [f64; D] = std::array::from_fn(|k| if k == 0 { vb[0] - dv } else { vb[k] });
                let mut open = Simulation::new(config([-l; D], [2.0 * l; D], method), vec![material(0.3, 0.2)], vec![], &[grain(1, a, va), grain(2, b_open, vb_open)]).unwrap();
                let mut touched = 0;
                for _ in 0..40 {
                    cell.run(50).unwrap();
                    open.run(50).unwrap();
                    touched += open.last_contacts;
                    let (i, j) = (at(&cell, 1), at(&cell, 2));
                    let raw: [f64; D] = std::array::from_fn(|k| cell.particles.pos[k][j] - cell.particles.pos[k][i]);
                    let (pc, cells) = cell.min_image().unwrap().with_cells(raw);
                    let vc: [f64; D] = std::array::from_fn(|k| {
                        cell.particles.vel[k][j] - cell.particles.vel[k][i] - if k == 0 { cells * dv } else { 0.0 }
                    });
                    let (oi, oj) = (at(&open, 1), at(&open, 2));
                    let po: [f64; D] = std::array::from_fn(|k| open.particles.pos[k][oj] - open.particles.pos[k][oi]);
                    let vo: [f64; D] = std::array::from_fn(|k| open.particles.vel[k][oj] - open.particles.vel[k][oi]);
                    for k in 0..D {
                        assert!((pc[k] - po[k]).abs() < 1e-12, "{method:?} separation {pc:?} vs {po:?}");
                        assert!((vc[k] - vo[k]).abs() < 1e-9, "{method:?} velocity {vc:?} vs {vo:?}");
                    }
                    assert_eq!(cell.last_contacts, open.last_contacts, "{method:?}");
                }
                assert!(touched >= 3, "{method:?}: the pair hardly touched");
            }
        }

        /// A dense cell sheared by Lees-Edwards alone: the grains keep the imposed linear
        /// velocity profile on average, and the contact stress resists the shear
        /// (sigma_xy > 0 in LAMMPS' sign, with compression negative) with a friction
        /// coefficient mu = sigma_xy / -sigma_yy of a frictional granular flow.
        #[test]
        fn a_sheared_cell_keeps_its_profile_and_resists() {
            // Grains closer than their mean diameter (1.8 R apart in 2D, 1.7 R in 3D): a
            // dense flow.
            let per: usize = if D == 2 { 16 } else { 7 };
            let l = per as f64 * if D == 2 { 1.8 } else { 1.7 } * R;
            let rate = 50.0;
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
            let grains: Vec<ParticleInit> = (0..per.pow(D as u32))
                .map(|p| {
                    let mut rest = p;
                    let pos: [f64; D] = std::array::from_fn(|_| {
                        let c = rest % per;
                        rest /= per;
                        (c as f64 + 0.5) * l / per as f64 + 0.02 * R * (rng.random::<f64>() - 0.5)
                    });
                    // The shear's profile about the middle.
                    let vel = std::array::from_fn(|k| if k == 0 { rate * (pos[1] - 0.5 * l) } else { 0.0 });
                    // Radii spread by 20 % either way, so that the grains do not order
                    // into a crystal that slides along one plane.
                    let mut g = grain(p as u64 + 1, pos, vel);
                    g.radius = R * (0.8 + 0.4 * rng.random::<f64>());
                    g.mass = mass() * (g.radius / R).powi(2);
                    g
                })
                .collect();
            let mut sim = Simulation::new(config([0.0; D], [l; D], NeighborMethod::Sweep), vec![material(0.5, 0.3)], vec![], &grains).unwrap();
            sim.set_lees_edwards([true; D], rate).unwrap();
            // Two strain units to reach the steady flow, then measured over one.
            let steps = (1.0 / rate / 1.0e-6) as u64;
            sim.run(2 * steps).unwrap();
            let (mut sxy, mut syy, mut slope) = (0.0, 0.0, 0.0);
            for _ in 0..10 {
                sim.run(steps / 10 - 1).unwrap();
                sim.log_next_run();
                sim.run(1).unwrap();
                let a = sim.analyse(None).unwrap();
                sxy += a.stress[0][1] / 10.0;
                syy += a.stress[1][1] / 10.0;
                // The velocity profile's slope by least squares over the grains.
                let ps = &sim.particles;
                let n = ps.len() as f64;
                let (my, mv) = (ps.pos[1].iter().sum::<f64>() / n, ps.vel[0].iter().sum::<f64>() / n);
                let cov: f64 = ps.pos[1].iter().zip(&ps.vel[0]).map(|(y, v)| (y - my) * (v - mv)).sum();
                let var: f64 = ps.pos[1].iter().map(|y| (y - my) * (y - my)).sum();
                slope += cov / var / 10.0;
            }
            let mu = sxy / -syy;
            eprintln!("{D}D sheared cell: mu {mu:.3}, profile slope {slope:.2} at rate {rate}, sigma_yy {syy:.3e}");
            assert!(syy < 0.0, "sigma_yy {syy}: the grains press on each other");
            assert!((slope / rate - 1.0).abs() < 0.15, "velocity profile slope {slope} at shear rate {rate}");
            assert!(mu > 0.1 && mu < 0.8, "mu = {mu} (sigma_xy {sxy}, sigma_yy {syy})");
        }

        #[test]
        fn settings_that_cannot_hold_are_refused_by_name() {
            let l = 10.0 * R;
            let make = |walls: Vec<Wall>, l: f64| {
                Simulation::new(config([0.0; D], [l; D], NeighborMethod::Sweep), vec![material(0.5, 0.0)], walls, &[grain(1, [0.5 * l; D], [0.0; D])]).unwrap()
            };
            let e = make(vec![], 3.0 * R).set_periodic([true; D]).unwrap_err().to_string();
            assert!(e.contains("periodic axis x") && e.contains("longer"), "{e}");
            let normal: [f64; D] = std::array::from_fn(|k| if k == 0 { 1.0 } else { 0.0 });
            let e = make(vec![wall(normal)], l).set_periodic(std::array::from_fn(|k| k == 0)).unwrap_err().to_string();
            assert!(e.contains("wall 1") && e.contains("periodic axis x"), "{e}");
            // A floor is fine under a periodic x.
            let up: [f64; D] = std::array::from_fn(|k| if k == 1 { 1.0 } else { 0.0 });
            make(vec![wall(up)], l).set_periodic(std::array::from_fn(|k| k == 0)).unwrap();
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
            let mut sim = Simulation::new(config([0.0; D], [l; D], NeighborMethod::Sweep), vec![material(0.5, 0.0)], vec![], &grains).unwrap();
            sim.set_periodic([true; D]).unwrap();
            sim.set_cell_servo(servo(100.0, 1.0e3, 0.5, 5, l, [0.5, 1.5])).unwrap();
            let before = sim.particles.pos.clone();
            sim.run(200).unwrap();
            let (_, speed, stress) = sim.cell_servo().unwrap();
            assert_eq!((speed, stress), (-0.5, 0.0));
            // Shrunk from the step after the first measurement (step 5) on.
            let want = l - 0.5 * 1.0e-6 * 195.0;
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
                    Simulation::new(config([0.0; D], l, method), vec![material(0.5, 0.0)], vec![], &lattice(per, side)).unwrap();
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
            for method in NeighborMethod::ALL.iter().copied() {
                let mut sim = Simulation::new(config([0.0; D], [l; D], method), vec![material(0.5, 0.0)], vec![], &grains).unwrap();
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
    periodic_tests!(talus::engine, 2, [0.0], rejection: Default::default(), normal_model: Default::default());

    fn wall(normal: [f64; 2]) -> Wall {
        Wall::fixed([0.0; 2], normal, 0)
    }

    /// Two polygons pressed together with a sliding velocity, against the same pair in an
    /// open domain: across the face x = l while drifting through it, and across the face
    /// y = 0 of a sheared cell. The polygon narrow phase sees the nearest image (corners
    /// moved, velocity of the sheared copy), spring and cached features included.
    #[test]
    fn a_polygon_pair_across_a_face_moves_as_in_the_open() {
        use talus::engine::PolygonShape;
        let l = 20.0 * R;
        let h = 0.7 * R;
        let square = PolygonShape::new(&[[-h, -h], [h, -h], [h, h], [-h, h]]).unwrap();
        let diamond = PolygonShape::new(&[[0.0, -R], [R, 0.0], [0.0, R], [-R, 0.0]]).unwrap();
        let shapes = [Some(square), Some(diamond)];
        // (shear rate, A, B relative to A, the cells' shift from B in the open to B)
        let cases = [
            (0.0, [0.3 * R, 8.0 * R], [-1.65 * R, 0.1 * R], [l, 0.0]),
            (200.0, [8.0 * R, 0.3 * R], [0.2 * R, -1.65 * R], [0.0, l]),
        ];
        for (rate, a, b_off, across) in cases {
            let b_open = [a[0] + b_off[0], a[1] + b_off[1]];
            let b_cell = [b_open[0] + across[0], b_open[1] + across[1]];
            let (va, vb) = ([3.0, 0.05], [2.97, -0.05]);
            let dv = rate * l;
            // In the open, B is its image in the cell below: slower by dv.
            let vb_open = if across[1] != 0.0 { [vb[0] - dv, vb[1]] } else { vb };
            let grains = [grain(1, a, va), grain(2, b_cell, vb)];
            let mut cell = Simulation::new_with_shapes(
                config([0.0; 2], [l; 2], NeighborMethod::Sweep),
                vec![material(0.3, 0.2)],
                vec![],
                &grains,
                &shapes,
            )
            .unwrap();
            if rate == 0.0 {
                cell.set_periodic([true, false]).unwrap();
            } else {
                cell.set_lees_edwards([true, true], rate).unwrap();
            }
            let grains = [grain(1, a, va), grain(2, b_open, vb_open)];
            let mut open = Simulation::new_with_shapes(
                config([-l; 2], [2.0 * l; 2], NeighborMethod::Sweep),
                vec![material(0.3, 0.2)],
                vec![],
                &grains,
                &shapes,
            )
            .unwrap();
            let (mut touched, mut wrapped) = (0, false);
            for _ in 0..80 {
                let before = cell.particles.pos[0][at(&cell, 2)];
                cell.run(25).unwrap();
                open.run(25).unwrap();
                wrapped |= cell.particles.pos[0][at(&cell, 2)] < before;
                touched += open.last_contacts;
                let (i, j) = (at(&cell, 1), at(&cell, 2));
                let raw: [f64; 2] = std::array::from_fn(|k| cell.particles.pos[k][j] - cell.particles.pos[k][i]);
                let (pc, cells) = cell.min_image().unwrap().with_cells(raw);
                let vc = [
                    cell.particles.vel[0][j] - cell.particles.vel[0][i] - cells * dv,
                    cell.particles.vel[1][j] - cell.particles.vel[1][i],
                ];
                let (oi, oj) = (at(&open, 1), at(&open, 2));
                let po: [f64; 2] = std::array::from_fn(|k| open.particles.pos[k][oj] - open.particles.pos[k][oi]);
                let vo: [f64; 2] = std::array::from_fn(|k| open.particles.vel[k][oj] - open.particles.vel[k][oi]);
                for k in 0..2 {
                    assert!(
                        (pc[k] - po[k]).abs() < 1e-12,
                        "rate {rate}: separation {pc:?} vs {po:?}"
                    );
                    assert!((vc[k] - vo[k]).abs() < 1e-9, "rate {rate}: velocity {vc:?} vs {vo:?}");
                }
                let (wa, wb) = (cell.particles.omega[0][i], open.particles.omega[0][oi]);
                assert!(
                    (wa - wb).abs() < 1e-6 * (1.0 + wb.abs()),
                    "rate {rate}: spin {wa} vs {wb}"
                );
                assert_eq!(cell.last_contacts, open.last_contacts, "rate {rate}");
            }
            assert!(touched >= 3, "rate {rate}: the pair hardly touched");
            assert!(cell.narrow.touching > 0, "rate {rate}: no polygon contact");
            // Across x, B went through the face and was wrapped while touching A.
            assert!(rate != 0.0 || wrapped, "rate {rate}: B never crossed the face");
        }
    }

    /// A driven polygon (a prescribed translation along x, turning as it goes) in a cell
    /// periodic along x: it goes through the face again and again and stays on its exact
    /// pose, taken modulo the cell, with a disc dropped onto it.
    #[test]
    fn a_driven_body_crosses_the_faces_on_its_pose() {
        use talus::engine::{flags, Drive, PolygonShape};
        let l = 20.0 * R;
        let h = 2.0 * R;
        let plate = PolygonShape::new(&[[-h, -0.5 * R], [h, -0.5 * R], [h, 0.5 * R], [-h, 0.5 * R]]).unwrap();
        let mut body = grain(1, [0.5 * l, 5.0 * R], [0.0; 2]);
        body.flags = flags::DRIVEN;
        let rider = grain(2, [0.5 * l, 6.6 * R], [0.0; 2]);
        let mut cfg = config([0.0; 2], [l; 2], NeighborMethod::Sweep);
        cfg.gravity = [0.0, -9.81];
        let mut sim = Simulation::new_with_shapes(
            cfg,
            vec![material(0.5, 0.5)],
            vec![],
            &[body, rider],
            &[Some(plate), None],
        )
        .unwrap();
        let drive = Drive {
            centre: [0.5 * l, 5.0 * R],
            velocity: [3.0, 0.0],
            ..Drive::default()
        };
        sim.drive_particles(drive, &[1]).unwrap();
        sim.set_periodic([true, false]).unwrap();
        let mut wraps = 0;
        for _ in 0..40 {
            let before = sim.particles.pos[0][at(&sim, 1)];
            sim.run(500).unwrap();
            let p = at(&sim, 1);
            let x = sim.particles.pos[0][p];
            wraps += (x < before) as u32;
            // The exact pose, modulo the cell.
            let exact = 0.5 * l + 3.0 * sim.time;
            let off = x - exact;
            assert!((off - l * (off / l).round()).abs() < 1e-9, "body at {x}, exact {exact}");
            assert!(
                (sim.particles.vel[0][p] - 3.0).abs() < 1e-6,
                "body velocity {}",
                sim.particles.vel[0][p]
            );
        }
        assert!(wraps >= 3, "{wraps} wraps");
    }

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
            config([0.0; 2], [l; 2], NeighborMethod::Sweep),
            vec![material(0.5, 0.0)],
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
    periodic_tests!(talus::engine3d, 3, [0.0; 3], normal_model: talus::kernels3d::contact::law::NormalModel::Hooke);

    fn wall(normal: [f64; 3]) -> Wall {
        Wall::plane([0.0; 3], normal, 0)
    }
}
