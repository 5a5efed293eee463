//! The analysis of a state (issue 20, item 1) against closed forms, in 2D and 3D: the
//! Love-Weber stress of a uniformly compressed lattice held by walls, the forces on those
//! walls, the coordination number; the floor under a settled column carries the column's
//! weight; a logged step changes nothing of the run, and its log is the same on a pool of
//! two threads as on one.
use std::f64::consts::PI;

const R: f64 = 1.0e-3;
const KN: f64 = 1.0e5;
/// Overlap of every contact of the lattices (1 % of the radius).
const DELTA: f64 = 1.0e-5;

/// 2D (`talus::engine`): discs of areal density 2500 kg/m^2.
mod plane {
    use super::*;
    use talus::engine::{Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall};

    fn params(gamma_n: f64) -> ContactParams {
        ContactParams {
            kn: KN,
            kt: 2.0 / 7.0 * KN,
            gamma_n,
            gamma_t: 0.5 * gamma_n,
            mu: 0.5,
        }
    }

    fn material(gamma_n: f64) -> Material {
        Material {
            name: "glass".into(),
            density: 2500.0,
            contact: params(gamma_n),
        }
    }

    fn config(dt: f64, gravity: [f64; 2], min: [f64; 2], max: [f64; 2]) -> Config {
        Config {
            dt,
            gravity,
            domain_min: min,
            domain_max: max,
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 0.1e-3,
            every_step: false,
            sort_every: 0,
            normal_model: Default::default(),
            rejection: Default::default(),
        }
    }

    pub fn disc(id: u64, pos: [f64; 2], vel: [f64; 2]) -> ParticleInit {
        ParticleInit {
            id,
            pos,
            angle: 0.0,
            vel,
            omega: [0.0],
            radius: R,
            mass: 2500.0 * PI * R * R,
            material: 0,
            ptype: 1,
            flags: 0,
        }
    }

    /// nx x ny discs at rest, spaced 2R - delta (each pair of neighbours delta deep).
    fn lattice_discs(nx: usize, ny: usize) -> Vec<ParticleInit> {
        let s = 2.0 * R - DELTA;
        let mut ps = Vec::new();
        for l in 0..ny {
            for k in 0..nx {
                ps.push(disc(ps.len() as u64 + 1, [k as f64 * s, l as f64 * s], [0.0; 2]));
            }
        }
        ps
    }

    /// nx x ny discs spaced 2R - delta, held by four walls each delta deep into the outer
    /// discs: every contact carries kn delta, and the lattice is at rest.
    fn lattice(nx: usize, ny: usize) -> (Simulation, [f64; 2]) {
        let s = 2.0 * R - DELTA;
        let ps = lattice_discs(nx, ny);
        let lo = [-(R - DELTA); 2];
        let hi = [(nx - 1) as f64 * s + R - DELTA, (ny - 1) as f64 * s + R - DELTA];
        let walls = vec![
            Wall::fixed(lo, [1.0, 0.0], 0),
            Wall::fixed(hi, [-1.0, 0.0], 0),
            Wall::fixed(lo, [0.0, 1.0], 0),
            Wall::fixed(hi, [0.0, -1.0], 0),
        ];
        let sim = Simulation::new(config(1e-7, [0.0; 2], lo, hi), vec![material(10.0)], walls, &ps).unwrap();
        (sim, [hi[0] - lo[0], hi[1] - lo[1]])
    }

