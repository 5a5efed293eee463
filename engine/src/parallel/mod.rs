//! The phases of a step on the worker pool, and the force-summation strategies.
//!
//! Work is split without locks on the hot data: the particle arrays are cut into one
//! contiguous share per thread (static split, for the even per-particle passes; the Verlet
//! passes cut each share into blocks that an idle thread steals from its end, see
//! `work_split::Stealing`), the contact table into many small chunks claimed from an
//! atomic counter (dynamic split: a polygon pair costs ten times a disc pair). Each chunk's
//! mutable slices sit behind a `parking_lot::Mutex` that exactly one thread locks, once per
//! phase: the borrow checker sees disjoint data, and an uncontended lock costs two atomic
//! operations per chunk.
//!
//! Summing the pair forces into the particles is where threads meet. Three strategies:
//! - `deterministic` (default): the chunk of slots holding a particle's first slot folds
//!   its forces straight into the loads; later chunks defer theirs to a short fix-up pass
//!   that continues the fold in slot order (`owner_sum`). The loads are bitwise those of
//!   the serial run for any thread count (the force of a slot never depends on the thread
//!   that computed it, and each particle's additions happen in slot order).
//! - `per-thread`: each thread adds into its own force arrays, which a second pass sums
//!   (Chen & Matuttis 2013, Fig. 7); the order of additions depends on the thread count.
//!   Each thread marks the blocks of particles it wrote, and the sum reads only those: a
//!   thread's contiguous share of the table touches its own region and a rim, so the sum
//!   reads about one array's worth whatever the thread count, not one per thread.
//! - `mutex`: one lock per particle, held for the addition (Schinner 1999, Fig. 12); the
//!   order depends on the timing.
//!
//! The wall forces follow in the same phase as the fix-up or the reduction: each
//! particle's are added by the thread that completed its pair sum, after it, as the serial
//! step adds them.

mod neighbor;
pub(crate) use neighbor::Tier;
mod pair_forces;
pub(crate) use pair_forces::PairWork;
mod particle_passes;

use std::ops::Range;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use crate::contact_log::{ContactLog, LogRun, WallForce};
use crate::contacts::ContactTable;
#[cfg(not(feature = "dim3"))]
use crate::contacts::FREE;
use crate::error::Result;
#[cfg(not(feature = "dim3"))]
use crate::forces::disc_disc::{disc_slots, DiscView as RoundView};
#[cfg(not(feature = "dim3"))]
use crate::forces::pair_with_shapes::pair_with_shapes;
#[cfg(feature = "dim3")]
use crate::forces::sphere_sphere::{sphere_slots, SphereView as RoundView};
use crate::forces::walls::WallWork;
use crate::forces::{load_i, load_j, ForceSink, Load, LoadSink, Logged, OneMaterial, SlotRecord, WallSink, WithExtras};
#[cfg(not(feature = "dim3"))]
use crate::forces::{NarrowStats, NarrowWork, Rejection, SlotState};
use crate::owner_sum::{fix_up, OwnerPlan, OwnerSink, SharedLoads, SharedLoadsSink};
use crate::pool::{Phase, Pool};
#[cfg(not(feature = "dim3"))]
use crate::shapes::Shapes;
use crate::store::ParticleStore;
use crate::store::LOADS;
use crate::walls::WallContacts;
#[cfg(not(feature = "dim3"))]
use crate::work_split::cuts_by_work;
use crate::work_split::{chunk, split_lengths, split_ref, Dynamic, Stealing};
#[cfg(not(feature = "dim3"))]
use talus_kernels::contact::polygon_polygon::{ContactFrame, FrameOut};
use talus_kernels::contact::{ContactForce, Spring};
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::overlap::OverlapScratch;
#[cfg(not(feature = "dim3"))]
use talus_kernels::geometry::polygon::to_world;
use talus_kernels::integrate::gear::{self, Derivatives};
use talus_kernels::integrate::position_check::check_positions;
use talus_kernels::integrate::verlet::{self, Check, CheckResult, Inertia, Kinematics, Loads};
use talus_kernels::math::{Aabb, Vector, ANG, DIM};

