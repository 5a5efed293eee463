//! Deterministic force summation by first-chunk owners: the loads of every particle are
//! bitwise those of the serial loop, for any thread count, with almost no second pass.
//!
//! The serial loop adds the pair forces into the loads slot after slot, so a particle's
//! load is the fold `((0 + f1) + f2) + ...` over its slots in slot order. Cut the slots
//! into contiguous chunks; each chunk is processed by one thread, in slot order. The chunk
//! holding a particle's first slot is its *owner*: it folds its contributions straight into
//! the particle's loads, and it comes first in the fold, so nothing is out of order. The
//! contributions of the particle's slots in later chunks are *deferred*: their chunk stores
//! the slot's force, and a fix-up pass continues each such particle's fold with them in
//! slot order. Every load element has one writer in each pass (its owner chunk, then the
//! fix-up thread that has the particle), so no locks are needed.
//!
//! With the slots sorted by first particle and the particles in Morton order, a chunk's
//! pairs lie in a patch of the domain; only particles on the rim of a patch have slots in
//! two chunks. The chunks are guided (large first, small last:
//! `work_split::guided_bounds`), so there are few rims and the threads still finish
//! together. A gather over all slots (the previous scheme) wrote and re-read every slot's
//! force.

use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::Mutex;

use crate::contacts::{merge_sorted, FREE};
use crate::error::Result;
use crate::forces::{load_i, load_j, prefetch_line, record_load, slot_record, ForceSink, Load, SlotRecord, WallSink};
use crate::pool::{Phase, Pool};
use crate::store::LOADS;
use crate::work_split::{chunk, guided_bounds, split_lengths, Dynamic};
use talus_kernels::contact::ContactForce;

/// The load arrays (force per axis, torque components), written by several threads at
/// disjoint elements.
///
/// Plain f64 memory, not atomics: an atomic f64 add is a load into an integer register, a
/// move to a float register, the add and the way back, and the compiler may not keep or
/// combine any of it (the pool of one ran its force phase 30 % slower through atomics than
/// through a plain slice, BENCHMARKS.md). What makes plain access sound is the owner plan's
/// invariant (module notes): within one pool phase each element has exactly one thread
/// that reads or writes it, and phases are ordered by the pool's barrier (release and
/// acquire on its counter).
///
/// `Copy` and one length for all: a sink holds the pointers by value, and as a local of the
/// pair loop it keeps them in registers (behind a reference they were reloaded after every
/// store to a load, which may alias them as far as the compiler knows; in 2D four registers
/// rather than six leave the contact law fewer spills).
#[derive(Clone, Copy)]
pub(crate) struct SharedLoads<'a> {
    arrays: [*mut f64; LOADS],
    len: usize,
    _borrow: std::marker::PhantomData<&'a mut [f64]>,
}

// SAFETY: SharedLoads is an exclusive borrow of its arrays for 'a, shared between the
// pool's threads, which touch disjoint elements within a phase (see the type's notes).
unsafe impl Sync for SharedLoads<'_> {}
unsafe impl Send for SharedLoads<'_> {}

impl<'a> SharedLoads<'a> {
    /// The loads (force per axis, torque components), of equal lengths.
    pub fn new(loads: [&'a mut [f64]; LOADS]) -> Self {
        let len = loads[0].len();
        assert!(loads.iter().all(|l| l.len() == len), "load arrays of unequal lengths");
        SharedLoads {
            arrays: loads.map(|l| l.as_mut_ptr()),
            len,
            _borrow: std::marker::PhantomData,
        }
    }

    /// Add `v` to particle p's loads.
    #[inline(always)]
    fn add(&self, p: usize, v: Load) {
        assert!(p < self.len);
        for (a, v) in self.arrays.iter().zip(v) {
            // SAFETY: in bounds (checked), and element p has one user in this phase.
            unsafe { *a.add(p) += v }
        }
    }

    /// Ask for particle p's loads ahead of their use (out of range: nothing).
    #[inline(always)]
    fn prefetch(&self, p: usize) {
        if p >= self.len {
            return;
        }
        for a in self.arrays {
            prefetch_line(a.wrapping_add(p) as *const u8);
        }
    }

    /// Keep the first `n` particles.
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        assert!(n <= self.len);
        self.len = n;
    }

    /// Pair force `f` into first particle i, as the serial loop adds it (`+=`).
    #[inline(always)]
    fn add_i(&self, i: usize, f: &ContactForce) {
        self.add(i, load_i(f));
    }

    /// Its reaction into second particle j, as the serial loop subtracts it.
    #[inline(always)]
    fn add_j(&self, j: usize, f: &ContactForce) {
        self.add(j, load_j(f));
    }