    #[test]
    fn compressed_lattice_stress_and_wall_forces_match_the_closed_form() {
        let (nx, ny) = (4, 3);
        let (mut sim, size) = lattice(nx, ny);
        assert!(sim.analyse(None).is_err(), "no step was logged yet");
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(None).unwrap();
        let (n, f) = ((nx * ny) as f64, KN * DELTA);
        // Love-Weber: every contact -(branch) (kn delta), the walls' branch R - delta/2
        // (to the middle of the overlap), the pairs' 2R - delta: -kn delta (2R - delta) per
        // grain and axis.
        let want = -f * (2.0 * R - DELTA) * n / (size[0] * size[1]);
        let close = |got: f64, want: f64, what: &str| {
            assert!(
                (got - want).abs() <= 1e-9 * want.abs().max(1e-300),
                "{what}: {got} against {want}"
            );
        };
        close(a.stress[0][0], want, "stress xx");
        close(a.stress[1][1], want, "stress yy");
        assert!(a.stress[0][1].abs() < 1e-9 * want.abs() && a.stress[1][0].abs() < 1e-9 * want.abs());
        // Each grain's share: the same -kn delta (2R - delta) on each axis, over its area.
        for (p, s) in a.grain_stress.iter().enumerate() {
            let w = -f * (2.0 * R - DELTA) / (PI * R * R);
            close(s[0][0], w, &format!("grain {p} xx"));
            close(s[1][1], w, &format!("grain {p} yy"));
        }
        // The walls: ny discs push each side wall out, nx each of the others.
        let walls = [
            [-(ny as f64) * f, 0.0],
            [ny as f64 * f, 0.0],
            [0.0, -(nx as f64) * f],
            [0.0, nx as f64 * f],
        ];
        for (k, (got, want)) in a.wall_forces.iter().zip(walls).enumerate() {
            for axis in 0..2 {
                assert!(
                    (got[axis] - want[axis]).abs() <= 1e-9 * f,
                    "wall {k}: {got:?} against {want:?}"
                );
            }
        }
        // 2 C / N with C = (nx-1) ny + nx (ny-1); four contacts each (walls counted): no
        // rattler.
        let c = ((nx - 1) * ny + nx * (ny - 1)) as f64;
        assert_eq!(a.coordination, 2.0 * c / n);
        assert_eq!((a.coordination_held, a.rattlers), (a.coordination, 0));
        assert!(a.contacts.iter().all(|&c| c == 4), "{:?}", a.contacts);
        assert!(a.unbalanced < 1e-6, "at rest, unbalanced {}", a.unbalanced);
        // The packing fraction of the whole box: the discs' area over the box's.
        let region = talus::engine::Region {
            min: [-(R - DELTA); 2],
            max: [size[0] - (R - DELTA), size[1] - (R - DELTA)],
        };
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(Some(&region)).unwrap();
        close(a.packing.unwrap(), n * PI * R * R / (size[0] * size[1]), "packing");
        // Every grain's centre is in the region, which is the domain: the same stress.
        let rs = a.region_stress.unwrap();
        close(rs[0][0], want, "region stress xx");
        close(rs[1][1], want, "region stress yy");
    }

    /// The same lattice without walls, at its first step: corners touch two discs, the
    /// rest of the rim three, the inside four. With friction two contacts hold a disc:
    /// no rattler. Without, three are needed: the corners go, which takes the rim's
    /// discs down to two, and so on until the whole lattice has gone (the peeling must
    /// read the pairs the log holds; without them only the four corners would go).
    #[test]
    fn a_frictionless_lattice_without_walls_peels_off_entirely() {
        let (nx, ny) = (4, 3);
        let ps = lattice_discs(nx, ny);
        let cfg = config(1e-7, [0.0; 2], [-0.01; 2], [0.02; 2]);
        let pairs = ((nx - 1) * ny + nx * (ny - 1)) as f64;
        for (mu, rattlers) in [(0.5, 0), (0.0, nx * ny)] {
            let mut m = material(10.0);
            m.contact.mu = mu;
            let mut sim = Simulation::new(cfg.clone(), vec![m], Vec::new(), &ps).unwrap();
            sim.log_next_run();
            sim.run(1).unwrap();
            let a = sim.analyse(None).unwrap();
            assert_eq!(a.coordination, 2.0 * pairs / (nx * ny) as f64, "mu {mu}");
            assert_eq!(a.rattlers, rattlers, "mu {mu}");
            let held = if rattlers == 0 { a.coordination } else { 0.0 };
            assert_eq!(a.coordination_held, held, "mu {mu}");
        }
    }

