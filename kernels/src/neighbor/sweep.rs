//! Incremental sort-and-sweep (Schinner 1999, section 3; Chen & Matuttis 2013, Appendix A).
//!
//! Per axis, a flat array of bounding-box ends kept sorted between updates by insertion
//! sort: particles move little per update, so the array is nearly sorted and the sort
//! costs O(N + swaps). Each swap of a begin and an end of two different particles is the
//! only moment their overlap on that axis can change, so the candidate pair set is
//! updated from the swaps alone (Schinner, Table 3):
//!
//! | swap (moving left past)  | this axis            | action                                      |
//! |--------------------------|----------------------|---------------------------------------------|
//! | begin/begin, end/end     | unchanged            | nothing                                     |
//! | begin passes an end      | overlap may start    | add, if the boxes now overlap on all axes   |
//! | end passes a begin       | overlap ends         | remove, if the pair can be in the set       |
//!
//! A pair found on x is registered if the boxes overlap on y (and z) *now*; one found on y
//! only if the boxes already overlapped on x *before* this update (and on z now); one found
//! on z only if they overlapped on x and y before (Chen & Matuttis, Appendix A.2, for any
//! number of axes). That way a pair that starts to overlap on several axes in one update is
//! added exactly once,
//! and additions never need a duplicate search. Additions and removals are collected and
//! applied by the caller, additions first: a pair added on y whose x overlap ended in the
//! same update also received a removal on x.
//!
//! The "overlap now" checks use the new boxes explicitly, so a particle that jumps across
//! another within one update (both of its relations flip) is not added.
//!
//! The ends' tags and keys and the sort with its rules are in `sweep_sort.rs`.
use super::sweep_sort::{
    idx, is_end, key, ordered_pair, overlap_axis, stored_key, tag, SortPiece, SwapRules, IDX_MASK, PIECE,
};
use super::{boxes_overlap, rounded_box, Aabb, BoxSource, DIM, EMPTY_BOX};

/// Largest particle index a key can hold.
pub const MAX_PARTICLES: usize = IDX_MASK as usize;

/// Counters of the work done, for the run summary and the benchmarks.
#[derive(Debug, Default, Clone, Copy)]
pub struct SweepStats {
    /// Incremental updates (insertion-sort passes over both axes).
    pub updates: u64,
    /// Full rebuilds (full sort plus sweep).
    pub rebuilds: u64,
    /// Swaps performed by the insertion sorts.
    pub swaps: u64,
}

/// The incremental sort-and-sweep broad phase, on the build's two or three axes.
#[derive(Debug, Default, Clone)]
pub struct SweepAndPrune {
    /// The box ends per axis (their tags: kind and particle), sorted by their values in
    /// `boxes` (`sweep_sort.rs`).
    ends: [Vec<u32>; DIM],
    /// Rounded enlarged boxes of the last update (the set is consistent with these). During
    /// an update they are the *old* boxes the rules need.
    boxes: Vec<Aabb>,
    /// The new rounded boxes per axis, [lo, hi], staged in one sequential pass before the
    /// axes are sorted (split between threads on the pool), and read by both axis sorts:
    /// each end's value comes from its own axis' array, a swap of a begin and an end the
    /// two particles' new boxes from all of them. The sort visits the ends in sorted
    /// order, so its reads are scattered: 8-byte records put eight particles in a cache
    /// line (at 10^6 discs the reads of the values were three quarters of the sort,
    /// waiting on memory). Empty until the first update.
    staged_axis: [Vec<[f32; 2]>; DIM],
    /// Changes found by each piece of the axes' sorts (x's pieces first, each axis in
    /// order), merged into `adds` and `removes` in that order, then each axis' seams: the
    /// same order whatever ran the pieces (the pieces are cut by a fixed length).
    piece_adds: Vec<Vec<(u32, u32)>>,
    piece_removes: Vec<Vec<(u32, u32)>>,
    piece_swaps: Vec<u64>,
    /// Pairs that started to overlap in the last update (each once, none present before).
    pub adds: Vec<(u32, u32)>,
    /// Pairs that may have stopped overlapping (apply after `adds`; absent pairs are no-ops).
    pub removes: Vec<(u32, u32)>,
    /// Counters of the work done.
    pub stats: SweepStats,
}