/// What the next step's kicks and drift need besides the store (see
/// `Workers::pair_forces`): the broad phase's stored boxes for the position check, the
/// time step, gravity and the domain.
pub(crate) struct NextKick<'a> {
    pub boxes: &'a [Aabb],
    pub dt: f64,
    pub g: Vector,
    pub domain_min: Vector,
    pub domain_max: Vector,
}

/// Bytes of a particle's data that the force phase and the kicks read and write: the
/// store's hot arrays (positions, velocities, forces; spins, torques; in 2D the angle;
/// radius, inverse mass and inertia) and the stored box (`f32`): 112 in 2D, 168 in 3D.
const WAVE_BYTES: usize = 8 * (3 * DIM + 2 * ANG + ANGLES + 3) + 4 * 2 * DIM;
#[cfg(not(feature = "dim3"))]
const ANGLES: usize = 1;
#[cfg(feature = "dim3")]
const ANGLES: usize = 0;

/// Whether the force phase of `n` particles on `threads` threads runs in waves where the
/// contact table is sorted (see [`waves`]; `per_thread`: a set wave size, which always
/// does). By its own rule on one thread only: each wave's phases end at the pool's
/// barriers, and on 2 threads waves of 4096 particles a thread made 10^5 and 10^6 discs
/// 30-35 % slower (BENCHMARKS.md, issue 18), where one thread's gained 3 % (the median
/// of 9 rounds at 10^5 and at 10^6; -3 to +7 % a round).
pub(crate) fn waves_pay(n: usize, threads: usize, per_thread: Option<usize>) -> bool {
    match per_thread {
        Some(k) => k < n,
        None => threads == 1 && crate::cache_size::waves_pay(n, WAVE_BYTES),
    }
}

/// The waves of the force phase: slot bounds and particle bounds, each `0` first and the
/// count last. Where the contact table is sorted by first particle and the particles'
/// data exceed the level-2 caches (`waves_pay`), the particles are cut into
/// runs of `threads` times [`cache_size::wave_particles`], and wave w is the slots whose
/// first particle lies in run w: once its pairs are summed (and its fix-up done), the
/// loads of run w's particles are complete (their slots are theirs, or lie in earlier
/// waves: a slot's second particle is above its first), and the next step's kicks and
/// drift of them find their data still in cache. Else one wave of everything.
/// (Measured on 2D beds, BENCHMARKS.md, issue 18: the separate pass over every particle
/// was 15 % of the step at 10^5 discs and 23 % at 10^6.)
///
/// Slots appended after the sorted ones since the table's last sort (in 3D, the pairs
/// that came to touch: `sim::near_pairs`, up to 1/256 of the table) do not stop the
/// waves: the slot bounds then end where the sorted slots do, and the appended ones are
/// the tail (`OwnerPlan::prepare`), summed before the waves into slot records and added
/// last, in each particle's wave.
fn waves(ct: &ContactTable, n: usize, threads: usize, per_thread: Option<usize>) -> (Vec<usize>, Vec<usize>) {
    let slots = ct.i.len();
    let per = per_thread
        .unwrap_or_else(|| crate::cache_size::wave_particles(WAVE_BYTES))
        .saturating_mul(threads);
    if !ct.appended_only() || !waves_pay(n, threads, per_thread) || per >= n {
        return (vec![0, slots], vec![0, n]);
    }
    let sorted = &ct.i[..ct.sorted];
    let (mut sw, mut pw) = (vec![0], vec![0]);
    for a in (per..n).step_by(per) {
        pw.push(a);
        sw.push(sorted.partition_point(|&i| (i as usize) < a));
    }
    pw.push(n);
    sw.push(sorted.len());
    (sw, pw)
}

/// How the pair forces are summed into the particles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord, Hash)]
pub enum ForceStrategy {
    /// Per-slot forces summed per particle in slot order: bitwise the serial result.
    #[default]
    Deterministic,
    /// Per-thread force arrays, summed afterwards.
    PerThread,
    /// One lock per particle.
    Mutex,
}

impl ForceStrategy {
    /// Every strategy.
    pub const ALL: [ForceStrategy; 3] = [
        ForceStrategy::Deterministic,
        ForceStrategy::PerThread,
        ForceStrategy::Mutex,
    ];
}

