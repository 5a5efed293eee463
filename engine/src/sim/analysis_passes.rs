//! The analysis's passes on the worker pool (`sim/analysis.rs` assembles them): the pass
//! over the logged pairs between grains, the contacts and first rattlers of the peeling,
//! and the pass over the grains. Each particle's sums are made by one thread, its owner,
//! with their terms in an order fixed by the log alone, and the whole bed's sums go by
//! fixed blocks: every result is bit for bit the same for any number of threads.
//!
//! The pairs: the log (the contact table's order: sorted by first particle, but for the
//! pairs added since the table's last compaction) is cut into pieces of [`PIECE`] pairs,
//! and each piece owns the particles from its first pair's `i` to the next piece's; each
//! thread runs a run of whole pieces. A pair's side on a particle its piece does not own
//! (a piece's rim, and the unsorted tail) goes into the thread's rim list, and once every
//! piece has run, each thread adds the rim sides that fall on its particles, thread after
//! thread. A particle's terms come in an order the log alone fixes: its own piece's, in
//! the log's order, then the rim's, in the log's order; the same pieces on any number of
//! threads, so the same sums.
use talus_kernels::analysis::rattlers::{add_side, mark_range, Count};
use talus_kernels::analysis::stress::{add_scaled, contact_virial, Tensor};
use talus_kernels::math::{norm2, scale, Vector, DIM};
use talus_kernels::neighbor::MinImage;

use parking_lot::Mutex;

use super::analysis::Region;
use super::measure::kinetic_of;
use crate::contact_log::{LogRun, PairRecord};
use crate::error::Result;
use crate::material::Material;
use crate::pool::{Phase, Pool};
use crate::store::ParticleStore;
use crate::work_split::{chunk, split_lengths, Dynamic};

/// Logged pairs per block of the whole bed's sums (stress, force magnitudes).
const PAIR_BLOCK: usize = 1024;

/// Logged pairs per piece, whole blocks: the pass over the pairs' unit of work and of
/// ownership (a piece's rim, the sides on particles other pieces own, is about 2 % of a
/// settled bed's sides at this size).
const PIECE: usize = 4 * PAIR_BLOCK;

/// Particles per block of the pass over the grains' sums.
const GRAIN_BLOCK: usize = 1024;

/// Blocks per claim of the pass over the grains.
const GRAIN_RUN: usize = 4;

/// One side of a pair between grains, on a particle another piece owns (of the same
/// thread or another): the pair's virial (the side takes half) and its partner (for the
/// counts).
#[derive(Debug, Clone, Copy)]
pub(super) struct RimSide {
    p: u32,
    partner: u32,
    v: Tensor,
}

/// One block of the log's sums: the virial of its pairs between grains, the force
/// magnitudes of all its pairs, and how many are between grains.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PairBlock {
    pub total: Tensor,
    pub force_sum: f64,
    pub grain_pairs: usize,
}

/// One block of the grains' sums.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GrainBlock {
    /// Magnitudes of the grains' net forces (contacts and gravity).
    pub net: f64,
    pub potential: f64,
    pub kinetic: f64,
    pub rotational: f64,
    /// Volume of the grains in the region, and their stress times volume over its volume.
    pub packed: f64,
    pub region_sum: Tensor,
}

/// What the passes read: the store, its materials, which particles are grains, the
/// periodic cell.
pub(super) struct Grains<'a> {
    pub ps: &'a ParticleStore,
    pub materials: &'a [Material],
    /// Whether any particle is a wall body (else every particle is a grain).
    pub bodies: bool,
    pub image: Option<MinImage>,
    /// Whether the pair pass asks for the second particles' data ahead (where
    /// `cache_size::prefetch_pays` says, for [`SECOND_BYTES`]; the tests run it either way).
    pub prefetch: bool,
}

impl Grains<'_> {
    #[inline(always)]
    pub fn grain(&self, p: usize) -> bool {
        !self.bodies || !self.ps.is_wall_body(p)
    }

    /// (`bodies` first: without them the test is one predicted branch.)
    #[inline(always)]
    pub fn between_grains(&self, i: usize, j: usize) -> bool {
        !self.bodies || (self.grain(i) && self.grain(j))
    }

    /// One over grain p's volume (its density over its mass): its stress is its share of
    /// the virial times this.
    #[inline(always)]
    pub fn inverse_volume(&self, p: usize) -> f64 {
        self.ps.inv_mass[p] * self.materials[self.ps.material[p] as usize].density
    }
}

