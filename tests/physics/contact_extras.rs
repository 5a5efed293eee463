//! Cohesion and rolling resistance (issue 20, item 4) in 2D and 3D against closed forms: a
//! cohesive pair and a grain hanging under a ceiling rest where the spring balances
//! cohesion (and weight); a grain rolling on a floor slows at the rate the rolling torque
//! gives a body with its moment of inertia, under both rolling laws, and keeps its speed
//! without them; a grain turning with a turning floor feels no rolling resistance. A
//! scenario's `[[pair]]` reaches the simulation's table.
use std::f64::consts::PI;

const R: f64 = 1.0e-3;
const KN: f64 = 1.0e5;
const DENSITY: f64 = 2500.0;
const G: f64 = 9.81;

/// A root of `f` in [lo, hi] (f(lo) > 0 > f(hi)) by bisection, to rounding.
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    assert!(f(lo) > 0.0 && f(hi) < 0.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

macro_rules! extras_tests {
    ($engine:path, $kernels:path, $dim:expr, $wall:ident, $($extra:ident: $value:expr),*) => {
        use super::*;
        use $engine as engine;
        use $kernels as kernels;
        use engine::material::PairTable;
        use engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};
        use kernels::contact::{PairExtras, RollingModel};

        const D: usize = $dim;
        const ANG: usize = if D == 2 { 1 } else { 3 };
        const UP: usize = D - 1;

        /// The mass of a disc of areal density DENSITY (a heavy sphere in 3D).
        fn mass() -> f64 {
            DENSITY * PI * R * R
        }

        fn along(k: usize, v: f64) -> [f64; D] {
            std::array::from_fn(|a| if a == k { v } else { 0.0 })
        }

        fn grain(id: u64, pos: [f64; D], vel: [f64; D], omega: [f64; ANG]) -> ParticleInit {
            ParticleInit {
                id,
                pos,
                angle: 0.0,
                vel,
                omega,
                radius: R,
                mass: mass(),
                material: 0,
                ptype: 1,
                flags: 0,
            }
        }

        /// Grains and walls of one material with `gamma_n`, gravity `g` down the last axis,
        /// `extras` on every pair under `model`.
        fn sim(grains: &[ParticleInit], walls: Vec<Wall>, g: f64, gamma_n: f64, extras: PairExtras, model: RollingModel) -> Simulation {
            let config = Config {
                dt: 1.0e-6,
                gravity: along(UP, -g),
                domain_min: [-0.02; D],
                domain_max: [0.02; D],
                integrator: Integrator::Verlet,
                neighbor: NeighborMethod::Sweep,
                margin: 0.1e-3,
                every_step: false,
                sort_every: 0,
                $($extra: $value),*
            };
            let contact = ContactParams { kn: KN, kt: 2.0 / 7.0 * KN, gamma_n, gamma_t: 0.5 * gamma_n, mu: 0.5 };
            let material = Material { name: "m".into(), density: DENSITY, contact };
            let mut sim = Simulation::new(config, vec![material], walls, grains).unwrap();
            let mut table: PairTable = sim.pair_table().clone();
            table.rolling = model;
            table.set(0, 0, contact, extras);
            sim.set_pair_table(table).unwrap();
            sim
        }

        fn cohesion(k: f64) -> PairExtras {
            PairExtras { cohesion: k, rolling_friction: 0.0 }
        }

        /// Two grains held by cohesion: k A(delta) = kn delta. 2D, the chord 2 sqrt(R delta -
        /// delta^2 / 4): delta = 4 k^2 R / (kn^2 + k^2). 3D (Hooke), the crossing area
        /// pi (R delta - delta^2 / 4): delta = 4 (R - kn / (pi k)). Without cohesion the
        /// same pair flies apart.
        #[test]
        fn a_cohesive_pair_rests_at_the_closed_form_overlap() {
            let (k, expect, slow) = if D == 2 {
                let k = KN * (0.05f64 / 3.95).sqrt();
                (k, 4.0 * k * k * R / (KN * KN + k * k), 0.5 * KN)
            } else {
                let k = KN / (PI * 0.975 * R);
                (k, 4.0 * (R - KN / (PI * k)), 0.025 * KN)
            };
            // Critically damped about the equilibrium (its stiffness `slow`).
            let meff = 0.5 * mass();
            let gamma_n = 2.0 * (slow / meff).sqrt();
            let pair = |d: f64| [grain(1, [0.0; D], [0.0; D], [0.0; ANG]), grain(2, along(0, d), [0.0; D], [0.0; ANG])];
            let start = 2.0 * R - 0.5 * expect;
            let mut s = sim(&pair(start), vec![], 0.0, gamma_n, cohesion(k), RollingModel::default());
            s.run(40_000).unwrap();
            let p = &s.particles;
            let d = (0..D).map(|a| (p.pos[a][1] - p.pos[a][0]).powi(2)).sum::<f64>().sqrt();
            let got = 2.0 * R - d;
            assert!((got / expect - 1.0).abs() < 1e-6, "overlap {got:e}, closed form {expect:e}");
            assert!(p.vel[0][0].abs() < 1e-9, "{}", p.vel[0][0]);
            let mut s = sim(&pair(start), vec![], 0.0, gamma_n, cohesion(0.0), RollingModel::default());
            s.run(40_000).unwrap();
            let p = &s.particles;
            assert!(p.pos[0][1] - p.pos[0][0] > 2.0 * R, "without cohesion the pair stays");
        }

        /// A grain under a ceiling (normal down the last axis) with gravity: k A(delta) =
        /// kn delta + m g, A the chord 2 sqrt(delta (2R - delta)) (2D) or the area pi delta
        /// (2R - delta) (3D), solved by bisection.
        #[test]
        fn a_cohesive_grain_hangs_under_a_ceiling() {
            let m = mass();
            let (k, size, slow): (f64, fn(f64) -> f64, f64) = if D == 2 {
                (0.1 * KN, |d| 2.0 * (d * (2.0 * R - d)).sqrt(), 0.5 * KN)
            } else {
                (KN / (PI * 1.8 * R), |d| PI * d * (2.0 * R - d), 0.1 * KN)
            };
            // (3D: below 0.1 R cohesion grows more slowly than the spring, and an
            // equilibrium there is unstable: the stable one lies beyond.)
            let lo = if D == 2 { 1e-3 * R } else { 0.15 * R };
            let expect = bisect(|d| k * size(d) - KN * d - m * G, lo, R);
            let gamma_n = 2.0 * (slow / m).sqrt();
            let ceiling = 0.01;
            let walls = vec![Wall::$wall(along(UP, ceiling), along(UP, -1.0), 0)];
            let g = grain(1, along(UP, ceiling - R + 1.2 * expect), [0.0; D], [0.0; ANG]);
            let mut s = sim(&[g], walls, G, gamma_n, cohesion(k), RollingModel::default());
            s.run(40_000).unwrap();
            let got = s.particles.pos[UP][0] + R - ceiling;
            assert!((got / expect - 1.0).abs() < 1e-6, "overlap {got:e}, closed form {expect:e}");
        }

        /// A grain held by cohesion (no gravity) to a floor turning at 2 rad/s about their
        /// contact point, set turning with it (its spin the floor's, its centre going round
        /// the pivot): rolling resistance (epsd2, mu_r 0.2) sees the grain's spin relative
        /// to the floor's, none, and the contact carries no tangential force (below 1e-3 of
        /// mu_r kn delta) for 0.05 s. With the floor's spin left out, the rolling spring
        /// loads and the tangential force is 3-5 times that bound.
        #[test]
        fn rolling_resistance_sees_the_spin_relative_to_a_turning_floor() {
            use engine::wall_motion::Displacement;
            let (m, omega) = (mass(), 2.0);
            let (k, size, slow): (f64, fn(f64) -> f64, f64) = if D == 2 {
                (0.1 * KN, |d| 2.0 * (d * (2.0 * R - d)).sqrt(), 0.5 * KN)
            } else {
                (KN / (PI * 1.8 * R), |d| PI * d * (2.0 * R - d), 0.1 * KN)
            };
            let lo = if D == 2 { 1e-3 * R } else { 0.15 * R };
            let delta = bisect(|d| k * size(d) - KN * d, lo, R);
            let gamma_n = 2.0 * (slow / m).sqrt();
            // Turning about z (2D) or x (3D): the centre at height h moves along -y at omega h.
            let h = R - delta;
            let mut vel = [0.0; D];
            vel[if D == 2 { 0 } else { 1 }] = -omega * h;
            let spin: [f64; ANG] = std::array::from_fn(|a| if a == 0 { omega } else { 0.0 });
            let g = grain(1, along(UP, h), vel, spin);
            let floor = vec![Wall::$wall([0.0; D], along(UP, 1.0), 0)];
            let extras = PairExtras { cohesion: k, rolling_friction: 0.2 };
            let mut s = sim(&[g], floor, 0.0, gamma_n, extras, RollingModel::ElasticPlastic);
            s.tilt_wall(0, [0.0; D], std::array::from_fn(|a| if a == 0 { 1.0 } else { 0.0 }), Displacement::Velocity(omega))
                .unwrap();
            let still = 0.2 * KN * delta;
            for _ in 0..10 {
                s.run(5_000).unwrap();
                let n = s.walls[0].normal_at([0.0; D]);
                let f: [f64; D] = std::array::from_fn(|a| s.particles.force[a][0]);
                let along_n: f64 = (0..D).map(|a| f[a] * n[a]).sum();
                let across = (0..D).map(|a| (f[a] - along_n * n[a]).powi(2)).sum::<f64>().sqrt();
                // (The pull that keeps the centre going round the pivot, m omega^2 h, is
                // along the normal, not across it.)
                assert!(across < 1e-3 * still, "tangential force {across} N, a still floor's {still} N");
                // It turns with the floor (to the few % its spring gives: the contact's
                // surface speed is taken at R, its distance from the pivot is R - delta).
                assert!((s.particles.omega[0][0] / omega - 1.0).abs() < 0.1, "spin {}", s.particles.omega[0][0]);
            }
        }

        /// A grain rolling on a floor at v0 under a rolling torque M = mu_r R m g: with the
        /// contact not slipping, m a = F and I dw/dt = -(R F + M) give a = mu_r g / (1 +
        /// I / (m R^2)). Both laws give it (epsd2 once its spring has loaded, a few
        /// microseconds); without rolling friction the grain keeps v0.
        #[test]
        fn rolling_resistance_slows_a_rolling_grain_as_the_closed_form() {
            let (m, v0, mu_r, t) = (mass(), 0.1, 0.1, 0.04);
            let rest = m * G / KN;
            let gamma_n = ContactParams::gamma_for_restitution(KN, m, 0.3);
            // Rolling along +x: 2D spin -v0/R about z, 3D +v0/R about y.
            let omega: [f64; ANG] = std::array::from_fn(|a| if D == 2 { -v0 / R } else if a == 1 { v0 / R } else { 0.0 });
            let mut pos = along(UP, R - rest);
            pos[0] = -0.01;
            let g = grain(1, pos, along(0, v0), omega);
            let floor = || vec![Wall::$wall([0.0; D], along(UP, 1.0), 0)];
            for (model, mu_r) in [(RollingModel::ElasticPlastic, mu_r), (RollingModel::ConstantTorque, mu_r), (RollingModel::ElasticPlastic, 0.0)] {
                let extras = PairExtras { cohesion: 0.0, rolling_friction: mu_r };
                let mut s = sim(&[g], floor(), G, gamma_n, extras, model);
                let inertia = 1.0 / s.particles.inv_inertia[0];
                let a = mu_r * G / (1.0 + inertia / (m * R * R));
                s.run((t / 1.0e-6) as u64).unwrap();
                let v = s.particles.vel[0][0];
                let expect = v0 - a * t;
                let tol = if mu_r > 0.0 { 2e-3 * a * t } else { 1e-6 * v0 };
                assert!((v - expect).abs() < tol, "{model:?} mu_r {mu_r}: v {v}, closed form {expect}");
            }
        }
    };
}

