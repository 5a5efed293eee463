//! The phases of a step on the worker pool, and the force-summation strategies.
//!
//! Work is split without locks on the hot data: the particle arrays are cut into one
//! contiguous share per thread (static split, for the even per-particle passes; the Verlet
//! passes cut each share into blocks that an idle thread steals from its end, see
//! `pool::Stealing`), the contact table into many small chunks claimed from an atomic
//! counter (dynamic split: a polygon pair costs ten times a disc pair). Each chunk's
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
//! - `mutex`: one lock per particle, held for the addition (Schinner 1999, Fig. 12); the
//!   order depends on the timing.
//!
//! The wall forces follow in the same phase as the fix-up or the reduction: each
//! particle's are added by the thread that completed its pair sum, after it, as the serial
//! step adds them.
use std::ops::Range;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use crate::contacts::{ContactTable, FREE};
use crate::error::Result;
use crate::forces::disc_disc::{disc_slots, DiscView};
use crate::forces::pair_with_shapes::pair_with_shapes;
use crate::forces::walls::WallWork;
use crate::forces::{ForceSink, LoadSink, NarrowStats, NarrowWork, OneMaterial, Rejection, SlotState, WallSink};
use crate::owner_sum::{fix_up, OwnerPlan, OwnerSink, SharedLoad, SharedLoads, SharedLoadsSink};
use crate::pool::{chunk, Dynamic, Phase, Pool, Stealing};
use crate::shapes::Shapes;
use crate::store::ParticleStore;
use crate::walls::WallContacts;
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::geometry::overlap::OverlapScratch;
use talus_kernels::geometry::polygon::to_world;
use talus_kernels::integrate::gear::{self, Derivatives};
use talus_kernels::integrate::position_check::check_positions;
use talus_kernels::integrate::verlet::{self, Check, CheckResult, Inertia, Kinematics, Loads};

/// Contact-table slots per dynamically claimed chunk.
const SLOT_CHUNK: usize = 2048;

/// Deterministic sum, disc pairs: the smallest guided chunk. Larger chunks defer fewer
/// contributions (a chunk's rim shrinks relative to its area), smaller ones even out the
/// threads' finish; the guided split has both.
const OWNER_MIN_CHUNK: usize = 8192;

/// Deterministic sum: what a wall contact costs in fix-up entries, for balancing the phase
/// that does both, in a simulation of discs only (a disc-wall force against a few
/// additions; both read the particle's loads from memory) and in one with polygons
/// (clipped against the wall; every wall contact of such a simulation is weighed so).
const WALL_WEIGHT: [usize; 2] = [4, 24];

/// Deterministic sum: runs of particles per thread in the fix-up phase.
const FIX_RUNS: usize = 16;

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
    scratch: Box<OverlapScratch>,
    pub stats: NarrowStats,
    pub touching: u64,
    /// Per-thread force arrays (fx, fy, torque) of the per-thread strategy.
    acc: [Vec<f64>; 3],
}

/// The pool and the buffers of the parallel phases.
pub struct Workers {
    pub(crate) pool: Pool,
    pub strategy: ForceStrategy,
    pub(crate) threads: Vec<Mutex<ThreadState>>,
    /// Deterministic: the force of each deferred slot (fx, fy, torque on i, torque on j).
    slot_force: Vec<[f64; 4]>,
    /// Deterministic: which contributions are deferred.
    owners: OwnerPlan,
    /// Mutex strategy: the accumulators.
    locks: Vec<Mutex<[f64; 3]>>,
    /// The hot arrays were reallocated by thread 0 (reorder, removal, growth): first
    /// touch them again before the next step.
    pub(crate) needs_first_touch: bool,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Workers({} threads, {})", self.threads.len(), self.strategy)
    }
}

/// Cut `s` into consecutive pieces of the given lengths.
fn split_lengths<T>(mut s: &mut [T], lengths: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for len in lengths {
        let (a, b) = std::mem::take(&mut s).split_at_mut(len);
        out.push(a);
        s = b;
    }
    out
}

fn split_ref<T>(mut s: &[T], lengths: impl Iterator<Item = usize>) -> Vec<&[T]> {
    let mut out = Vec::new();
    for len in lengths {
        let (a, b) = s.split_at(len);
        out.push(a);
        s = b;
    }
    out
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

/// Mutex: each addition under the particle's lock (Schinner 1999, Fig. 12).
struct LockSink<'a> {
    locks: &'a [Mutex<[f64; 3]>],
}

