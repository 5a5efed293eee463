//! Broad phase: which pairs of particles may touch.
//!
//! Every method works on axis-aligned bounding boxes ([`Aabb`]: two ends per axis, two or
//! three axes by the build's dimension) handed to it through [`BoxSource`]
//! and keeps the *candidate pair set*: all pairs (i < j) whose (enlarged) boxes overlap.
//! The boxes are rounded outward to `f32` (see [`rounded_box`]) so that a box end and
//! its particle index pack into one `u64` sort key; the rounding only ever grows a box,
//! so no touching pair is lost.
/// The four accessors of [`WholeSet`] for a method with fields `boxes` and `set`.
macro_rules! kept_fields {
    () => {
        fn boxes(&self) -> &Vec<$crate::math::Aabb> {
            &self.boxes
        }
        fn boxes_mut(&mut self) -> &mut Vec<$crate::math::Aabb> {
            &mut self.boxes
        }
        fn set(&self) -> &PairSet {
            &self.set
        }
        fn set_mut(&mut self) -> &mut PairSet {
            &mut self.set
        }
    };
}

pub mod brute;
#[cfg(not(feature = "dim3"))]
pub mod bvh;
pub mod cells;
#[cfg(not(feature = "dim3"))]
pub mod dess;
#[cfg(not(feature = "dim3"))]
pub mod hashing;
pub mod images;
pub mod near_pairs;
pub mod quadtree;
#[cfg(not(feature = "dim3"))]
pub mod striped;
pub mod sweep;
mod sweep_sort;
pub mod verlet;

pub use crate::math::{Aabb, Box64, DIM};
pub use brute::{brute_force_pairs, BruteForce};
#[cfg(not(feature = "dim3"))]
pub use bvh::BoundingVolumes;
pub use cells::LinkedCells;
#[cfg(not(feature = "dim3"))]
pub use dess::Dess;
#[cfg(not(feature = "dim3"))]
pub use hashing::SpatialHash;
pub use images::{ImagedBoxes, MinImage, PeriodicCell, PeriodicImages};
pub use quadtree::{Quadtree, SearchScratch};
#[cfg(not(feature = "dim3"))]
pub use striped::StripedSort;
pub use sweep::SweepAndPrune;
pub use sweep_sort::SortPiece;
pub use verlet::VerletLists;

/// What every neighbour-search method offers (Perkins, thesis ch. 3.1): set up once, bring
/// the candidate pair set up to date each step, report each pair once, answer range
/// queries. The step loop and the tests see only this.
///
/// The pair set is that of the *stored* boxes: `rounded_box(src.bbox(p))` at the last
/// `rebuild` or `refresh`; every method keeps exactly the same set (the brute-force
/// reference [`brute_force_pairs`] defines it).
pub trait NeighborSearch {
    /// Short name, as in scenario files and tables ("sweep", "quadtree", "cells").
    fn name(&self) -> &'static str;
    /// Start from nothing: store `src`'s boxes and put the complete pair set, sorted, each
    /// pair (i < j) once, into `pairs`.
    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>);
    /// Bring the pair set up to `src`'s current boxes (same number of particles as at the
    /// last rebuild): pairs that started to overlap into `adds` (each once, none already
    /// in the set), pairs that stopped into `removes`. Apply additions first: `removes` may
    /// name pairs that were never in the set (the sweep reports every end-passes-begin
    /// swap), and removing an absent pair must be a no-op.
    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>);
    /// Every particle whose stored box meets the closed rectangle `r` ([lo_x, hi_x, lo_y,
    /// hi_y (, lo_z, hi_z)]), each once, into `out` (cleared first), in no particular order.
    fn query(&self, r: &Aabb, out: &mut Vec<u32>);
    /// The stored boxes.
    fn stored_boxes(&self) -> &[Aabb];
    /// Append a particle (index = current count) with an empty stored box; it enters the
    /// pair set at the next `refresh`.
    fn push_particle(&mut self);
    /// Renumber after the caller compacted or reordered its particles: `map[old] = new`,
    /// or `u32::MAX` for a removed particle. The pair set is renumbered with them (pairs of
    /// removed particles dropped, as the caller drops them from its table).
    fn renumber(&mut self, map: &[u32]);
    /// Bytes held (capacity), for the memory report.
    fn memory_bytes(&self) -> usize;
    /// Sorted arrays that let a restart skip sorting again (the sweep's box ends, one
    /// array per axis); none for the other methods.
    fn sorted_ends(&self) -> [&[u32]; DIM] {
        [&[]; DIM]
    }
    /// Continue from `boxes` (and `ends`, from [`NeighborSearch::sorted_ends`]) saved from
    /// a method of the same kind (a restart): afterwards the method is as after the update
    /// that stored those boxes and its pair set is theirs, so the changes it reports from
    /// then on are the ones the saved run would have reported. Empty `ends`: sort anew.
    /// Returns the number of pairs in the set where restoring found it anyway (so that the
    /// caller can check its own table against it; the sweep does not search, and returns
    /// None). Saved arrays that do not fit together are an error, never a panic; its
    /// message starts with the array at fault, `boxes:` or `ends.x:` / `ends.y:`.
    fn restore(&mut self, boxes: &[Aabb], ends: [&[u32]; DIM]) -> Result<Option<usize>, String>;
}