/// The pair's virial, -r (x) f with r from j to i by the minimum image.
#[inline(always)]
fn virial(pos: &[&[f64]; DIM], image: Option<MinImage>, i: usize, j: usize, f: Vector) -> Tensor {
    let d: Vector = std::array::from_fn(|a| pos[a][j] - pos[a][i]);
    contact_virial(scale(-1.0, image.map_or(d, |m| m.of(d))), f)
}

/// The log's pairs `from..to` (indices into all its runs' pairs), as slices of its runs
/// (`starts[k]`: the pairs before run k).
fn slices<'a>(
    runs: &'a [LogRun],
    starts: &'a [usize],
    from: usize,
    to: usize,
) -> impl Iterator<Item = &'a [PairRecord]> {
    let first = starts.partition_point(|&s| s <= from).saturating_sub(1);
    runs[first..].iter().zip(&starts[first..]).map_while(move |(run, &s)| {
        let run = &run.pairs;
        (s < to).then(|| &run[from.saturating_sub(s).min(run.len())..(to - s).min(run.len())])
    })
}

/// The pass over the pairs between grains: each grain's stress (`shares`, half of each
/// pair's virial over the grain's volume) and counts (`of`), from zero; the log's block
/// sums into `blocks`. `rims` holds a list per thread (kept from call to call).
#[allow(clippy::too_many_arguments)]
pub(super) fn pair_pass(
    pool: &mut Pool,
    on: &Grains,
    runs: &[LogRun],
    shares: &mut [Tensor],
    of: &mut [Count],
    blocks: &mut Vec<PairBlock>,
    rims: &mut Vec<Vec<RimSide>>,
) -> Result<()> {
    let n = on.ps.len();
    let threads = pool.threads();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(runs.iter().scan(0, |at, r| {
            *at += r.len();
            Some(*at)
        }))
        .collect();
    let pairs = *starts.last().expect("one start at least");
    blocks.clear();
    blocks.resize(pairs.div_ceil(PAIR_BLOCK), PairBlock::default());
    // Piece k: pairs `k PIECE..`; it owns particles `own[k]..own[k + 1]`, from its first
    // `i` on.
    // One piece at least, even of no pairs: it owns (and zeroes) every particle.
    let pieces = pairs.div_ceil(PIECE).max(1);
    let mut own = vec![0; pieces + 1];
    for k in 1..pieces {
        let first = slices(runs, &starts, k * PIECE, (k + 1) * PIECE).flatten().next();
        own[k] = first.map_or(own[k - 1], |c| c.i as usize).clamp(own[k - 1], n);
    }
    own[pieces] = n;
    // Thread t runs pieces `chunk(pieces, t)`: it owns their particles and blocks.
    let mine = |t: usize| chunk(pieces, t, threads);
    rims.resize_with(threads, Vec::new);
    let lengths = || (0..threads).map(|t| own[mine(t).end] - own[mine(t).start]);
    let parts: Vec<Mutex<_>> = split_lengths(&mut shares[..n], lengths())
        .into_iter()
        .zip(split_lengths(&mut of[..n], lengths()))
        .map(Mutex::new)
        .collect();
    let rim_lists: Vec<Mutex<&mut Vec<RimSide>>> = rims.iter_mut().map(Mutex::new).collect();
    let block_parts: Vec<Mutex<&mut [PairBlock]>> = split_lengths(
        blocks,
        (0..threads)
            .map(|t| ((mine(t).end * PIECE).min(pairs) - (mine(t).start * PIECE).min(pairs)).div_ceil(PAIR_BLOCK)),
    )
    .into_iter()
    .map(Mutex::new)
    .collect();
    pool.run(Phase::Analysis, &|t| {
        let mut part = parts[t].lock();
        let (shares, of) = &mut *part;
        let (shares, of): (&mut [Tensor], &mut [Count]) = (shares, of);
        let mut rim = rim_lists[t].lock();
        rim.clear();
        let mut out = block_parts[t].lock();
        let mut out: &mut [PairBlock] = &mut out;
        let base = own[mine(t).start];
        for k in mine(t) {
            let (from, to) = (k * PIECE, ((k + 1) * PIECE).min(pairs));
            let piece = Piece {
                runs,
                starts: &starts,
                from,
                to,
            };
            let (lo, hi) = (own[k] - base, own[k + 1] - base);
            let (here, rest) = std::mem::take(&mut out).split_at_mut((to - from).div_ceil(PAIR_BLOCK));
            out = rest;
            pair_piece(on, &piece, own[k], &mut shares[lo..hi], &mut of[lo..hi], here, &mut rim);
        }
    })?;
    drop(rim_lists);
    let rims = &*rims;
    pool.run(Phase::Analysis, &|t| {
        let mut part = parts[t].lock();
        let (shares, of) = &mut *part;
        add_rim_sides(on, shares, of, own[mine(t).start], rims);
    })
}

