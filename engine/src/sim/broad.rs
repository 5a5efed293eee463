//! The neighbour-search methods the simulation can use: one registry line each (its enum
//! variant, its name in scenarios and on the command line, its type, how it is made), from
//! which the public [`NeighborMethod`], the names, and the simulation's dispatch over the
//! methods (`Broad`, `with_broad!`) are all generated. A new method is its file in
//! `kernels/src/neighbor/` (implementing `NeighborSearch`) plus one line here; the scenario
//! parser and the `talus` program take the list from here.
use talus_kernels::math::Aabb;
use talus_kernels::neighbor::near_pairs::{split_pairs, Balls};
#[cfg(not(feature = "dim3"))]
use talus_kernels::neighbor::{BoundingVolumes, Dess, SpatialHash, StripedSort};
use talus_kernels::neighbor::{BoxSource, BruteForce, LinkedCells, Quadtree, SweepAndPrune, VerletLists};
use talus_kernels::neighbor::{NeighborSearch, PeriodicImages};

use super::periodic::apply_imaged_changes;
use super::Config;
use crate::contacts::ContactTable;
use crate::error::Result;
use crate::parallel::Workers;
use crate::pool::Phase;

/// Entries a quadtree (octree) leaf of the simulation holds before it splits (Watanabe et al.
/// split at the second; see `talus neighbors --leaf-capacity`).
pub const QUADTREE_LEAF: u32 = 4;

/// A borrowed list of pairs (i < j).
pub(super) type PairList<'a> = &'a [(u32, u32)];

/// The tree's root is the domain: particles cannot leave it. Leaves of up to
/// QUADTREE_LEAF entries: measured faster than the paper's one in 2D (BENCHMARKS.md, issue
/// 5; the octree has not been measured apart).
fn quadtree(config: &Config) -> Box<Quadtree> {
    let domain = std::array::from_fn(|k| {
        if k % 2 == 0 {
            config.domain_min[k / 2]
        } else {
            config.domain_max[k / 2]
        }
    });
    Box::new(Quadtree::with_capacity(Some(domain), QUADTREE_LEAF))
}