    /// Particle p's loads.
    #[inline(always)]
    fn get(&self, p: usize) -> Load {
        assert!(p < self.len);
        // SAFETY: as in `add`.
        self.arrays.map(|a| unsafe { *a.add(p) })
    }

    /// Set particle p's loads.
    #[inline(always)]
    fn set(&self, p: usize, v: Load) {
        assert!(p < self.len);
        for (a, v) in self.arrays.iter().zip(v) {
            // SAFETY: as in `add`.
            unsafe { *a.add(p) = v }
        }
    }
}

/// Which contributions are deferred, for one contact-table generation and chunking.
#[derive(Default)]
pub(crate) struct OwnerPlan {
    built_for: Option<(u64, usize, usize, usize, usize, usize)>,
    /// The chunks: `bounds[k]..bounds[k + 1]`, guided (large first, small last).
    pub bounds: Vec<usize>,
    /// Per slot: bit 0 if i's share is deferred, bit 1 if j's is.
    pub defer: Vec<u8>,
    /// The deferred contributions, `particle << 32 | slot << 1 | (1 if it is j)`, sorted:
    /// by particle, then in slot order.
    pub fix: Vec<u64>,
    /// Where each wave's chunks begin in `bounds` (see `prepare`), and the end.
    pub waves: Vec<usize>,
    /// Where each wave's entries begin in `fix`, and the end.
    fix_waves: Vec<usize>,
    /// Per particle, the first chunk that holds one of its slots (with waves: in the wave
    /// being planned).
    first: Vec<AtomicU32>,
}

