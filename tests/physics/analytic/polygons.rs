//! Polygons against analytic results: squares at rest, an elastic square collision, the heap angle.
use super::*;

/// A square resting on a floor settles where the area-proportional force carries its
/// weight: overlap area A = m g l / E with l its bounding radius (the polygon-wall law).
/// And a square on a square on the floor: the upper pair's overlap carries m g with
/// l = the characteristic length r r / (r + r) * 2 = r.
#[test]
fn squares_rest_at_the_analytic_overlap_areas() {
    for integrator in BOTH {
        let h = 1.0e-3;
        let m = DENSITY * 4.0 * h * h;
        let r = h * 2f64.sqrt();
        let parts = [
            ParticleInit {
                mass: m,
                ..disc(1, 0.01, h, 0.0, 0.0, r)
            },
            ParticleInit {
                mass: m,
                ..disc(2, 0.01, 3.0 * h, 0.0, 0.0, r)
            },
        ];
        let shapes = [Some(square_shape(h)), Some(square_shape(h))];
        let p = frictional(0.3, 0.5 * m, 0.5);
        let tc = p.contact_time(0.5 * m);
        let cfg = config(tc / 50.0, [0.0, -G], [0.0, -0.01], [0.02, 0.02], integrator);
        let walls = vec![wall([0.0, 0.0], [0.0, 1.0])];
        let mut sim = Simulation::new_with_shapes(cfg, vec![material(p)], walls, &parts, &shapes).unwrap();
        sim.run(200_000).unwrap();
        let floor_area = sim.wall_contacts.area.iter().copied().fold(0.0, f64::max);
        let want_floor = 2.0 * m * G * r / KN;
        let pair_area = sim.contacts.area.iter().copied().fold(0.0, f64::max);
        let want_pair = m * G * r / KN;
        println!(
            "{integrator:?}: floor overlap {floor_area:.6e} (analytic {want_floor:.6e}), pair overlap {pair_area:.6e} (analytic {want_pair:.6e})"
        );
        assert!(
            (floor_area / want_floor - 1.0).abs() < 1e-3,
            "{integrator:?}: floor {floor_area:e} vs {want_floor:e}"
        );
        assert!(
            (pair_area / want_pair - 1.0).abs() < 1e-3,
            "{integrator:?}: pair {pair_area:e} vs {want_pair:e}"
        );
        let e = sim.energies();
        assert!(
            e.kinetic < 1e-12,
            "{integrator:?}: not at rest, kinetic energy {:e}",
            e.kinetic
        );
    }
}

/// Two equal squares collide face to face with no damping and no friction: momentum is
/// conserved exactly, the kinetic energy comes back (elastic), and they exchange
/// velocities.
#[test]
fn elastic_square_collision_exchanges_velocities() {
    for integrator in BOTH {
        let h = 1.0e-3;
        let m = DENSITY * 4.0 * h * h;
        let r = h * 2f64.sqrt();
        let v0 = 0.2;
        let parts = [
            ParticleInit {
                mass: m,
                ..disc(1, 0.005, 0.01, v0, 0.0, r)
            },
            ParticleInit {
                mass: m,
                ..disc(2, 0.005 + 2.0 * h + 2.0e-4, 0.01, 0.0, 0.0, r)
            },
        ];
        let shapes = [Some(square_shape(h)), Some(square_shape(h))];
        let p = elastic();
        let dt = p.contact_time(0.5 * m) / 200.0;
        let cfg = config(dt, [0.0; 2], [0.0, 0.0], [0.02, 0.02], integrator);
        let mut sim = Simulation::new_with_shapes(cfg, vec![material(p)], vec![], &parts, &shapes).unwrap();
        sim.run(8000).unwrap();
        let (a, b) = (index(&sim, 1), index(&sim, 2));
        let ps = &sim.particles;
        let momentum = m * (ps.vel[0][a] + ps.vel[0][b]);
        println!(
            "{integrator:?}: after the collision v1 = {:e}, v2 = {:e} (v0 = {v0})",
            ps.vel[0][a], ps.vel[0][b]
        );
        assert!(
            (momentum - m * v0).abs() < 1e-12 * m * v0,
            "{integrator:?}: momentum {momentum:e}"
        );
        assert!(
            ps.vel[0][a].abs() < 1e-3 * v0 && (ps.vel[0][b] / v0 - 1.0).abs() < 1e-3,
            "{integrator:?}: {} {}",
            ps.vel[0][a],
            ps.vel[0][b]
        );
        assert!(
            ps.vel[1][a].abs() < 1e-9 && ps.omega[0][a].abs() < 1e-6,
            "{integrator:?}: the collision is head-on"
        );
    }
}

