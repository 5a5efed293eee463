//! The contact table: the persistent set of candidate pairs (i < j) that the broad phase
//! maintains, with the state each pair carries from step to step.
//!
//! Flat arrays (structure of arrays) indexed by slot; a free slot has `i == FREE`. Adding
//! takes a free slot or appends, removing frees a slot: both O(1) plus a walk of the
//! first particle's chain (the pairs of one particle are few). Each slot is linked into a
//! chain of the slots that share its first particle, with `head[i]` the first: that is
//! the (i, j) -> slot index, without a hash map. Iteration is a linear pass over the
//! slots. `compact` removes the holes and sorts the pairs by first particle (Chen &
//! Matuttis: a contact list sorted by first particle reuses that particle's data from
//! cache), which also makes each chain a run of consecutive slots.
//!
//! In 3D the slots hold the pairs that touch (and, until the next compaction, those that
//! touched since it); the other candidate pairs are kept without a slot
//! (`slotless_pairs.rs`): `far`, those that cannot touch before one of their boxes is made
//! anew, and `apart`, those that may, tested every step before the forces (a pair found
//! touching takes a slot then, its spring zero: `sim::near_pairs`). The sphere loop reads
//! the slots only.

mod slotless_pairs;
pub(crate) use slotless_pairs::merge_sorted;
pub use slotless_pairs::SlotlessPairs;

use talus_kernels::contact::{Spring, SPRING_ZERO};
use talus_kernels::math::ANG;

/// Marks a free slot in `ContactTable::i` (and `j`).
pub const FREE: u32 = u32::MAX;
const NIL: u32 = u32::MAX;

/// The contact table (module doc): candidate pairs by slot, with their per-pair state.
#[derive(Debug, Default, Clone)]
pub struct ContactTable {
    /// First particle of each slot (`FREE` for a free slot).
    pub i: Vec<u32>,
    /// Second particle (> i).
    pub j: Vec<u32>,
    /// Tangential spring (Cundall-Strack), zero when the pair is not touching.
    pub xi: Vec<Spring>,
    /// Polygon pairs only (empty until `enable_polygon_state`): the cached closest-feature
    /// pair (packed) and the overlap area of the last step.
    pub features: Vec<u32>,
    /// Polygon pairs only: the overlap area of the last step (m^2), or minus the gap (m) left to a pair that was apart.
    pub area: Vec<f64>,
    /// With rolling resistance only (empty until `enable_rolling_state`): the rolling
    /// torque kept in the contact (epsd2), the one its second particle gets.
    pub rolling: Vec<[f64; ANG]>,
    /// 3D only (empty in 2D and in a periodic cell): the candidate pairs that cannot touch
    /// before one of their stored boxes is made anew (`sim::near_pairs` moves pairs
    /// between the three sets). Not in any slot; no spring.
    pub far: SlotlessPairs,
    /// 3D only, as `far`: the candidate pairs that may touch before one of their stored
    /// boxes is made anew but did not touch when last tested (every step). No spring.
    pub apart: SlotlessPairs,
    /// Bumped by every change of the slots' pairs (for caches built from them).
    pub(crate) generation: u64,
    /// The generation of the last change other than a pair appended after the slots
    /// (the owner plan extends itself over appended slots).
    pub(crate) stable: u64,
    pub(crate) polygons: bool,
    pub(crate) rolling_state: bool,
    pub(crate) next: Vec<u32>,
    pub(crate) head: Vec<u32>,
    pub(crate) free: Vec<u32>,
    pub(crate) live: usize,
    /// Pairs added since the last compaction or merge (`merge_appended`).
    pub(crate) churn: usize,
    /// Slots sorted by the last compaction or merge (those after them appended since).
    pub(crate) sorted: usize,
}

impl ContactTable {
    /// An empty table for `particles` particles.
    pub fn new(particles: usize) -> Self {
        ContactTable {
            head: vec![NIL; particles],
            ..Default::default()
        }
    }