/// A thread's piece of the log: its pairs `from..to` (`starts[k]`: the pairs before run
/// k).
struct Piece<'a> {
    runs: &'a [LogRun],
    starts: &'a [usize],
    from: usize,
    to: usize,
}

/// The pairs of `piece` into the sums of the particles it owns, `lo..lo + shares.len()`,
/// from zero (each grain's over its volume once they are in), and into `out`, a block
/// each; the sides on other particles into `rim`. A function of its own, not the pool's
/// closure, so that the compiler knows that what it writes is not what it reads (through
/// the closure's captured references it loaded every slice again at each pair).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn pair_piece(
    on: &Grains,
    piece: &Piece,
    lo: usize,
    shares: &mut [Tensor],
    of: &mut [Count],
    out: &mut [PairBlock],
    rim: &mut Vec<RimSide>,
) {
    let n = on.ps.len();
    let pos: [&[f64]; DIM] = std::array::from_fn(|a| &on.ps.pos[a][..n]);
    let image = on.image;
    let len = shares.len();
    let of = &mut of[..len];
    // Zeroed here, piece by piece, not by a pass of their own over the thread's particles:
    // the lines are still in cache when the pairs add to them (a pass over all of them
    // first wrote them out to memory and read them back).
    shares.fill([[0.0; DIM]; DIM]);
    of.fill(Count::default());
    for (b, sum) in out.iter_mut().enumerate() {
        let from = piece.from + b * PAIR_BLOCK;
        let to = (from + PAIR_BLOCK).min(piece.to);
        // The block's sums in locals: nothing in the loop calls out but for a rim's side
        // (a call at every pair spilled every sum to the stack).
        let (mut total, mut force_sum, mut grain_pairs) = ([[0.0; DIM]; DIM], 0.0, 0);
        for run in slices(piece.runs, piece.starts, from, to) {
            for (m, c) in run.iter().enumerate() {
                if on.prefetch {
                    if let Some(next) = run.get(m + PREFETCH_AHEAD) {
                        prefetch_second(&pos, shares, of, next.j as usize, lo);
                    }
                }
                let (i, j) = (c.i as usize, c.j as usize);
                assert!(i < j && j < n, "a logged pair not of store indices i < j < n");
                force_sum += norm2(c.f).sqrt();
                if !on.between_grains(i, j) {
                    continue;
                }
                let v = virial(&pos, image, i, j, c.f);
                add_scaled(&mut total, 1.0, &v);
                let (ki, kj) = (i.wrapping_sub(lo), j.wrapping_sub(lo));
                if ki < len {
                    add_scaled(&mut shares[ki], 0.5, &v);
                    add_side(of, ki, c.j);
                } else {
                    to_rim(rim, c.i, c.j, v);
                }
                if kj < len {
                    add_scaled(&mut shares[kj], 0.5, &v);
                    add_side(of, kj, c.i);
                } else {
                    to_rim(rim, c.j, c.i, v);
                }
                grain_pairs += 1;
            }
        }
        *sum = PairBlock {
            total,
            force_sum,
            grain_pairs,
        };
    }
    // Over the volume while the sums are in cache (a pass over the grains after the
    // cascade read and wrote them all again); the rims' sides come over it.
    for (k, st) in shares.iter_mut().enumerate() {
        let p = lo + k;
        if on.grain(p) {
            let v = *st;
            *st = [[0.0; DIM]; DIM];
            add_scaled(st, on.inverse_volume(p), &v);
        }
    }
}

/// Bytes the pair pass reads and writes of a second particle: its position and, where it
/// owns it, its sums. With enough particles (as the force loops decide,
/// `cache_size::prefetch_pays`) it asks for them ahead: at 10^6 discs, one thread,
/// `analyse` took 36.3-38.0 ms against 38.7-40.2 ms without (BENCHMARKS.md).
pub(super) const SECOND_BYTES: usize = DIM * 8 + std::mem::size_of::<Tensor>() + std::mem::size_of::<Count>();
/// How many pairs ahead (8 and 16 gained less).
const PREFETCH_AHEAD: usize = 32;