impl ForceSink for LockSink<'_> {
    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, f: &ContactForce) {
        {
            let mut a = self.locks[i].lock();
            a[0] += f.fx;
            a[1] += f.fy;
            a[2] += f.ti;
        }
        let mut b = self.locks[j].lock();
        b[0] -= f.fx;
        b[1] -= f.fy;
        b[2] += f.tj;
    }
}

/// The pairs of one chunk of slots, into `sink`. Returns touching pairs. Not inlined:
/// inlined into the force-phase closure (with its six instances) the disc loop ran
/// 10-25 % slower than the same loop on the serial path.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn chunk_forces<S: ForceSink>(
    ps: &ParticleStore,
    view: &DiscView,
    shapes: Option<&Shapes>,
    one: Option<&OneMaterial>,
    params: &crate::material::PairTable,
    ci: &[u32],
    cj: &[u32],
    c: Slots,
    dt: f64,
    narrow: &mut NarrowWork,
    sink: &mut S,
) -> u64 {
    let Slots { xi, area, features } = c;
    match (shapes, one) {
        (None, Some(one)) => disc_slots(view, one, ci, cj, xi, dt, sink),
        (None, None) => disc_slots(view, params, ci, cj, xi, dt, sink),
        (Some(sh), _) => {
            let mut touching = 0;
            for o in 0..xi.len() {
                let i = ci[o];
                if i == FREE {
                    sink.none(o);
                    continue;
                }
                let (i, j) = (i as usize, cj[o] as usize);
                let slot = SlotState {
                    xi: &mut xi[o],
                    area: &mut area[o],
                    features: &mut features[o],
                };
                match pair_with_shapes(ps, sh, params, i, j, slot, dt, narrow) {
                    Some(f) => {
                        touching += 1;
                        sink.add(o, i, j, &f);
                    }
                    None => sink.none(o),
                }
            }
            touching
        }
    }
}

/// The contact state of a run of slots.
struct Slots<'a> {
    xi: &'a mut [f64],
    area: &'a mut [f64],
    features: &'a mut [u32],
}

/// What the force phase needs besides the store and the table.
struct PairWork<'a> {
    shapes: Option<&'a Shapes>,
    params: &'a crate::material::PairTable,
    dt: f64,
    rejection: Rejection,
    gap_budget: bool,
}

/// One dynamically claimed piece of the contact table.
struct SlotChunk<'a> {
    start: usize,
    xi: &'a mut [f64],
    area: &'a mut [f64],
    features: &'a mut [u32],
    out: &'a mut [[f64; 4]],
    defer: &'a [u8],
}