    /// A column of discs on a floor, settled: the floor carries the column's weight.
    #[test]
    fn settled_column_floor_carries_its_weight() {
        let g = 9.81;
        let count = 6;
        let ps: Vec<ParticleInit> = (0..count)
            .map(|k| disc(k as u64 + 1, [0.0, R + 2.0 * R * k as f64], [0.0; 2]))
            .collect();
        let walls = vec![Wall::fixed([0.0, 0.0], [0.0, 1.0], 0)];
        let m = 2500.0 * PI * R * R;
        let gamma = ContactParams::gamma_for_restitution(KN, m / 2.0, 0.1);
        let dt = params(gamma).contact_time(m / 2.0) / 50.0;
        let cfg = config(dt, [0.0, -g], [-0.01, -0.001], [0.01, 0.05]);
        let mut sim = Simulation::new(cfg, vec![material(gamma)], walls, &ps).unwrap();
        sim.run(20_000).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(None).unwrap();
        let weight = count as f64 * m * g;
        let floor = a.wall_forces[0];
        assert!(floor[0].abs() < 1e-9 * weight, "{floor:?}");
        // The potential energy: m g y summed.
        let potential: f64 = sim.particles.pos[1].iter().map(|y| m * g * y).sum();
        assert!(
            (a.potential - potential).abs() <= 1e-12 * potential,
            "{} against {potential}",
            a.potential
        );
        assert!(
            (floor[1] + weight).abs() < 1e-6 * weight,
            "floor {floor:?}, weight {weight}"
        );
        assert!(a.unbalanced < 1e-6, "settled, unbalanced {}", a.unbalanced);
    }

    /// A square (polygon) settled on a line wall, and a disc settled on a fixed polygon
    /// plate (a wall body): the floor and the plate carry the weights, and each grain's
    /// stress is its one contact's share: the square's from the wall contact point under
    /// its centre, -h m g over its area; the disc's from its surface point against the
    /// plate, -(r - delta/2) m g over its area with delta = m g / kn.
    #[test]
    fn polygons_on_a_wall_and_discs_on_a_wall_body() {
        use talus::engine::{flags, PolygonShape};
        let g = 9.81;
        let h = 1.0e-3;
        let m_square = 2500.0 * 4.0 * h * h;
        let square = ParticleInit {
            mass: m_square,
            radius: h * 2f64.sqrt(),
            ..disc(1, [0.0, h], [0.0; 2])
        };
        // The plate: a fixed quadrilateral whose top edge is y = 5 mm, above the floor.
        let plate = ParticleInit {
            mass: 1.0,
            radius: 0.005f64.hypot(0.001),
            flags: flags::FIXED,
            ..disc(2, [0.02, 0.004], [0.0; 2])
        };
        let ball = disc(3, [0.02, 0.005 + R], [0.0; 2]);
        let m = 2500.0 * PI * R * R;
        let shapes = [
            Some(PolygonShape::new(&[[-h, -h], [h, -h], [h, h], [-h, h]]).unwrap()),
            Some(PolygonShape::new(&[[-0.005, -0.001], [0.005, -0.001], [0.005, 0.001], [-0.005, 0.001]]).unwrap()),
            None,
        ];
        let gamma = ContactParams::gamma_for_restitution(KN, m / 2.0, 0.1);
        let dt = params(gamma).contact_time(m / 2.0) / 50.0;
        let cfg = config(dt, [0.0, -g], [-0.01, -0.01], [0.03, 0.03]);
        let walls = vec![Wall::fixed([0.0, 0.0], [0.0, 1.0], 0)];
        let mut sim =
            Simulation::new_with_shapes(cfg, vec![material(gamma)], walls, &[square, plate, ball], &shapes).unwrap();
        sim.run(40_000).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(None).unwrap();
        let index = |id: u64| sim.particles.index_of(id).unwrap();
        // The floor carries the square and the ball's weight goes to the plate.
        let floor = a.wall_forces[0];
        assert!((floor[1] + m_square * g).abs() < 1e-6 * m_square * g, "floor {floor:?}");
        assert_eq!(a.body_forces.len(), 1);
        let (id, plate_force) = a.body_forces[0];
        assert_eq!(id, 2);
        assert!((plate_force[1] + m * g).abs() < 1e-6 * m * g, "plate {plate_force:?}");
        let square_yy = a.grain_stress[index(1)][1][1];
        let want = -m_square * g / (4.0 * h);
        assert!(
            (square_yy / want - 1.0).abs() < 1e-3,
            "square {square_yy} against {want}"
        );
        let ball_yy = a.grain_stress[index(3)][1][1];
        let delta = m * g / KN;
        let want = -(R - 0.5 * delta) * m * g / (PI * R * R);
        assert!((ball_yy / want - 1.0).abs() < 1e-6, "ball {ball_yy} against {want}");
        // One contact each, the plate counted as a wall: both rattlers.
        assert_eq!(a.contacts[index(1)], 1);
        assert_eq!(a.contacts[index(3)], 1);
        assert_eq!(a.contacts[index(2)], 0);
        assert_eq!(a.rattlers, 2);
    }