macro_rules! neighbor_methods {
    ($($(#[doc = $doc:expr])* $(#[cfg($cfg:meta)])? $variant:ident, $name:literal, $ty:ty, $make:expr;)+) => {
        /// Broad-phase method (all behind `talus_kernels::neighbor::NeighborSearch`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum NeighborMethod {
            $($(#[doc = $doc])* $(#[cfg($cfg)])? $variant,)+
        }

        impl NeighborMethod {
            /// Every method, in registry order.
            pub const ALL: &'static [NeighborMethod] = &[$($(#[cfg($cfg)])? NeighborMethod::$variant,)+];

            /// Its name in scenarios and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? NeighborMethod::$variant => $name,)+
                }
            }
        }

        /// The simulation's instance of its method.
        #[derive(Debug, Clone)]
        pub(super) enum Broad {
            $($(#[cfg($cfg)])? $variant(Box<$ty>),)+
        }

        impl Broad {
            pub(super) fn new(method: NeighborMethod, config: &Config) -> Broad {
                match method {
                    $($(#[cfg($cfg)])? NeighborMethod::$variant => Broad::$variant(($make)(config)),)+
                }
            }
        }

        /// `$e` with `$m` bound to the method, whichever it is (static dispatch: the
        /// trait's methods are generic over the box source).
        macro_rules! with_broad {
            ($b:expr, $m:ident => $e:expr) => {
                match $b {
                    $($(#[cfg($cfg)])? Broad::$variant($m) => $e,)+
                }
            };
        }
    };
}

// The methods written for 2D only (`#[cfg]`) are absent from the 3D build.
neighbor_methods! {
    /// Incremental sort-and-sweep.
    Sweep, "sweep", SweepAndPrune, |_| Box::default();
    /// An incrementally migrated quadtree (2D) / octree (3D) over the domain (Watanabe,
    /// Krengel & Matuttis).
    Quadtree, "quadtree", Quadtree, quadtree;
    /// Linked cells, half shell.
    Cells, "cells", LinkedCells, |_| Box::default();
    /// Verlet neighbour lists with an automatic skin.
    Verlet, "verlet", VerletLists, |_| Box::default();
    /// Spatial hashing (Perkins' Hashing2).
    #[cfg(not(feature = "dim3"))]
    Hashing, "hashing", SpatialHash, |_| Box::default();
    /// Double-Ended Spatial Sorting (Perkins).
    #[cfg(not(feature = "dim3"))]
    Dess, "dess", Dess, |_| Box::default();
    /// Sort-and-sweep in horizontal strips (Perkins' striping).
    #[cfg(not(feature = "dim3"))]
    Striped, "striped", StripedSort, |_| Box::default();
    /// Bounding-volume hierarchy rebuilt every step (reference).
    #[cfg(not(feature = "dim3"))]
    Bvh, "bvh", BoundingVolumes, |_| Box::default();
    /// O(N^2) reference, for tests and tiny systems.
    Brute, "brute", BruteForce, |_| Box::default();
}

impl std::str::FromStr for NeighborMethod {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        // In 3D the quadtree is an octree: that name is taken too.
        if cfg!(feature = "dim3") && s == "octree" {
            return Ok(NeighborMethod::Quadtree);
        }
        NeighborMethod::ALL
            .iter()
            .copied()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = NeighborMethod::ALL
                    .iter()
                    .map(|m| match m {
                        NeighborMethod::Quadtree if cfg!(feature = "dim3") => "quadtree (or octree: in 3D it is one)",
                        m => m.name(),
                    })
                    .collect();
                format!("unknown neighbour method {s:?} (expected one of: {})", names.join(", "))
            })
    }
}

/// One update of the broad phase and of the contact table from it (phases 3 and 4 of the
/// step): a full rebuild, or the method's incremental refresh with its changes applied
/// (the table's compaction follows, in `Simulation::update_neighbors`).
pub(super) struct BroadUpdate<'a> {
    pub broad: &'a mut Broad,
    pub workers: &'a mut Workers,
    pub contacts: &'a mut ContactTable,
    /// Pair-set changes of the methods other than the sweep (buffers kept between steps).
    pub adds: &'a mut Vec<(u32, u32)>,
    pub removes: &'a mut Vec<(u32, u32)>,
    pub rebuild: bool,
    /// The particles where a rebuild keeps the pairs that do not touch out of the slots
    /// (3D, not periodic: `near_pairs`).
    pub split: Option<Balls<'a>>,
}

impl BroadUpdate<'_> {
    /// Update from the boxes of `src`: the `n` particles' and, in a periodic cell, after
    /// them the boxes of `images`, whose pairs are mapped back to particles.
    pub(super) fn run<B: BoxSource + Sync>(self, src: &B, images: Option<&PeriodicImages>, n: usize) -> Result<()> {
        let pool = self.workers;
        let contacts = self.contacts;
        if self.rebuild {
            let mut pairs = Vec::new();
            pool.pool.serial(
                Phase::Neighbor,
                || with_broad!(&mut *self.broad, m => NeighborSearch::rebuild(&mut **m, src, &mut pairs)),
            );
            pool.pool.serial(Phase::Contacts, || {
                if let Some(im) = images {
                    let entries = std::mem::take(&mut pairs);
                    im.particle_pairs(n, &entries, &mut pairs);
                }
                // The old lists go first: the rebuild is the run's peak of memory.
                contacts.far.clear();
                contacts.apart.clear();
                let (mut apart, mut far) = (Vec::new(), Vec::new());
                if let Some(balls) = &self.split {
                    let boxes = with_broad!(&*self.broad, m => m.stored_boxes());
                    split_pairs(
                        &mut pairs,
                        (&boxes[..n], &balls.radius[..n]),
                        balls,
                        (&mut apart, &mut far),
                    );
                }
                contacts.reset_from_pairs(pairs, apart, far)
            });
            return Ok(());
        }
        let (mut adds, mut removes) = (std::mem::take(self.adds), std::mem::take(self.removes));
        let (adds_of, removes_of, stored): (PairList, PairList, &[Aabb]) = match &mut *self.broad {
            // The sweep keeps its changes itself, and runs one axis per thread.
            Broad::Sweep(s) => {
                pool.sweep_update(s, src)?;
                (&s.adds, &s.removes, NeighborSearch::stored_boxes(&**s))
            }
            // The quadtree (octree) shares its scan and pair search with the pool.
            Broad::Quadtree(m) => {
                pool.quadtree_refresh(m, src, &mut adds, &mut removes)?;
                (&adds, &removes, NeighborSearch::stored_boxes(&**m))
            }
            // The classical methods, the reference to compare with, on thread 0.
            other => {
                pool.pool.serial(
                    Phase::Neighbor,
                    || with_broad!(other, m => NeighborSearch::refresh(&mut **m, src, &mut adds, &mut removes)),
                );
                (&adds, &removes, with_broad!(&*other, m => m.stored_boxes()))
            }
        };
        match images {
            None => pool.pool.serial(Phase::Contacts, || {
                // Additions first: see the module notes of the sweep.
                for &(i, j) in adds_of {
                    contacts.add(i, j);
                }
                for &(i, j) in removes_of {
                    contacts.remove(i, j);
                }
            }),
            // Each change of a pair of entries settles its pair of particles from the stored
            // boxes (a pair named twice is settled twice, the second time a no-op).
            Some(im) => pool.pool.serial(Phase::Contacts, || {
                apply_imaged_changes(contacts, im, stored, n, adds_of.iter().chain(removes_of));
            }),
        }
        *self.adds = adds;
        *self.removes = removes;
        Ok(())
    }
}