impl Workers {
    pub fn new(pins: &[Option<usize>], strategy: ForceStrategy) -> Result<Workers> {
        let pool = Pool::new(pins)?;
        let threads = (0..pins.len())
            .map(|_| {
                Mutex::new(ThreadState {
                    scratch: Box::default(),
                    stats: NarrowStats::default(),
                    touching: 0,
                    acc: Default::default(),
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
        })
    }

    pub fn threads(&self) -> usize {
        self.threads.len()
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

    /// Verlet kicks, drift, load reset and position check, over blocks of each thread's
    /// static share (stolen by the other threads once they run out of their own).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn kick_drift_check(
        &mut self,
        ps: &mut ParticleStore,
        boxes: &[[f32; 4]],
        dt: f64,
        g: [f64; 2],
        pending: bool,
        domain_min: [f64; 2],
        domain_max: [f64; 2],
    ) -> Result<CheckResult> {
        let n = ps.len();
        let (lens, stealing) = self.blocks(n);
        let (parts, radius) = verlet_parts(ps, &lens);
        let boxes = split_ref(&boxes[..n], lens.iter().copied());
        let (left, outside) = (AtomicBool::new(false), AtomicBool::new(false));
        let reset = self.strategy == ForceStrategy::Deterministic;
        self.pool.run(Phase::Predict, &|t| {
            while let Some(b) = stealing.claim(t) {
                let mut part = parts[b].lock();
                let (d, l, m) = &mut *part;
                let c = Check {
                    radius: radius[b],
                    boxes: boxes[b],
                    domain_min,
                    domain_max,
                };
                // Only the deterministic sum adds into the loads; the other strategies'
                // reductions assign them.
                let r = verlet::kick_drift_check(d, l, m, dt, g, pending, reset, &c);
                left.fetch_or(r.left_box, Ordering::Relaxed);
                outside.fetch_or(r.outside, Ordering::Relaxed);
            }
        })?;
        Ok(CheckResult {
            left_box: left.into_inner(),
            outside: outside.into_inner(),
        })
    }

    /// Verlet second half kick, over blocks as [`Workers::kick_drift_check`].
    pub(crate) fn kick(&mut self, ps: &mut ParticleStore, dt: f64, g: [f64; 2]) -> Result<()> {
        let (lens, stealing) = self.blocks(ps.len());
        let (parts, _) = verlet_parts(ps, &lens);
        self.pool.run(Phase::Correct, &|t| {
            while let Some(b) = stealing.claim(t) {
                let mut part = parts[b].lock();
                let (d, l, m) = &mut *part;
                verlet::kick(d, l, m, dt, g);
            }
        })
    }

    /// The check of the positions (after a Gear prediction, or before the first step), one
    /// chunk of particles per thread.
    pub(crate) fn check_positions(&mut self, ps: &ParticleStore, c: &Check) -> Result<CheckResult> {
        let ranges = self.ranges(ps.len());
        let (left, outside) = (AtomicBool::new(false), AtomicBool::new(false));
        self.pool.run(Phase::Predict, &|t| {
            let r = ranges[t].clone();
            let part = Check {
                radius: &c.radius[r.clone()],
                boxes: &c.boxes[r.clone()],
                ..*c
            };
            let res = check_positions(&ps.x[r.clone()], &ps.y[r], &part);
            left.fetch_or(res.left_box, Ordering::Relaxed);
            outside.fetch_or(res.outside, Ordering::Relaxed);
        })?;
        Ok(CheckResult {
            left_box: left.into_inner(),
            outside: outside.into_inner(),
        })
    }

    /// Gear prediction of the three degrees of freedom, and the loads zeroed, one chunk of
    /// particles per thread.
    pub(crate) fn gear_predict(&mut self, dofs: [Derivatives; 3], loads: [&mut [f64]; 3], dt: f64) -> Result<()> {
        let lens: Vec<usize> = self.ranges(loads[0].len()).iter().map(|r| r.len()).collect();
        let parts = gear_parts(dofs, &lens);
        let loads = split3(loads, &lens);
        let parts: Vec<_> = parts.into_iter().zip(loads).map(Mutex::new).collect();
        self.pool.run(Phase::Predict, &|t| {
            let mut part = parts[t].lock();
            let (dofs, loads) = &mut *part;
            for d in dofs.iter_mut() {
                gear::predict(d, dt);
            }
            for l in loads.iter_mut() {
                l.fill(0.0);
            }
        })
    }

    /// Gear correction of the three degrees of freedom by their loads (`inv`: inverse
    /// mass, mass, inertia; `bias`: gravity, none for the angle), one chunk per thread.
    pub(crate) fn gear_correct(
        &mut self,
        dofs: [Derivatives; 3],
        loads: [&[f64]; 3],
        inv: [&[f64]; 3],
        bias: [f64; 3],
        dt: f64,
    ) -> Result<()> {
        let lens: Vec<usize> = self.ranges(loads[0].len()).iter().map(|r| r.len()).collect();
        let parts: Vec<_> = gear_parts(dofs, &lens).into_iter().map(Mutex::new).collect();
        let ranges = self.ranges(loads[0].len());
        self.pool.run(Phase::Correct, &|t| {
            let r = ranges[t].clone();
            let mut dofs = parts[t].lock();
            for (k, d) in dofs.iter_mut().enumerate() {
                gear::correct(d, &loads[k][r.clone()], &inv[k][r.clone()], bias[k], dt);
            }
        })
    }

    /// World-frame vertices of the polygons, one chunk of particles per thread.
    pub(crate) fn update_world(&mut self, sh: &mut Shapes, x: &[f64], y: &[f64], angle: &[f64]) -> Result<()> {
        let ranges = self.ranges(sh.start.len() - 1);
        let lens = ranges.iter().map(|r| (sh.start[r.end] - sh.start[r.start]) as usize);
        let worlds: Vec<Mutex<&mut [[f64; 2]]>> =
            split_lengths(&mut sh.world, lens).into_iter().map(Mutex::new).collect();
        let (start, body) = (&sh.start, &sh.body);
        self.pool.run(Phase::Vertices, &|t| {
            let mut world = worlds[t].lock();
            let base = start[ranges[t].start] as usize;
            for p in ranges[t].clone() {
                let r = start[p] as usize..start[p + 1] as usize;
                if !r.is_empty() {
                    let w = r.start - base..r.end - base;
                    to_world(&body[r], [x[p], y[p]], angle[p], &mut world[w]);
                }
            }
        })
    }

    /// Pair forces over the contact table, summed into the particles' loads by the chosen
    /// strategy, then the wall forces (`wc`, `ww`) added after them, each particle's by the
    /// thread that completes its pair sum: the loads are summed in the serial step's order
    /// (pairs, then walls), and the walls are shared by the threads. Returns the touching
    /// pairs; narrow-phase counts are added to `stats`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pair_forces(
        &mut self,
        ps: &mut ParticleStore,
        ct: &mut ContactTable,
        shapes: Option<&Shapes>,
        params: &crate::material::PairTable,
        dt: f64,
        rejection: Rejection,
        gap_budget: bool,
        stats: &mut NarrowStats,
        wc: &mut WallContacts,
        ww: &WallWork,
    ) -> Result<u64> {
        let work = PairWork {
            shapes,
            params,
            dt,
            rejection,
            gap_budget,
        };
        // The phases read the store while they add into the loads.
        ps.with_loads(|ps, [a, b, c]| {
            if self.strategy == ForceStrategy::Deterministic {
                let loads = SharedLoads {
                    fx: SharedLoad::new(a),
                    fy: SharedLoad::new(b),
                    tq: SharedLoad::new(c),
                };
                self.force_phase(ps, ct, &work, Some(&loads))
                    .and_then(|()| self.fix_up_phase(ps, &loads, wc, ww))
            } else {
                self.force_phase(ps, ct, &work, None)
                    .and_then(|()| self.reduce_phase(ps, [a, b, c], wc, ww))
            }
        })?;
        let mut touching = 0;
        for t in &self.threads {
            let mut ts = t.lock();
            touching += ts.touching;
            let s = std::mem::take(&mut ts.stats);
            stats.add(&s);
        }
        Ok(touching)
    }

    /// The pairs of the contact table in dynamically claimed chunks, into each strategy's
    /// sink (`loads`: the deterministic sum's).
    fn force_phase(
        &mut self,
        ps: &ParticleStore,
        ct: &mut ContactTable,
        w: &PairWork,
        loads: Option<&SharedLoads>,
    ) -> Result<()> {
        let n = ps.len();
        let slots = ct.i.len();
        let strategy = self.strategy;
        let det = strategy == ForceStrategy::Deterministic;
        // The chunks, claimed dynamically. Deterministic: guided, one chunk on one thread
        // (nothing deferred); polygon pairs cost ten times a disc pair, so their chunks
        // go down to the finer SLOT_CHUNK. Otherwise fixed chunks of SLOT_CHUNK.
        let fixed: Vec<usize>;
        let bounds: &[usize] = if det {
            let min = if w.shapes.is_some() {
                SLOT_CHUNK
            } else {
                OWNER_MIN_CHUNK
            };
            self.owners
                .prepare(ct.generation(), &ct.i, &ct.j, n, self.threads(), min);
            if self.owners.bounds.len() > 2 && self.slot_force.len() < slots {
                // Only deferred slots are written and read: the contents do not matter.
                self.slot_force.resize(slots, [0.0; 4]);
            }
            &self.owners.bounds
        } else {
            fixed = (0..slots.div_ceil(SLOT_CHUNK))
                .map(|k| k * SLOT_CHUNK)
                .chain([slots])
                .collect();
            &fixed
        };
        if strategy == ForceStrategy::Mutex && self.locks.len() != n {
            self.locks = (0..n).map(|_| Mutex::new([0.0; 3])).collect();
        }
        let chunks = bounds.len() - 1;
        let lens: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
        let (out, defer) = if det && chunks > 1 {
            (
                split_lengths(&mut self.slot_force[..slots], lens.iter().copied()),
                split_ref(&self.owners.defer[..slots], lens.iter().copied()),
            )
        } else {
            (
                (0..chunks).map(|_| Default::default()).collect(),
                (0..chunks).map(|_| Default::default()).collect(),
            )
        };
        let (ci, cj) = (&ct.i[..], &ct.j[..]);
        let work: Vec<Mutex<SlotChunk>> = split_lengths(&mut ct.xi, lens.iter().copied())
            .into_iter()
            .zip(split_or_empty(&mut ct.area, &lens))
            .zip(split_or_empty(&mut ct.features, &lens))
            .zip(out.into_iter().zip(defer))
            .enumerate()
            .map(|(k, (((xi, area), features), (out, defer)))| {
                Mutex::new(SlotChunk {
                    start: bounds[k],
                    xi,
                    area,
                    features,
                    out,
                    defer,
                })
            })
            .collect();
        let dynamic = Dynamic::new(chunks, 1);
        let view = DiscView::of(ps);
        let one = (w.params.n == 1).then(|| OneMaterial(w.params.params[0]));
        let locks = &self.locks;
        let threads = &self.threads;
        self.pool.run(Phase::Forces, &|t| {
            let mut guard = threads[t].lock();
            let ts = &mut *guard;
            if strategy == ForceStrategy::PerThread && ts.acc[0].len() != n {
                // Zeroed here once; afterwards the reduction zeroes what it has read.
                for a in &mut ts.acc {
                    a.clear();
                    a.resize(n, 0.0);
                }
            }
            let mut touching = 0;
            let mut narrow = NarrowWork {
                stats: &mut ts.stats,
                scratch: &mut ts.scratch,
                rejection: w.rejection,
                gap_budget: w.gap_budget,
            };
            let [ax, ay, at] = &mut ts.acc;
            let mut per_thread = LoadSink { fx: ax, fy: ay, tq: at };
            while let Some(k) = dynamic.claim() {
                let mut guard = work[k].lock();
                let SlotChunk {
                    start,
                    xi,
                    area,
                    features,
                    out,
                    defer,
                } = &mut *guard;
                let r = *start..*start + xi.len();
                let (ci, cj) = (&ci[r.clone()], &cj[r]);
                let c = Slots { xi, area, features };
                // One monomorphised loop per (shape case, strategy): no per-slot branch
                // on either.
                macro_rules! pairs_into {
                    ($sink:expr) => {
                        chunk_forces(
                            ps,
                            &view,
                            w.shapes,
                            one.as_ref(),
                            w.params,
                            ci,
                            cj,
                            c,
                            w.dt,
                            &mut narrow,
                            $sink,
                        )
                    };
                }
                touching += match (strategy, loads) {
                    (ForceStrategy::Deterministic, Some(loads)) if chunks == 1 => {
                        pairs_into!(&mut SharedLoadsSink { loads })
                    }
                    (ForceStrategy::Deterministic, Some(loads)) => pairs_into!(&mut OwnerSink { defer, out, loads }),
                    (ForceStrategy::Deterministic, None) => unreachable!("the deterministic sum needs its loads"),
                    (ForceStrategy::PerThread, _) => pairs_into!(&mut per_thread),
                    (ForceStrategy::Mutex, _) => pairs_into!(&mut LockSink { locks }),
                };
            }
            ts.touching = touching;
        })
    }

    /// Deterministic: the deferred contributions, then the wall forces, of runs of
    /// particles claimed dynamically: each particle's by one thread, in the serial order.
    /// The runs are many (a deferred contribution in a region of large chunks costs more
    /// than one among the last, small chunks, so equal shares of entries are not equal
    /// shares of time).
    fn fix_up_phase(
        &mut self,
        ps: &ParticleStore,
        loads: &SharedLoads,
        wc: &mut WallContacts,
        ww: &WallWork,
    ) -> Result<()> {
        if self.owners.fix.is_empty() && wc.is_empty() {
            return Ok(());
        }
        let (n, threads) = (ps.len(), self.threads());
        let owners = &self.owners;
        let weight = WALL_WEIGHT[usize::from(ww.shapes.is_some())];
        let runs = if threads > 1 { threads * FIX_RUNS } else { 1 };
        let cuts = owners.particle_cuts(runs, n, &wc.p, weight);
        let walls = wall_pieces(wc, &cuts);
        let slot_force = &self.slot_force;
        let dynamic = Dynamic::new(runs, 1);
        self.pool.run(Phase::Reduce, &|_| {
            while let Some(k) = dynamic.claim() {
                fix_up(owners.fix_piece(cuts[k]..cuts[k + 1]), slot_force, loads);
                let mut piece = walls[k].lock();
                let WallPiece { p, w, xi, area } = &mut *piece;
                ww.contacts(ps, p, w, xi, area, &mut SharedLoadsSink { loads });
            }
        })
    }

    /// Per-thread and mutex: every particle's loads from the accumulators (the loads are
    /// not reset by the predict phase: this assigns them), then the wall forces of the same
    /// particles on the same thread.
    fn reduce_phase(
        &mut self,
        ps: &ParticleStore,
        [fx, fy, tq]: [&mut [f64]; 3],
        wc: &mut WallContacts,
        ww: &WallWork,
    ) -> Result<()> {
        let n = ps.len();
        let strategy = self.strategy;
        let ranges = self.ranges(n);
        let lens: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
        let cuts: Vec<usize> = ranges.iter().map(|r| r.start).chain([n]).collect();
        let walls = wall_pieces(wc, &cuts);
        let loads: Vec<Mutex<[&mut [f64]; 3]>> = split_lengths(fx, lens.iter().copied())
            .into_iter()
            .zip(split_lengths(fy, lens.iter().copied()))
            .zip(split_lengths(tq, lens.iter().copied()))
            .map(|((a, b), c)| Mutex::new([a, b, c]))
            .collect();
        let locks = &self.locks;
        let mut guards: Vec<_> = if strategy == ForceStrategy::PerThread {
            self.threads.iter().map(|t| t.lock()).collect()
        } else {
            Vec::new()
        };
        // Per-thread: thread t reads (and zeroes for the next step) every thread's
        // arrays over its own particle range: pieces[t][k] = thread k's arrays there.
        let mut pieces: Vec<Vec<[&mut [f64]; 3]>> = (0..self.threads.len()).map(|_| Vec::new()).collect();
        for g in guards.iter_mut() {
            let [a, b, c] = &mut g.acc;
            let parts = split_lengths(&mut a[..n], lens.iter().copied())
                .into_iter()
                .zip(split_lengths(&mut b[..n], lens.iter().copied()))
                .zip(split_lengths(&mut c[..n], lens.iter().copied()));
            for (t, ((a, b), c)) in parts.enumerate() {
                pieces[t].push([a, b, c]);
            }
        }
        let pieces: Vec<Mutex<Vec<[&mut [f64]; 3]>>> = pieces.into_iter().map(Mutex::new).collect();
        self.pool.run(Phase::Reduce, &|t| {
            let mut l = loads[t].lock();
            let [fx, fy, tq] = &mut *l;
            let base = ranges[t].start;
            match strategy {
                ForceStrategy::Deterministic => unreachable!("the deterministic sum has no reduction"),
                ForceStrategy::PerThread => {
                    let mut mine = pieces[t].lock();
                    for o in 0..ranges[t].len() {
                        let (mut x, mut y, mut q) = (0.0, 0.0, 0.0);
                        for [a, b, c] in mine.iter_mut() {
                            x += std::mem::take(&mut a[o]);
                            y += std::mem::take(&mut b[o]);
                            q += std::mem::take(&mut c[o]);
                        }
                        fx[o] = x;
                        fy[o] = y;
                        tq[o] = q;
                    }
                }
                ForceStrategy::Mutex => {
                    for p in ranges[t].clone() {
                        let a = std::mem::take(&mut *locks[p].lock());
                        fx[p - base] = a[0];
                        fy[p - base] = a[1];
                        tq[p - base] = a[2];
                    }
                }
            }
            let mut piece = walls[t].lock();
            let WallPiece { p, w, xi, area } = &mut *piece;
            let mut sink = OffsetSink {
                base,
                loads: LoadSink { fx, fy, tq },
            };
            ww.contacts(ps, p, w, xi, area, &mut sink);
        })?;
        drop(guards);
        Ok(())
    }

    /// The quadtree's refresh on the pool (Watanabe et al.: the migration through unchanged
    /// nodes in parallel): the scan for entries that left their leaf and the pair search
    /// are split over the threads by contiguous ranges and concatenated in range order;
    /// the moves themselves, which change the tree, stay on thread 0. The result is the
    /// serial one exactly.
    pub(crate) fn quadtree_refresh<B: talus_kernels::neighbor::BoxSource>(
        &mut self,
        tree: &mut talus_kernels::neighbor::Quadtree,
        src: &B,
        adds: &mut Vec<(u32, u32)>,
        removes: &mut Vec<(u32, u32)>,
    ) -> Result<()> {
        use talus_kernels::neighbor::{NeighborSearch, SearchScratch};
        if !tree.set_boxes(src) {
            // New particles or a new tiling: a rebuild.
            self.pool.serial(Phase::Neighbor, || tree.refresh(src, adds, removes));
            return Ok(());
        }
        let threads = self.threads();
        let entries = tree.entries();
        // The scan and the walk to each leaver's new leaf in parallel, the moves serial.
        let movers: Vec<Mutex<Vec<(u32, u32)>>> = (0..threads).map(|_| Mutex::new(Vec::new())).collect();
        {
            let t: &talus_kernels::neighbor::Quadtree = tree;
            self.pool.run(Phase::Neighbor, &|k| {
                t.leavers(chunk(entries, k, threads), true, &mut movers[k].lock());
            })?;
        }
        let all: Vec<(u32, u32)> = movers.into_iter().flat_map(|m| m.into_inner()).collect();
        self.pool.serial(Phase::Neighbor, || tree.migrate_listed(&all));
        let n = tree.particles();
        type Part = (Vec<(u32, u32)>, SearchScratch);
        let parts: Vec<Mutex<Part>> = (0..threads).map(|_| Mutex::new(Default::default())).collect();
        {
            let t: &talus_kernels::neighbor::Quadtree = tree;
            self.pool.run(Phase::Neighbor, &|k| {
                let mut part = parts[k].lock();
                let (out, scratch) = &mut *part;
                t.pairs_of(chunk(n, k, threads), scratch, out);
            })?;
        }
        let new: Vec<(u32, u32)> = parts.into_iter().flat_map(|p| p.into_inner().0).collect();
        self.pool
            .serial(Phase::Neighbor, || tree.finish_refresh(new, adds, removes));
        Ok(())
    }

    /// The sort-and-sweep update with one thread per axis (threads beyond two idle; one
    /// thread sorts both), after the new boxes are staged by all threads.
    pub(crate) fn sweep_update<B: talus_kernels::neighbor::BoxSource + Sync>(
        &mut self,
        sweep: &mut talus_kernels::neighbor::SweepAndPrune,
        src: &B,
    ) -> Result<()> {
        let (n, threads) = (src.len(), self.threads());
        {
            let lens = (0..threads).map(|k| chunk(n, k, threads).len());
            let parts: Vec<_> = sweep.staging(n).split(lens).into_iter().map(Mutex::new).collect();
            self.pool.run(Phase::Neighbor, &|t| {
                parts[t].lock().fill(src, chunk(n, t, threads).start);
            })?;
        }
        {
            let axes: Vec<_> = sweep.axes(n).into_iter().map(Mutex::new).collect();
            self.pool.run(Phase::Neighbor, &|t| {
                for a in axes.iter().skip(t).step_by(threads) {
                    a.lock().run();
                }
            })?;
        }
        self.pool.serial(Phase::Neighbor, || sweep.finish_update());
        Ok(())
    }
}

/// The wall contacts of one run of particles.
struct WallPiece<'a> {
    p: &'a [u32],
    w: &'a [u16],
    xi: &'a mut [f64],
    area: &'a mut [f64],
}