    /// Grains taken out after a logged step: the log keeps the contacts of the others,
    /// renumbered. A settled column loses its top disc: one pair fewer, the floor's force
    /// (of the logged step) the same, the rest's contacts as they were.
    #[test]
    fn taking_grains_out_keeps_the_log_of_the_rest() {
        let count = 6;
        let ps: Vec<ParticleInit> = (0..count)
            .map(|k| disc(k as u64 + 1, [0.0, R + 2.0 * R * k as f64], [0.0; 2]))
            .collect();
        let m = 2500.0 * PI * R * R;
        let gamma = ContactParams::gamma_for_restitution(KN, m / 2.0, 0.1);
        let dt = params(gamma).contact_time(m / 2.0) / 50.0;
        let cfg = config(dt, [0.0, -9.81], [-0.01, -0.001], [0.01, 0.05]);
        let walls = vec![Wall::fixed([0.0, 0.0], [0.0, 1.0], 0)];
        let mut sim = Simulation::new(cfg, vec![material(gamma)], walls, &ps).unwrap();
        sim.run(5_000).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let before = sim.analyse(None).unwrap();
        let top = R + 2.0 * R * (count - 1) as f64;
        let region = talus::engine::Region {
            min: [-0.005, top - 0.5 * R],
            max: [0.005, top + 0.5 * R],
        };
        assert_eq!(sim.remove_in_region(&region), (1, m));
        let log = sim.contact_log().unwrap();
        assert_eq!(log.pair_count(), count - 2);
        let after = sim.analyse(None).unwrap();
        assert_eq!(after.wall_forces, before.wall_forces);
        assert_eq!(after.coordination, 2.0 * (count - 2) as f64 / (count - 1) as f64);
        let by_id =
            |a: &talus::engine::Analysis, s: &Simulation, id: u64| a.contacts[s.particles.index_of(id).unwrap()];
        assert_eq!(by_id(&after, &sim, 1), 2);
        assert_eq!(by_id(&after, &sim, count as u64 - 1), 1);
    }

    /// Every number of two analyses, bit for bit.
    fn assert_same(a: &talus::engine::Analysis, b: &talus::engine::Analysis) {
        assert_eq!(a.grain_stress, b.grain_stress);
        assert_eq!(a.contacts, b.contacts);
        assert_eq!((a.stress, a.wall_forces.clone()), (b.stress, b.wall_forces.clone()));
        let numbers = |a: &talus::engine::Analysis| {
            [
                a.coordination,
                a.coordination_held,
                a.unbalanced,
                a.kinetic,
                a.rotational,
                a.potential,
            ]
            .map(f64::to_bits)
        };
        assert_eq!(numbers(a), numbers(b));
        assert_eq!(
            (a.rattlers, a.packing, a.region_stress),
            (b.rattlers, b.packing, b.region_stress)
        );
    }

    /// Two discs that touch, then part: the analysis of a step without contacts, made in
    /// the buffers of the one before (as a run analysing at an interval does), keeps
    /// nothing of it: no contacts, no stress, both rattlers.
    #[test]
    fn an_analysis_without_contacts_keeps_nothing_of_the_one_before() {
        let ps = [
            disc(1, [0.0, 0.0], [-0.1, 0.0]),
            disc(2, [2.0 * R - DELTA, 0.0], [0.1, 0.0]),
        ];
        let cfg = config(1e-7, [0.0; 2], [-0.01; 2], [0.01; 2]);
        let mut sim = Simulation::new(cfg, vec![material(0.0)], Vec::new(), &ps).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let touching = sim.analyse(None).unwrap();
        assert_eq!(touching.contacts, [1, 1]);
        assert!(touching.grain_stress[0][0][0] < 0.0);
        sim.run(2_000).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        assert_eq!(sim.contact_log().unwrap().pair_count(), 0);
        let apart = sim.analyse_reusing(None, touching).unwrap();
        assert_eq!(apart.contacts, [0, 0]);
        assert_eq!(apart.grain_stress, [[[0.0; 2]; 2]; 2]);
        assert_eq!((apart.rattlers, apart.coordination), (2, 0.0));
    }