    /// Keep the per-pair state of polygon contacts (cached features, last overlap area).
    pub fn enable_polygon_state(&mut self) {
        if !self.polygons {
            self.polygons = true;
            self.features = vec![0; self.i.len()];
            self.area = vec![0.0; self.i.len()];
        }
    }

    /// Keep a rolling torque per contact (rolling resistance).
    pub fn enable_rolling_state(&mut self) {
        if !self.rolling_state {
            self.rolling_state = true;
            self.rolling = vec![[0.0; ANG]; self.i.len()];
        }
    }

    /// Whether the contacts keep a rolling torque.
    pub fn has_rolling_state(&self) -> bool {
        self.rolling_state
    }

    /// Changes whenever the slots' pairs or their order may have changed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The generation of the last change other than a pair appended after the slots: up to
    /// `generation()`, the slots below the count of then are as they were.
    pub fn stable_generation(&self) -> u64 {
        self.stable
    }

    /// A change of the slots other than an append.
    fn changed(&mut self) {
        self.generation += 1;
        self.stable = self.generation;
    }

    /// Number of candidate pairs: those in slots (free slots not counted), the apart ones
    /// and the far ones.
    pub fn len(&self) -> usize {
        self.live + self.apart.len() + self.far.len()
    }

    /// Whether the table holds no pair.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of pairs in slots (3D: those that touch, or touched since the last compaction).
    pub fn slotted(&self) -> usize {
        self.live
    }

    /// Number of slots, free ones included (the range a loop over pairs runs through).
    pub fn slots(&self) -> usize {
        self.i.len()
    }

    /// Forget the gaps kept for polygon pairs that are apart (their walks run again at the
    /// next step): after a step that moved the bodies but failed before its forces, the
    /// gaps no longer hold.
    pub fn forget_gaps(&mut self) {
        self.area.iter_mut().filter(|a| **a < 0.0).for_each(|a| *a = 0.0);
    }

    /// Put every pair without a slot (far and apart) into one (their springs zero): for a
    /// periodic cell, where a pair's boxes may lie across a face and every pair stays in a
    /// slot.
    pub fn slot_every_pair(&mut self) {
        let mut pairs = std::mem::take(&mut self.far.pairs);
        pairs.append(&mut self.apart.pairs);
        // Cleared, not made anew: their versions go on (an index into the old list must
        // never match a later one).
        self.far.clear();
        self.apart.clear();
        for &[i, j] in pairs.iter().filter(|p| p[1] != FREE) {
            self.add(i, j);
        }
    }

    /// Number of free slots: the holes left by removals until the next compaction.
    pub fn free_slots(&self) -> usize {
        self.free.len()
    }

    /// Make room for particles appended to the store.
    pub fn grow_particles(&mut self, particles: usize) {
        if self.head.len() < particles {
            self.head.resize(particles, NIL);
        }
    }

    /// Slot of pair (i, j), in either order (a far pair has none).
    pub fn find(&self, a: u32, b: u32) -> Option<usize> {
        let (i, j) = if a < b { (a, b) } else { (b, a) };
        let mut s = self.head[i as usize];
        while s != NIL {
            if self.j[s as usize] == j {
                return Some(s as usize);
            }
            s = self.next[s as usize];
        }
        None
    }