/// The wall contacts (sorted by particle: checked on restore, kept by the rebuild) cut at
/// the particles `cuts` (`cuts[k]` is run k's first particle, the last entry the particle
/// count): one piece per run.
fn wall_pieces<'a>(wc: &'a mut WallContacts, cuts: &[usize]) -> Vec<Mutex<WallPiece<'a>>> {
    debug_assert!(wc.p.windows(2).all(|w| w[0] <= w[1]), "wall contacts not sorted");
    let at: Vec<usize> = cuts
        .iter()
        .map(|&f| wc.p.partition_point(|&q| (q as usize) < f))
        .collect();
    let lens = at.windows(2).map(|w| w[1] - w[0]);
    split_ref(&wc.p[at[0]..], lens.clone())
        .into_iter()
        .zip(split_ref(&wc.w[at[0]..], lens.clone()))
        .zip(split_lengths(&mut wc.xi[at[0]..], lens.clone()))
        .zip(split_lengths(&mut wc.area[at[0]..], lens))
        .map(|(((p, w), xi), area)| Mutex::new(WallPiece { p, w, xi, area }))
        .collect()
}

/// Wall forces into one thread's piece of the loads, which starts at particle `base`
/// (the per-thread and mutex reductions assign loads by static ranges).
struct OffsetSink<'a> {
    base: usize,
    loads: LoadSink<'a>,
}