    /// A bed of 12,000 discs in motion, stepped with and without logging, on one thread
    /// and on two, then three (the deterministic sum, in many chunks): the same trajectory
    /// bit for bit, the same log, and the same analysis (the log cut into fixed pieces of
    /// 4,096 pairs, each grain's sums made by the thread running the piece that owns it,
    /// the bed's by fixed blocks: `sim/analysis_passes.rs`), with a region. The last
    /// rounds log more than two pieces.
    #[test]
    fn logging_changes_nothing_and_is_the_same_on_two_threads() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let side = 120;
        let ps: Vec<ParticleInit> = (0..side * 100)
            .map(|k| {
                let pos = [(k % side) as f64 * 2.05 * R, (k / side) as f64 * 2.05 * R];
                let vel = [rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5)];
                disc(k as u64 + 1, pos, vel)
            })
            .collect();
        let make = || {
            // The first row and column start 2 um into the low walls: wall contacts from the
            // first step.
            let lo = [-R + 2e-6; 2];
            let hi = [side as f64 * 2.05 * R + R, 100.0 * 2.05 * R + R];
            let walls = vec![
                Wall::fixed(lo, [1.0, 0.0], 0),
                Wall::fixed(hi, [-1.0, 0.0], 0),
                Wall::fixed(lo, [0.0, 1.0], 0),
                Wall::fixed(hi, [0.0, -1.0], 0),
            ];
            let cfg = config(2e-6, [0.0, -9.81], lo, hi);
            Simulation::new(cfg, vec![material(50.0)], walls, &ps).unwrap()
        };
        let (mut plain, mut logged, mut two) = (make(), make(), make());
        two.set_parallel(&[None, None], talus::engine::ForceStrategy::Deterministic)
            .unwrap();
        for round in 0..5 {
            plain.run(40).unwrap();
            for s in [&mut logged, &mut two] {
                s.log_next_run();
                s.run(40).unwrap();
            }
            assert_eq!(plain.particles.pos, logged.particles.pos);
            assert_eq!(plain.particles.vel, logged.particles.vel);
            let (a, b) = (logged.contact_log().unwrap(), two.contact_log().unwrap());
            assert!(a.pair_count() > 1000 && !a.walls.is_empty(), "{} pairs", a.pair_count());
            assert!(a.pairs().eq(b.pairs()));
            assert_eq!(a.walls, b.walls);
            assert_eq!(a.pair_count() as u64, logged.last_contacts);
            let region = talus::engine::Region {
                min: [0.0, 0.0],
                max: [0.1, 0.05],
            };
            let (a, b) = (
                logged.analyse(Some(&region)).unwrap(),
                two.analyse(Some(&region)).unwrap(),
            );
            assert_same(&a, &b);
            assert!(
                a.packing.unwrap() > 0.0 && a.rattlers > 0,
                "{:?} {}",
                a.packing,
                a.rattlers
            );
            if round == 2 {
                two.set_parallel(&[None; 3], talus::engine::ForceStrategy::Deterministic)
                    .unwrap();
            }
        }
        assert!(plain.contact_log().is_none());
    }
}

/// 3D (`talus::engine3d`): spheres of density 2500 kg/m^3.
mod space {
    use super::*;
    use talus::engine3d::{
        Config, ContactParams, Integrator, Material, NeighborMethod, ParticleInit, Simulation, Wall,
    };
    use talus::kernels3d::contact::law::NormalModel;

    fn mass() -> f64 {
        2500.0 * 4.0 / 3.0 * PI * R * R * R
    }

    fn material(gamma_n: f64) -> Material {
        Material {
            name: "glass".into(),
            density: 2500.0,
            contact: ContactParams {
                kn: KN,
                kt: 2.0 / 7.0 * KN,
                gamma_n,
                gamma_t: 0.5 * gamma_n,
                mu: 0.5,
            },
        }
    }

    fn config(dt: f64, gravity: [f64; 3], min: [f64; 3], max: [f64; 3]) -> Config {
        Config {
            dt,
            gravity,
            domain_min: min,
            domain_max: max,
            integrator: Integrator::Verlet,
            neighbor: NeighborMethod::Sweep,
            margin: 0.1e-3,
            every_step: false,
            sort_every: 0,
            normal_model: NormalModel::Hooke,
        }
    }

    fn sphere(id: u64, pos: [f64; 3]) -> ParticleInit {
        ParticleInit {
            id,
            pos,
            angle: 0.0,
            vel: [0.0; 3],
            omega: [0.0; 3],
            radius: R,
            mass: mass(),
            material: 0,
            ptype: 1,
            flags: 0,
        }
    }