    /// Add a pair known to be absent, from the slots and the lists without slots (the
    /// broad phase, or the caller that took it from one, guarantees it); returns its slot.
    pub fn add(&mut self, a: u32, b: u32) -> usize {
        self.generation += 1;
        let (i, j) = if a < b { (a, b) } else { (b, a) };
        debug_assert!(i != j);
        debug_assert!(self.find(i, j).is_none(), "pair ({i}, {j}) added twice");
        debug_assert!(!self.far.contains(i, j), "pair ({i}, {j}) added, but far");
        debug_assert!(!self.apart.contains(i, j), "pair ({i}, {j}) added, but apart");
        let s = match self.free.pop() {
            Some(s) => {
                let s = s as usize;
                self.i[s] = i;
                self.j[s] = j;
                self.xi[s] = SPRING_ZERO;
                if self.polygons {
                    self.features[s] = 0;
                    self.area[s] = 0.0;
                }
                if self.rolling_state {
                    self.rolling[s] = [0.0; ANG];
                }
                // Into a hole: not an append.
                self.stable = self.generation;
                s
            }
            None => {
                if self.i.len() == self.i.capacity() {
                    // Grow by 1/8, not by doubling: the table is the largest per-pair
                    // structure and a doubling would double its memory at once.
                    let more = (self.i.len() / 8).max(64);
                    self.i.reserve_exact(more);
                    self.j.reserve_exact(more);
                    self.xi.reserve_exact(more);
                    if self.polygons {
                        self.features.reserve_exact(more);
                        self.area.reserve_exact(more);
                    }
                    if self.rolling_state {
                        self.rolling.reserve_exact(more);
                    }
                    self.next.reserve_exact(more);
                }
                self.i.push(i);
                self.j.push(j);
                self.xi.push(SPRING_ZERO);
                if self.polygons {
                    self.features.push(0);
                    self.area.push(0.0);
                }
                if self.rolling_state {
                    self.rolling.push([0.0; ANG]);
                }
                self.next.push(NIL);
                self.i.len() - 1
            }
        };
        self.next[s] = self.head[i as usize];
        self.head[i as usize] = s as u32;
        self.live += 1;
        self.churn += 1;
        s
    }

    /// Remove a pair if present, from the slots or the lists without slots; returns
    /// whether it was.
    pub fn remove(&mut self, a: u32, b: u32) -> bool {
        let (i, j) = if a < b { (a, b) } else { (b, a) };
        match self.find(i, j) {
            Some(s) => {
                self.free_slot(s);
                true
            }
            None => self.apart.remove(i, j) || self.far.remove(i, j),
        }
    }

    /// Take the pair out of slot `s` (live): unlinked from its chain, the slot freed.
    pub(crate) fn free_slot(&mut self, s: usize) {
        self.changed();
        let i = self.i[s] as usize;
        let nx = self.next[s];
        if self.head[i] == s as u32 {
            self.head[i] = nx;
        } else {
            let mut prev = self.head[i];
            while self.next[prev as usize] != s as u32 {
                prev = self.next[prev as usize];
            }
            self.next[prev as usize] = nx;
        }
        self.i[s] = FREE;
        self.j[s] = FREE;
        self.next[s] = NIL;
        self.free.push(s as u32);
        self.live -= 1;
    }

    /// Should the table be compacted? When holes or unsorted additions exceed 1/8 of the pairs.
    pub fn wants_compaction(&self) -> bool {
        8 * (self.free.len() + self.churn) > self.live.max(64)
    }

    /// Remove the holes and sort the pairs by (i, j): a counting sort by i, then the few
    /// pairs of each i sorted by j. O(N + P), in place: `head` and `next`
    /// are rebuilt afterwards anyway, so they serve as the counts and the destinations,
    /// and the pairs are moved by following the cycles of the permutation. No allocation,
    /// so compaction adds nothing to the peak memory of a run.
    pub fn compact(&mut self) {
        self.changed();
        let slots = self.i.len();
        let live = self.live;
        let counts = &mut self.head;
        let dest = &mut self.next;
        dest.resize(slots, 0);
        counts.iter_mut().for_each(|h| *h = 0);
        for &i in &self.i {
            if i != FREE {
                counts[i as usize] += 1;
            }
        }
        let mut placed = 0u32;
        for h in counts.iter_mut() {
            let c = *h;
            *h = placed;
            placed += c;
        }
        for (s, &i) in self.i.iter().enumerate() {
            if i != FREE {
                counts[i as usize] += 1;
                dest[s] = counts[i as usize] - 1;
            }
        }
        // Free slots go after the live pairs.
        let mut free_at = live as u32;
        for (s, &i) in self.i.iter().enumerate() {
            if i == FREE {
                dest[s] = free_at;
                free_at += 1;
            }
        }
        for s in 0..slots {
            while dest[s] as usize != s {
                let t = dest[s] as usize;
                self.i.swap(s, t);
                self.j.swap(s, t);
                self.xi.swap(s, t);
                if self.polygons {
                    self.features.swap(s, t);
                    self.area.swap(s, t);
                }
                if self.rolling_state {
                    self.rolling.swap(s, t);
                }
                dest.swap(s, t);
            }
        }
        // Each run of one first particle sorted by j (runs are short).
        for t in 1..live {
            let mut u = t;
            while u > 0 && self.i[u - 1] == self.i[u] && self.j[u - 1] > self.j[u] {
                self.j.swap(u - 1, u);
                self.xi.swap(u - 1, u);
                if self.polygons {
                    self.features.swap(u - 1, u);
                    self.area.swap(u - 1, u);
                }
                if self.rolling_state {
                    self.rolling.swap(u - 1, u);
                }
                u -= 1;
            }
        }
        self.i.truncate(live);
        self.j.truncate(live);
        self.xi.truncate(live);
        if self.polygons {
            self.features.truncate(live);
            self.area.truncate(live);
        }
        if self.rolling_state {
            self.rolling.truncate(live);
        }
        self.free.clear();
        self.churn = 0;
        self.sorted = live;
        self.rebuild_chains();
    }