mod plane {
    extras_tests!(talus::engine, talus::kernels, 2, fixed, rejection: Default::default(), normal_model: Default::default());

    /// `[[pair]]` entries and the materials' cohesion and rolling friction reach the
    /// simulation's table; polygons take cohesion, and rolling friction with them is
    /// refused.
    #[test]
    fn a_scenario_pair_table_reaches_the_simulation() {
        use talus::io::build::build;
        use talus::io::scenario::parse_scenario;
        let text = |shape: &str| {
            format!(
                "[domain]\nmin = [0.0, 0.0]\nmax = [0.05, 0.05]\n\n\
                 [[material]]\nname = \"a\"\ndensity = 2500.0\nkn = 1.0e5\nrestitution = 0.5\nfriction = 0.5\ncohesion = 40.0\nrolling_friction = 0.2\n\n\
                 [[material]]\nname = \"b\"\ndensity = 2500.0\nkn = 2.0e5\nrestitution = 0.5\nfriction = 0.3\nrolling_friction = 0.1\n\n\
                 [[pair]]\nmaterials = [\"b\", \"a\"]\nfriction = 0.8\ncohesion = 7.0\n\n\
                 [contact]\nrolling = \"cdt\"\n\n\
                 [[particles]]\nmaterial = \"a\"\ncount = 10\nradius = {{ kind = \"fixed\", value = 1.0e-3 }}\n{shape}\
                 packing = \"lattice\"\nregion = {{ min = [0.0, 0.0], max = [0.02, 0.02] }}\n\n\
                 [[particles]]\nmaterial = \"b\"\ncount = 10\nradius = {{ kind = \"fixed\", value = 1.0e-3 }}\n\
                 packing = \"lattice\"\nregion = {{ min = [0.0, 0.03], max = [0.02, 0.05] }}\n\n[run]\nsteps = 10\n"
            )
        };
        let path = std::path::Path::new("pairs.toml");
        let built = build(&parse_scenario(&text(""), path).unwrap(), path).unwrap();
        let t = built.sim.pair_table();
        assert_eq!(t.rolling, RollingModel::ConstantTorque);
        // Like pairs: the material's own; the set pair: its values over the mixing
        // (kn the harmonic mean 1.333e5, rolling friction the smaller).
        assert_eq!((t.extras(0, 0).cohesion, t.extras(0, 0).rolling_friction), (40.0, 0.2));
        assert_eq!((t.extras(1, 1).cohesion, t.extras(1, 1).rolling_friction), (0.0, 0.1));
        for (a, b) in [(0, 1), (1, 0)] {
            assert_eq!(
                (t.get(a, b).mu, t.extras(a, b).cohesion, t.extras(a, b).rolling_friction),
                (0.8, 7.0, 0.1)
            );
            assert!((t.get(a, b).kn - 2.0 * 1e5 * 2e5 / 3e5).abs() < 1e-6);
        }
        // Polygons take cohesion; rolling resistance is for round grains.
        let polygons = text("shape = { kind = \"random\", vertices = [5, 8] }\n");
        let err = build(&parse_scenario(&polygons, path).unwrap(), path)
            .err()
            .expect("rolling friction with polygons refused");
        assert!(
            err.to_string().contains("rolling resistance is for round grains"),
            "{err}"
        );
        let cohesive = polygons
            .replace("rolling_friction = 0.2\n", "")
            .replace("rolling_friction = 0.1\n", "");
        let cohesive = cohesive.replace("[contact]\nrolling = \"cdt\"\n", "");
        let built = build(&parse_scenario(&cohesive, path).unwrap(), path).unwrap();
        assert_eq!(built.sim.pair_table().extras(0, 1).cohesion, 7.0);
    }