impl OwnerPlan {
    /// Bring the plan up to date with the table (`generation`, `ci`, `cj`) for `n` particles,
    /// split for `threads` with chunks of at least `min_chunk` slots (see
    /// [`guided_bounds`]). O(N + slots) on the pool's threads, timed with the contact
    /// table's changes (phase `Contacts`), only when something changed (with the fix-up's
    /// cuts, done serially, it was 13 % of the step of 10^6 discs on 16 threads:
    /// BENCHMARKS.md, the 16-core machine). The plan depends on the chunks alone, not on
    /// which thread did what.
    ///
    /// Where the table has only had pairs appended since the plan was made (`stable`, the
    /// generation of its last other change, not after the plan's), the plan is extended
    /// instead: the appended slots are one more chunk after the others, which owns the
    /// particles that had no slot, and defers the others' shares. Each particle's fold
    /// stays in slot order, so the loads are the same bitwise.
    ///
    /// `waves` (the slot bounds of the step's waves, `0` first and the slot count last;
    /// see `parallel::waves`) cut the chunks: each wave's slots are split apart, and the
    /// waves run one after the other, each with its fix-up. A particle's owner is then its
    /// first chunk *in each wave*: a wave adds in place after the ones before it, which
    /// have finished (their fix-ups too), so every fold stays in slot order.
    ///
    /// Where the waves' slots end before the table does, the slots after them are the
    /// tail ([`OwnerPlan::tail`]): pairs appended since the table's last sort, whose
    /// particles lie anywhere. Its chunks run before the waves and defer both shares of
    /// every slot; each particle's entries join the fix-up of the wave that holds it
    /// (`particles`: the waves' particle bounds), after that wave's own (the tail's slots
    /// come after all others), so the folds stay in slot order here too.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        pool: &mut Pool,
        (generation, stable): (u64, u64),
        (ci, cj): (&[u32], &[u32]),
        n: usize,
        threads: usize,
        min_chunk: usize,
        (waves, particles): (&[usize], &[usize]),
    ) -> Result<()> {
        let slots = ci.len();
        let key = (generation, slots, n, threads, min_chunk, waves.len());
        if self.built_for == Some(key) {
            return Ok(());
        }
        let one_wave = waves.len() <= 2;
        assert!(!one_wave || waves[waves.len() - 1] == slots, "a tail needs waves");
        if let Some((built, from, ..)) = self
            .built_for
            .filter(|b| (b.2, b.3, b.4, b.5) == (n, threads, min_chunk, 2) && one_wave)
        {
            if stable <= built && slots >= from {
                pool.serial(Phase::Contacts, || self.extend(from, (ci, cj)));
                self.built_for = Some(key);
                return Ok(());
            }
        }
        assert!(slots < 1 << 31, "contact table too large for the deterministic sum");
        self.fix.clear();
        if !one_wave {
            // Each wave's slots in guided chunks of their own.
            self.bounds = vec![0];
            self.waves = vec![0];
            for w in waves.windows(2) {
                let g = guided_bounds(w[1] - w[0], threads, min_chunk);
                self.bounds.extend(g[1..].iter().map(|&b| w[0] + b));
                self.waves.push(self.bounds.len() - 1);
            }
            let tail = waves[waves.len() - 1];
            let g = guided_bounds(slots - tail, threads, min_chunk);
            self.bounds.extend(g[1..].iter().map(|&b| tail + b));
            self.prepare_waves(pool, (ci, cj), n)?;
            self.defer_tail(tail, (ci, cj), particles);
            self.built_for = Some(key);
            return Ok(());
        }
        self.bounds = guided_bounds(slots, threads, min_chunk);
        self.waves = vec![0, self.bounds.len() - 1];
        if self.bounds.len() <= 2 {
            // One chunk owns every particle: nothing is deferred.
            self.defer.clear();
            self.defer.resize(slots, 0);
            self.fix_waves = vec![0, 0];
            self.built_for = Some(key);
            return Ok(());
        }
        // Every entry of `defer` is written below.
        self.defer.resize(slots, 0);
        if self.first.len() != n {
            self.first = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        }
        let workers = pool.threads();
        let bounds = &self.bounds[..];
        let chunks = bounds.len() - 1;
        let first = &self.first[..];
        let none = |o: usize| ci[o] == FREE;
        // The owners: each particle's first chunk, the least chunk index among its slots.
        // A particle's slots lie mostly in one chunk: a load finds it already claimed, and
        // the atomic minimum runs about once per particle.
        pool.run(Phase::Contacts, &|t| {
            for f in &first[chunk(n, t, workers)] {
                f.store(u32::MAX, Ordering::Relaxed);
            }
        })?;
        let claims = Dynamic::new(chunks, 1);
        pool.run(Phase::Contacts, &|_| {
            while let Some(c) = claims.claim() {
                for o in bounds[c]..bounds[c + 1] {
                    if none(o) {
                        continue;
                    }
                    for p in [ci[o], cj[o]] {
                        let f = &first[p as usize];
                        if f.load(Ordering::Relaxed) > c as u32 {
                            f.fetch_min(c as u32, Ordering::Relaxed);
                        }
                    }
                }
            }
        })?;
        // Each chunk's deferred shares, in its own piece of `defer` and its own list,
        // sorted there (pieces of a few thousand).
        let lens = bounds.windows(2).map(|w| w[1] - w[0]);
        let pieces: Vec<Mutex<(&mut [u8], Vec<u64>)>> = split_lengths(&mut self.defer, lens)
            .into_iter()
            .map(|d| Mutex::new((d, Vec::new())))
            .collect();
        let claims = Dynamic::new(chunks, 1);
        pool.run(Phase::Contacts, &|_| {
            while let Some(c) = claims.claim() {
                let mut piece = pieces[c].lock();
                let (defer, list) = &mut *piece;
                for (k, o) in (bounds[c]..bounds[c + 1]).enumerate() {
                    let mut bits = 0;
                    if !none(o) {
                        for (side, p) in [(0u64, ci[o]), (1u64, cj[o])] {
                            if first[p as usize].load(Ordering::Relaxed) != c as u32 {
                                bits |= 1 << side;
                                list.push((u64::from(p) << 32) | ((o as u64) << 1) | side);
                            }
                        }
                    }
                    defer[k] = bits;
                }
                list.sort_unstable();
            }
        })?;
        let lists: Vec<Vec<u64>> = pieces.into_iter().map(|m| m.into_inner().1).collect();
        // The sorted lists merged, each thread the entries of a range of particles: the
        // entries below particle q lie before the same point in every list.
        let below = |q: usize| -> usize {
            lists
                .iter()
                .map(|l| l.partition_point(|&e| ((e >> 32) as usize) < q))
                .sum()
        };
        let cuts: Vec<usize> = (0..=workers)
            .map(|t| if t == workers { n } else { chunk(n, t, workers).start })
            .collect();
        let starts: Vec<usize> = cuts.iter().map(|&q| below(q)).collect();
        self.fix.resize(starts[workers], 0);
        let outs: Vec<Mutex<&mut [u64]>> = split_lengths(&mut self.fix, starts.windows(2).map(|w| w[1] - w[0]))
            .into_iter()
            .map(Mutex::new)
            .collect();
        pool.run(Phase::Contacts, &|t| {
            let mut out = outs[t].lock();
            let (lo, hi) = (cuts[t], cuts[t + 1]);
            let mut at = 0;
            for l in &lists {
                let a = l.partition_point(|&e| ((e >> 32) as usize) < lo);
                let b = l.partition_point(|&e| ((e >> 32) as usize) < hi);
                out[at..at + b - a].copy_from_slice(&l[a..b]);
                at += b - a;
            }
            out.sort_unstable();
        })?;
        self.fix_waves = vec![0, self.fix.len()];
        self.built_for = Some(key);
        Ok(())
    }

    /// [`OwnerPlan::prepare`] for several waves (their chunks in `bounds` and `waves`):
    /// owners and deferred shares found wave after wave.
    fn prepare_waves(&mut self, pool: &mut Pool, (ci, cj): (&[u32], &[u32]), n: usize) -> Result<()> {
        let slots = ci.len();
        self.defer.clear();
        self.defer.resize(slots, 0);
        self.fix_waves = vec![0];
        if self.waves.windows(2).all(|w| w[1] - w[0] <= 1) {
            // One chunk a wave (one thread): each owns its particles in its wave.
            self.fix_waves.resize(self.waves.len(), 0);
            return Ok(());
        }
        if self.first.len() != n {
            self.first = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
        }
        let workers = pool.threads();
        let first = &self.first[..];
        pool.run(Phase::Contacts, &|t| {
            for f in &first[chunk(n, t, workers)] {
                f.store(u32::MAX, Ordering::Relaxed);
            }
        })?;
        let none = |o: usize| ci[o] == FREE;
        for w in 0..self.waves.len() - 1 {
            let (c0, c1) = (self.waves[w], self.waves[w + 1]);
            let bounds = &self.bounds[..];
            let first = &self.first[..];
            // The least chunk of the wave among each particle's slots: a chunk index from
            // an earlier wave (all below c0) counts as none.
            let claims = Dynamic::new(c1 - c0, 1);
            pool.run(Phase::Contacts, &|_| {
                while let Some(k) = claims.claim() {
                    let c = (c0 + k) as u32;
                    for o in bounds[c0 + k]..bounds[c0 + k + 1] {
                        if none(o) {
                            continue;
                        }
                        for p in [ci[o], cj[o]] {
                            let f = &first[p as usize];
                            let mut cur = f.load(Ordering::Relaxed);
                            while (cur < c0 as u32 || cur > c) && cur != c {
                                match f.compare_exchange_weak(cur, c, Ordering::Relaxed, Ordering::Relaxed) {
                                    Ok(_) => break,
                                    Err(now) => cur = now,
                                }
                            }
                        }
                    }
                }
            })?;
            let lens = bounds[c0..=c1].windows(2).map(|b| b[1] - b[0]);
            let start = bounds[c0];
            let pieces: Vec<Mutex<(&mut [u8], Vec<u64>)>> = split_lengths(&mut self.defer[start..bounds[c1]], lens)
                .into_iter()
                .map(|d| Mutex::new((d, Vec::new())))
                .collect();
            let claims = Dynamic::new(c1 - c0, 1);
            pool.run(Phase::Contacts, &|_| {
                while let Some(k) = claims.claim() {
                    let c = (c0 + k) as u32;
                    let mut piece = pieces[k].lock();
                    let (defer, list) = &mut *piece;
                    for (l, o) in (bounds[c0 + k]..bounds[c0 + k + 1]).enumerate() {
                        let mut bits = 0;
                        if !none(o) {
                            for (side, p) in [(0u64, ci[o]), (1u64, cj[o])] {
                                if first[p as usize].load(Ordering::Relaxed) != c {
                                    bits |= 1 << side;
                                    list.push((u64::from(p) << 32) | ((o as u64) << 1) | side);
                                }
                            }
                        }
                        defer[l] = bits;
                    }
                }
            })?;
            // The wave's entries: few (its chunks' rims), sorted here.
            let at = self.fix.len();
            for p in pieces {
                self.fix.extend(p.into_inner().1);
            }
            self.fix[at..].sort_unstable();
            self.fix_waves.push(self.fix.len());
        }
        Ok(())
    }

    /// The tail's chunks (see [`OwnerPlan::prepare`]; empty without one).
    pub fn tail(&self) -> std::ops::Range<usize> {
        self.waves[self.waves.len() - 1]..self.bounds.len() - 1
    }

    /// The first slot whose shares the plan may defer: the slot records
    /// (`SlotRecord`) are kept from here on. With one chunk a wave (one thread) only the
    /// tail's, a few hundredths of the table (the records of every slot, 72 bytes each in
    /// 3D, were 150 bytes a sphere of 583,200).
    pub fn records_from(&self) -> usize {
        if self.waves.windows(2).all(|w| w[1] - w[0] <= 1) {
            self.bounds[self.tail().start]
        } else {
            0
        }
    }

    /// Both shares of the tail's slots (from `from` on) deferred, each particle's entries
    /// merged into those of the wave of `particles` that holds it.
    fn defer_tail(&mut self, from: usize, (ci, cj): (&[u32], &[u32]), particles: &[usize]) {
        let slots = ci.len();
        if from == slots {
            return;
        }
        let mut more: Vec<Vec<u64>> = vec![Vec::new(); particles.len() - 1];
        for o in from..slots {
            if ci[o] == FREE {
                continue;
            }
            self.defer[o] = 3;
            for (side, p) in [(0u64, ci[o]), (1u64, cj[o])] {
                let w = particles.partition_point(|&b| b <= p as usize) - 1;
                more[w].push((u64::from(p) << 32) | ((o as u64) << 1) | side);
            }
        }
        let old = std::mem::take(&mut self.fix);
        self.fix.reserve(old.len() + 2 * (slots - from));
        let mut ends = vec![0];
        for (w, mut more) in more.into_iter().enumerate() {
            more.sort_unstable();
            // Apart from the others: an earlier wave's entries may be of this wave's
            // particles (their shares deferred by its chunks).
            let mut wave = old[self.fix_waves[w]..self.fix_waves[w + 1]].to_vec();
            merge_sorted(&mut wave, &more);
            self.fix.extend(wave);
            ends.push(self.fix.len());
        }
        self.fix_waves = ends;
    }

    /// The plan extended over the slots appended from `from` on (see `prepare`).
    fn extend(&mut self, from: usize, (ci, cj): (&[u32], &[u32])) {
        let slots = ci.len();
        if slots == from {
            return;
        }
        self.defer.resize(slots, 0);
        if self.bounds.len() <= 2 {
            // One chunk owns every particle: it grows.
            self.bounds = vec![0, slots];
            return;
        }
        let c = (self.bounds.len() - 1) as u32;
        self.bounds.push(slots);
        self.waves = vec![0, self.bounds.len() - 1];
        let mut new = Vec::new();
        for o in from..slots {
            let mut bits = 0;
            if ci[o] != FREE {
                for (side, p) in [(0u64, ci[o]), (1u64, cj[o])] {
                    let first = &self.first[p as usize];
                    if first.load(Ordering::Relaxed) == u32::MAX {
                        first.store(c, Ordering::Relaxed);
                    }
                    if first.load(Ordering::Relaxed) != c {
                        bits |= 1 << side;
                        new.push((u64::from(p) << 32) | ((o as u64) << 1) | side);
                    }
                }
            }
            self.defer[o] = bits;
        }
        // Merged into the sorted entries from the back (the new slots come after every
        // old one, so each particle's entries stay in slot order).
        new.sort_unstable();
        merge_sorted(&mut self.fix, &new);
        self.fix_waves = vec![0, self.fix.len()];
    }

    /// Where the runs of the work after the force phase begin: run k continues the folds
    /// of particles `cuts[k]..cuts[k + 1]` and then adds their wall forces (`walls`: the
    /// particles of the wall contacts, sorted), so that each particle's loads have one
    /// writer and get the walls after the pairs, as in the serial step. The cuts balance
    /// fix-up entries plus `wall_weight` per wall contact. `runs + 1` entries, the first 0,
    /// the last `n`.
    ///
    /// For wave `wave`, over the particles `span` (its entries' and those whose walls it
    /// adds: `walls` lists the wall contacts' particles of the latter).
    pub fn particle_cuts(
        &self,
        pool: &mut Pool,
        runs: usize,
        wave: usize,
        span: std::ops::Range<usize>,
        walls: &[u32],
        wall_weight: usize,
    ) -> Result<Vec<usize>> {
        let fix = self.wave_fix(wave);
        let work = |q: usize| fix_before(fix, q) + wall_weight * walls.partition_point(|&p| (p as usize) < q);
        let base = work(span.start);
        let cuts = pool.cuts_by_work(Phase::Reduce, span.len(), runs, |q| work(span.start + q) - base)?;
        Ok(cuts.into_iter().map(|q| span.start + q).collect())
    }

    /// Wave `wave`'s fix-up entries of particles `particles` (see
    /// [`OwnerPlan::particle_cuts`]).
    pub fn fix_piece(&self, wave: usize, particles: std::ops::Range<usize>) -> &[u64] {
        let fix = self.wave_fix(wave);
        &fix[fix_before(fix, particles.start)..fix_before(fix, particles.end)]
    }

    /// Wave `wave`'s fix-up entries, sorted by particle.
    pub fn wave_fix(&self, wave: usize) -> &[u64] {
        &self.fix[self.fix_waves[wave]..self.fix_waves[wave + 1]]
    }
}