    /// Whether every slot holds a pair and the pairs are sorted by (i, j), as a compaction
    /// or merge leaves them (no hole, nothing added since).
    pub fn is_sorted(&self) -> bool {
        self.free.is_empty() && self.churn == 0 && self.sorted == self.i.len()
    }

    /// Whether the slots are as the last compaction left them but for pairs appended
    /// since (no hole, none added into one): `merge_appended` sorts those in.
    pub fn appended_only(&self) -> bool {
        self.free.is_empty() && self.sorted + self.churn == self.i.len()
    }

    /// Sort the pairs appended since the last compaction into the sorted ones (see
    /// `appended_only`): the appended ones sorted apart, then merged in from the back, one
    /// pass over the slots after the first of them to go in.
    pub fn merge_appended(&mut self) {
        debug_assert!(self.appended_only());
        let (b, l) = (self.sorted, self.i.len());
        if b == l {
            return;
        }
        self.changed();
        let mut tail: Vec<usize> = (b..l).collect();
        tail.sort_unstable_by_key(|&s| (self.i[s], self.j[s]));
        let ti: Vec<u32> = tail.iter().map(|&s| self.i[s]).collect();
        let tj: Vec<u32> = tail.iter().map(|&s| self.j[s]).collect();
        let txi: Vec<Spring> = tail.iter().map(|&s| self.xi[s]).collect();
        let tf: Vec<u32> = if self.polygons {
            tail.iter().map(|&s| self.features[s]).collect()
        } else {
            Vec::new()
        };
        let ta: Vec<f64> = if self.polygons {
            tail.iter().map(|&s| self.area[s]).collect()
        } else {
            Vec::new()
        };
        let tr: Vec<[f64; ANG]> = if self.rolling_state {
            tail.iter().map(|&s| self.rolling[s]).collect()
        } else {
            Vec::new()
        };
        let (mut a, mut t, mut w) = (b, ti.len(), l);
        while t > 0 {
            w -= 1;
            if a > 0 && (self.i[a - 1], self.j[a - 1]) > (ti[t - 1], tj[t - 1]) {
                a -= 1;
                self.i[w] = self.i[a];
                self.j[w] = self.j[a];
                self.xi[w] = self.xi[a];
                if self.polygons {
                    self.features[w] = self.features[a];
                    self.area[w] = self.area[a];
                }
                if self.rolling_state {
                    self.rolling[w] = self.rolling[a];
                }
            } else {
                t -= 1;
                self.i[w] = ti[t];
                self.j[w] = tj[t];
                self.xi[w] = txi[t];
                if self.polygons {
                    self.features[w] = tf[t];
                    self.area[w] = ta[t];
                }
                if self.rolling_state {
                    self.rolling[w] = tr[t];
                }
            }
        }
        self.churn = 0;
        self.sorted = l;
        self.rebuild_chains();
    }

