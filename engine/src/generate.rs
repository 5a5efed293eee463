//! Particle generators: radius distributions and packings (a close-packed lattice, random
//! non-overlapping), driven by a seeded RNG so that a scenario always makes the same bed.
//! The packings place balls (discs in 2D, spheres in 3D); polygon shapes are 2D only
//! (`generate/shapes.rs`).
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus_kernels::math::{Vector, DIM};

use crate::error::{EngineError, Result};

#[cfg(not(feature = "dim3"))]
mod shapes;
#[cfg(not(feature = "dim3"))]
pub use shapes::{drum_ring, polygon_vertices, ShapeSpec};

/// What the packings place, in messages.
const BALLS: &str = if DIM == 2 { "discs" } else { "spheres" };

/// How radii are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum RadiusDist {
    /// Every radius the same (m).
    Fixed(f64),
    /// Uniform in [mean (1 - width), mean (1 + width)].
    Uniform {
        /// Mean radius (m).
        mean: f64,
        /// Half-width relative to the mean.
        width: f64,
    },
    /// Cycled through in order.
    List(Vec<f64>),
}

impl RadiusDist {
    /// Largest radius the distribution gives (m).
    pub fn max(&self) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, width } => mean * (1.0 + width),
            RadiusDist::List(v) => v.iter().copied().fold(0.0, f64::max),
        }
    }

    /// Smallest radius the distribution gives (m).
    pub fn min(&self) -> f64 {
        match self {
            RadiusDist::Fixed(r) => *r,
            RadiusDist::Uniform { mean, width } => mean * (1.0 - width),
            RadiusDist::List(v) => v.iter().copied().fold(f64::INFINITY, f64::min),
        }
    }

    /// Mean radius (m): a list's mean over its entries.
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

/// A generated ball (a disc in 2D, a sphere in 3D): centre and radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ball {
    /// Centre (m).
    pub centre: Vector,
    /// Radius (m).
    pub r: f64,
}

/// The generators' random number generator, seeded by `seed`.
pub fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// Room for `count` generated balls, or an error (the count comes from the input).
fn balls_vec(count: usize) -> Result<Vec<Ball>> {
    let mut v = Vec::new();
    v.try_reserve_exact(count).map_err(|e| {
        EngineError::Setup(format!(
            "cannot allocate {count} {BALLS} ({} bytes each): {e}",
            std::mem::size_of::<Ball>()
        ))
    })?;
    Ok(v)
}

/// `count` balls on a close-packed lattice filling the region from its low corner: rows
/// along x, hexagonal layers in x-y filled row by row, and in 3D the layers stacked along z
/// (each over the hollows of the one below: ABAB, hexagonal close packing). Spacing =
/// largest diameter x 1.01, so no two balls overlap.
pub fn lattice(count: usize, radii: &RadiusDist, min: Vector, max: Vector, seed: u64) -> Result<Vec<Ball>> {
    let mut rng = rng(seed);
    let rmax = radii.max();
    let a = 2.0 * rmax * 1.01;
    let dy = a * 3f64.sqrt() / 2.0;
    let dz = a * (2.0f64 / 3.0).sqrt();
    let spacing = [a, dy, dz];
    // How far odd rows (along x) and, in 3D, odd layers (along y) are shifted.
    let shift = [0.5 * a, if DIM == 3 { dy / 3.0 } else { 0.0 }, 0.0];
    // Saturating: a region of 10^12 lattice sites must not overflow the product.
    let fit: [i64; DIM] = std::array::from_fn(|k| {
        let w = max[k] - min[k] - 2.0 * rmax - shift[k];
        (((w / spacing[k]).floor() as i64).saturating_add(1)).max(0)
    });
    let room = fit.iter().fold(1i64, |r, &f| r.saturating_mul(f));
    if fit[0] < 1 || room < count as i64 {
        return Err(EngineError::Setup(format!(
            "{count} {BALLS} of radius up to {rmax} do not fit on a lattice in {min:?}..{max:?} \
             (room for {room})"
        )));
    }
    let mut out = balls_vec(count)?;
    let per_row = fit[0] as usize;
    // In 2D one layer holds every row.
    let rows = if DIM == 3 { fit[1] as usize } else { usize::MAX };
    for k in 0..count {
        let (row, col) = ((k / per_row) % rows, k % per_row);
        let layer = k / per_row / rows;
        let index = [col, row, layer];
        let odd = [(row + layer) % 2, layer % 2, 0];
        out.push(Ball {
            centre: std::array::from_fn(|d| {
                let s = if odd[d] == 1 { shift[d] } else { 0.0 };
                min[d] + rmax + s + index[d] as f64 * spacing[d]
            }),
            r: radii.draw(k, &mut rng),
        });
    }
    Ok(out)
}

