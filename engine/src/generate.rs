//! Particle generators: radius distributions and packings (hexagonal lattice, random
//! non-overlapping), driven by a seeded RNG so that a scenario always makes the same bed.
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::{EngineError, Result};

/// How radii are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum RadiusDist {
    Fixed(f64),
    /// Uniform in [mean (1 - width), mean (1 + width)].
    Uniform {
        mean: f64,
        width: f64,
    },
    /// Cycled through in order.
    List(Vec<f64>),
}

impl RadiusDist {
    pub fn max(&self) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, width } => mean * (1.0 + width),
            RadiusDist::List(v) => v.iter().copied().fold(0.0, f64::max),
        }
    }

    pub fn min(&self) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, width } => mean * (1.0 - width),
            RadiusDist::List(v) => v.iter().copied().fold(f64::INFINITY, f64::min),
        }
    }

    pub fn mean(&self) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, .. } => *mean,
            RadiusDist::List(v) => v.iter().sum::<f64>() / v.len().max(1) as f64,
        }
    }

    /// The radius of the `k`-th particle of a source (a list is cycled through by `k`;
    /// the other kinds draw from `rng`).
    pub fn draw(&self, k: usize, rng: &mut Xoshiro256PlusPlus) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, width } => {
                if *width == 0.0 {
                    *mean
                } else {
                    rng.random_range(mean * (1.0 - width)..=mean * (1.0 + width))
                }
            }
            RadiusDist::List(v) => v[k % v.len()],
        }
    }
}

/// A generated disc: centre and radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Disc {
    pub x: f64,
    pub y: f64,
    pub r: f64,
}

pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// Room for `count` generated discs, or an error (the count comes from the input).
fn discs_vec(count: usize) -> Result<Vec<Disc>> {
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|e| {
        EngineError::Setup(format!(
            "cannot allocate {count} discs ({} bytes each): {e}",
            std::mem::size_of::<Disc>()
        ))
    })?;
    Ok(v)
}

/// `count` discs on a hexagonal lattice filling the region row by row from its bottom-left
/// corner; spacing = largest diameter x 1.01, so no two discs overlap.
pub fn lattice(count: usize, radii: &RadiusDist, min: [f64; 2], max: [f64; 2], seed: u64) -> Result<Vec<Disc>> {
    let mut rng = rng(seed);
    let rmax = radii.max();
    let a = 2.0 * rmax * 1.01;
    let dy = a * 3f64.sqrt() / 2.0;
    let w = max[0] - min[0] - 2.0 * rmax;
    // Saturating: a region of 10^12 lattice sites must not overflow the product.
    let per_row = (((w - 0.5 * a) / a).floor() as i64).saturating_add(1);
    let rows_fit = ((((max[1] - min[1] - 2.0 * rmax) / dy).floor() as i64).saturating_add(1)).max(0);
    let room = per_row.max(0).saturating_mul(rows_fit);
    if per_row < 1 || room < count as i64 {
        return Err(EngineError::Setup(format!(
            "{count} discs of radius up to {rmax} do not fit on a lattice in {min:?}..{max:?} \
             (room for {room})"
        )));
    }
    let mut out = discs_vec(count)?;
    let per_row = per_row as usize;
    for k in 0..count {
        let (row, col) = (k / per_row, k % per_row);
        let shift = if row % 2 == 1 { 0.5 * a } else { 0.0 };
        out.push(Disc {
            x: min[0] + rmax + shift + col as f64 * a,
            y: min[1] + rmax + row as f64 * dy,
            r: radii.draw(k, &mut rng),
        });
    }
    Ok(out)
}