    pub(crate) fn rebuild_chains(&mut self) {
        self.head.iter_mut().for_each(|h| *h = NIL);
        self.next.clear();
        self.next.resize(self.i.len(), NIL);
        // Link each slot to the next one with the same i (its successor).
        for s in (0..self.i.len()).rev() {
            let i = self.i[s];
            if i != FREE {
                self.next[s] = self.head[i as usize];
                self.head[i as usize] = s as u32;
            }
        }
    }

    /// Replace the whole set by `pairs` in slots, and `apart` and `far` without (each
    /// i < j, no duplicates), keeping the spring of every slotted pair that was already in
    /// a slot. Used after a full rebuild of the broad phase. Takes the list to free it as
    /// soon as the table's pair arrays are built: at 10^5-10^6 particles this is the run's
    /// peak of memory (list, old table and new table at once).
    pub fn reset_from_pairs(&mut self, pairs: Vec<(u32, u32)>, apart: Vec<[u32; 2]>, far: Vec<[u32; 2]>) {
        self.changed();
        let n = pairs.len();
        // The per-pair state first, looked up through the old table's chains.
        let mut xi = Vec::with_capacity(n);
        let (mut features, mut area, mut rolling) = (Vec::new(), Vec::new(), Vec::new());
        if self.polygons {
            features.reserve_exact(n);
            area.reserve_exact(n);
        }
        if self.rolling_state {
            rolling.reserve_exact(n);
        }
        for &(i, j) in &pairs {
            let old = self.find(i, j);
            xi.push(old.map_or(SPRING_ZERO, |s| self.xi[s]));
            if self.polygons {
                features.push(old.map_or(0, |s| self.features[s]));
                area.push(old.map_or(0.0, |s| self.area[s]));
            }
            if self.rolling_state {
                rolling.push(old.map_or([0.0; ANG], |s| self.rolling[s]));
            }
        }
        self.xi = xi;
        self.features = features;
        self.area = area;
        self.rolling = rolling;
        self.next = Vec::new();
        self.i = pairs.iter().map(|p| p.0).collect();
        self.j = pairs.iter().map(|p| p.1).collect();
        drop(pairs);
        self.apart.reset(apart);
        self.far.reset(far);
        self.live = n;
        self.free.clear();
        self.churn = n;
        self.compact();
    }

    /// Renumber particles (`map[old] = new` or `u32::MAX` = removed): pairs of removed
    /// particles are dropped, the rest keep their springs. Ends compacted and sorted.
    pub fn remap(&mut self, map: &[u32], particles: usize) {
        self.changed();
        for s in 0..self.i.len() {
            let i = self.i[s];
            if i == FREE {
                continue;
            }
            let (a, b) = (map[i as usize], map[self.j[s] as usize]);
            if a == u32::MAX || b == u32::MAX {
                self.i[s] = FREE;
                self.j[s] = FREE;
                self.live -= 1;
            } else {
                self.i[s] = a.min(b);
                self.j[s] = a.max(b);
                // The kept rolling torque is the second particle's: the other one's now.
                if a > b && self.rolling_state {
                    self.rolling[s] = self.rolling[s].map(|m| -m);
                }
            }
        }
        self.apart.remap(map);
        self.far.remap(map);
        self.head = vec![NIL; particles];
        self.compact();
    }

    /// Bytes held (capacity) by the slots, their chains and the free list, for the memory
    /// report; the lists without slots report theirs apart (`far`, `apart`).
    pub fn memory_bytes(&self) -> usize {
        self.i.capacity() * 4
            + self.j.capacity() * 4
            + self.xi.capacity() * std::mem::size_of::<Spring>()
            + self.features.capacity() * 4
            + self.area.capacity() * 8
            + self.rolling.capacity() * 8 * ANG
            + self.next.capacity() * 4
            + self.head.capacity() * 4
            + self.free.capacity() * 4
    }

    /// Iterate over the live pairs: (slot, i, j).
    pub fn iter(&self) -> impl Iterator<Item = (usize, u32, u32)> + '_ {
        self.i
            .iter()
            .zip(&self.j)
            .enumerate()
            .filter(|(_, (&i, _))| i != FREE)
            .map(|(s, (&i, &j))| (s, i, j))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use talus_kernels::contact::{spring_components, spring_components_mut};

