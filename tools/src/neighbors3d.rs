//! `talus neighbors --experiments muth3d`: Muth et al.'s polydisperse series in 3D, the
//! neighbour searches of the 3D build (sort-and-sweep on three axes, the octree, linked
//! cells, Verlet lists, brute force) on spheres moving at constant velocity between
//! reflecting walls, no forces: each method's `refresh` to the new boxes, every step, no
//! skin, on identical motion for every method (as the 2D kinematic experiments).
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus_engine3d::sim::{morton_key, MORTON_CELLS};
use talus_kernels3d::neighbor::{
    BallBoxes, BruteForce, LinkedCells, NeighborSearch, Quadtree, SweepAndPrune, VerletLists,
};

/// Spheres in the cube [0, side]^3.
#[derive(Clone)]
pub struct Spheres {
    pos: [Vec<f64>; 3],
    vel: [Vec<f64>; 3],
    r: Vec<f64>,
    side: f64,
}

impl Spheres {
    /// `n` spheres at random positions at volume fraction `fill`, radii uniform in
    /// [0.5, 1.5], random velocities up to 2 % of the smallest radius per step,
    /// renumbered along a Morton curve (as the simulation keeps them).
    pub fn muth(n: usize, fill: f64, seed: u64) -> Spheres {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let r: Vec<f64> = (0..n).map(|_| rng.random_range(0.5..1.5)).collect();
        let volume: f64 = r.iter().map(|r| 4.0 / 3.0 * std::f64::consts::PI * r * r * r).sum();
        let side = (volume / fill).cbrt();
        let v = 0.02 * 0.5;
        let pos = [0; 3].map(|_| Vec::with_capacity(n));
        let vel = pos.clone();
        let mut s = Spheres { pos, vel, r, side };
        for _ in 0..n {
            for a in 0..3 {
                s.pos[a].push(rng.random_range(0.0..side));
                s.vel[a].push(rng.random_range(-v..v));
            }
        }
        // The engine's Morton order: random indices would measure cache misses.
        let scale = MORTON_CELLS as f64 / side;
        let mut order: Vec<(u64, usize)> = (0..n)
            .map(|p| (morton_key(std::array::from_fn(|a| (s.pos[a][p] * scale) as u32)), p))
            .collect();
        order.sort_unstable();
        let pick = |v: &Vec<f64>| order.iter().map(|&(_, p)| v[p]).collect::<Vec<f64>>();
        s.pos = s.pos.each_ref().map(pick);
        s.vel = s.vel.each_ref().map(pick);
        s.r = pick(&s.r);
        s
    }

    fn step(&mut self) {
        let side = self.side;
        for a in 0..3 {
            for (x, v) in self.pos[a].iter_mut().zip(&mut self.vel[a]) {
                *x += *v;
                if *x < 0.0 || *x > side {
                    *v = -*v;
                    *x = x.clamp(0.0, side);
                }
            }
        }
    }

    fn boxes(&self) -> BallBoxes<'_> {
        BallBoxes {
            pos: [&self.pos[0], &self.pos[1], &self.pos[2]],
            radius: &self.r,
            margin: 0.0,
        }
    }

    fn domain(&self) -> [f64; 6] {
        let pad = self.r.iter().copied().fold(0.0, f64::max);
        let (lo, hi) = (-pad, self.side + pad);
        [lo, hi, lo, hi, lo, hi]
    }

    pub fn len(&self) -> usize {
        self.r.len()
    }
}

// The same source for the other dimension (see refresh_timing.rs).
#[allow(clippy::duplicate_mod)]
#[path = "refresh_timing.rs"]
mod refresh_timing;
use refresh_timing::{time_refresh, Moving};

impl Moving for Spheres {
    fn advance(&mut self) {
        self.step();
    }
    fn ball_boxes(&self) -> BallBoxes<'_> {
        self.boxes()
    }
    fn balls(&self) -> usize {
        self.len()
    }
}

/// Seconds per step and pairs per particle of the 3D method named `method` (None: the 3D
/// build has no such method).
pub fn time_method(method: &str, sys: &Spheres, steps: usize, repeats: usize, leaf: u32) -> Option<(f64, f64)> {
    let mut s = sys.clone();
    Some(match method {
        "sweep" => time_refresh(SweepAndPrune::new(), &mut s, steps, repeats),
        "quadtree" => time_refresh(
            Quadtree::with_capacity(Some(sys.domain()), leaf),
            &mut s,
            steps,
            repeats,
        ),
        "cells" => time_refresh(LinkedCells::new(), &mut s, steps, repeats),
        "verlet" => time_refresh(VerletLists::new(), &mut s, steps, repeats),
        "brute" => time_refresh(BruteForce::new(), &mut s, steps, repeats),
        _ => return None,
    })
}