/// A stored box is either [`EMPTY_BOX`] or finite with its ends in order: what a restart
/// checks of the boxes it is given.
pub fn check_stored_boxes(boxes: &[Aabb]) -> Result<(), String> {
    match boxes.iter().position(|b| {
        *b != EMPTY_BOX && !(b.iter().all(|v| v.is_finite()) && (0..DIM).all(|a| b[2 * a] <= b[2 * a + 1]))
    }) {
        Some(p) => Err(format!(
            "boxes: stored box of particle index {p} is not a box: {:?}",
            boxes[p]
        )),
        None => Ok(()),
    }
}

/// A method that finds the whole pair set anew at every refresh from an index of the
/// stored boxes (cells, hashing, DESS, striped sort, Verlet lists, the references). It says
/// how to index and how to search; the [`NeighborSearch`] bookkeeping around that (storing
/// the boxes, keeping the set and diffing it, growing, renumbering) is written once, below.
pub trait WholeSet {
    /// Short name, for [`NeighborSearch::name`].
    const NAME: &'static str;
    /// The stored boxes.
    fn boxes(&self) -> &Vec<Aabb>;
    /// The stored boxes, writable.
    fn boxes_mut(&mut self) -> &mut Vec<Aabb>;
    /// The kept pair set.
    fn set(&self) -> &PairSet;
    /// The kept pair set, writable.
    fn set_mut(&mut self) -> &mut PairSet;
    /// Index the boxes just stored; `fresh` after a rebuild (nothing earlier to reuse).
    fn index(&mut self, fresh: bool);
    /// The whole pair set of the indexed boxes, sorted, each pair once, into `out`.
    fn find(&self, out: &mut Vec<(u32, u32)>);
    /// [`NeighborSearch::query`] from the index (or a scan while there is none).
    fn query_index(&self, r: &Aabb, out: &mut Vec<u32>);
    /// The index no longer matches the particles (added or renumbered): the next refresh
    /// indexes afresh, and queries until then must not use it.
    fn forget(&mut self);
    /// Bytes held by the index (capacity).
    fn index_bytes(&self) -> usize;
}

