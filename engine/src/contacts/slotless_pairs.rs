//! A list of candidate pairs kept without a slot (3D): the table's far pairs, which cannot
//! touch before one of their stored boxes is made anew (`kernels::neighbor::near_pairs`),
//! and its apart pairs, which may, but did not touch when last tested. A pair here has no
//! spring and no slot, so the sphere loop reads none of its bytes, and it costs 8 bytes
//! instead of a slot's 37. Sorted by (i, j), so that the broad phase's removals find their
//! pair by a binary search; a pair removed (or moved into a slot) is marked (its `j` set to
//! `FREE`) until the pass after each update (`part`) drops the marks.
use super::FREE;

/// Candidate pairs without a slot (module doc).
#[derive(Debug, Default, Clone)]
pub struct SlotlessPairs {
    /// The pairs, i < j, sorted; a removed pair's `j` is `FREE` until the next `part`.
    pub(crate) pairs: Vec<[u32; 2]>,
    removed: usize,
    /// Bumped whenever pairs move in the list (not by a removal's mark): an index into
    /// the list holds while it stays.
    version: u64,
}

impl SlotlessPairs {
    /// Changes whenever pairs may have moved in the list (see `pairs`).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len() - self.removed
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pairs, sorted (a removal pending since the last `part` appears as `[i, FREE]`).
    pub fn pairs(&self) -> &[[u32; 2]] {
        &self.pairs
    }

    /// The index of pair (i, j), i < j.
    fn position(&self, i: u32, j: u32) -> Option<usize> {
        let start = self.pairs.partition_point(|p| p[0] < i);
        self.pairs[start..]
            .iter()
            .take_while(|p| p[0] == i)
            .position(|p| p[1] == j)
            .map(|k| start + k)
    }

    /// Whether pair (i, j), i < j, is here.
    pub fn contains(&self, i: u32, j: u32) -> bool {
        self.position(i, j).is_some()
    }

    /// Mark the pair at index `k` (as listed by `pairs`, not marked) removed.
    pub(crate) fn remove_at(&mut self, k: usize) {
        debug_assert_ne!(self.pairs[k][1], FREE, "pair {k} removed twice");
        self.pairs[k][1] = FREE;
        self.removed += 1;
    }

    /// Remove pair (i, j), i < j, if present; returns whether it was.
    pub fn remove(&mut self, i: u32, j: u32) -> bool {
        match self.position(i, j) {
            Some(k) => {
                self.remove_at(k);
                true
            }
            None => false,
        }
    }

    /// Drop the removed pairs, and move out into `out` those for which `near(i, j)` holds
    /// (in order); the others stay, still sorted.
    pub fn part(&mut self, mut near: impl FnMut(u32, u32) -> bool, out: &mut Vec<[u32; 2]>) {
        self.version += 1;
        self.pairs.retain(|&[i, j]| {
            if j == FREE {
                return false;
            }
            let n = near(i, j);
            if n {
                out.push([i, j]);
            }
            !n
        });
        self.removed = 0;
    }

    /// Add `more` (pairs i < j, none already here; left empty, its capacity kept): sorted,
    /// then merged from the back into the grown list, so that no second list is made. The
    /// list grows by an eighth, as the contact table does, not by doubling.
    pub fn merge(&mut self, more: &mut Vec<[u32; 2]>) {
        debug_assert_eq!(self.removed, 0, "merge after part");
        if more.is_empty() {
            return;
        }
        self.version += 1;
        more.sort_unstable();
        let (old, add) = (self.pairs.len(), more.len());
        if old + add > self.pairs.capacity() {
            self.pairs.reserve_exact(add.max(old / 8));
        }
        merge_sorted(&mut self.pairs, more);
        more.clear();
    }

    /// Replace the whole list by `pairs` (i < j, no duplicates), sorted here, its spare
    /// capacity given back (a list made by pushing has up to half of it spare).
    pub fn reset(&mut self, mut pairs: Vec<[u32; 2]>) {
        pairs.sort_unstable();
        pairs.shrink_to_fit();
        self.pairs = pairs;
        self.removed = 0;
        self.version += 1;
    }