    /// A spring whose first component tags its slot.
    fn tag(x: f64) -> Spring {
        let mut s = SPRING_ZERO;
        spring_components_mut(&mut s)[0] = x;
        s
    }

    fn untag(s: &Spring) -> f64 {
        spring_components(s)[0]
    }

    /// Pairs appended after a compaction, merged in: the table of a compaction of the
    /// same pairs, springs and all (the chains too: `find` sees every pair).
    #[test]
    fn appended_pairs_merge_as_a_compaction_sorts_them() {
        let n = 40u32;
        let mut st = 3u64;
        let mut rnd = move |m: u32| {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((st >> 33) % m as u64) as u32
        };
        let mut t = ContactTable::new(n as usize);
        let mut round = 0.0;
        let mut add_some = |t: &mut ContactTable, k: usize| {
            for _ in 0..k {
                let (a, b) = (rnd(n), rnd(n));
                if a != b && t.find(a, b).is_none() {
                    let s = t.add(a, b);
                    round += 1.0;
                    t.xi[s] = tag(round);
                }
            }
        };
        add_some(&mut t, 200);
        t.compact();
        assert!(t.appended_only());
        add_some(&mut t, 30);
        assert!(t.appended_only() && t.churn > 0);
        let mut compacted = t.clone();
        compacted.compact();
        t.merge_appended();
        assert_eq!((&t.i, &t.j), (&compacted.i, &compacted.j));
        let springs = |t: &ContactTable| t.xi.iter().map(untag).collect::<Vec<_>>();
        assert_eq!(springs(&t), springs(&compacted));
        assert!(t.iter().all(|(s, i, j)| t.find(j, i) == Some(s)));
        assert_eq!((t.churn, t.appended_only()), (0, true));
        // A pair removed leaves a hole: no longer appended only.
        let (_, i, j) = t.iter().nth(5).unwrap();
        t.remove(i, j);
        assert!(!t.appended_only());
    }

    #[test]
    fn add_remove_find_compact_against_a_map() {
        let n = 50u32;
        let mut t = ContactTable::new(n as usize);
        let mut reference: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        let mut st = 7u64;
        let mut rnd = move |m: u32| {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((st >> 33) % m as u64) as u32
        };
        for round in 0..20_000 {
            let (a, b) = (rnd(n), rnd(n));
            if a == b {
                continue;
            }
            let key = (a.min(b), a.max(b));
            if let std::collections::btree_map::Entry::Vacant(e) = reference.entry(key) {
                let s = t.add(a, b);
                t.xi[s] = tag(round as f64);
                e.insert(round as f64);
            } else {
                assert!(t.remove(b, a));
                reference.remove(&key);
            }
            if round % 977 == 0 {
                t.compact();
            }
            assert_eq!(t.len(), reference.len());
        }
        let got: BTreeMap<(u32, u32), f64> = t.iter().map(|(s, i, j)| ((i, j), untag(&t.xi[s]))).collect();
        assert_eq!(got, reference);
        t.compact();
        let pairs: Vec<(u32, u32)> = t.iter().map(|(_, i, j)| (i, j)).collect();
        let want: Vec<(u32, u32)> = reference.keys().copied().collect();
        assert_eq!(pairs, want, "compaction sorts by (i, j)");
        for (&(i, j), &x) in &reference {
            assert_eq!(untag(&t.xi[t.find(j, i).unwrap()]), x);
        }
        // Dropping particle 3 and swapping 0 <-> 1.
        let mut map: Vec<u32> = (0..n).collect();
        map.swap(0, 1);
        map[3] = u32::MAX;
        for m in map.iter_mut().skip(4) {
            *m -= 1;
        }
        t.remap(&map, n as usize - 1);
        for (&(i, j), &x) in &reference {
            let (a, b) = (map[i as usize], map[j as usize]);
            if a == u32::MAX || b == u32::MAX {
                continue;
            }
            assert_eq!(untag(&t.xi[t.find(a, b).unwrap()]), x);
        }
        assert!(t.iter().all(|(_, i, j)| i < j));
    }
}
