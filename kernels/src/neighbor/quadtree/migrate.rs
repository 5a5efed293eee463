//! Migration: an entry whose centre left its leaf climbs to the lowest ancestor holding the
//! new centre and descends from there (Watanabe et al., Fig. 4); the scan for such entries
//! can run in pieces on several threads (`leavers`), the moves on one (`migrate_listed`).
use super::*;

impl Quadtree {
    /// Move the entries whose centres left their leaves (Watanabe et al., Fig. 4-5).
    pub(super) fn migrate(&mut self) {
        let mut moves = Vec::new();
        // One thread: no separate walk; each move climbs from its old leaf.
        self.leavers(0..self.owner.len(), false, &mut moves);
        self.migrate_listed(&moves);
    }

    /// The entries of `range` whose centres may have left their leaves, in order: every
    /// one that left, and, without `walk`, a few that did not (centres within f32 rounding
    /// of their leaf's edge, and centres outside the root, which are filed clamped), which
    /// [`Quadtree::migrate_listed`] leaves alone. With `walk`, each comes with the leaf of
    /// the present tree that holds its new centre: the walk up to the lowest ancestor
    /// holding it and down again through nodes the move does not change (the "grey
    /// nodes" of Watanabe et al., Fig. 4, which they note can be passed in parallel);
    /// without, with `NONE`. Read-only, so that threads share it.
    pub fn leavers(&self, range: std::ops::Range<usize>, walk: bool, out: &mut Vec<(u32, u32)>) {
        assert!(!self.rebuilt_only, "quadtree: a rebuilt-only tree cannot migrate");
        for e in range {
            let c = self.centre[e];
            let b = self.leaf_box[e].map(f64::from);
            if (0..DIM).all(|a| c[a] >= b[2 * a] && c[a] < b[2 * a + 1]) {
                continue;
            }
            if !walk {
                out.push((e as u32, NONE));
                continue;
            }
            let k = self.key(c);
            let l = self.leaf[e];
            if self.holds(l, k) {
                continue;
            }
            out.push((e as u32, self.leaf_below(self.holder_above(l, k), k)));
        }
    }

    /// The lowest proper ancestor of node n that holds key k.
    #[inline]
    pub(super) fn holder_above(&self, n: u32, k: Vector) -> u32 {
        let mut n = self.nodes[n as usize].parent;
        while !self.holds(n, k) {
            n = self.nodes[n as usize].parent;
        }
        n
    }

    /// The leaf under node n (which holds key k) that holds k.
    #[inline]
    pub(super) fn leaf_below(&self, mut n: u32, k: Vector) -> u32 {
        loop {
            let ch = self.nodes[n as usize].child;
            if ch == NONE {
                return n;
            }
            n = ch + self.quadrant(n, k);
        }
    }

    /// Is node n in the tree (not in a freed block)? Blocks of 2^DIM start at 1 + 2^DIM j; a
    /// node is live when its parent's children are its block. A freed node's parent has
    /// either merged it away (no children) or been freed itself (freed nodes have no
    /// children), unless the block was taken again, and then it is live again.
    #[inline]
    pub(super) fn live(&self, n: u32) -> bool {
        if n == 0 {
            return true;
        }
        let base = n - (n - 1) % CHILDREN as u32;
        self.nodes[self.nodes[n as usize].parent as usize].child == base
    }

    /// Move the entries listed by [`Quadtree::leavers`] (after [`Quadtree::set_boxes`]),
    /// in the order given: each leaves its leaf and descends from its walked target if
    /// that is still in the tree and holds its centre (the moves before it may have merged
    /// or split nodes since the walk), else from the lowest ancestor of its old leaf
    /// holding its centre. The tree comes out the same either way: a descent from any node
    /// holding the centre ends in the same leaf. An entry a split has meanwhile put in
    /// the right leaf is left alone.
    pub fn migrate_listed(&mut self, moves: &[(u32, u32)]) {
        for &(e, target) in moves {
            let k = self.key(self.centre[e as usize]);
            let l = self.leaf[e as usize];
            if self.holds(l, k) {
                continue;
            }
            self.unlink(e);
            let from = if target != NONE && self.live(target) && self.holds(target, k) {
                target
            } else {
                self.holder_above(l, k)
            };
            self.descend(e, from);
            // After the insertion, so that the node e descended from cannot be freed.
            self.merge_up(self.nodes[l as usize].parent);
            self.stats.migrations += 1;
        }
    }

    /// Rebuild the tree from scratch for the current entries (the reference the
    /// incremental update is measured against).
    pub fn rebuild_tree(&mut self) {
        self.clear_tree();
        self.insert_all();
    }

    /// Bring the tree to the current centres without building it anew.
    pub fn migrate_only(&mut self) {
        self.migrate();
    }

    /// Overwrite the stored boxes and move the entries (no pair search): for benchmarks
    /// of the tree update alone. Returns false if the tiling changed (rebuild instead).
    pub fn set_boxes<B: BoxSource>(&mut self, src: &B) -> bool {
        assert_eq!(
            src.len(),
            self.boxes.len(),
            "quadtree: particle count changed without a rebuild"
        );
        self.store(src);
        self.update_entry_boxes()
    }
}