impl WallSink for OffsetSink<'_> {
    #[inline(always)]
    fn wall(&mut self, p: usize, c: &ContactForce) {
        self.loads.wall(p - self.base, c);
    }
}

type VerletPart<'a> = Mutex<(Kinematics<'a>, Loads<'a>, Inertia<'a>)>;

/// The Verlet views of the store cut into per-thread chunks, and the radii likewise.
fn verlet_parts<'a>(ps: &'a mut ParticleStore, lens: &[usize]) -> (Vec<VerletPart<'a>>, Vec<&'a [f64]>) {
    let (d, l, m, radius) = ps.verlet_views();
    let sp = |s: &'a mut [f64]| split_lengths(s, lens.iter().copied()).into_iter();
    let sr = |s: &'a [f64]| split_ref(s, lens.iter().copied()).into_iter();
    let n: usize = lens.iter().sum();
    let mut x = sp(&mut d.x[..n]);
    let mut y = sp(&mut d.y[..n]);
    let mut a = sp(&mut d.angle[..n]);
    let mut vx = sp(&mut d.vx[..n]);
    let mut vy = sp(&mut d.vy[..n]);
    let mut w = sp(&mut d.omega[..n]);
    let mut fx = sp(&mut l.fx[..n]);
    let mut fy = sp(&mut l.fy[..n]);
    let mut tq = sp(&mut l.torque[..n]);
    let mut im = sr(&m.inv_mass[..n]);
    let mut ii = sr(&m.inv_inertia[..n]);
    let parts = (0..lens.len())
        .map(|_| {
            Mutex::new((
                Kinematics {
                    x: x.next().unwrap(),
                    y: y.next().unwrap(),
                    angle: a.next().unwrap(),
                    vx: vx.next().unwrap(),
                    vy: vy.next().unwrap(),
                    omega: w.next().unwrap(),
                },
                Loads {
                    fx: fx.next().unwrap(),
                    fy: fy.next().unwrap(),
                    torque: tq.next().unwrap(),
                },
                Inertia {
                    inv_mass: im.next().unwrap(),
                    inv_inertia: ii.next().unwrap(),
                },
            ))
        })
        .collect();
    (parts, split_ref(&radius[..n], lens.iter().copied()))
}

