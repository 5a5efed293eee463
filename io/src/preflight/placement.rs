//! Placement: particles that start outside the domain, with their centre behind or inside
//! a wall (a line or plane, outside a cylinder, in a wall body or a drum's ring), or
//! reaching into one by more than
//! [`WALL_OVERLAP`] of their radius are refused: such a bed explodes at the first step.
use talus_engine::sim::Shape;
use talus_engine::ParticleInit;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::to_world;
use talus_kernels::math::DIM;

use super::walls::{Reacher, Walls};
use super::Source;
use crate::scenario as sc;

/// Overlap with a wall, as a fraction of the particle's radius, above which a particle
/// is refused (the settled S2D bed reaches 1.9 % into its floor).
pub const WALL_OVERLAP: f64 = 0.1;

/// The first particle of a source found in a wall: its index, the wall's, and how deep
/// it reaches into it or (`centre`) how far its centre is behind or inside it.
struct Found {
    q: usize,
    wall: usize,
    depth: f64,
    centre: bool,
}

/// Refuse the sources whose particles start outside the domain (centre beyond its
/// bounds), with their centre behind or inside a wall, or reaching into a wall by more
/// than [`WALL_OVERLAP`] of their radius (a disc by its circle, a polygon by its shape).
/// The message names each such source, how many of its particles, the first of them and
/// the wall.
pub fn check_placement(
    sources: &[Source],
    inits: &[ParticleInit],
    shapes: &[Option<Shape>],
    domain: &sc::Domain,
    walls: &Walls,
) -> Result<(), String> {
    let (lo, hi) = (domain.min, domain.max);
    let mut problems = Vec::new();
    #[cfg(not(feature = "dim3"))]
    let mut corners = Vec::new();
    for src in sources {
        let (mut outside, mut first_outside) = (0usize, None);
        let (mut into, mut first_into) = (0usize, None);
        for q in src.range.clone() {
            let p = &inits[q];
            if !(0..DIM).all(|k| p.pos[k] >= lo[k] && p.pos[k] <= hi[k]) {
                outside += 1;
                first_outside.get_or_insert(q);
                continue;
            }
            let centre = p.pos;
            let reacher = match shapes.get(q).and_then(|s| s.as_ref()) {
                None => Reacher::Ball {
                    centre,
                    radius: p.radius,
                },
                #[cfg(feature = "dim3")]
                Some(sh) => match *sh {},
                #[cfg(not(feature = "dim3"))]
                Some(sh) => {
                    corners.resize(sh.vertices.len(), [0.0; 2]);
                    to_world(&sh.vertices, centre, p.angle, &mut corners);
                    Reacher::Polygon {
                        corners: &corners,
                        centre,
                        radius: p.radius,
                    }
                }
            };
            // A centre behind or inside a wall first: that wall is the one to name.
            let behind = walls
                .0
                .iter()
                .enumerate()
                .map(|(w, (_, shape))| (w, shape.inside(centre)))
                .find(|&(_, d)| d > 0.0);
            let found = match behind {
                Some((wall, depth)) => Some(Found {
                    q,
                    wall,
                    depth,
                    centre: true,
                }),
                None => walls
                    .deepest(&reacher)
                    .filter(|&(_, depth)| depth > WALL_OVERLAP * p.radius)
                    .map(|(wall, depth)| Found {
                        q,
                        wall,
                        depth,
                        centre: false,
                    }),
            };
            if let Some(f) = found {
                into += 1;
                first_into.get_or_insert(f);
            }
        }
        let n = src.range.len();
        let at = |p: &ParticleInit| {
            let at: Vec<String> = p.pos.iter().map(f64::to_string).collect();
            format!("particle id {} at ({}) with radius {}", p.id, at.join(", "), p.radius)
        };
        if let Some(q) = first_outside {
            problems.push(format!(
                "{}: {outside} of its {n} particles start outside the domain {lo:?}..{hi:?}, e.g. {}",
                src.label,
                at(&inits[q])
            ));
        }
        if let Some(f) = first_into {
            let p = &inits[f.q];
            let (label, shape) = &walls.0[f.wall];
            let how = if f.centre {
                format!("has its centre {:.3e} m {} {label}", f.depth, shape.behind())
            } else {
                format!(
                    "reaches {:.3e} m ({:.0} % of its radius) into {label}",
                    f.depth,
                    100.0 * f.depth / p.radius
                )
            };
            problems.push(format!(
                "{}: {into} of its {n} particles start behind or inside a wall or reach into one by more \
                 than {:.0} % of their radius, e.g. {} {how}",
                src.label,
                100.0 * WALL_OVERLAP,
                at(p)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}; such particles are thrown out at the first step: keep the regions (and data files' atoms) \
             inside the domain, on the particles' side of every wall and clear of wall bodies and drums' rings",
            problems.join("; ")
        ))
    }
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;
    use crate::preflight::walls::test_scenario;

    fn particle(x: f64, y: f64, angle: f64, radius: f64) -> ParticleInit {
        ParticleInit {
            id: 7,
            pos: [x, y],
            angle,
            vel: [0.0, 0.0],
            omega: [0.0],
            radius,
            mass: 1.0,
            material: 0,
            ptype: 1,
            flags: 0,
        }
    }

    /// The placement check of one particle (a polygon where `shape` is given).
    fn check(p: ParticleInit, shape: Option<Shape>) -> Result<(), String> {
        let s = test_scenario();
        let source = Source {
            label: "particles[0] (test)".into(),
            range: 0..1,
        };
        check_placement(&[source], &[p], &[shape], &s.domain, &Walls::of(&s))
    }

    /// The middle of the left plate's upper face, and its outward normal.
    const MID: [f64; 2] = [0.095, 0.2];
    fn normal() -> [f64; 2] {
        let len = 0.1f64.hypot(0.09);
        [0.1 / len, 0.09 / len]
    }
    fn off_face(t: f64) -> [f64; 2] {
        let n = normal();
        [MID[0] + t * n[0], MID[1] + t * n[1]]
    }

    #[test]
    fn discs_in_or_deep_into_a_wall_body_are_refused_by_its_shape() {
        let r = 1e-3;
        let e = check(particle(0.095, 0.195, 0.0, r), None).unwrap_err();
        assert!(
            e.contains(
                "particles[0] (test): 1 of its 1 particles start behind or inside a wall or reach into one by \
                 more than 10 % of their radius, e.g. particle id 7 at (0.095, 0.195) with radius 0.001 has its \
                 centre 3.345e-3 m inside body[0] (fixed polygon)"
            ),
            "{e}"
        );
        let [x, y] = off_face(0.8 * r);
        let e = check(particle(x, y, 0.0, r), None).unwrap_err();
        assert!(
            e.contains("reaches 2.000e-4 m (20 % of its radius) into body[0] (fixed polygon)"),
            "{e}"
        );
        // A settled contact's overlap, and a disc in the plate's bounding circle (radius
        // 0.071 about its centroid) but 0.054 from the plate itself.
        let [x, y] = off_face(0.95 * r);
        check(particle(x, y, 0.0, r), None).unwrap();
        check(particle(0.15, 0.22, 0.0, r), None).unwrap();
    }

    /// A square facing the plate with a side: its bounding circle reaches 26 % of its
    /// radius into the plate where the square itself is clear of it.
    #[test]
    fn polygons_are_checked_by_their_shape_not_their_circle() {
        let a = 1e-3;
        let square = talus_engine::PolygonShape::new(&[[-a, -a], [a, -a], [a, a], [-a, a]]).unwrap();
        let n = normal();
        let facing = n[1].atan2(n[0]);
        let at = |t: f64| {
            let [x, y] = off_face(t);
            particle(x, y, facing, square.radius)
        };
        check(at(1.05 * a), Some(square.clone())).unwrap();
        let e = check(at(0.8 * a), Some(square.clone())).unwrap_err();
        assert!(e.contains("m (14 % of its radius) into body[0] (fixed polygon)"), "{e}");
    }

    #[test]
    fn particles_in_a_drums_ring_are_refused() {
        let r = 1e-3;
        let e = check(particle(0.202, 0.07, 0.0, r), None).unwrap_err();
        assert!(
            e.contains("has its centre 2.000e-3 m inside drum[0] (its ring 0.05..0.055 m about [0.15, 0.07])"),
            "{e}"
        );
        // Inside the drum, 20 % of the radius into the ring (between segments or not: the
        // ring turns), and 5 %.
        let e = check(particle(0.15 - 0.05 + 0.8 * r, 0.07, 0.0, r), None).unwrap_err();
        assert!(e.contains("(20 % of its radius) into drum[0]"), "{e}");
        check(particle(0.15, 0.07 + 0.05 - 0.95 * r, 0.0, r), None).unwrap();
        // Outside the drum is no wall's business.
        check(particle(0.15, 0.07 + 0.06, 0.0, r), None).unwrap();
    }
}