/// Angle of repose: the same size distribution and friction poured as a narrow column onto
/// a flat floor (side walls 0.5 m away) makes a clearly steeper heap of polygons than
/// of discs, which roll away (there is no rolling resistance).
///
/// Pouring: 400 particles (circumradius uniform in [2.4, 3.6] mm) on a lattice in a column
/// 10 diameters wide, released at rest, 1 s of flow. The angle of the heap is measured as
/// atan(H / L): H the height of the highest particle top above the floor, L the half-width
/// within which 90 % of the particles lie. Measured (commit of this test): discs 4.3 degrees
/// (they roll out to the far walls), random 5-8-gons 14.1 degrees (at rest: kinetic energy
/// 8e-9 J).
/// Measured: discs about 4 degrees, random 5-8-gons about 21 degrees.
#[test]
fn polygons_make_a_steeper_heap_than_discs() {
    let heap_angle = |polygons: bool| -> f64 {
        let radii = RadiusDist::Uniform {
            mean: 3.0e-3,
            width: 0.2,
        };
        let discs = generate::lattice(400, &radii, [0.46, 0.005], [0.54, 0.3], 21).unwrap();
        let mut g = generate::rng(99);
        let mut parts = Vec::new();
        let mut shapes = Vec::new();
        for (k, d) in discs.iter().enumerate() {
            let spec = generate::ShapeSpec::Random {
                vertices: [5, 8],
                aspect: 1.3,
            };
            let shape = if polygons {
                Some(
                    talus::engine::PolygonShape::new(&generate::polygon_vertices(&spec, d.r, &mut g).unwrap()).unwrap(),
                )
            } else {
                None
            };
            let mass = shape.as_ref().map_or(disc_mass(d.r), |s| DENSITY * s.area);
            parts.push(ParticleInit {
                mass,
                ..disc(k as u64 + 1, d.centre[0], d.centre[1], 0.0, 0.0, d.r)
            });
            shapes.push(shape);
        }
        let m_min = parts.iter().map(|p| p.mass).fold(f64::INFINITY, f64::min);
        let p = frictional(0.3, 0.5 * m_min, 0.5);
        let dt = p.contact_time(0.5 * m_min) / 40.0;
        let cfg = config(dt, [0.0, -G], [0.0, -0.01], [1.0, 0.6], Integrator::Verlet);
        // A floor, and side walls far out that only the discs rolling away reach.
        let walls = vec![
            wall([0.0, 0.0], [0.0, 1.0]),
            wall([0.0, 0.0], [1.0, 0.0]),
            wall([1.0, 0.0], [-1.0, 0.0]),
        ];
        let mut sim = Simulation::new_with_shapes(cfg, vec![material(p)], walls, &parts, &shapes).unwrap();
        let steps = (1.0 / dt) as u64;
        sim.run(steps).unwrap();
        let ps = &sim.particles;
        let n = sim.len();
        let top = (0..n).map(|i| ps.pos[1][i] + ps.radius[i]).fold(0.0, f64::max);
        // Half-width of the heap: 90 % of the particles lie within it of the centre (the
        // few that rolled or bounced far away do not count).
        let centre = (0..n).map(|i| ps.pos[0][i]).sum::<f64>() / n as f64;
        let mut dist: Vec<f64> = (0..n).map(|i| (ps.pos[0][i] - centre).abs()).collect();
        dist.sort_by(|a, b| a.total_cmp(b));
        let half = dist[n * 9 / 10];
        let angle = (top / half).atan().to_degrees();
        println!(
            "{}: heap height {top:.4} m, base half-width {half:.4} m, angle {angle:.1} degrees, kinetic energy {:.2e} J, {steps} steps",
            if polygons { "polygons" } else { "discs" },
            sim.energies().kinetic
        );
        angle
    };
    let discs = heap_angle(false);
    let polygons = heap_angle(true);
    assert!(
        polygons > discs + 8.0,
        "polygons {polygons:.1} degrees, discs {discs:.1} degrees"
    );
}

/// Hertz needs a radius at the contact: a polygon under it is refused at set-up, by its
/// particle's id, in a simulation built with one and in one that has discs first.
#[test]
fn polygons_under_hertz_are_refused_by_id() {
    use talus::kernels::contact::law::NormalModel;
    let h = 1.0e-3;
    let mut cfg = config(1e-6, [0.0; 2], [0.0, 0.0], [0.02, 0.02], Integrator::Verlet);
    cfg.normal_model = NormalModel::Hertz;
    let parts = [
        disc(1, 0.005, 0.01, 0.0, 0.0, h),
        disc(7, 0.01, 0.01, 0.0, 0.0, h * 2f64.sqrt()),
    ];
    let shapes = [None, Some(square_shape(h))];
    let e = match Simulation::new_with_shapes(cfg.clone(), vec![material(elastic())], vec![], &parts, &shapes) {
        Ok(_) => panic!("a square under Hertz was taken"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("particle id 7") && e.contains("Hertz") && e.contains("polygons take Hooke"),
        "{e}"
    );
    // Discs alone are fine; a square added later is refused the same way.
    let mut sim = Simulation::new(cfg, vec![material(elastic())], vec![], &parts[..1]).unwrap();
    let e = sim
        .add_particles_with_shapes(&parts[1..], &shapes[1..])
        .unwrap_err()
        .to_string();
    assert!(e.contains("particle id 7") && e.contains("Hertz"), "{e}");
    assert_eq!(sim.len(), 1);
}