impl SweepAndPrune {
    /// An empty sweep; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of particles known to the sweep.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// Whether the sweep knows no particle.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The enlarged boxes of the last update or rebuild. While every particle's true box
    /// lies inside its entry here, the pair set is complete and no update is needed.
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// Bytes held by the sweep's arrays (capacity), for the memory report.
    pub fn memory_bytes(&self) -> usize {
        self.ends.iter().map(|e| e.capacity() * 4).sum::<usize>()
            + self.boxes.capacity() * std::mem::size_of::<Aabb>()
            + self.staged_axis.iter().map(|s| s.capacity() * 8).sum::<usize>()
            + (self.adds.capacity() + self.removes.capacity()) * 8
            + self
                .piece_adds
                .iter()
                .chain(&self.piece_removes)
                .map(|v| v.capacity() * 8)
                .sum::<usize>()
    }

    /// Full sort of all ends and a full sweep: the complete pair set, sorted, into `pairs`.
    /// Used on the first step and after large rearrangements.
    pub fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        let n = src.len();
        assert!(n <= MAX_PARTICLES, "sweep: at most {MAX_PARTICLES} particles");
        self.boxes.clear();
        self.boxes.shrink_to(n);
        self.boxes.reserve_exact(n);
        self.boxes.extend((0..n).map(|p| rounded_box(src.bbox(p))));
        // The keys of one axis at a time, sorted, then their tags kept: 8 bytes an end for
        // the length of the sort.
        let mut keys = Vec::new();
        for axis in 0..DIM {
            sorted_keys(&self.boxes, axis, &mut keys);
            // Exactly the room needed: particles appended one by one (`push_particle`) grew
            // these arrays by doubling, up to twice their length at 10^5-10^6 particles.
            let ends = &mut self.ends[axis];
            ends.clear();
            ends.shrink_to(2 * n);
            ends.reserve_exact(2 * n);
            ends.extend(keys.iter().map(|&k| k as u32));
        }
        self.stats.rebuilds += 1;
        self.adds.clear();
        self.removes.clear();
        self.full_sweep(pairs);
        // The staged boxes are sized anew, exactly, by the next update.
        self.staged_axis = Default::default();
    }

    /// Continue from saved boxes and their sorted ends (a restart: no sort, one pass per
    /// axis to check that every end is where it must be). Empty `ends`: sort them anew.
    /// No search: the sweep reports a pair as added only when its old boxes did not
    /// overlap, so a table whose pairs all overlap (checked by the caller) never meets an
    /// addition it already holds.
    pub fn restore(&mut self, boxes: &[Aabb], ends: [&[u32]; DIM]) -> Result<(), String> {
        let n = boxes.len();
        if n > MAX_PARTICLES {
            return Err(format!("boxes: {n} boxes, the sweep takes at most {MAX_PARTICLES}"));
        }
        super::check_stored_boxes(boxes)?;
        let mut keys = Vec::new();
        for (axis, saved) in ends.into_iter().enumerate() {
            if saved.is_empty() {
                sorted_keys(boxes, axis, &mut keys);
                self.ends[axis] = keys.iter().map(|&k| k as u32).collect();
                continue;
            }
            let axis_name = ["x", "y", "z"][axis];
            if saved.len() != 2 * n {
                return Err(format!(
                    "ends.{axis_name}: {} box ends for {n} boxes (expected {})",
                    saved.len(),
                    2 * n
                ));
            }
            // Each end once, and in order of value and kind. Not necessarily of particle
            // index: a renumbering keeps the order of ends of equal value and kind
            // (swapping those changes no pair, so the next update's sort may order them as
            // it likes), and the saved order is kept as it is, so that the run goes on
            // exactly as it would have.
            let mut seen = vec![0u8; n];
            let mut last = 0u64;
            for (r, &t) in saved.iter().enumerate() {
                let p = idx(t);
                let bit = 1 + is_end(t) as u8;
                let fresh = p < n && seen[p] & bit == 0;
                let k = if p < n { stored_key(boxes, axis, t) >> 31 } else { 0 };
                if !fresh || (r > 0 && k < last) {
                    return Err(format!(
                        "ends.{axis_name}: box end {r} ({t:#010x}) is not a particle's, is there twice or is out of order"
                    ));
                }
                seen[p] |= bit;
                last = k;
            }
            self.ends[axis] = saved.to_vec();
        }
        self.boxes = boxes.to_vec();
        // Sized by the next update, as after a rebuild.
        self.staged_axis = Default::default();
        self.adds.clear();
        self.removes.clear();
        Ok(())
    }

    /// Sweep along the axis on which fewer boxes are open at a time, testing the other
    /// axis against the open set.
    fn full_sweep(&mut self, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let n = self.boxes.len();
        if n == 0 {
            return;
        }
        // Expected open-set size on an axis ~ sum of box lengths / extent of all boxes.
        // Empty boxes (removed particles) overlap nothing and are left out.
        let empty = |b: &Aabb| !(0..DIM).all(|a| b[2 * a] <= b[2 * a + 1]);
        let mut len = [0.0f64; DIM];
        let mut longest = [0.0f64; DIM];
        let mut lo = [f64::INFINITY; DIM];
        let mut hi = [f64::NEG_INFINITY; DIM];
        for b in self.boxes.iter().filter(|b| !empty(b)) {
            for a in 0..DIM {
                let l = (b[2 * a + 1] - b[2 * a]) as f64;
                len[a] += l;
                longest[a] = longest[a].max(l);
                lo[a] = lo[a].min(b[2 * a] as f64);
                hi[a] = hi[a].max(b[2 * a + 1] as f64);
            }
        }
        if lo[0] > hi[0] {
            return;
        }
        let open = |a: usize| len[a] / (hi[a] - lo[a]).max(f64::MIN_POSITIVE);
        // The first axis of the smallest (the lower axis at a tie, as two axes compare).
        let axis = (1..DIM).fold(0, |best, a| if open(a) < open(best) { a } else { best });
        // The open set is binned by a grid over the other axes, so a begin meets only the
        // open boxes of its own and the neighbouring cells: on one axis sweeping a 3D bed
        // of 583,200 spheres, the open set held ~3,000 boxes at every begin (18 s). Boxes
        // that overlap on an axis have lower ends at most one box length apart; cells of
        // 1.5 lengths put them in the same or adjacent cells whatever the rounding of the
        // cell index. Which pairs are found is the sweep's alone (the same test), so the
        // set is exactly the unbinned sweep's.
        let others: Vec<usize> = (0..DIM).filter(|&a| a != axis).collect();
        let per_axis = (n as f64).powf(1.0 / others.len().max(1) as f64).max(1.0);
        let mut cell = [0.0f64; DIM];
        let mut count = [1usize; DIM];
        for &o in &others {
            let extent = hi[o] - lo[o];
            let width = (1.5 * longest[o]).max(extent / per_axis);
            if width > 0.0 && extent > 0.0 {
                cell[o] = width;
                count[o] = ((extent / width).floor() as usize + 1).min(per_axis as usize + 1);
            }
        }
        let cell_of = |b: &Aabb, o: usize| -> usize {
            if cell[o] == 0.0 {
                return 0;
            }
            (((b[2 * o] as f64 - lo[o]) / cell[o]).floor().max(0.0) as usize).min(count[o] - 1)
        };
        let flat = |c: &[usize; DIM]| others.iter().fold(0, |f, &o| f * count[o] + c[o]);
        let cells = others.iter().map(|&o| count[o]).product::<usize>();
        let mut open_in: Vec<Vec<u32>> = vec![Vec::new(); cells];
        // Each open box's cell and place in the cell's list.
        let mut pos = vec![u32::MAX; n];
        let mut home = vec![0u32; n];
        for &k in &self.ends[axis] {
            let p = idx(k);
            let bp = &self.boxes[p];
            if empty(bp) {
                continue;
            }
            if is_end(k) {
                let list = &mut open_in[home[p] as usize];
                let at = pos[p] as usize;
                list.swap_remove(at);
                if at < list.len() {
                    pos[list[at] as usize] = at as u32;
                }
                continue;
            }
            let mut c = [0usize; DIM];
            for &o in &others {
                c[o] = cell_of(bp, o);
            }
            // Every cell within one of the begin's on each other axis.
            let mut near = [0usize; DIM];
            for &o in &others {
                near[o] = c[o].saturating_sub(1);
            }
            'cells: loop {
                for &q in &open_in[flat(&near)] {
                    let bq = &self.boxes[q as usize];
                    if (0..DIM).all(|o| o == axis || overlap_axis(bp, bq, o)) {
                        pairs.push(ordered_pair(p, q as usize));
                    }
                }
                // The next cell of the neighbourhood, the last other axis fastest.
                for &o in others.iter().rev() {
                    if near[o] < (c[o] + 1).min(count[o] - 1) {
                        near[o] += 1;
                        continue 'cells;
                    }
                    near[o] = c[o].saturating_sub(1);
                }
                break;
            }
            let h = flat(&c);
            home[p] = h as u32;
            pos[p] = open_in[h].len() as u32;
            open_in[h].push(p as u32);
        }
        pairs.sort_unstable();
    }

    /// Incremental update: recompute all box ends from `src`, insertion-sort both axes and
    /// collect the changes of the pair set into `adds` and `removes`.
    pub fn update<B: BoxSource>(&mut self, src: &B) {
        let n = src.len();
        self.staging(n).fill(src, 0);
        for mut piece in self.pieces(n) {
            piece.run();
        }
        self.finish_update();
    }

    /// The arrays of new boxes to fill ([`Staging::fill`], whole or in pieces) before
    /// [`SweepAndPrune::pieces`].
    pub fn staging(&mut self, n: usize) -> Staging<'_> {
        assert_eq!(
            n,
            self.boxes.len(),
            "sweep: particle count changed without insert/renumber"
        );
        for s in &mut self.staged_axis {
            s.resize(n, [0.0; 2]);
        }
        Staging {
            axes: self.staged_axis.each_mut().map(|s| &mut s[..]),
        }
    }

    /// The parts of an incremental update that may run at the same time: each axis' ends
    /// cut into pieces of `PIECE` (2^14) ends, each piece keyed anew and insertion-sorted on
    /// its own (Chen & Matuttis 2013, Appendix A.2: a pass checks the axes after its own
    /// for overlap *now* and those before it for overlap *before*, so none needs another's
    /// result). Stage the new boxes ([`SweepAndPrune::staging`]), run them all, then
    /// [`SweepAndPrune::finish_update`], which sorts the seams; `update` does exactly that
    /// on one thread. Any sort by swaps of neighbours in the wrong order swaps the same
    /// pairs of ends, so the pair changes are those of one insertion sort of each axis.
    pub fn pieces(&mut self, n: usize) -> Vec<SortPiece<'_>> {
        assert!(
            n == self.boxes.len() && self.staged_axis.iter().all(|s| s.len() == n),
            "sweep: particle count changed without insert/renumber, or boxes not staged"
        );
        let count: usize = self.ends.iter().map(|e| pieces_of(e)).sum();
        self.piece_adds.resize_with(count, Vec::new);
        self.piece_removes.resize_with(count, Vec::new);
        self.piece_swaps.resize(count, 0);
        let old = &self.boxes[..];
        let new: [&[[f32; 2]]; DIM] = self.staged_axis.each_ref().map(|s| &s[..]);
        let mut adds = self.piece_adds.iter_mut();
        let mut removes = self.piece_removes.iter_mut();
        let mut swaps = self.piece_swaps.iter_mut();
        let mut pieces = Vec::with_capacity(count);
        for (axis, ends) in self.ends.iter_mut().enumerate() {
            for segment in ends.chunks_mut(PIECE) {
                pieces.push(SortPiece {
                    ends: segment,
                    rules: SwapRules {
                        axis,
                        old,
                        new,
                        adds: adds.next().expect("one list per piece"),
                        removes: removes.next().expect("one list per piece"),
                        swaps: 0,
                    },
                    swaps: swaps.next().expect("one count per piece"),
                });
            }
        }
        pieces
    }

    /// Sort each axis' seams between its pieces, merge the changes found (x first, each
    /// axis' pieces in order, then its seams) and store the new boxes.
    pub fn finish_update(&mut self) {
        self.adds.clear();
        self.removes.clear();
        let mut k = 0;
        for axis in 0..DIM {
            let ends = &mut self.ends[axis];
            let m = ends.len();
            let pieces = pieces_of(ends);
            for _ in 0..pieces {
                self.adds.append(&mut self.piece_adds[k]);
                self.removes.append(&mut self.piece_removes[k]);
                self.stats.swaps += std::mem::take(&mut self.piece_swaps[k]);
                k += 1;
            }
            let mut rules = SwapRules {
                axis,
                old: &self.boxes,
                new: self.staged_axis.each_ref().map(|s| &s[..]),
                adds: &mut self.adds,
                removes: &mut self.removes,
                swaps: 0,
            };
            for seam in (1..pieces).map(|q| q * PIECE) {
                rules.sort_seam(ends, seam, (seam + PIECE).min(m));
            }
            self.stats.swaps += rules.swaps;
        }
        // Only now may the stored boxes change: the later axes' passes needed the old
        // boxes of the earlier axes.
        for (p, b) in self.boxes.iter_mut().enumerate() {
            for (a, s) in self.staged_axis.iter().enumerate() {
                [b[2 * a], b[2 * a + 1]] = s[p];
            }
        }
        self.stats.updates += 1;
    }

    /// Append a particle (index = current length). It enters the pair set at the next
    /// `update`; until then its stored box is empty, so every rule sees it as new.
    pub fn push_particle(&mut self) {
        let p = self.boxes.len();
        assert!(p < MAX_PARTICLES, "sweep: at most {MAX_PARTICLES} particles");
        self.boxes.push(EMPTY_BOX);
        self.staged_axis.iter_mut().for_each(|s| s.push([0.0; 2]));
        // At the top, where the next update's sort takes them from.
        for ends in &mut self.ends {
            ends.push(tag(false, p as u32));
            ends.push(tag(true, p as u32));
        }
    }

    /// Renumber particles after the store was compacted: `map[old] = new`, or `u32::MAX`
    /// for a removed particle. Ends of removed particles are dropped. Pairs of removed
    /// particles are the caller's to drop from its table. Order is preserved, except
    /// among ends of equal value and equal kind, which produce no events when the next
    /// insertion sort puts them back in index order.
    pub fn renumber(&mut self, map: &[u32]) {
        assert_eq!(map.len(), self.boxes.len());
        let kept = map.iter().filter(|&&m| m != u32::MAX).count();
        for ends in &mut self.ends {
            ends.retain_mut(|t| {
                let new = map[idx(*t)];
                *t = (*t & !IDX_MASK) | new;
                new != u32::MAX
            });
        }
        let mut nb = vec![EMPTY_BOX; kept];
        for (old, &new) in map.iter().enumerate() {
            if new != u32::MAX {
                nb[new as usize] = self.boxes[old];
            }
        }
        self.boxes = nb;
        self.staged_axis.iter_mut().for_each(|s| s.truncate(kept));
    }
}