impl<T: WholeSet> NeighborSearch for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        store_boxes(self.boxes_mut(), src);
        self.index(true);
        let mut set = std::mem::take(self.set_mut());
        set.rebuilt(pairs, |out| self.find(out));
        *self.set_mut() = set;
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        assert_eq!(
            src.len(),
            self.boxes().len(),
            "{}: particle count changed without push_particle",
            T::NAME
        );
        store_boxes(self.boxes_mut(), src);
        self.index(false);
        let mut set = std::mem::take(self.set_mut());
        set.refreshed(adds, removes, |out| self.find(out));
        *self.set_mut() = set;
    }

    fn query(&self, r: &Aabb, out: &mut Vec<u32>) {
        self.query_index(r, out);
    }

    fn stored_boxes(&self) -> &[Aabb] {
        self.boxes()
    }

    fn push_particle(&mut self) {
        self.boxes_mut().push(EMPTY_BOX);
        self.forget();
    }

    fn renumber(&mut self, map: &[u32]) {
        renumber_boxes(self.boxes_mut(), map);
        self.set_mut().renumber(map);
        self.forget();
    }

    fn memory_bytes(&self) -> usize {
        self.boxes().capacity() * std::mem::size_of::<Aabb>() + self.set().memory_bytes() + self.index_bytes()
    }

    fn restore(&mut self, boxes: &[Aabb], _ends: [&[u32]; DIM]) -> Result<Option<usize>, String> {
        check_stored_boxes(boxes)?;
        *self.boxes_mut() = boxes.to_vec();
        self.index(true);
        let mut set = std::mem::take(self.set_mut());
        set.rebuilt(&mut Vec::new(), |out| self.find(out));
        *self.set_mut() = set;
        Ok(Some(self.set().len()))
    }
}

/// Insertion sort of sort keys: O(N + moves) on a nearly sorted list, which is what the
/// keys of moving particles are from one step to the next. Returns the moves (swaps).
pub fn insertion_sort(keys: &mut [u64]) -> u64 {
    let mut moves = 0;
    for i in 1..keys.len() {
        let k = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > k {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        moves += (i - j) as u64;
        keys[j] = k;
    }
    moves
}

/// Every stored box that meets `r`, by a scan (the queries' fallback while an index is
/// being rebuilt, and the whole query of the methods without a spatial index).
pub fn scan_query(boxes: &[Aabb], r: &Aabb, out: &mut Vec<u32>) {
    out.clear();
    out.extend((0..boxes.len() as u32).filter(|&p| boxes_overlap(&boxes[p as usize], r)));
}

/// The changes between two sorted, duplicate-free pair lists: `adds` = new - old,
/// `removes` = old - new (one merge pass). For the methods that find the whole set anew.
pub fn diff_pairs(old: &[(u32, u32)], new: &[(u32, u32)], adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
    adds.clear();
    removes.clear();
    let (mut a, mut b) = (0, 0);
    while a < old.len() && b < new.len() {
        match old[a].cmp(&new[b]) {
            std::cmp::Ordering::Less => {
                removes.push(old[a]);
                a += 1;
            }
            std::cmp::Ordering::Greater => {
                adds.push(new[b]);
                b += 1;
            }
            std::cmp::Ordering::Equal => {
                a += 1;
                b += 1;
            }
        }
    }
    removes.extend_from_slice(&old[a..]);
    adds.extend_from_slice(&new[b..]);
}

/// The kept pair set of a method that finds the whole set anew at every refresh (cells,
/// hashing, DESS, Verlet lists, the references): the set and a spare buffer, and the
/// bookkeeping every such method shares.
#[derive(Debug, Default, Clone)]
pub struct PairSet {
    pairs: Vec<(u32, u32)>,
    spare: Vec<(u32, u32)>,
}

impl PairSet {
    /// Replace the set by what `find` writes (sorted, each pair once) and copy it to `out`.
    pub fn rebuilt(&mut self, out: &mut Vec<(u32, u32)>, find: impl FnOnce(&mut Vec<(u32, u32)>)) {
        find(&mut self.pairs);
        out.clear();
        out.extend_from_slice(&self.pairs);
    }

    /// Replace the set by what `find` writes and report the changes.
    pub fn refreshed(
        &mut self,
        adds: &mut Vec<(u32, u32)>,
        removes: &mut Vec<(u32, u32)>,
        find: impl FnOnce(&mut Vec<(u32, u32)>),
    ) {
        find(&mut self.spare);
        diff_pairs(&self.pairs, &self.spare, adds, removes);
        std::mem::swap(&mut self.pairs, &mut self.spare);
    }

    /// Pairs in the set.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the set holds no pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Renumber with the particles (see [`NeighborSearch::renumber`]).
    pub fn renumber(&mut self, map: &[u32]) {
        renumber_pairs(&mut self.pairs, map);
    }

    /// Bytes held (capacity of the set and of the spare buffer).
    pub fn memory_bytes(&self) -> usize {
        (self.pairs.capacity() + self.spare.capacity()) * 8
    }
}

/// The rounded boxes of `src` into `boxes`.
pub fn store_boxes<B: BoxSource>(boxes: &mut Vec<Aabb>, src: &B) {
    boxes.clear();
    boxes.extend((0..src.len()).map(|p| rounded_box(src.bbox(p))));
}

/// A pair list renumbered by `map` (see [`NeighborSearch::renumber`]), pairs of removed
/// particles dropped, re-sorted.
pub fn renumber_pairs(pairs: &mut Vec<(u32, u32)>, map: &[u32]) {
    pairs.retain_mut(|(i, j)| {
        let (a, b) = (map[*i as usize], map[*j as usize]);
        *i = a.min(b);
        *j = a.max(b);
        a != u32::MAX && b != u32::MAX
    });
    pairs.sort_unstable();
}

/// Boxes renumbered by `map`, removed ones dropped.
pub fn renumber_boxes(boxes: &mut Vec<Aabb>, map: &[u32]) {
    let kept = map.iter().filter(|&&m| m != u32::MAX).count();
    let mut nb = vec![EMPTY_BOX; kept];
    for (old, &new) in map.iter().enumerate() {
        if new != u32::MAX {
            nb[new as usize] = boxes[old];
        }
    }
    *boxes = nb;
}

/// Boxes given as they are (tests, and callers that have boxes at hand).
pub struct Boxes<'a>(pub &'a [Box64]);