impl std::fmt::Display for ForceStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForceStrategy::Deterministic => "deterministic",
            ForceStrategy::PerThread => "per-thread",
            ForceStrategy::Mutex => "mutex",
        })
    }
}

impl FromStr for ForceStrategy {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "deterministic" => Ok(ForceStrategy::Deterministic),
            "per-thread" | "per_thread" => Ok(ForceStrategy::PerThread),
            "mutex" => Ok(ForceStrategy::Mutex),
            _ => Err(format!(
                "unknown force strategy {s:?} (expected deterministic, per-thread or mutex)"
            )),
        }
    }
}

/// What each thread keeps between phases.
pub(crate) struct ThreadState {
    #[cfg(not(feature = "dim3"))]
    scratch: Box<OverlapScratch>,
    #[cfg(not(feature = "dim3"))]
    pub stats: NarrowStats,
    pub touching: u64,
    /// Per-thread force arrays (fx, fy, torque) of the per-thread strategy.
    acc: [Vec<f64>; LOADS],
    /// Per-thread strategy: which blocks of [`pair_forces::TOUCH_BLOCK`] particles this
    /// thread's arrays hold forces for (outside them the arrays are zero).
    touched: Vec<bool>,
    /// 3D: the indices of the apart pairs of this thread's share found touching, and those
    /// found within the near tier's gap (`Workers::touching_pairs`). Kept between steps:
    /// made anew, the near tier's grew to a megabyte at every full test of 583,200 spheres.
    apart_found: Vec<u32>,
    apart_near: Vec<u32>,
}

/// The pool and the buffers of the parallel phases.
pub struct Workers {
    pub(crate) pool: Pool,
    /// How the pair forces are summed into the particles.
    pub strategy: ForceStrategy,
    pub(crate) threads: Vec<Mutex<ThreadState>>,
    /// Deterministic: the force of each deferred slot (fx, fy, torque on i, torque on j).
    slot_force: Vec<SlotRecord>,
    /// Deterministic: which contributions are deferred.
    owners: OwnerPlan,
    /// Mutex strategy: the accumulators.
    locks: Vec<Mutex<Load>>,
    /// The hot arrays were reallocated by thread 0 (reorder, removal, growth): first
    /// touch them again before the next step.
    pub(crate) needs_first_touch: bool,
    /// Force phases in waves that had a tail of appended slots (see `waves`).
    pub(crate) tails: u64,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workers({} threads, {})", self.threads.len(), self.strategy)
    }
}

impl Workers {
    /// A pool of `pins.len()` threads (pinned as [`Pool::new`] says) summing pair forces by `strategy`.
    pub fn new(pins: &[Option<usize>], strategy: ForceStrategy) -> Result<Workers> {
        let mut pool = Pool::new(pins)?;
        // A simulation's pool: its phases count from the first step on (`Simulation::run`).
        pool.profile.setting_up = true;
        let threads = (0..pins.len())
            .map(|_| {
                Mutex::new(ThreadState {
                    #[cfg(not(feature = "dim3"))]
                    scratch: Box::default(),
                    #[cfg(not(feature = "dim3"))]
                    stats: NarrowStats::default(),
                    touching: 0,
                    acc: Default::default(),
                    touched: Vec::new(),
                    apart_found: Vec::new(),
                    apart_near: Vec::new(),
                })
            })
            .collect();
        Ok(Workers {
            pool,
            strategy,
            threads,
            slot_force: Vec::new(),
            owners: OwnerPlan::default(),
            locks: Vec::new(),
            needs_first_touch: true,
            tails: 0,
        })
    }

    /// Number of threads, the caller (thread 0) included.
    pub fn threads(&self) -> usize {
        self.threads.len()
    }

    /// Whether the pair loop adds straight into the loads (which the predict phase then
    /// zeroes): the deterministic sum, and the per-thread sum on one thread, whose one
    /// array would be a copy of the loads (the copy was 9 % of the step of 10^6 discs,
    /// BENCHMARKS.md, the 16-core machine). Both fold each load in slot order from zero,
    /// then add the walls: bitwise the per-thread array's sum and copy.
    pub(crate) fn in_place(&self) -> bool {
        match self.strategy {
            ForceStrategy::Deterministic => true,
            ForceStrategy::PerThread => self.threads() == 1,
            ForceStrategy::Mutex => false,
        }
    }