/// Ask for second particle `j`'s position and, where this piece owns it (from `lo`), its
/// sums: the pair pass reads and writes them in no order that a hardware prefetcher sees.
#[inline(always)]
fn prefetch_second(pos: &[&[f64]; DIM], shares: &[Tensor], of: &[Count], j: usize, lo: usize) {
    use crate::forces::prefetch_line;
    for p in pos {
        prefetch_line(p.as_ptr().wrapping_add(j) as *const u8);
    }
    let k = j.wrapping_sub(lo);
    if k < shares.len() {
        prefetch_line(shares.as_ptr().wrapping_add(k) as *const u8);
        prefetch_line(of.as_ptr().wrapping_add(k) as *const u8);
    }
}

/// A side of a pair on particle `p`, which another piece owns.
#[cold]
#[inline(never)]
fn to_rim(rim: &mut Vec<RimSide>, p: u32, partner: u32, v: Tensor) {
    rim.push(RimSide { p, partner, v });
}

/// The sides in the rim lists `from` that fall on the particles `lo..lo + shares.len()`
/// (grains: a rim is of pairs between grains), list after list, over the grain's volume.
fn add_rim_sides(on: &Grains, shares: &mut [Tensor], of: &mut [Count], lo: usize, from: &[Vec<RimSide>]) {
    let len = shares.len();
    let of = &mut of[..len];
    for e in from.iter().flatten() {
        let k = (e.p as usize).wrapping_sub(lo);
        if k < len {
            add_scaled(&mut shares[k], 0.5 * on.inverse_volume(e.p as usize), &e.v);
            add_side(of, k, e.partner);
        }
    }
}

/// Thread t's particles in the mark pass, `ranges[t].0..ranges[t].1`: whole blocks
/// of [`GRAIN_BLOCK`], and the blocks `chunk(blocks, t)`.
fn grain_ranges(n: usize, threads: usize) -> Vec<(usize, usize)> {
    let blocks = n.div_ceil(GRAIN_BLOCK);
    (0..threads)
        .map(|t| {
            let b = chunk(blocks, t, threads);
            ((b.start * GRAIN_BLOCK).min(n), (b.end * GRAIN_BLOCK).min(n))
        })
        .collect()
}

/// Each particle's contacts before the peeling (`contacts`, from the counts `of`) and the
/// peeling's first rattlers, marked in `marks` and listed per thread in `queues` (in the
/// order of the particles, thread after thread).
pub(super) fn mark_pass(
    pool: &mut Pool,
    of: &[Count],
    held: u32,
    contacts: &mut [u32],
    marks: &mut [bool],
    queues: &mut Vec<Vec<u32>>,
) -> Result<()> {
    let n = of.len();
    let threads = pool.threads();
    let ranges = grain_ranges(n, threads);
    queues.resize_with(threads, Vec::new);
    let lengths = || ranges.iter().map(|&(a, b)| b - a);
    let parts: Vec<Mutex<_>> = split_lengths(&mut contacts[..n], lengths())
        .into_iter()
        .zip(split_lengths(&mut marks[..n], lengths()))
        .zip(queues.iter_mut())
        .map(Mutex::new)
        .collect();
    pool.run(Phase::Analysis, &|t| {
        let mut part = parts[t].lock();
        let ((contacts, marks), queue) = &mut *part;
        let (lo, hi) = ranges[t];
        for (x, c) in contacts.iter_mut().zip(&of[lo..hi]) {
            *x = c.all;
        }
        mark_range(&of[lo..hi], held, lo, marks, queue);
    })
}