    /// Cohesion on polygons: k times the contact line's length pulls a touching pair
    /// together, at the overlap's centroid. Squares of side s face to face rest where the
    /// area law E s delta / l balances k s: delta = k l / E (l = 2 r_i r_j / (r_i + r_j),
    /// the bounding radii); a square on a floor at delta = k r / E; a disc against a
    /// square where kn delta = k 2 sqrt(delta (2 R - delta)): delta = 8 k^2 R / (kn^2 +
    /// 4 k^2). Without gravity, damped, from a touch of 1/4 of that.
    mod polygons {
        use super::*;
        use talus::engine::{
            Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, PolygonShape, Simulation, Wall,
        };
        use talus::kernels::contact::PairExtras;

        const H: f64 = 1.0e-3;
        const K: f64 = 100.0;

        fn square() -> PolygonShape {
            PolygonShape::new(&[[-H, -H], [H, -H], [H, H], [-H, H]]).unwrap()
        }

        fn body(id: u64, x: [f64; 2], shape: &Option<PolygonShape>) -> ParticleInit {
            let (radius, mass) = match shape {
                Some(s) => (s.radius, DENSITY * s.area),
                None => (R, DENSITY * PI * R * R),
            };
            ParticleInit {
                id,
                pos: x,
                angle: 0.0,
                vel: [0.0; 2],
                omega: [0.0],
                radius,
                mass,
                material: 0,
                ptype: 1,
                flags: 0,
            }
        }