    /// Drop every pair and the list's memory.
    pub fn clear(&mut self) {
        *self = SlotlessPairs {
            version: self.version + 1,
            ..Default::default()
        };
    }

    /// Whether no removal is pending (every pair a pair: what a checkpoint may hold).
    pub fn is_settled(&self) -> bool {
        self.removed == 0
    }

    /// Renumber (`map[old] = new` or `u32::MAX` = removed): pairs of a removed particle
    /// go, the rest are ordered i < j and sorted again.
    pub fn remap(&mut self, map: &[u32]) {
        self.version += 1;
        self.pairs.retain_mut(|p| {
            if p[1] == FREE {
                return false;
            }
            let (a, b) = (map[p[0] as usize], map[p[1] as usize]);
            *p = [a.min(b), a.max(b)];
            a != u32::MAX && b != u32::MAX
        });
        self.removed = 0;
        self.pairs.sort_unstable();
    }

    /// Bytes held (capacity).
    pub fn memory_bytes(&self) -> usize {
        self.pairs.capacity() * 8
    }
}

/// Merge the sorted `more` into the sorted `into` from the back, in place (`into` grows by
/// `more`'s length, with no second list): equal elements of `into` stay before `more`'s.
pub(crate) fn merge_sorted<T: Ord + Copy + Default>(into: &mut Vec<T>, more: &[T]) {
    let (old, add) = (into.len(), more.len());
    into.resize(old + add, T::default());
    let (mut a, mut b, mut w) = (old, add, old + add);
    while b > 0 {
        w -= 1;
        if a > 0 && into[a - 1] > more[b - 1] {
            a -= 1;
            into[w] = into[a];
        } else {
            b -= 1;
            into[w] = more[b];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn remove_part_merge_remap_against_a_set() {
        let mut st = 11u64;
        let mut rnd = move |m: u32| {
            st = st.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((st >> 33) % m as u64) as u32
        };
        let n = 40u32;
        let mut far = SlotlessPairs::default();
        let mut set = BTreeSet::new();
        let (mut more, mut out) = (Vec::new(), Vec::new());
        for round in 0..3000 {
            let (a, b) = (rnd(n), rnd(n));
            if a == b {
                continue;
            }
            let (i, j) = (a.min(b), a.max(b));
            if set.contains(&[i, j]) {
                assert!(far.remove(i, j));
                assert!(!far.remove(i, j), "removed twice");
                set.remove(&[i, j]);
            } else if !more.contains(&[i, j]) {
                assert!(!far.remove(i, j));
                more.push([i, j]);
            }
            if round % 17 == 0 {
                // Those with i + j a multiple of 5 leave.
                far.part(|i, j| (i + j) % 5 == 0, &mut out);
                for p in out.drain(..) {
                    assert!(set.remove(&p), "{p:?} moved out but was not there");
                }
                set.extend(more.iter().copied());
                far.merge(&mut more);
                assert_eq!(far.pairs(), set.iter().copied().collect::<Vec<_>>().as_slice());
                assert_eq!(far.len(), set.len());
                assert!(set.iter().all(|p| far.contains(p[0], p[1])));
            }
        }
        // Particle 2 removed, the others renumbered, 0 and 7 (new 6 and 0) swapped.
        let mut map: Vec<u32> = (0..n).map(|p| if p < 2 { p } else { p.wrapping_sub(1) }).collect();
        map[2] = u32::MAX;
        map.swap(0, 7);
        far.remap(&map);
        let want: BTreeSet<[u32; 2]> = set
            .iter()
            .filter(|p| map[p[0] as usize] != u32::MAX && map[p[1] as usize] != u32::MAX)
            .map(|p| {
                let (a, b) = (map[p[0] as usize], map[p[1] as usize]);
                [a.min(b), a.max(b)]
            })
            .collect();
        assert_eq!(far.pairs(), want.iter().copied().collect::<Vec<_>>().as_slice());
    }
}