/// The pass over the grains: the net forces, the potential energy, the region's grains
/// and their stress times volume (`stress`: each grain's, its pairs' and walls' shares over
/// its volume), the kinetic energies (of every particle that moves, the ones
/// [`super::Simulation::kinetic_energies`] counts; summed by blocks, so not its bits); the
/// sums by blocks into `blocks`. Beside it, `alone`: one thread's work (the peeling's
/// cascade), taken by the first thread to start while the others claim runs of blocks
/// (which thread sums a block does not change its sum).
pub(super) fn grain_pass<R: Send>(
    pool: &mut Pool,
    on: &Grains,
    gravity: Vector,
    region: Option<&Region>,
    stress: &[Tensor],
    blocks: &mut Vec<GrainBlock>,
    alone: impl FnOnce() -> R + Send,
) -> Result<R> {
    let n = on.ps.len();
    blocks.clear();
    blocks.resize(n.div_ceil(GRAIN_BLOCK), GrainBlock::default());
    let runs: Vec<Mutex<&mut [GrainBlock]>> = blocks.chunks_mut(GRAIN_RUN).map(Mutex::new).collect();
    let claims = Dynamic::new(runs.len(), 1);
    let (alone, result) = (Mutex::new(Some(alone)), Mutex::new(None));
    pool.run(Phase::Analysis, &|_| {
        // The job out of the lock first: a guard in the `if let` itself would hold the lock
        // through the job, and the other threads would wait on it.
        let job = alone.lock().take();
        if let Some(job) = job {
            *result.lock() = Some(job());
        }
        while let Some(k) = claims.claim() {
            let lo = k * GRAIN_RUN * GRAIN_BLOCK;
            let hi = (lo + GRAIN_RUN * GRAIN_BLOCK).min(n);
            grain_blocks(on, gravity, region, lo..hi, &stress[lo..hi], &mut runs[k].lock());
        }
    })?;
    Ok(result.into_inner().expect("one thread ran the work beside the pass"))
}