impl BoxSource for Boxes<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn bbox(&self, p: usize) -> Box64 {
        self.0[p]
    }
}

/// Where the broad phase reads bounding boxes from: `[lo_x, hi_x, lo_y, hi_y (, lo_z,
/// hi_z)]` of particle `p`.
pub trait BoxSource {
    /// Number of particles.
    fn len(&self) -> usize;
    /// Whether there are no particles.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Box of particle `p`.
    fn bbox(&self, p: usize) -> Box64;
}

/// Boxes of balls (discs in 2D, spheres in 3D): centre +- (radius + margin) on every
/// axis. The margin is the Verlet skin.
pub struct BallBoxes<'a> {
    /// Centres, one array per axis (m).
    pub pos: [&'a [f64]; DIM],
    /// Radii (m).
    pub radius: &'a [f64],
    /// Added to every radius (m).
    pub margin: f64,
}

impl BoxSource for BallBoxes<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.radius.len()
    }
    #[inline]
    fn bbox(&self, p: usize) -> Box64 {
        let e = self.radius[p] + self.margin;
        std::array::from_fn(|k| {
            let c = self.pos[k / 2][p];
            if k % 2 == 0 {
                c - e
            } else {
                c + e
            }
        })
    }
}

/// An `f32` not above `v`, at most two `f32` ulps below it (negative zero becomes
/// positive zero, so that float comparison and the ordered-bits key agree).
///
/// Branch-free, so that it vectorises: subtracting |v| 2^-23 (at least one f32 ulp of v)
/// before rounding to nearest guarantees the result is not above v; the tiny absolute
/// term covers v near zero. (A compare-and-step version mispredicts half the time.)
#[inline]
pub fn round_down(v: f64) -> f32 {
    ((v - v.abs() * RELATIVE) - f32::MIN_POSITIVE as f64) as f32 + 0.0
}

/// An `f32` not below `v`, at most two `f32` ulps above it.
#[inline]
pub fn round_up(v: f64) -> f32 {
    ((v + v.abs() * RELATIVE) + f32::MIN_POSITIVE as f64) as f32 + 0.0
}

const RELATIVE: f64 = 1.0 / (1u64 << 23) as f64;

/// A box rounded outward to `f32`: the box every method uses, so that every method
/// (and the brute-force reference) reports exactly the same pair set.
#[inline]
pub fn rounded_box(b: Box64) -> Aabb {
    std::array::from_fn(|k| if k % 2 == 0 { round_down(b[k]) } else { round_up(b[k]) })
}