/// The new boxes of an update, or a piece of them (see [`SweepAndPrune::staging`]).
pub struct Staging<'a> {
    axes: [&'a mut [[f32; 2]]; DIM],
}

impl<'a> Staging<'a> {
    /// Pieces of the given lengths, one after another (for threads to fill).
    pub fn split(self, lens: impl Iterator<Item = usize>) -> Vec<Staging<'a>> {
        let mut rest = self.axes;
        let mut out = Vec::new();
        for len in lens {
            let mut piece = rest.each_mut().map(|_| Default::default());
            for (a, r) in rest.iter_mut().enumerate() {
                let (head, tail) = std::mem::take(r).split_at_mut(len);
                piece[a] = head;
                *r = tail;
            }
            out.push(Staging { axes: piece });
        }
        out
    }

    /// The new rounded boxes of particles `start..`, as many as this piece holds.
    pub fn fill<B: BoxSource>(&mut self, src: &B, start: usize) {
        let len = self.axes[0].len();
        for k in 0..len {
            let r = rounded_box(src.bbox(start + k));
            for (a, s) in self.axes.iter_mut().enumerate() {
                s[k] = [r[2 * a], r[2 * a + 1]];
            }
        }
    }
}

/// Pieces of an axis' sort: its ends, [`PIECE`] at a time.
fn pieces_of(ends: &[u32]) -> usize {
    ends.len().div_ceil(PIECE)
}

