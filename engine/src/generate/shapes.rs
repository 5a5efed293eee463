//! Polygon shapes of generated particles (2D): random, regular and elliptic convex
//! polygons, and the wall segments of a drum.
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The shape of generated particles.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeSpec {
    /// Discs: no polygon.
    Disc,
    /// Random convex polygons: vertex count uniform in `vertices[0]..=vertices[1]`, at
    /// sorted random angles on an ellipse of aspect ratio `aspect` (>= 1).
    Random {
        /// Fewest and most vertices.
        vertices: [usize; 2],
        /// Aspect ratio of the ellipse (>= 1).
        aspect: f64,
    },
    /// Regular n-gons.
    Regular {
        /// Vertices per polygon.
        vertices: usize,
    },
    /// Vertices on an ellipse of aspect ratio `aspect` at equal angles, each angle jittered
    /// by up to `jitter` of the angular spacing (Chen & Matuttis use about 1 %).
    Ellipse {
        /// Vertices per polygon.
        vertices: usize,
        /// Aspect ratio of the ellipse (>= 1).
        aspect: f64,
        /// Largest angle jitter, as a fraction of the angular spacing.
        jitter: f64,
    },
}

/// Body-frame vertices (counter-clockwise) of one polygon of circumradius `r` (the major
/// semi-axis for elongated ones), or `None` for a disc.
pub fn polygon_vertices(spec: &ShapeSpec, r: f64, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<[f64; 2]>> {
    // Centred on the centroid and scaled so that the bounding radius is exactly r: the
    // packings place particles by that radius.
    let mut v = raw_vertices(spec, r, rng)?;
    let c = talus_kernels::geometry::polygon::centroid(&v);
    v.iter_mut().for_each(|p| *p = [p[0] - c[0], p[1] - c[1]]);
    let scale = r / v.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max);
    v.iter_mut().for_each(|p| *p = [p[0] * scale, p[1] * scale]);
    Some(v)
}

fn raw_vertices(spec: &ShapeSpec, r: f64, rng: &mut Xoshiro256PlusPlus) -> Option<Vec<[f64; 2]>> {
    use std::f64::consts::TAU;
    let on_ellipse = |t: f64, aspect: f64| [r * t.cos(), r / aspect * t.sin()];
    match *spec {
        ShapeSpec::Disc => None,
        ShapeSpec::Regular { vertices } => Some(
            (0..vertices)
                .map(|k| on_ellipse(TAU * k as f64 / vertices as f64, 1.0))
                .collect(),
        ),
        ShapeSpec::Ellipse {
            vertices,
            aspect,
            jitter,
        } => Some(
            (0..vertices)
                .map(|k| {
                    let j = if jitter > 0.0 {
                        rng.random_range(-jitter..=jitter)
                    } else {
                        0.0
                    };
                    on_ellipse(TAU * (k as f64 + j) / vertices as f64, aspect)
                })
                .collect(),
        ),
        ShapeSpec::Random { vertices, aspect } => {
            let n = rng.random_range(vertices[0]..=vertices[1]);
            // Sorted angles with a minimum gap, so that the polygon is strictly convex and
            // no edge is vanishingly short.
            let gap = 0.2 * TAU / n as f64;
            let mut t: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..TAU - n as f64 * gap)).collect();
            t.sort_by(|a, b| a.total_cmp(b));
            Some(
                t.iter()
                    .enumerate()
                    .map(|(k, &a)| on_ellipse(a + k as f64 * gap, aspect))
                    .collect(),
            )
        }
    }
}

/// The wall segments of a rotating drum: `segments` quadrilaterals (counter-clockwise, world
/// frame) forming a ring of inner radius `radius` and thickness `thickness` about `centre`,
/// as in the drum benchmarks of Watanabe et al. and Chen & Matuttis. Each segment is a hair
/// narrower than its share of the ring, so that neighbours do not touch (two infinite
/// masses exert no force on each other anyway, but their pair would be checked every step).
pub fn drum_ring(centre: [f64; 2], radius: f64, thickness: f64, segments: usize) -> Vec<[[f64; 2]; 4]> {
    let tau = std::f64::consts::TAU;
    let n = segments as f64;
    let p = |r: f64, t: f64| [centre[0] + r * t.cos(), centre[1] + r * t.sin()];
    let (ri, ro) = (radius, radius + thickness);
    (0..segments)
        .map(|k| {
            let (t0, t1) = (tau * k as f64 / n, tau * (k as f64 + 0.99) / n);
            [p(ri, t1), p(ri, t0), p(ro, t0), p(ro, t1)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::rng;

    #[test]
    fn generated_polygons_are_valid_with_the_asked_radius() {
        let mut g = rng(4);
        for spec in [
            ShapeSpec::Random {
                vertices: [3, 64],
                aspect: 2.0,
            },
            ShapeSpec::Regular { vertices: 7 },
            ShapeSpec::Ellipse {
                vertices: 24,
                aspect: 3.0,
                jitter: 0.01,
            },
        ] {
            for _ in 0..200 {
                let v = polygon_vertices(&spec, 1.5, &mut g).unwrap();
                let shape = crate::shapes::PolygonShape::new(&v).expect("a valid polygon");
                assert!(
                    (shape.radius - 1.5).abs() < 1e-12 && shape.area > 0.0,
                    "{}",
                    shape.radius
                );
            }
        }
    }

    #[test]
    fn drum_ring_segments_are_ccw_on_the_ring_and_apart() {
        let (c, r, t, n) = ([0.3, -0.2], 0.1, 0.01, 16);
        let ring = drum_ring(c, r, t, n);
        assert_eq!(ring.len(), n);
        for (k, seg) in ring.iter().enumerate() {
            let d: Vec<f64> = seg.iter().map(|p| (p[0] - c[0]).hypot(p[1] - c[1])).collect();
            assert!(
                (d[0] - r).abs() < 1e-12 && (d[1] - r).abs() < 1e-12,
                "inner corners on the radius"
            );
            assert!(
                (d[2] - r - t).abs() < 1e-12 && (d[3] - r - t).abs() < 1e-12,
                "outer corners"
            );
            assert!(
                talus_kernels::geometry::polygon::is_convex_ccw(seg),
                "convex, counter-clockwise"
            );
            // Neighbours share no point: the gap between segment k and k+1 is 1 % of a share.
            let next = &ring[(k + 1) % n];
            let gap = (seg[0][0] - next[1][0]).hypot(seg[0][1] - next[1][1]);
            assert!(gap > 0.5 * 0.01 * std::f64::consts::TAU * r / n as f64);
        }
    }
}