        /// The bodies after 30 ms, with cohesion K on their pair, damped near critically.
        fn settle(parts: &[(u64, [f64; 2], Option<PolygonShape>)], walls: Vec<Wall>) -> Simulation {
            let config = Config {
                dt: 2.0e-7,
                gravity: [0.0, 0.0],
                domain_min: [-0.02; 2],
                domain_max: [0.02; 2],
                integrator: Integrator::Verlet,
                neighbor: NeighborMethod::Sweep,
                margin: 0.1e-3,
                every_step: false,
                sort_every: 0,
                normal_model: Default::default(),
                rejection: Default::default(),
            };
            let gamma_n = 2.0 * (KN / (DENSITY * 4.0 * H * H)).sqrt();
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
            let inits: Vec<ParticleInit> = parts.iter().map(|(id, x, s)| body(*id, *x, s)).collect();
            let shapes: Vec<Option<PolygonShape>> = parts.iter().map(|p| p.2.clone()).collect();
            let mut sim = Simulation::new_with_shapes(config, vec![material], walls, &inits, &shapes).unwrap();
            let mut table = sim.pair_table().clone();
            table.set(
                0,
                0,
                contact,
                PairExtras {
                    cohesion: K,
                    rolling_friction: 0.0,
                },
            );
            sim.set_pair_table(table).unwrap();
            sim.run(150_000).unwrap();
            sim
        }