/// The box that overlaps nothing: given to particles that have just been inserted, so
/// that every rule treats them as "not overlapping anything before".
pub const EMPTY_BOX: Aabb = {
    let mut b = [f32::INFINITY; 2 * DIM];
    let mut a = 0;
    while a < DIM {
        b[2 * a + 1] = f32::NEG_INFINITY;
        a += 1;
    }
    b
};

/// Closed-interval overlap of two rounded boxes on every axis.
#[inline]
pub fn boxes_overlap(a: &Aabb, b: &Aabb) -> bool {
    let mut o = a[0] <= b[1] && b[0] <= a[1];
    for k in 1..DIM {
        o = o && a[2 * k] <= b[2 * k + 1] && b[2 * k] <= a[2 * k + 1];
    }
    o
}

/// Does the true (un-enlarged) box `b` still lie inside the stored enlarged box `s`?
/// When it does for every particle, the candidate pair set is still complete.
#[inline]
pub fn inside(b: Box64, s: &Aabb) -> bool {
    (0..DIM).all(|k| b[2 * k] >= s[2 * k] as f64 && b[2 * k + 1] <= s[2 * k + 1] as f64)
}

/// The methods of both builds against the brute-force reference, in the build's dimension:
/// random boxes of mixed sizes that jitter, drift and jump; after every refresh the kept
/// set (additions, then removals) is the brute-force set, no addition is already there,
/// and range queries find what a scan finds.
#[cfg(test)]
mod any_dimension {
    use super::*;
    use std::collections::BTreeSet;

    /// Uniform numbers in [0, 1) from a seed (xorshift64), for the tests of the methods.
    pub(crate) fn uniform(seed: u64) -> impl FnMut() -> f64 {
        let mut st = seed;
        move || {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            (st >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn check<M: NeighborSearch>(mut m: M) {
        let mut rnd = uniform(777);
        for (n, step) in [(80, 0.02), (400, 0.03), (150, 0.5)] {
            let mut c: Vec<[f64; DIM]> = (0..n).map(|_| std::array::from_fn(|_| rnd())).collect();
            let half: Vec<f64> = (0..n).map(|_| 0.01 + 0.05 * rnd() * rnd()).collect();
            let boxes = |c: &[[f64; DIM]]| -> Vec<Box64> {
                c.iter()
                    .zip(&half)
                    .map(|(c, h)| std::array::from_fn(|k| if k % 2 == 0 { c[k / 2] - h } else { c[k / 2] + h }))
                    .collect()
            };
            let mut pairs = Vec::new();
            m.rebuild(&Boxes(&boxes(&c)), &mut pairs);
            assert_eq!(pairs, brute_force_pairs(&Boxes(&boxes(&c))), "{}", m.name());
            let mut set: BTreeSet<(u32, u32)> = pairs.into_iter().collect();
            let (mut adds, mut removes, mut got, mut want) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for _ in 0..30 {
                for p in &mut c {
                    for x in p.iter_mut() {
                        *x += step * (rnd() - 0.5);
                    }
                }
                let b = boxes(&c);
                m.refresh(&Boxes(&b), &mut adds, &mut removes);
                for &a in &adds {
                    assert!(set.insert(a), "{}: {a:?} added twice", m.name());
                }
                for r in &removes {
                    set.remove(r);
                }
                let all: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&b)).into_iter().collect();
                assert_eq!(set, all, "{}: {DIM} axes, {n} boxes", m.name());
                let q: Aabb = rounded_box(std::array::from_fn(|k| if k % 2 == 0 { 0.3 } else { 0.6 }));
                m.query(&q, &mut got);
                scan_query(m.stored_boxes(), &q, &mut want);
                got.sort_unstable();
                assert_eq!(got, want, "{}: query", m.name());
            }
        }
    }

    #[test]
    fn every_method_of_the_build_keeps_the_brute_force_set() {
        check(BruteForce::new());
        check(SweepAndPrune::new());
        check(LinkedCells::new());
        check(VerletLists::new());
        check(Quadtree::new(None));
        check(Quadtree::with_capacity(
            Some(std::array::from_fn(|k| (k % 2) as f64)),
            4,
        ));
    }
}