/// `count` discs placed at random without overlap (random sequential addition with a
/// cell grid for the overlap test). Fails with a clear error if the region is too full.
pub fn random(count: usize, radii: &RadiusDist, min: [f64; 2], max: [f64; 2], seed: u64) -> Result<Vec<Disc>> {
    let mut rng = rng(seed);
    let rmax = radii.max();
    // Cells at least a diameter wide (the test below looks at the 3 x 3 cells around a
    // candidate), and no more cells than a few per disc: a large region of small discs
    // would otherwise ask for a grid of terabytes. Wider cells change no decision.
    let (wx, wy) = (max[0] - min[0], max[1] - min[1]);
    let most_cells = (4 * count).max(1024) as f64;
    let cell = (2.0 * rmax).max((wx * wy / most_cells).sqrt());
    let nx = ((wx / cell).ceil() as usize).max(1);
    let ny = ((wy / cell).ceil() as usize).max(1);
    let mut grid: Vec<Vec<u32>> = Vec::new();
    grid.try_reserve_exact(nx.saturating_mul(ny)).map_err(|e| {
        EngineError::Setup(format!(
            "random packing: cannot allocate a grid of {nx} x {ny} cells: {e}"
        ))
    })?;
    grid.resize(nx * ny, Vec::new());
    let mut out = discs_vec(count)?;
    let attempts_per = 2000;
    for k in 0..count {
        let r = radii.draw(k, &mut rng);
        let mut placed = false;
        for _ in 0..attempts_per {
            if max[0] - min[0] <= 2.0 * r || max[1] - min[1] <= 2.0 * r {
                break;
            }
            let x = rng.random_range(min[0] + r..max[0] - r);
            let y = rng.random_range(min[1] + r..max[1] - r);
            let cx = (((x - min[0]) / cell) as usize).min(nx - 1);
            let cy = (((y - min[1]) / cell) as usize).min(ny - 1);
            let free = (cy.saturating_sub(1)..(cy + 2).min(ny)).all(|gy| {
                (cx.saturating_sub(1)..(cx + 2).min(nx)).all(|gx| {
                    grid[gy * nx + gx].iter().all(|&q| {
                        let d = &out[q as usize];
                        (d.x - x).powi(2) + (d.y - y).powi(2) >= (d.r + r).powi(2)
                    })
                })
            });
            if free {
                grid[cy * nx + cx].push(out.len() as u32);
                out.push(Disc { x, y, r });
                placed = true;
                break;
            }
        }
        if !placed {
            return Err(EngineError::Setup(format!(
                "random packing: placed only {k} of {count} discs in {min:?}..{max:?}; \
                 enlarge the region or use packing = \"lattice\""
            )));
        }
    }
    Ok(out)
}

/// The shape of generated particles.
#[derive(Debug, Clone, PartialEq)]
pub enum ShapeSpec {
    Disc,
    /// Random convex polygons: vertex count uniform in `vertices[0]..=vertices[1]`, at
    /// sorted random angles on an ellipse of aspect ratio `aspect` (>= 1).
    Random {
        vertices: [usize; 2],
        aspect: f64,
    },
    /// Regular n-gons.
    Regular {
        vertices: usize,
    },
    /// Vertices on an ellipse of aspect ratio `aspect` at equal angles, each angle jittered
    /// by up to `jitter` of the angular spacing (Chen & Matuttis use about 1 %).
    Ellipse {
        vertices: usize,
        aspect: f64,
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

    fn no_overlap(d: &[Disc]) -> bool {
        (0..d.len()).all(|i| (i + 1..d.len()).all(|j| (d[i].x - d[j].x).hypot(d[i].y - d[j].y) >= d[i].r + d[j].r))
    }

    #[test]
    fn lattice_and_random_do_not_overlap_and_stay_inside() {
        let radii = RadiusDist::Uniform { mean: 1.0, width: 0.5 };
        for d in [
            lattice(500, &radii, [0.0, 0.0], [60.0, 100.0], 3).unwrap(),
            random(300, &radii, [0.0, 0.0], [60.0, 60.0], 3).unwrap(),
        ] {
            assert!(no_overlap(&d));
            assert!(d
                .iter()
                .all(|c| c.x - c.r >= 0.0 && c.x + c.r <= 60.0 && c.y - c.r >= 0.0));
            assert!(d.iter().all(|c| (0.5..=1.5).contains(&c.r)));
        }
        assert!(lattice(5000, &radii, [0.0, 0.0], [10.0, 10.0], 1).is_err());
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
        assert!(random(5000, &radii, [0.0, 0.0], [10.0, 10.0], 1).is_err());
    }

    /// A large region of small discs: the random packing's grid used to be sized by the
    /// region alone (here 2.5e17 cells: the process aborted), the lattice's room overflowed.
    #[test]
    fn large_regions_of_small_discs_neither_abort_nor_overflow() {
        let tiny = RadiusDist::Fixed(1e-6);
        let d = random(50, &tiny, [0.0, 0.0], [1e3, 1e3], 1).unwrap();
        assert_eq!(d.len(), 50);
        assert!(no_overlap(&d));
        // Wider cells make the same decisions: 10 discs (a grid of 1024 cells of 6.25)
        // are the first 10 of 2000 (67 x 67 cells of 3, a diameter).
        let radii = RadiusDist::Uniform { mean: 1.0, width: 0.5 };
        let a = random(2000, &radii, [0.0, 0.0], [200.0, 200.0], 9).unwrap();
        let b = random(10, &radii, [0.0, 0.0], [200.0, 200.0], 9).unwrap();
        assert_eq!(&a[..10], &b[..], "the grid's cell size changes no placement");
        let d = lattice(3, &RadiusDist::Fixed(1e-12), [0.0, 0.0], [1e6, 1e6], 1).unwrap();
        assert_eq!(d.len(), 3);
        let e = lattice(usize::MAX / 64, &RadiusDist::Fixed(1e-3), [0.0, 0.0], [1.0, 1.0], 1).unwrap_err();
        assert!(e.to_string().contains("do not fit"), "{e}");
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