    #[test]
    fn compressed_lattice_stress_and_wall_forces_match_the_closed_form() {
        let n = [3, 3, 2];
        let s = 2.0 * R - DELTA;
        let mut ps = Vec::new();
        for c in 0..n[2] {
            for b in 0..n[1] {
                for a in 0..n[0] {
                    let pos = [a as f64 * s, b as f64 * s, c as f64 * s];
                    ps.push(sphere(ps.len() as u64 + 1, pos));
                }
            }
        }
        let lo = [-(R - DELTA); 3];
        let hi: [f64; 3] = std::array::from_fn(|k| (n[k] - 1) as f64 * s + R - DELTA);
        let mut walls = Vec::new();
        for k in 0..3 {
            let mut normal = [0.0; 3];
            normal[k] = 1.0;
            walls.push(Wall::plane(lo, normal, 0));
            normal[k] = -1.0;
            walls.push(Wall::plane(hi, normal, 0));
        }
        let mut sim = Simulation::new(config(1e-7, [0.0; 3], lo, hi), vec![material(10.0)], walls, &ps).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(None).unwrap();
        let count = (n[0] * n[1] * n[2]) as f64;
        let f = KN * DELTA;
        let volume: f64 = (0..3).map(|k| hi[k] - lo[k]).product();
        let want = -f * (2.0 * R - DELTA) * count / volume;
        for k in 0..3 {
            for l in 0..3 {
                let w = if k == l { want } else { 0.0 };
                let got = a.stress[k][l];
                assert!((got - w).abs() <= 1e-9 * want.abs(), "stress {k}{l}: {got} against {w}");
            }
            // Each wall of axis k carries the grains of one face.
            let face = count / n[k] as f64;
            for (side, sign) in [(0, -1.0), (1, 1.0)] {
                let got = a.wall_forces[2 * k + side];
                let mut w = [0.0; 3];
                w[k] = sign * face * f;
                for l in 0..3 {
                    assert!(
                        (got[l] - w[l]).abs() <= 1e-9 * f,
                        "wall {}: {got:?} against {w:?}",
                        2 * k + side
                    );
                }
            }
        }
        let per_grain = -f * (2.0 * R - DELTA) / (mass() / 2500.0);
        for s in &a.grain_stress {
            assert!((s[2][2] - per_grain).abs() <= 1e-9 * per_grain.abs(), "{s:?}");
        }
        let c = (n[0] - 1) * n[1] * n[2] + n[0] * (n[1] - 1) * n[2] + n[0] * n[1] * (n[2] - 1);
        assert_eq!(a.coordination, 2.0 * c as f64 / count);
        assert_eq!(a.rattlers, 0);
        assert!(a.contacts.iter().all(|&c| c == 6));
    }

    /// A column of spheres on a floor, settled: the floor carries the column's weight.
    #[test]
    fn settled_column_floor_carries_its_weight() {
        let g = 9.81;
        let count = 5;
        let ps: Vec<ParticleInit> = (0..count)
            .map(|k| sphere(k as u64 + 1, [0.0, 0.0, R + 2.0 * R * k as f64]))
            .collect();
        let m = mass();
        let gamma = ContactParams::gamma_for_restitution(KN, m / 2.0, 0.1);
        let dt = material(gamma).contact.contact_time(m / 2.0) / 50.0;
        let cfg = config(dt, [0.0, 0.0, -g], [-0.01, -0.01, -0.001], [0.01, 0.01, 0.05]);
        let walls = vec![Wall::plane([0.0; 3], [0.0, 0.0, 1.0], 0)];
        let mut sim = Simulation::new(cfg, vec![material(gamma)], walls, &ps).unwrap();
        sim.run(20_000).unwrap();
        sim.log_next_run();
        sim.run(1).unwrap();
        let a = sim.analyse(None).unwrap();
        let weight = count as f64 * m * g;
        let floor = a.wall_forces[0];
        assert!(
            (floor[2] + weight).abs() < 1e-6 * weight,
            "floor {floor:?}, weight {weight}"
        );
        assert!(floor[0].abs() + floor[1].abs() < 1e-9 * weight);
        // A vertical column of frictional spheres: the top one has one contact, and each
        // below it is left with one when the one above goes (two hold a frictional grain):
        // all rattlers.
        assert_eq!(a.rattlers, count);
        assert_eq!(a.coordination_held, 0.0);
    }
}