/// Entries of `fix` (sorted by particle) of particles below `q`.
fn fix_before(fix: &[u64], q: usize) -> usize {
    fix.partition_point(|&e| ((e >> 32) as usize) < q)
}

/// The force phase's sink: the owner's contributions into the loads, a deferred slot's
/// force into its entry of the slot buffer.
pub(crate) struct OwnerSink<'a> {
    pub defer: &'a [u8],
    pub out: &'a mut [SlotRecord],
    pub loads: SharedLoads<'a>,
}

impl ForceSink for OwnerSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        self.loads.fit(n);
    }

    #[inline(always)]
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce) {
        let d = self.defer[o];
        if d & 1 == 0 {
            self.loads.add_i(i, f);
        }
        if d & 2 == 0 {
            self.loads.add_j(j, f);
        }
        if d != 0 {
            self.out[o] = slot_record(f);
        }
    }

    #[inline(always)]
    fn prefetch(&self, p: usize) {
        self.loads.prefetch(p);
    }

    /// A deferred slot without a force adds zeros in the fix-up: exact, because a fold
    /// that starts at +0 never holds -0 (x + 0 = x - 0 = x for every other x).
    #[inline(always)]
    fn none(&mut self, o: usize) {
        if self.defer[o] != 0 {
            self.out[o] = SlotRecord::default();
        }
    }
}