        fn x(sim: &Simulation, id: u64) -> [f64; 2] {
            let p = sim.particles.index_of(id).unwrap();
            [sim.particles.pos[0][p], sim.particles.pos[1][p]]
        }

        #[test]
        fn cohesive_polygons_rest_at_the_closed_form_overlaps() {
            let sq = square();
            // Two squares: l = r (equal bounding radii).
            let expect = K * sq.radius / KN;
            let s = settle(
                &[
                    (1, [0.0, 0.0], Some(sq.clone())),
                    (2, [2.0 * H - 0.25 * expect, 0.0], Some(sq.clone())),
                ],
                vec![],
            );
            let delta = 2.0 * H - (x(&s, 2)[0] - x(&s, 1)[0]);
            assert!(
                (delta / expect - 1.0).abs() < 1e-6,
                "squares: {delta:e} against {expect:e}"
            );
            // Face to face: no sideways push and no turn, but for rounding.
            assert!(x(&s, 1)[1].abs() < 1e-9 && s.particles.angle.iter().all(|a| a.abs() < 1e-6));
            // A square on a floor.
            let floor = Wall::fixed([0.0, -0.01], [0.0, 1.0], 0);
            let s = settle(&[(1, [0.0, -0.01 + H - 0.25 * expect], Some(sq.clone()))], vec![floor]);
            let delta = H - (x(&s, 1)[1] + 0.01);
            assert!(
                (delta / expect - 1.0).abs() < 1e-6,
                "square on a floor: {delta:e} against {expect:e}"
            );
            // A disc against a square, either order in the pair.
            let expect = 8.0 * K * K * R / (KN * KN + 4.0 * K * K);
            for (a, b) in [(Some(sq.clone()), None), (None, Some(sq.clone()))] {
                let gap = H + R;
                let s = settle(
                    &[(1, [0.0, 0.0], a.clone()), (2, [gap - 0.25 * expect, 0.0], b)],
                    vec![],
                );
                let delta = gap - (x(&s, 2)[0] - x(&s, 1)[0]);
                assert!(
                    (delta / expect - 1.0).abs() < 1e-6,
                    "disc and square: {delta:e} against {expect:e}"
                );
            }
            // Without cohesion the squares part.
            let mut s = settle(
                &[
                    (1, [0.0, 0.0], Some(sq.clone())),
                    (2, [2.0 * H - 0.25 * expect, 0.0], Some(sq)),
                ],
                vec![],
            );
            let mut table = s.pair_table().clone();
            let c = *table.get(0, 0);
            table.set(0, 0, c, PairExtras::NONE);
            s.set_pair_table(table).unwrap();
            s.run(20_000).unwrap();
            assert!(x(&s, 2)[0] - x(&s, 1)[0] > 2.0 * H, "no cohesion: still touching");
        }
    }
}