/// The three Gear degrees of freedom cut into per-thread chunks of `lens`.
fn gear_parts<'a>(dofs: [Derivatives<'a>; 3], lens: &[usize]) -> Vec<[Derivatives<'a>; 3]> {
    let [a, b, c] = dofs.map(|d| {
        let sp = |s: &'a mut [f64]| split_lengths(s, lens.iter().copied()).into_iter();
        let (mut x, mut v, mut a) = (sp(d.x), sp(d.v), sp(d.a));
        let (mut b, mut c, mut dd) = (sp(d.b), sp(d.c), sp(d.d));
        (0..lens.len())
            .map(|_| Derivatives {
                x: x.next().unwrap(),
                v: v.next().unwrap(),
                a: a.next().unwrap(),
                b: b.next().unwrap(),
                c: c.next().unwrap(),
                d: dd.next().unwrap(),
            })
            .collect::<Vec<_>>()
    });
    a.into_iter().zip(b).zip(c).map(|((a, b), c)| [a, b, c]).collect()
}

/// Three arrays cut into per-thread chunks of `lens`.
fn split3<'a>(arrays: [&'a mut [f64]; 3], lens: &[usize]) -> Vec<[&'a mut [f64]; 3]> {
    let [a, b, c] = arrays.map(|s| split_lengths(s, lens.iter().copied()));
    a.into_iter().zip(b).zip(c).map(|((a, b), c)| [a, b, c]).collect()
}
