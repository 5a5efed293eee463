//! The pair search: the widened search around each entry (Watanabe et al., Fig. 7), pairs
//! of particles reported once, collected particle by particle and diffed with the last set.
use super::*;

impl Quadtree {
    /// Every entry filed in a leaf whose square meets the closed rectangle `r` (clamped),
    /// starting from the lowest ancestor of `from` whose square contains `r`.
    #[inline]
    pub(super) fn search(&self, from: u32, r: Box64, stack: &mut Vec<u32>, mut visit: impl FnMut(u32)) {
        let mut n = from as usize;
        let contains = |node: &Node| (0..DIM).all(|a| node.lo[a] <= r[2 * a] && r[2 * a + 1] < node.hi[a]);
        while self.nodes[n].parent != NONE && !contains(&self.nodes[n]) {
            n = self.nodes[n].parent as usize;
        }
        stack.clear();
        stack.push(n as u32);
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if (0..DIM).any(|a| node.hi[a] < r[2 * a] || node.lo[a] > r[2 * a + 1]) {
                continue;
            }
            let ch = node.child;
            if ch != NONE {
                stack.extend(ch..ch + CHILDREN as u32);
                continue;
            }
            let mut f = node.head;
            while f != NONE {
                visit(f);
                f = self.next[f as usize];
            }
        }
    }

    /// The whole pair set of the stored boxes, sorted, into `out`.
    pub(super) fn find_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let mut scratch = std::mem::take(&mut self.search_scratch);
        self.pairs_of(0..self.boxes.len(), &mut scratch, out);
        self.search_scratch = scratch;
    }

    /// The pairs (p, q > p) of the particles p in `particles`, sorted, appended to `out`.
    /// Read-only: threads can take a range of particles each and concatenate their parts
    /// in range order (the result is then the sorted whole set).
    pub fn pairs_of(&self, particles: std::ops::Range<usize>, scratch: &mut SearchScratch, out: &mut Vec<(u32, u32)>) {
        let SearchScratch { found, stack } = scratch;
        for p in particles {
            found.clear();
            let bp = self.boxes[p];
            for e in self.first_entry[p]..self.first_entry[p + 1] {
                let (c, h) = (self.centre[e as usize], self.half[e as usize]);
                // Centres of entries that can meet this one (their Fig. 7: the reach of
                // the largest tile widens the search).
                let r = self.clamp_rect(std::array::from_fn(|k| {
                    let a = k / 2;
                    if k % 2 == 0 {
                        c[a] - h[a] - self.reach[a]
                    } else {
                        c[a] + h[a] + self.reach[a]
                    }
                }));
                self.search(self.leaf[e as usize], r, stack, |f| {
                    let q = self.owner[f as usize];
                    if q as usize > p && boxes_overlap(&bp, &self.boxes[q as usize]) {
                        found.push(q);
                    }
                });
            }
            found.sort_unstable();
            found.dedup();
            out.extend(found.iter().map(|&q| (p as u32, q)));
        }
    }

    /// Finish a refresh whose moves and pairs were done by parts ([`Quadtree::leavers`],
    /// [`Quadtree::migrate_listed`], [`Quadtree::pairs_of`]): `new` is the whole sorted set.
    pub fn finish_refresh(&mut self, new: Vec<(u32, u32)>, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        diff_pairs(&self.pairs, &new, adds, removes);
        self.pairs = new;
        self.stats.refreshes += 1;
    }
}