/// The keys of every end of `boxes` on `axis`, sorted, into `keys`.
fn sorted_keys(boxes: &[Aabb], axis: usize, keys: &mut Vec<u64>) {
    keys.clear();
    keys.reserve_exact(2 * boxes.len());
    for p in 0..boxes.len() as u32 {
        keys.push(stored_key(boxes, axis, tag(false, p)));
        keys.push(stored_key(boxes, axis, tag(true, p)));
    }
    keys.sort_unstable();
}

impl super::NeighborSearch for SweepAndPrune {
    fn name(&self) -> &'static str {
        "sweep"
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        SweepAndPrune::rebuild(self, src, pairs);
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        self.update(src);
        adds.clear();
        adds.extend_from_slice(&self.adds);
        removes.clear();
        removes.extend_from_slice(&self.removes);
    }

    /// The begins on x up to the rectangle's right edge, each box then tested: O(the
    /// boxes left of the edge). The ends are in the order of their stored boxes' values,
    /// but for the empty boxes (a particle removed, or appended since the last update),
    /// which are skipped. Range queries are not what the sweep is for.
    fn query(&self, r: &Aabb, out: &mut Vec<u32>) {
        out.clear();
        let edge = key(r[1], tag(true, IDX_MASK));
        for &t in &self.ends[0] {
            let b = &self.boxes[idx(t)];
            if *b == EMPTY_BOX {
                continue;
            }
            if stored_key(&self.boxes, 0, t) > edge {
                break;
            }
            if !is_end(t) && boxes_overlap(b, r) {
                out.push(idx(t) as u32);
            }
        }
    }

    fn stored_boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    fn push_particle(&mut self) {
        SweepAndPrune::push_particle(self);
    }

    fn sorted_ends(&self) -> [&[u32]; DIM] {
        self.ends.each_ref().map(|e| &e[..])
    }

    fn restore(&mut self, boxes: &[Aabb], ends: [&[u32]; DIM]) -> Result<Option<usize>, String> {
        SweepAndPrune::restore(self, boxes, ends).map(|()| None)
    }

    fn renumber(&mut self, map: &[u32]) {
        SweepAndPrune::renumber(self, map);
    }

    fn memory_bytes(&self) -> usize {
        SweepAndPrune::memory_bytes(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outward_rounding_is_outward_and_tight() {
        use crate::neighbor::{round_down, round_up};
        let mut st = 99u64;
        for k in 0..100_000 {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = (st >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
            let v = m * 10f64.powi((k % 40) - 20);
            let (d, u) = (round_down(v), round_up(v));
            assert!((d as f64) <= v && (u as f64) >= v, "{v}: {d} {u}");
            let ulp = (v as f32).abs().max(f32::MIN_POSITIVE) * f32::EPSILON;
            assert!(
                (v - d as f64) <= 3.0 * ulp as f64 && (u as f64 - v) <= 3.0 * ulp as f64,
                "{v}"
            );
        }
    }

    #[test]
    fn ordered_bits_follow_float_order() {
        use super::super::sweep_sort::ordered;
        let v = [
            f32::NEG_INFINITY,
            -3.5,
            -1e-30,
            0.0,
            1e-30,
            2.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(ordered(w[0]) < ordered(w[1]), "{} {}", w[0], w[1]);
        }
    }

    /// The binned full sweep finds exactly the pairs of closed boxes that overlap on every
    /// axis: boxes on a coarse lattice (ends that touch exactly), points, one long box,
    /// removed particles, beds long along either axis.
    #[test]
    fn full_sweep_is_the_brute_force_set() {
        use crate::neighbor::{Box64, Boxes};
        let mut st = 7u64;
        let mut next = |m: u64| {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (st >> 33) % m
        };
        for case in 0..40 {
            let n = 1 + next(400) as usize;
            let long_axis = case % DIM;
            let boxes: Vec<Box64> = (0..n)
                .map(|p| {
                    if next(17) == 0 {
                        return std::array::from_fn(|k| if k % 2 == 0 { f64::INFINITY } else { f64::NEG_INFINITY });
                    }
                    let mut b = [0.0; 2 * DIM];
                    for a in 0..DIM {
                        let span = if a == long_axis { 200 } else { 12 };
                        let lo = next(span) as f64 * 0.25;
                        let len = if p == 3 && a != long_axis {
                            9.0
                        } else {
                            [0.0, 0.25, 0.5, 1.0][next(4) as usize]
                        };
                        b[2 * a] = lo;
                        b[2 * a + 1] = lo + len;
                    }
                    b
                })
                .collect();
            let mut s = SweepAndPrune::new();
            let mut pairs = Vec::new();
            s.rebuild(&Boxes(&boxes), &mut pairs);
            let stored = s.boxes();
            let mut brute = Vec::new();
            for i in 0..n {
                for j in i + 1..n {
                    if boxes_overlap(&stored[i], &stored[j]) {
                        brute.push((i as u32, j as u32));
                    }
                }
            }
            assert_eq!(pairs, brute, "case {case}, {n} boxes");
        }
    }

    /// Updates in pieces with seams (two pieces per axis), in this build's dimension: the
    /// maintained set equals a fresh rebuild's after each step of a random motion.
    #[test]
    fn pieced_updates_keep_the_rebuilt_set() {
        use std::collections::BTreeSet;
        let n = PIECE * 5 / 8;
        let mut st = 11u64;
        let mut next = || {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (st >> 11) as f64 / (1u64 << 53) as f64
        };
        let side = 2.0 * (n as f64).powf(1.0 / DIM as f64);
        let mut pos: Vec<Vec<f64>> = (0..DIM).map(|_| (0..n).map(|_| next() * side).collect()).collect();
        let r: Vec<f64> = (0..n).map(|_| 0.5 + 0.5 * next()).collect();
        let mut s = SweepAndPrune::new();
        let mut full = Vec::new();
        let boxes = |pos: &Vec<Vec<f64>>| -> Vec<crate::neighbor::Box64> {
            (0..n)
                .map(|p| std::array::from_fn(|k| pos[k / 2][p] + if k % 2 == 0 { -r[p] - 0.1 } else { r[p] + 0.1 }))
                .collect()
        };
        s.rebuild(&crate::neighbor::Boxes(&boxes(&pos)), &mut full);
        let mut set: BTreeSet<(u32, u32)> = full.into_iter().collect();
        for step in 0..6 {
            for axis in pos.iter_mut() {
                for x in axis.iter_mut() {
                    // Most move a little, one in twenty jumps across many neighbours.
                    let far = next() < 0.05;
                    *x += (next() - 0.5) * if far { side * 0.3 } else { 0.4 };
                }
            }
            let b = boxes(&pos);
            s.update(&crate::neighbor::Boxes(&b));
            for a in &s.adds {
                assert!(set.insert(*a), "step {step}: {a:?} added twice");
            }
            for rm in &s.removes {
                set.remove(rm);
            }
            let mut want = Vec::new();
            SweepAndPrune::new().rebuild(&crate::neighbor::Boxes(&b), &mut want);
            assert_eq!(set, want.into_iter().collect::<BTreeSet<_>>(), "step {step}");
        }
    }

    /// Two discs approaching diagonally start to overlap on both axes in one update: the
    /// pair must be added exactly once.
    #[cfg(not(feature = "dim3"))]
    #[test]
    fn diagonal_approach_adds_once() {
        use crate::neighbor::BallBoxes;
        let r = [1.0, 1.0];
        let mut s = SweepAndPrune::new();
        let mut pairs = Vec::new();
        let (x, y) = ([0.0, 3.0], [0.0, 3.0]);
        s.rebuild(
            &BallBoxes {
                pos: [&x, &y],
                radius: &r,
                margin: 0.0,
            },
            &mut pairs,
        );
        assert!(pairs.is_empty());
        let (x, y) = ([0.0, 1.5], [0.0, 1.5]);
        s.update(&BallBoxes {
            pos: [&x, &y],
            radius: &r,
            margin: 0.0,
        });
        assert_eq!(s.adds, vec![(0, 1)]);
        // Now one jumps across the other along x in one update: removal only.
        let (x, y) = ([0.0, -3.0], [0.0, 1.5]);
        s.update(&BallBoxes {
            pos: [&x, &y],
            radius: &r,
            margin: 0.0,
        });
        assert!(s.adds.is_empty());
        assert_eq!(s.removes, vec![(0, 1)]);
    }
}