    /// NUMA first touch: Linux places a page on the node of the thread that first writes
    /// it, so the hot particle arrays are copied into fresh zeroed allocations (calloc'd:
    /// their pages are not yet mapped) by the threads whose static chunk they hold in the
    /// per-particle phases (Predict, Correct, Reduce use the same `ranges`). A no-op for
    /// placement on a one-node machine, apart from the copy.
    pub(crate) fn first_touch(&mut self, ps: &mut ParticleStore) -> Result<()> {
        if self.threads() == 1 {
            // The one thread is the one that wrote them.
            self.needs_first_touch = false;
            return Ok(());
        }
        let n = ps.len();
        let ranges = self.ranges(n);
        let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let mut all = ps.f64_fields_mut();
        let fields = &mut all[..crate::store::HOT_F64];
        let mut fresh: Vec<Vec<f64>> = (0..fields.len()).map(|_| vec![0.0; n]).collect();
        {
            // pieces[t][f]: thread t's chunk of field f.
            let mut pieces: Vec<Vec<&mut [f64]>> = (0..self.threads()).map(|_| Vec::new()).collect();
            for f in fresh.iter_mut() {
                for (t, piece) in split_lengths(f, lens.iter().copied()).into_iter().enumerate() {
                    pieces[t].push(piece);
                }
            }
            let pieces: Vec<Mutex<Vec<&mut [f64]>>> = pieces.into_iter().map(Mutex::new).collect();
            let src: Vec<&[f64]> = fields.iter().map(|f| &f[..n]).collect();
            self.pool.run(Phase::FirstTouch, &|t| {
                let mut dst = pieces[t].lock();
                for (d, s) in dst.iter_mut().zip(&src) {
                    d.copy_from_slice(&s[ranges[t].clone()]);
                }
            })?;
        }
        for (f, new) in fields.iter_mut().zip(fresh) {
            **f = new;
        }
        self.needs_first_touch = false;
        Ok(())
    }

    fn ranges(&self, n: usize) -> Vec<Range<usize>> {
        (0..self.threads()).map(|t| chunk(n, t, self.threads())).collect()
    }

    /// The static shares of `n` particles cut into blocks for [`Stealing`]: the block
    /// lengths in block order (thread 0's blocks first), and the claims.
    fn blocks(&self, n: usize) -> (Vec<usize>, Stealing) {
        let threads = self.threads();
        // Blocks of at least MIN_BLOCK particles, at most MAX_BLOCKS per thread: enough to
        // even out a late or slow thread, few enough that claiming costs nothing.
        const MIN_BLOCK: usize = 4096;
        const MAX_BLOCKS: usize = 32;
        let per = (n / threads / MIN_BLOCK).clamp(1, MAX_BLOCKS);
        let lens = self
            .ranges(n)
            .iter()
            .flat_map(|r| (0..per).map(move |k| chunk(r.len(), k, per).len()))
            .collect();
        (lens, Stealing::new(threads, per))
    }
}

/// A slice cut into per-thread pieces, or empty pieces for an empty slice (the polygon
/// state of a disc-only contact table).
fn split_or_empty<'a, T>(s: &'a mut [T], lengths: &[usize]) -> Vec<&'a mut [T]> {
    if s.is_empty() {
        (0..lengths.len()).map(|_| Default::default()).collect()
    } else {
        split_lengths(s, lengths.iter().copied())
    }
}

/// N arrays cut into per-thread chunks of `lens`.
fn split_arrays<'a, const N: usize>(arrays: [&'a mut [f64]; N], lens: &[usize]) -> Vec<[&'a mut [f64]; N]> {
    let mut parts = arrays.map(|s| split_lengths(s, lens.iter().copied()).into_iter());
    (0..lens.len())
        .map(|_| parts.each_mut().map(|p| p.next().expect("one chunk per length")))
        .collect()
}