/// The sink of a single chunk (one thread), which defers nothing: the owner sink without
/// its per-slot test.
pub(crate) struct SharedLoadsSink<'a> {
    pub loads: SharedLoads<'a>,
}

impl ForceSink for SharedLoadsSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        self.loads.fit(n);
    }

    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, f: &ContactForce) {
        self.loads.add_i(i, f);
        self.loads.add_j(j, f);
    }

    #[inline(always)]
    fn prefetch(&self, p: usize) {
        self.loads.prefetch(p);
    }
}

impl WallSink for SharedLoadsSink<'_> {
    /// A wall's force, as the serial step adds it (after the particle's pair forces).
    #[inline(always)]
    fn wall(&mut self, p: usize, f: &ContactForce) {
        self.loads.add_i(p, f);
    }
}

/// Continue the folds of the particles in `fix` (a piece from [`OwnerPlan::fix_piece`])
/// with their deferred slots' forces, in slot order (`slot_force`: the records of the
/// slots from `from` on, [`OwnerPlan::records_from`]).
pub(crate) fn fix_up(fix: &[u64], (slot_force, from): (&[SlotRecord], usize), loads: &SharedLoads) {
    let mut k = 0;
    while k < fix.len() {
        let p = (fix[k] >> 32) as usize;
        let mut v = loads.get(p);
        while k < fix.len() && (fix[k] >> 32) as usize == p {
            let e = fix[k] as u32;
            let add = record_load(&slot_force[(e >> 1) as usize - from], e & 1 != 0);
            for (v, a) in v.iter_mut().zip(add) {
                *v += a;
            }
            k += 1;
        }
        loads.set(p, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use talus_kernels::math::{ANG, DIM};

    /// The serial fold, and the owner scheme run chunk by chunk in a shuffled chunk order
    /// (as threads would claim them) followed by the fix-up: bitwise equal.
    #[test]
    fn owner_fold_equals_serial_fold() {
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let n = 300;
        for (threads, min_chunk) in [(1, 1), (2, 1), (2, 7), (3, 64), (8, 2), (2, 5000)] {
            let slots = 2000;
            let (mut ci, mut cj) = (Vec::new(), Vec::new());
            for _ in 0..slots {
                if rnd() % 10 == 0 {
                    ci.push(FREE);
                    cj.push(FREE);
                    continue;
                }
                let a = (rnd() % n as u64) as u32;
                let b = (a + 1 + (rnd() % (n as u64 - 1)) as u32) % n as u32;
                ci.push(a.min(b));
                cj.push(a.max(b));
            }
            let forces: Vec<Option<ContactForce>> = (0..slots)
                .map(|_| {
                    let v = |r: u64| (r % 2001) as f64 / 7.0 - 140.0 + 1e-9 * (r % 97) as f64;
                    (rnd() % 5 != 0).then(|| ContactForce {
                        f: std::array::from_fn(|_| v(rnd())),
                        ti: std::array::from_fn(|_| v(rnd())),
                        tj: std::array::from_fn(|_| v(rnd())),
                        overlap: 0.0,
                    })
                })
                .collect();
            // The serial fold as the pair loop writes it: i gets the force and its
            // torque, j the opposite force and its own torque.
            let serial_of = |ci: &[u32], cj: &[u32], forces: &[Option<ContactForce>]| {
                let mut serial: [Vec<f64>; LOADS] = std::array::from_fn(|_| vec![0.0; n]);
                for o in 0..ci.len() {
                    if let (Some(f), false) = (&forces[o], ci[o] == FREE) {
                        let (i, j) = (ci[o] as usize, cj[o] as usize);
                        let (force, torque) = serial.split_at_mut(DIM);
                        for (s, f) in force.iter_mut().zip(f.f) {
                            s[i] += f;
                            s[j] -= f;
                        }
                        for (s, (ti, tj)) in torque.iter_mut().zip(f.ti.into_iter().zip(f.tj)) {
                            s[i] += ti;
                            s[j] += tj;
                        }
                    }
                }
                serial
            };
            // A table as waves with a tail find it: the first 1,500 live slots sorted by
            // pair, the other live ones after them as appended.
            const HEAD: usize = 1500;
            let (sorted_ci, sorted_cj, sorted_forces) = {
                let live: Vec<usize> = (0..slots).filter(|&o| ci[o] != FREE).collect();
                let mut order = live.clone();
                order[..HEAD].sort_by_key(|&o| (ci[o], cj[o]));
                (
                    order.iter().map(|&o| ci[o]).collect::<Vec<u32>>(),
                    order.iter().map(|&o| cj[o]).collect::<Vec<u32>>(),
                    order.iter().map(|&o| forces[o]).collect::<Vec<_>>(),
                )
            };
            let thirds = [0, n / 3, 2 * n / 3, n];
            let tail_waves = thirds.map(|q| match q {
                q if q == n => HEAD,
                q => sorted_ci[..HEAD].partition_point(|&i| (i as usize) < q),
            });
            // One wave (extended or not), three waves, and three waves with a tail.
            for (extended, waves, particles, tailed) in [
                (false, vec![0, slots], vec![0, n], false),
                (true, vec![0, slots], vec![0, n], false),
                (false, vec![0, 700, 1400, slots], thirds.to_vec(), false),
                (false, tail_waves.to_vec(), thirds.to_vec(), true),
            ] {
                let (ci, cj, forces) = if tailed {
                    (&sorted_ci[..], &sorted_cj[..], &sorted_forces[..])
                } else {
                    (&ci[..], &cj[..], &forces[..])
                };
                let slots = ci.len();
                let serial = serial_of(ci, cj, forces);
                let mut plan = OwnerPlan::default();
                // The plan on pools of 1 to 3 threads: it depends on the chunks alone.
                let mut pool = Pool::new(&vec![None; 1 + threads % 3]).unwrap();
                if extended {
                    // Made for the first slots, then extended over the others as appended.
                    let cut = slots * 7 / 8;
                    let one = (&[0, cut][..], &[0, n][..]);
                    plan.prepare(&mut pool, (1, 1), (&ci[..cut], &cj[..cut]), n, threads, min_chunk, one)
                        .unwrap();
                    plan.prepare(&mut pool, (2, 1), (ci, cj), n, threads, min_chunk, (&waves, &particles))
                        .unwrap();
                } else {
                    plan.prepare(&mut pool, (1, 1), (ci, cj), n, threads, min_chunk, (&waves, &particles))
                        .unwrap();
                }
                let chunks = plan.bounds.len() - 1;
                assert_eq!(plan.waves.len(), waves.len());
                for (w, &c) in plan.waves.iter().enumerate() {
                    assert_eq!(plan.bounds[c], waves[w], "wave {w} starts at a chunk");
                }
                assert_eq!(plan.tail().is_empty(), !tailed);
                // Against the definition, slot by slot: a share is deferred when an earlier
                // chunk of the same wave holds a slot of the same particle; a tail's shares
                // all, into the wave of the particle.
                let wave_of = |p: u32| particles.partition_point(|&b| b <= p as usize) - 1;
                let mut seen = vec![usize::MAX; n];
                let mut fix = Vec::new();
                let mut tail_fix = Vec::new();
                for (c, w) in plan.bounds.windows(2).enumerate() {
                    if plan.waves.contains(&c) {
                        seen.fill(usize::MAX);
                    }
                    let in_tail = plan.tail().contains(&c);
                    for o in w[0]..w[1] {
                        let mut bits = 0;
                        if ci[o] != FREE {
                            for (side, p) in [(0u64, ci[o]), (1u64, cj[o])] {
                                let e = (u64::from(p) << 32) | ((o as u64) << 1) | side;
                                if in_tail {
                                    bits |= 1 << side;
                                    tail_fix.push(e);
                                    continue;
                                }
                                let s = &mut seen[p as usize];
                                *s = (*s).min(c);
                                if *s != c {
                                    bits |= 1 << side;
                                    fix.push(e);
                                }
                            }
                        }
                        assert_eq!(plan.defer[o], bits, "slot {o}");
                    }
                }
                // Sorted by particle within each wave.
                let mut sorted = Vec::new();
                for (k, w) in plan.waves.windows(2).enumerate() {
                    let (a, b) = (plan.bounds[w[0]], plan.bounds[w[1]]);
                    let at = sorted.len();
                    sorted.extend(fix.iter().filter(|&&e| (a..b).contains(&(((e as u32) >> 1) as usize))));
                    sorted.extend(tail_fix.iter().filter(|&&e| wave_of((e >> 32) as u32) == k));
                    sorted[at..].sort_unstable();
                }
                assert_eq!(plan.fix, sorted);
                if waves.len() == 2 {
                    assert_eq!(chunks == 1, plan.fix.is_empty(), "one chunk defers nothing");
                }
                let from = plan.records_from();
                let mut slot_force = vec![[f64::NAN; DIM + 2 * ANG]; slots - from];
                let mut out: [Vec<f64>; LOADS] = std::array::from_fn(|_| vec![0.0; n]);
                let loads = SharedLoads::new(out.each_mut().map(|v| &mut v[..]));
                // The tail's chunks, then wave after wave: its chunks in a shuffled order
                // (as threads would claim them), then its fix-up.
                let run_chunks = |order: Vec<usize>, slot_force: &mut [SlotRecord]| {
                    for c in order {
                        let r = plan.bounds[c]..plan.bounds[c + 1];
                        let mut sink = OwnerSink {
                            defer: &plan.defer[r.clone()],
                            // A chunk below `from` defers nothing.
                            out: if r.start >= from {
                                &mut slot_force[r.start - from..r.end - from]
                            } else {
                                &mut []
                            },
                            loads,
                        };
                        for o in r.clone() {
                            match (&forces[o], ci[o] == FREE) {
                                (Some(f), false) => sink.add(o - r.start, ci[o] as usize, cj[o] as usize, f),
                                _ => sink.none(o - r.start),
                            }
                        }
                    }
                };
                run_chunks(plan.tail().collect(), &mut slot_force);
                for (wave, w) in plan.waves.windows(2).enumerate() {
                    let mut order: Vec<usize> = (w[0]..w[1]).collect();
                    for k in (1..order.len()).rev() {
                        order.swap(k, (rnd() % (k as u64 + 1)) as usize);
                    }
                    run_chunks(order, &mut slot_force);
                    let cuts = plan.particle_cuts(&mut pool, 3, wave, 0..n, &[], 1).unwrap();
                    for t in 0..3 {
                        fix_up(plan.fix_piece(wave, cuts[t]..cuts[t + 1]), (&slot_force, from), &loads);
                    }
                }
                for (a, b) in out.iter().zip(&serial) {
                    for p in 0..n {
                        assert_eq!(
                            a[p].to_bits(),
                            b[p].to_bits(),
                            "{threads} threads, chunks of >= {min_chunk}, extended {extended}, waves {waves:?}, tail {tailed}, particle {p}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn cuts_cover_the_particles_and_balance_the_work() {
        let plan = OwnerPlan {
            fix: [1u64, 1, 1, 2, 5, 5, 5, 5, 9, 9]
                .iter()
                .enumerate()
                .map(|(k, &p)| (p << 32) | k as u64)
                .collect(),
            fix_waves: vec![0, 10],
            ..Default::default()
        };
        let walls = [0u32, 3, 3, 4, 11];
        let mut pool = Pool::new(&[None, None]).unwrap();
        for threads in 1..6 {
            for weight in [0, 1, 3] {
                let cuts = plan
                    .particle_cuts(&mut pool, threads, 0, 0..12, &walls, weight)
                    .unwrap();
                assert_eq!((cuts.len(), cuts[0], cuts[threads]), (threads + 1, 0, 12));
                assert!(cuts.windows(2).all(|w| w[0] <= w[1]), "{cuts:?}");
                let pieces: Vec<&[u64]> = cuts.windows(2).map(|w| plan.fix_piece(0, w[0]..w[1])).collect();
                let joined: Vec<u64> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
                assert_eq!(joined, plan.fix, "every entry once, in order");
                for (w, piece) in cuts.windows(2).zip(&pieces) {
                    assert!(piece.iter().all(|&e| (w[0]..w[1]).contains(&((e >> 32) as usize))));
                }
                // No share exceeds its due by more than the largest single particle's work.
                let cost = |a: usize, b: usize| {
                    plan.fix
                        .iter()
                        .filter(|&&e| (a..b).contains(&((e >> 32) as usize)))
                        .count()
                        + weight * walls.iter().filter(|&&p| (a..b).contains(&(p as usize))).count()
                };
                let total = cost(0, 12);
                let heaviest = (0..12).map(|q| cost(q, q + 1)).max().unwrap();
                for w in cuts.windows(2) {
                    assert!(
                        cost(w[0], w[1]) <= total.div_ceil(threads) + heaviest,
                        "{threads} {weight} {cuts:?}"
                    );
                }
            }
        }
    }
}