mod space {
    extras_tests!(talus::engine3d, talus::kernels3d, 3, plane, normal_model: talus::kernels3d::contact::law::NormalModel::Hooke);

    /// LIGGGHTS sjkr2: the cohesion of spheres of radii Ri, Rj overlapping by delta is
    /// k 2 pi (2 R*) delta, of a sphere delta deep in a plane k 2 pi R delta: at rest, no
    /// damping, the force is kn delta less that, exactly (to rounding); sjkr's is kn delta
    /// less k pi (crossing area). A 2D scenario's `cohesion = "sjkr2"` is refused by line.
    #[test]
    fn sjkr2_pulls_with_its_linear_area() {
        use talus::kernels3d::contact::CohesionModel;
        let (ri, rj, delta, k) = (1.0e-3, 2.0e-3, 2.0e-5, 3.0e5);
        let z = 0.01;
        for model in [CohesionModel::Sjkr, CohesionModel::Sjkr2] {
            let grains = [
                grain(1, [0.0, 0.0, z], [0.0; 3], [0.0; 3]),
                ParticleInit {
                    radius: rj,
                    ..grain(2, [ri + rj - delta, 0.0, z], [0.0; 3], [0.0; 3])
                },
                // Into the floor by delta.
                grain(3, [-0.01, 0.0, ri - delta], [0.0; 3], [0.0; 3]),
            ];
            let floor = vec![Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0)];
            let mut s = sim(&grains, floor, 0.0, 0.0, cohesion(k), RollingModel::default());
            let mut table = s.pair_table().clone();
            table.cohesion = model;
            s.set_pair_table(table).unwrap();
            s.prime().unwrap();
            let r_star = ri * rj / (ri + rj);
            let d = ri + rj - delta;
            let (pair, wall) = match model {
                CohesionModel::Sjkr2 => (2.0 * PI * 2.0 * r_star * delta, 2.0 * PI * ri * delta),
                CohesionModel::Sjkr => (
                    0.25 * PI * (ri + rj - d) * (d + ri - rj) * (d - ri + rj) * (ri + rj + d) / (d * d),
                    PI * delta * (2.0 * ri - delta),
                ),
            };
            let ps = &s.particles;
            let at = |id: u64| ps.index_of(id).unwrap();
            let (f, [a, b, c]) = (&ps.force, [1, 2, 3].map(at));
            let push = KN * delta - k * pair;
            assert!(
                (f[0][a] + push).abs() < 1e-12 * KN * delta,
                "{model:?}: pair {} against {}",
                f[0][a],
                -push
            );
            assert!((f[0][b] - push).abs() < 1e-12 * KN * delta, "{model:?}");
            let lift = KN * delta - k * wall;
            assert!(
                (f[2][c] - lift).abs() < 1e-12 * KN * delta,
                "{model:?}: wall {} against {lift}",
                f[2][c]
            );
        }
        let text = "[domain]\nmin = [0.0, 0.0]\nmax = [0.05, 0.05]\n[[material]]\nname = \"a\"\ndensity = 2500.0\n\
                    kn = 1.0e5\nrestitution = 0.5\nfriction = 0.5\ncohesion = 40.0\n[contact]\ncohesion = \"sjkr2\"\n\
                    [[particles]]\nmaterial = \"a\"\ncount = 10\nradius = { kind = \"fixed\", value = 1.0e-3 }\n\
                    packing = \"lattice\"\nregion = { min = [0.0, 0.0], max = [0.02, 0.02] }\n[run]\nsteps = 10\n";
        let e = talus::io::scenario::parse_scenario(text, std::path::Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("s.toml:12:") && e.contains("for spheres (3D)"), "{e}");
    }
}