/// The grains `range` (from a block's start), a block each into `out`: see
/// [`grain_pass`]. A function of its own, as [`pair_piece`] is.
#[inline(never)]
fn grain_blocks(
    on: &Grains,
    g: Vector,
    region: Option<&Region>,
    range: std::ops::Range<usize>,
    stress: &[Tensor],
    out: &mut [GrainBlock],
) {
    let ps = on.ps;
    let (lo, len) = (range.start, range.len());
    // The arrays cut to the range: one bounds check each, not one a grain.
    let inv_mass = &ps.inv_mass[range.clone()];
    let material = &ps.material[range.clone()];
    let pos: [&[f64]; DIM] = std::array::from_fn(|a| &ps.pos[a][range.clone()]);
    let force: [&[f64]; DIM] = std::array::from_fn(|a| &ps.force[a][range.clone()]);
    let stress = &stress[..len];
    for (b, sum) in out.iter_mut().enumerate() {
        let mut s = GrainBlock::default();
        for k in b * GRAIN_BLOCK..((b + 1) * GRAIN_BLOCK).min(len) {
            let p = lo + k;
            if inv_mass[k] > 0.0 {
                let (tr, r) = kinetic_of(ps, p);
                s.kinetic += tr;
                s.rotational += r;
            }
            if !on.grain(p) {
                continue;
            }
            let m = 1.0 / inv_mass[k];
            let f: Vector = std::array::from_fn(|a| force[a][k] + m * g[a]);
            s.net += norm2(f).sqrt();
            s.potential += -m * (0..DIM).map(|a| g[a] * pos[a][k]).sum::<f64>();
            let x: Vector = std::array::from_fn(|a| pos[a][k]);
            if let Some(r) = region.filter(|r| r.contains(x)) {
                let volume = m / on.materials[material[k] as usize].density;
                s.packed += volume;
                add_scaled(&mut s.region_sum, volume / r.volume(), &stress[k]);
            }
        }
        *sum = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ParticleInit;
    use rand::{RngExt, SeedableRng};

    /// A log in no order (pairs at random, runs of random lengths, some empty: as the
    /// table's holes refilled since its last compaction leave it), so that most sides go
    /// to the rims. On 1, 2, 3 and 5 threads the pass gives each particle's sums bit for
    /// bit as two plain loops over the log in its order do, the first adding the sides on
    /// particles their piece owns, the second the others (each grain's stress over its
    /// volume in between), and the same block sums.
    #[test]
    fn the_pair_pass_on_any_threads_sums_as_two_plain_loops_over_the_log() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 50;
        let mut ps = ParticleStore::default();
        for id in 0..n {
            ps.push(&ParticleInit {
                id,
                pos: std::array::from_fn(|_| rng.random_range(0.0..1.0)),
                angle: 0.0,
                vel: [0.0; DIM],
                omega: Default::default(),
                radius: 0.1,
                mass: rng.random_range(0.5..2.0),
                material: (id % 2) as u16,
                ptype: 0,
                flags: 0,
            });
        }
        let mut runs: Vec<LogRun> = Vec::new();
        while runs.iter().map(LogRun::len).sum::<usize>() < 3 * PIECE + 500 {
            let len = [0, 1, 37, 700][rng.random_range(0..4)];
            let mut run = LogRun::default();
            for _ in 0..len {
                let i = rng.random_range(0..n as u32 - 1);
                let f = std::array::from_fn(|_| rng.random_range(-1.0..1.0));
                run.push(
                    PairRecord {
                        i,
                        j: rng.random_range(i + 1..n as u32),
                        f,
                    },
                    0.0,
                );
            }
            runs.push(run);
        }
        let material = |density| Material {
            name: "m".into(),
            density,
            contact: talus_kernels::contact::ContactParams {
                kn: 1.0,
                kt: 0.0,
                gamma_n: 0.0,
                gamma_t: 0.0,
                mu: 0.0,
            },
        };
        let materials = [material(3.0), material(0.7)];
        let on = |prefetch| Grains {
            ps: &ps,
            materials: &materials,
            bodies: false,
            image: None,
            prefetch,
        };
        // The plain loops: each piece owns the particles from its first pair's i on (or
        // from the piece before's, whichever is later).
        let log: Vec<PairRecord> = runs.iter().flat_map(|r| r.pairs.iter().copied()).collect();
        let mut own = vec![0];
        for c in log.chunks(PIECE).skip(1) {
            own.push(own[own.len() - 1].max(c[0].i as usize));
        }
        own.push(n as usize);
        let pos: [&[f64]; DIM] = std::array::from_fn(|a| &ps.pos[a][..]);
        let mut want = vec![[[0.0; DIM]; DIM]; n as usize];
        let mut counts = vec![Count::default(); n as usize];
        let inverse_volume = |p: usize| ps.inv_mass[p] * materials[ps.material[p] as usize].density;
        for rim in [false, true] {
            if rim {
                for (p, st) in want.iter_mut().enumerate() {
                    let v = *st;
                    *st = [[0.0; DIM]; DIM];
                    add_scaled(st, inverse_volume(p), &v);
                }
            }
            for (k, c) in log.iter().enumerate() {
                let v = virial(&pos, None, c.i as usize, c.j as usize, c.f);
                let owned = own[k / PIECE]..own[k / PIECE + 1];
                for (p, q) in [(c.i, c.j), (c.j, c.i)] {
                    if owned.contains(&(p as usize)) != rim {
                        let scale = if rim { 0.5 * inverse_volume(p as usize) } else { 0.5 };
                        add_scaled(&mut want[p as usize], scale, &v);
                        add_side(&mut counts, p as usize, q);
                    }
                }
            }
        }
        let mut first_blocks = None;
        for (threads, prefetch) in [(1, false), (2, false), (3, false), (5, false), (1, true), (3, true)] {
            let on = on(prefetch);
            let mut pool = Pool::new(&vec![None; threads]).unwrap();
            // Stale sums from an earlier call: each thread zeroes its own.
            let mut shares = vec![[[1.0; DIM]; DIM]; n as usize];
            let mut of = vec![
                Count {
                    all: 9,
                    pairs: 9,
                    partners: 9
                };
                n as usize
            ];
            let (mut blocks, mut rims) = (Vec::new(), Vec::new());
            pair_pass(&mut pool, &on, &runs, &mut shares, &mut of, &mut blocks, &mut rims).unwrap();
            assert_eq!(shares, want, "{threads} threads");
            assert_eq!(of, counts, "{threads} threads");
            assert!(rims.iter().map(Vec::len).sum::<usize>() > PIECE, "{threads} threads");
            let sums: Vec<_> = blocks
                .iter()
                .map(|b| (b.total, b.force_sum.to_bits(), b.grain_pairs))
                .collect();
            assert_eq!(blocks.len(), log.len().div_ceil(PAIR_BLOCK));
            assert_eq!(blocks.iter().map(|b| b.grain_pairs).sum::<usize>(), log.len());
            let force_sum: f64 = log.iter().map(|c| norm2(c.f).sqrt()).sum();
            let by_blocks: f64 = blocks.iter().map(|b| b.force_sum).sum();
            assert!((by_blocks / force_sum - 1.0).abs() < 1e-12, "{by_blocks} {force_sum}");
            assert_eq!(*first_blocks.get_or_insert(sums.clone()), sums, "{threads} threads");
        }
    }
}