/// `count` balls placed at random without overlap (random sequential addition with a
/// cell grid for the overlap test). Fails with a clear error if the region is too full.
pub fn random(count: usize, radii: &RadiusDist, min: Vector, max: Vector, seed: u64) -> Result<Vec<Ball>> {
    let mut rng = rng(seed);
    let rmax = radii.max();
    // Cells at least a diameter wide (the test below looks at the 3^DIM cells around a
    // candidate), and no more cells than a few per ball: a large region of small balls
    // would otherwise ask for a grid of terabytes. Wider cells change no decision.
    let w: Vector = std::array::from_fn(|k| max[k] - min[k]);
    let most_cells = (4 * count).max(1024) as f64;
    let per_cell = w.iter().fold(1.0, |v, &x| v * x) / most_cells;
    let cell = (2.0 * rmax).max(if DIM == 2 { per_cell.sqrt() } else { per_cell.cbrt() });
    let n: [usize; DIM] = std::array::from_fn(|k| ((w[k] / cell).ceil() as usize).max(1));
    let cells = n.iter().fold(1usize, |c, &k| c.saturating_mul(k));
    let mut grid: Vec<Vec<u32>> = Vec::new();
    grid.try_reserve_exact(cells)
        .map_err(|e| EngineError::Setup(format!("random packing: cannot allocate a grid of {n:?} cells: {e}")))?;
    grid.resize(cells, Vec::new());
    let stride: [usize; DIM] = std::array::from_fn(|k| n[..k].iter().product());
    let mut out = balls_vec(count)?;
    let attempts_per = 2000;
    for k in 0..count {
        let r = radii.draw(k, &mut rng);
        let mut placed = false;
        for _ in 0..attempts_per {
            if (0..DIM).any(|d| max[d] - min[d] <= 2.0 * r) {
                break;
            }
            let x: Vector = std::array::from_fn(|d| rng.random_range(min[d] + r..max[d] - r));
            let c: [usize; DIM] = std::array::from_fn(|d| (((x[d] - min[d]) / cell) as usize).min(n[d] - 1));
            // The 3^DIM cells around c, those inside the grid.
            let free = (0..3usize.pow(DIM as u32)).all(|m| {
                let mut flat = 0;
                for d in 0..DIM {
                    let g = c[d] + (m / 3usize.pow(d as u32)) % 3;
                    if g == 0 || g > n[d] {
                        return true;
                    }
                    flat += (g - 1) * stride[d];
                }
                grid[flat].iter().all(|&q| {
                    let b = &out[q as usize];
                    let s = (1..DIM).fold((b.centre[0] - x[0]).powi(2), |s, d| s + (b.centre[d] - x[d]).powi(2));
                    s >= (b.r + r).powi(2)
                })
            });
            if free {
                let flat: usize = (0..DIM).map(|d| c[d] * stride[d]).sum();
                grid[flat].push(out.len() as u32);
                out.push(Ball { centre: x, r });
                placed = true;
                break;
            }
        }
        if !placed {
            return Err(EngineError::Setup(format!(
                "random packing: placed only {k} of {count} {BALLS} in {min:?}..{max:?}; \
                 enlarge the region or use packing = \"lattice\""
            )));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_overlap(b: &[Ball]) -> bool {
        (0..b.len()).all(|i| {
            (i + 1..b.len()).all(|j| {
                let d2: f64 = (0..DIM).map(|k| (b[i].centre[k] - b[j].centre[k]).powi(2)).sum();
                d2.sqrt() >= b[i].r + b[j].r
            })
        })
    }

    fn inside(b: &[Ball], min: Vector, max: Vector) -> bool {
        b.iter()
            .all(|c| (0..DIM).all(|k| c.centre[k] - c.r >= min[k] && c.centre[k] + c.r <= max[k]))
    }

    #[test]
    fn lattice_and_random_do_not_overlap_and_stay_inside() {
        let radii = RadiusDist::Uniform { mean: 1.0, width: 0.5 };
        let min = [0.0; DIM];
        let max: Vector = std::array::from_fn(|k| if k == 1 { 100.0 } else { 60.0 });
        for (b, n) in [
            (lattice(500, &radii, min, max, 3).unwrap(), 500),
            (random(300, &radii, min, max, 3).unwrap(), 300),
        ] {
            assert_eq!(b.len(), n);
            assert!(no_overlap(&b));
            assert!(inside(&b, min, max));
            assert!(b.iter().all(|c| (0.5..=1.5).contains(&c.r)));
        }
        assert!(lattice(5000, &radii, [0.0; DIM], [10.0; DIM], 1).is_err());
        assert!(random(5000, &radii, [0.0; DIM], [10.0; DIM], 1).is_err());
    }

    /// The lattice is close-packed: with equal radii every ball has neighbours at the
    /// spacing only (none closer), and a full region holds the density of a hexagonal
    /// (2D) or hexagonally close-packed (3D) lattice, up to its edges.
    #[test]
    fn the_lattice_is_close_packed() {
        let r = 0.5;
        let a = 2.0 * r * 1.01;
        let side = 12.0;
        let radii = RadiusDist::Fixed(r);
        let err = lattice(100_000, &radii, [0.0; DIM], [side; DIM], 1)
            .unwrap_err()
            .to_string();
        let room: usize = err
            .split("room for ")
            .nth(1)
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        let b = lattice(room, &radii, [0.0; DIM], [side; DIM], 1).unwrap();
        let min_gap = (0..b.len())
            .flat_map(|i| (i + 1..b.len()).map(move |j| (i, j)))
            .map(|(i, j)| {
                (0..DIM)
                    .map(|k| (b[i].centre[k] - b[j].centre[k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            (min_gap - a).abs() < 1e-12 * a,
            "nearest neighbours at the spacing: {min_gap}"
        );
        // Sites per unit of length^DIM: 2 / (sqrt(3) a^2) in 2D, sqrt(2) / a^3 in 3D.
        let density = if DIM == 2 {
            2.0 / (3f64.sqrt() * a * a)
        } else {
            2f64.sqrt() / a.powi(3)
        };
        let inner = side - 2.0 * r;
        let expected = density * inner.powi(DIM as i32);
        assert!(
            (room as f64) > 0.75 * expected && (room as f64) < 1.3 * expected,
            "{room} sites against {expected:.0} for the close-packed density"
        );
    }

    /// A large region of small balls: the random packing's grid used to be sized by the
    /// region alone (here 2.5e17 cells: the process aborted), the lattice's room overflowed.
    #[test]
    fn large_regions_of_small_balls_neither_abort_nor_overflow() {
        let tiny = RadiusDist::Fixed(1e-6);
        let d = random(50, &tiny, [0.0; DIM], [1e3; DIM], 1).unwrap();
        assert_eq!(d.len(), 50);
        assert!(no_overlap(&d));
        // Wider cells make the same decisions: 10 balls (a grid of 1024 cells) are the
        // first 10 of 2000 (cells of a diameter).
        let radii = RadiusDist::Uniform { mean: 1.0, width: 0.5 };
        let a = random(2000, &radii, [0.0; DIM], [200.0; DIM], 9).unwrap();
        let b = random(10, &radii, [0.0; DIM], [200.0; DIM], 9).unwrap();
        assert_eq!(&a[..10], &b[..], "the grid's cell size changes no placement");
        let d = lattice(3, &RadiusDist::Fixed(1e-12), [0.0; DIM], [1e6; DIM], 1).unwrap();
        assert_eq!(d.len(), 3);
        let e = lattice(usize::MAX / 64, &RadiusDist::Fixed(1e-3), [0.0; DIM], [1.0; DIM], 1).unwrap_err();
        assert!(e.to_string().contains("do not fit"), "{e}");
    }
}
