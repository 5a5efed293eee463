//! The incrementally migrated quadtree (Watanabe, Krengel & Matuttis, "Tree code based
//! neighborhood algorithms for DEM", sections 2.3-2.5).
//!
//! A fixed square root is split recursively; a leaf holds one entry (it splits when a
//! second one arrives; below `MAX_DEPTH` a leaf keeps a chain, for coincident centres).
//! The tree is never rebuilt during a run: after each step an entry whose centre has left
//! its leaf is lifted to the lowest ancestor that contains its new centre (the "highest
//! node it can reach" of their Fig. 4) and descends from there. A leaf left empty stays,
//! to be reused by the next entry that arrives in its square (empty siblings are reused);
//! only when all four children of a node are empty leaves are they given back, to a free
//! list from which later splits take them. Merging as soon as the children would fit in
//! one leaf made every migration a merge plus a split (2.8x faster than a rebuild at 10^5
//! instead of 5x). Per entry the tree keeps only its leaf and its chain links; no particle
//! data lives in the tree.
//!
//! Large and elongated particles are cut into tiles of about the typical particle size,
//! each tile an entry of its own (their Fig. 3), so that the search radius stays that of a
//! typical particle: the search around an entry reaches every entry whose centre can lie
//! within its half-size plus the largest tile half-size (the widened search of their
//! Fig. 7). The tiles of a box cover it exactly (adjacent tiles share the same boundary
//! value), so two boxes overlap exactly when some of their tiles do; a pair of particles
//! with several tiles is reported once.
//!
//! The whole pair set is collected anew at each refresh (particle by particle, so that it
//! comes out sorted) and diffed with the previous one.
use super::{
    boxes_overlap, diff_pairs, renumber_boxes, renumber_pairs, round_down, round_up, store_boxes, BoxSource,
    NeighborSearch, EMPTY_BOX,
};

const NONE: u32 = u32::MAX;

/// Deeper than this a leaf chains its entries instead of splitting (coincident centres).
const MAX_DEPTH: u8 = 40;
/// A box whose half-size exceeds this many typical half-sizes is cut into tiles.
const TILE_FACTOR: f64 = 2.0;

/// Work counters, for the benchmarks and the run summary.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct QuadtreeStats {
    pub rebuilds: u64,
    pub refreshes: u64,
    /// Entries that left their leaf and were moved.
    pub migrations: u64,
    pub splits: u64,
    pub merges: u64,
}

/// Work buffers of a pair search ([`Quadtree::pairs_of`]), one per thread.
#[derive(Debug, Default, Clone)]
pub struct SearchScratch {
    found: Vec<u32>,
    stack: Vec<u32>,
}

/// One node, all in one record: a descent reads `mid` and `child`, a climb `lo`, `hi` and
/// `parent`, of the same node (one or two cache lines instead of one per field).
#[derive(Debug, Default, Clone, Copy)]
struct Node {
    lo: [f64; 2],
    hi: [f64; 2],
    mid: [f64; 2],
    /// First of the four children, or NONE for a leaf.
    child: u32,
    parent: u32,
    /// First entry of a leaf's chain, and the chain's length.
    head: u32,
    count: u32,
    depth: u8,
}

#[derive(Debug, Default, Clone)]
pub struct Quadtree {
    /// Fixed root square, if the caller gives one (the simulation domain); otherwise the
    /// square around the entries at the last rebuild, padded.
    domain: Option<[f64; 4]>,
    boxes: Vec<[f32; 4]>,
    // Entries (tiles): owner particle, centre, half-size.
    owner: Vec<u32>,
    centre: Vec<[f64; 2]>,
    half: Vec<[f64; 2]>,
    /// Per particle: its entries are `first_entry[p]..first_entry[p + 1]`, and how many
    /// tiles per axis its box was cut into.
    first_entry: Vec<u32>,
    tiles: Vec<[u16; 2]>,
    /// Largest entry half-size on each axis: how far the search reaches out.
    reach: [f64; 2],
    /// Half-size above which a box is tiled.
    tile_limit: f64,
    // Entry chains of the leaves.
    leaf: Vec<u32>,
    /// The square of each entry's leaf [lo_x, hi_x, lo_y, hi_y], kept with the entry so
    /// that the per-step "still inside?" scan reads entries in order instead of jumping to
    /// each one's leaf (at 10^5 entries that scan was as costly as the moves). In f32,
    /// rounded inwards (by at most two f32 steps): half the bytes to stream, and a centre
    /// inside it is inside the leaf; the few centres within f32 rounding of an edge are
    /// flagged and then found still at home by the exact test of the move.
    leaf_box: Vec<[f32; 4]>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Nodes; children come in blocks of four (quadrant = (x >= mid) + 2 (y >= mid)).
    nodes: Vec<Node>,
    free_blocks: Vec<u32>,
    pairs: Vec<(u32, u32)>,
    scratch: Vec<(u32, u32)>,
    /// The particles were renumbered: the entries must be made anew.
    stale: bool,
    search_scratch: SearchScratch,
    /// Entries a leaf holds before it splits: 1 in Watanabe et al.
    capacity: u32,
    /// A tree that is only ever rebuilt keeps no `leaf_box` (see [`Quadtree::rebuilt_only`]).
    rebuilt_only: bool,
    /// Inside `insert_all`: `link` leaves `leaf_box` to one pass at the end.
    bulk: bool,
    pub stats: QuadtreeStats,
}

impl Quadtree {
    /// A tree over a fixed square containing `domain` ([lo_x, hi_x, lo_y, hi_y]), or, with
    /// `None`, over the entries found at each rebuild. Centres outside the root are
    /// placed as if clamped to it: always correct, only slower if many are outside.
    pub fn new(domain: Option<[f64; 4]>) -> Self {
        Self::with_capacity(domain, 1)
    }

    /// A tree whose leaves split when entry `capacity + 1` arrives (Watanabe et al. split
    /// at the second: `capacity` 1; larger buckets make the tree shallower and the pair
    /// search cheaper).
    pub fn with_capacity(domain: Option<[f64; 4]>, capacity: u32) -> Self {
        Quadtree {
            domain,
            capacity: capacity.max(1),
            ..Default::default()
        }
    }

    /// A tree that will only ever be rebuilt (the reference of the tree-update benchmark):
    /// it skips the per-entry leaf squares that only the migration scan reads.
    pub fn rebuilt_only(mut self) -> Self {
        self.rebuilt_only = true;
        self
    }

    /// Leaf capacity (a `Default` tree has 0 stored: it means 1).
    #[inline]
    fn cap(&self) -> u32 {
        self.capacity.max(1)
    }

    /// Live nodes (allocated minus free).
    pub fn nodes(&self) -> usize {
        self.nodes.len() - 4 * self.free_blocks.len()
    }

    /// Entries (tiles) in the tree.
    pub fn entries(&self) -> usize {
        self.owner.len()
    }

    fn store<B: BoxSource>(&mut self, src: &B) {
        store_boxes(&mut self.boxes, src);
    }

    /// The tiles of box `b` cut `t` times per axis: tile k spans [edge(k), edge(k + 1)]
    /// with edge(0) = lo and edge(t) = hi exactly, so that neighbours share their edge.
    fn tile_of(b: &[f32; 4], t: [u16; 2], k: [u16; 2]) -> ([f64; 2], [f64; 2]) {
        let mut c = [0.0; 2];
        let mut h = [0.0; 2];
        for a in 0..2 {
            let (lo, hi) = (b[2 * a] as f64, b[2 * a + 1] as f64);
            let n = t[a] as f64;
            let edge = |i: u16| {
                if i == 0 {
                    lo
                } else if i == t[a] {
                    hi
                } else {
                    lo + (hi - lo) * (i as f64 / n)
                }
            };
            let (e0, e1) = (edge(k[a]), edge(k[a] + 1));
            c[a] = 0.5 * (e0 + e1);
            h[a] = 0.5 * (e1 - e0);
        }
        (c, h)
    }

    /// Tiles of box `b` per axis, at most [`MAX_TILES_PER_AXIS`] (a box of a thousand
    /// typical sizes gets larger tiles rather than a million of them; the search reaches
    /// out by the largest tile, so only speed suffers).
    fn tiles_for(&self, b: &[f32; 4]) -> [u16; 2] {
        [0, 1].map(|a| {
            let h = 0.5 * (b[2 * a + 1] as f64 - b[2 * a] as f64);
            if h > self.tile_limit && self.tile_limit > 0.0 {
                ((h / self.tile_limit).ceil() as usize).clamp(1, MAX_TILES_PER_AXIS) as u16
            } else {
                1
            }
        })
    }

    /// Entries from the stored boxes: the typical size, the tiling, centres and reach.
    fn make_entries(&mut self) {
        let n = self.boxes.len();
        let mut halves: Vec<f64> = self
            .boxes
            .iter()
            .map(|b| 0.5 * (b[1] - b[0]).max(b[3] - b[2]) as f64)
            .filter(|h| h.is_finite())
            .collect();
        let typical = if halves.is_empty() {
            0.0
        } else {
            let m = halves.len() / 2;
            *halves.select_nth_unstable_by(m, |a, b| a.total_cmp(b)).1
        };
        self.tile_limit = TILE_FACTOR * typical;
        self.owner.clear();
        self.centre.clear();
        self.half.clear();
        self.first_entry.clear();
        self.tiles.clear();
        self.reach = [0.0; 2];
        for p in 0..n {
            let b = self.boxes[p];
            let t = self.tiles_for(&b);
            self.first_entry.push(self.owner.len() as u32);
            self.tiles.push(t);
            for ky in 0..t[1] {
                for kx in 0..t[0] {
                    let (c, h) = Self::tile_of(&b, t, [kx, ky]);
                    self.owner.push(p as u32);
                    self.centre.push(c);
                    self.half.push(h);
                    self.reach[0] = self.reach[0].max(h[0]);
                    self.reach[1] = self.reach[1].max(h[1]);
                }
            }
        }
        self.first_entry.push(self.owner.len() as u32);
    }

    /// New centres of the entries from the stored boxes. False if the particles changed
    /// (added, renumbered) or some box needs another tiling: then the caller rebuilds.
    fn update_entry_boxes(&mut self) -> bool {
        if self.stale || self.tiles.len() != self.boxes.len() {
            return false;
        }
        for p in 0..self.boxes.len() {
            let b = self.boxes[p];
            let t = self.tiles[p];
            if self.tiles_for(&b) != t {
                return false;
            }
            let mut e = self.first_entry[p] as usize;
            for ky in 0..t[1] {
                for kx in 0..t[0] {
                    let (c, h) = Self::tile_of(&b, t, [kx, ky]);
                    self.centre[e] = c;
                    self.half[e] = h;
                    self.reach[0] = self.reach[0].max(h[0]);
                    self.reach[1] = self.reach[1].max(h[1]);
                    e += 1;
                }
            }
        }
        true
    }

    fn new_node(&mut self, lo: [f64; 2], hi: [f64; 2], parent: u32, depth: u8) -> u32 {
        let k = self.nodes.len() as u32;
        self.nodes.push(Node {
            lo,
            hi,
            mid: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])],
            child: NONE,
            parent,
            head: NONE,
            count: 0,
            depth,
        });
        k
    }

    /// The root square and nothing else.
    fn clear_tree(&mut self) {
        let (lo, hi) = match self.domain {
            Some(d) => ([d[0], d[2]], [d[1], d[3]]),
            None => {
                let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
                for c in &self.centre {
                    for a in 0..2 {
                        lo[a] = lo[a].min(c[a]);
                        hi[a] = hi[a].max(c[a]);
                    }
                }
                if self.centre.is_empty() {
                    ([0.0; 2], [1.0; 2])
                } else {
                    (lo, hi)
                }
            }
        };
        // A square, padded a little so that the extreme centres are inside.
        let side = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(f64::MIN_POSITIVE) * 1.01;
        let c = [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])];
        let (lo, hi) = (
            [c[0] - 0.5 * side, c[1] - 0.5 * side],
            [c[0] + 0.5 * side, c[1] + 0.5 * side],
        );
        self.nodes.clear();
        self.free_blocks.clear();
        self.new_node(lo, hi, NONE, 0);
    }

    /// Where the tree files a centre: clamped into the root's half-open square, so that a
    /// centre outside the root lives in a border leaf and stays there.
    #[inline(always)]
    fn key(&self, c: [f64; 2]) -> [f64; 2] {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        [
            c[0].clamp(lo[0], hi[0].next_down()),
            c[1].clamp(lo[1], hi[1].next_down()),
        ]
    }

    /// A search rectangle clamped into the root (closed), to match [`Quadtree::key`]: a key
    /// lies in the clamped rectangle whenever its centre lies in the original one.
    #[inline]
    fn clamp_rect(&self, r: [f64; 4]) -> [f64; 4] {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        [
            r[0].clamp(lo[0], hi[0]),
            r[1].clamp(lo[0], hi[0]),
            r[2].clamp(lo[1], hi[1]),
            r[3].clamp(lo[1], hi[1]),
        ]
    }

    /// Every entry filed in a leaf whose square meets the closed rectangle `r` (clamped),
    /// starting from the lowest ancestor of `from` whose square contains `r`.
    #[inline]
    fn search(&self, from: u32, r: [f64; 4], stack: &mut Vec<u32>, mut visit: impl FnMut(u32)) {
        let mut n = from as usize;
        while self.nodes[n].parent != NONE
            && !(self.nodes[n].lo[0] <= r[0]
                && r[1] < self.nodes[n].hi[0]
                && self.nodes[n].lo[1] <= r[2]
                && r[3] < self.nodes[n].hi[1])
        {
            n = self.nodes[n].parent as usize;
        }
        stack.clear();
        stack.push(n as u32);
        while let Some(n) = stack.pop() {
            let n = n as usize;
            if self.nodes[n].hi[0] < r[0]
                || self.nodes[n].lo[0] > r[1]
                || self.nodes[n].hi[1] < r[2]
                || self.nodes[n].lo[1] > r[3]
            {
                continue;
            }
            let ch = self.nodes[n].child;
            if ch != NONE {
                stack.extend(ch..ch + 4);
                continue;
            }
            let mut f = self.nodes[n].head;
            while f != NONE {
                visit(f);
                f = self.next[f as usize];
            }
        }
    }

    #[inline(always)]
    fn quadrant(&self, n: u32, c: [f64; 2]) -> u32 {
        let m = self.nodes[n as usize].mid;
        (c[0] >= m[0]) as u32 + 2 * (c[1] >= m[1]) as u32
    }

    /// Is the key inside node n's half-open square?
    #[inline(always)]
    fn holds(&self, n: u32, k: [f64; 2]) -> bool {
        let n = n as usize;
        k[0] >= self.nodes[n].lo[0]
            && k[0] < self.nodes[n].hi[0]
            && k[1] >= self.nodes[n].lo[1]
            && k[1] < self.nodes[n].hi[1]
    }

    fn link(&mut self, e: u32, n: u32) {
        let h = self.nodes[n as usize].head;
        self.next[e as usize] = h;
        self.prev[e as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = e;
        }
        self.nodes[n as usize].head = e;
        self.nodes[n as usize].count += 1;
        self.leaf[e as usize] = n;
        if !self.bulk {
            self.leaf_box[e as usize] = self.leaf_square(n);
        }
    }

    /// Node n's square as stored in `leaf_box`.
    #[inline]
    fn leaf_square(&self, n: u32) -> [f32; 4] {
        let (lo, hi) = (self.nodes[n as usize].lo, self.nodes[n as usize].hi);
        // Rounded inwards: up from the lower edges, down from the upper ones.
        [round_up(lo[0]), round_down(hi[0]), round_up(lo[1]), round_down(hi[1])]
    }

    fn unlink(&mut self, e: u32) {
        let n = self.leaf[e as usize];
        let (p, q) = (self.prev[e as usize], self.next[e as usize]);
        if p != NONE {
            self.next[p as usize] = q;
        } else {
            self.nodes[n as usize].head = q;
        }
        if q != NONE {
            self.prev[q as usize] = p;
        }
        self.nodes[n as usize].count -= 1;
        self.leaf[e as usize] = NONE;
    }

    /// Four children for leaf n (from the free list if there is a block), its chain
    /// handed down.
    fn split(&mut self, n: u32) {
        let (lo, hi, m) = (
            self.nodes[n as usize].lo,
            self.nodes[n as usize].hi,
            self.nodes[n as usize].mid,
        );
        let d = self.nodes[n as usize].depth + 1;
        let quads = [
            ([lo[0], lo[1]], [m[0], m[1]]),
            ([m[0], lo[1]], [hi[0], m[1]]),
            ([lo[0], m[1]], [m[0], hi[1]]),
            ([m[0], m[1]], [hi[0], hi[1]]),
        ];
        let block = match self.free_blocks.pop() {
            Some(b) => {
                for (k, (l, h)) in quads.into_iter().enumerate() {
                    let c = (b + k as u32) as usize;
                    self.nodes[c].lo = l;
                    self.nodes[c].hi = h;
                    self.nodes[c].mid = [0.5 * (l[0] + h[0]), 0.5 * (l[1] + h[1])];
                    self.nodes[c].child = NONE;
                    self.nodes[c].parent = n;
                    self.nodes[c].depth = d;
                    self.nodes[c].head = NONE;
                    self.nodes[c].count = 0;
                }
                b
            }
            None => {
                let b = self.nodes.len() as u32;
                for (l, h) in quads {
                    self.new_node(l, h, n, d);
                }
                b
            }
        };
        let mut e = self.nodes[n as usize].head;
        self.nodes[n as usize].head = NONE;
        self.nodes[n as usize].count = 0;
        self.nodes[n as usize].child = block;
        while e != NONE {
            let next = self.next[e as usize];
            let c = block + self.quadrant(n, self.key(self.centre[e as usize]));
            self.link(e, c);
            e = next;
        }
        self.stats.splits += 1;
    }

    /// Entry e down from node n to a leaf, splitting an occupied leaf on the way.
    fn descend(&mut self, e: u32, mut n: u32) {
        let c = self.key(self.centre[e as usize]);
        loop {
            let ch = self.nodes[n as usize].child;
            if ch != NONE {
                n = ch + self.quadrant(n, c);
                continue;
            }
            if self.nodes[n as usize].count < self.cap() || self.nodes[n as usize].depth >= MAX_DEPTH {
                self.link(e, n);
                return;
            }
            self.split(n);
        }
    }

    /// Node n gives back its four children if they are empty leaves; then the same for its
    /// parent.
    fn merge_up(&mut self, mut n: u32) {
        while n != NONE {
            let b = self.nodes[n as usize].child;
            if b == NONE {
                n = self.nodes[n as usize].parent;
                continue;
            }
            let kids = b as usize..b as usize + 4;
            if kids.clone().any(|c| self.nodes[c].child != NONE) || kids.clone().any(|c| self.nodes[c].count > 0) {
                return;
            }
            self.nodes[n as usize].child = NONE;
            for c in kids {
                while self.nodes[c].head != NONE {
                    let e = self.nodes[c].head;
                    self.unlink(e);
                    self.link(e, n);
                }
            }
            self.free_blocks.push(b);
            self.stats.merges += 1;
            n = self.nodes[n as usize].parent;
        }
    }

    /// Insert every entry into an empty tree.
    fn insert_all(&mut self) {
        let m = self.owner.len();
        self.leaf.clear();
        self.leaf.resize(m, NONE);
        self.next.clear();
        self.next.resize(m, NONE);
        self.prev.clear();
        self.prev.resize(m, NONE);
        // The leaf squares once at the end, not at every link of every split on the way.
        self.bulk = true;
        for e in 0..m as u32 {
            self.descend(e, 0);
        }
        self.bulk = false;
        self.leaf_box.clear();
        if !self.rebuilt_only {
            for e in 0..m {
                let sq = self.leaf_square(self.leaf[e]);
                self.leaf_box.push(sq);
            }
        }
    }

    /// Move the entries whose centres left their leaves (Watanabe et al., Fig. 4-5).
    fn migrate(&mut self) {
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
            if c[0] >= b[0] && c[0] < b[1] && c[1] >= b[2] && c[1] < b[3] {
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
    fn holder_above(&self, n: u32, k: [f64; 2]) -> u32 {
        let mut n = self.nodes[n as usize].parent;
        while !self.holds(n, k) {
            n = self.nodes[n as usize].parent;
        }
        n
    }

    /// The leaf under node n (which holds key k) that holds k.
    #[inline]
    fn leaf_below(&self, mut n: u32, k: [f64; 2]) -> u32 {
        loop {
            let ch = self.nodes[n as usize].child;
            if ch == NONE {
                return n;
            }
            n = ch + self.quadrant(n, k);
        }
    }

    /// Is node n in the tree (not in a freed block)? Blocks of four start at 1 + 4j; a
    /// node is live when its parent's children are its block. A freed node's parent has
    /// either merged it away (no children) or been freed itself (freed nodes have no
    /// children), unless the block was taken again, and then it is live again.
    #[inline]
    fn live(&self, n: u32) -> bool {
        if n == 0 {
            return true;
        }
        let base = n - (n - 1) % 4;
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

    /// The whole pair set of the stored boxes, sorted, into `out`.
    fn find_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
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
                let r = self.clamp_rect([
                    c[0] - h[0] - self.reach[0],
                    c[0] + h[0] + self.reach[0],
                    c[1] - h[1] - self.reach[1],
                    c[1] + h[1] + self.reach[1],
                ]);
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

    /// Particles (stored boxes): how a caller splits the pair search of
    /// [`Quadtree::pairs_of`].
    pub fn particles(&self) -> usize {
        self.boxes.len()
    }

    /// Checks the structure: every entry in the leaf whose square holds its centre (the
    /// root for centres outside the root), chains consistent with the counts, no empty
    /// interior node (one whose children are leaves holding at most one entry between
    /// them), free blocks unreachable. Err names the first problem.
    pub fn validate(&self) -> Result<(), String> {
        let nodes = self.nodes.len();
        let freed: std::collections::HashSet<u32> = self.free_blocks.iter().flat_map(|&b| b..b + 4).collect();
        let mut seen = vec![false; self.owner.len()];
        let mut reach = vec![false; nodes];
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let nu = n as usize;
            if freed.contains(&n) {
                return Err(format!("node {n} is reachable but on the free list"));
            }
            reach[nu] = true;
            let ch = self.nodes[nu].child;
            if ch != NONE {
                if self.nodes[nu].head != NONE || self.nodes[nu].count != 0 {
                    return Err(format!("interior node {n} holds entries"));
                }
                let kids = ch as usize..ch as usize + 4;
                for c in kids.clone() {
                    if self.nodes[c].parent != n {
                        return Err(format!("node {c} does not name {n} as its parent"));
                    }
                }
                if kids
                    .clone()
                    .all(|c| self.nodes[c].child == NONE && self.nodes[c].count == 0)
                {
                    return Err(format!("node {n} has four empty leaf children: not merged"));
                }
                stack.extend(ch..ch + 4);
                continue;
            }
            let mut e = self.nodes[nu].head;
            let mut k = 0;
            let mut prev = NONE;
            while e != NONE {
                let eu = e as usize;
                if self.leaf[eu] != n || self.prev[eu] != prev {
                    return Err(format!("entry {e}: chain of leaf {n} broken"));
                }
                if seen[eu] {
                    return Err(format!("entry {e} is in two chains"));
                }
                seen[eu] = true;
                let c = self.centre[eu];
                if !self.rebuilt_only && self.leaf_box[eu] != self.leaf_square(n) {
                    return Err(format!("entry {e}: cached leaf square differs from leaf {n}'s"));
                }
                if !self.holds(n, self.key(c)) {
                    return Err(format!(
                        "entry {e} (particle {}) at {c:?} is outside its leaf {n}",
                        self.owner[eu]
                    ));
                }
                if k >= self.cap() && self.nodes[nu].depth < MAX_DEPTH {
                    return Err(format!(
                        "leaf {n} above the depth limit holds more than {} entries",
                        self.cap()
                    ));
                }
                prev = e;
                k += 1;
                e = self.next[eu];
            }
            if k != self.nodes[nu].count {
                return Err(format!(
                    "leaf {n}: count {} but {k} entries chained",
                    self.nodes[nu].count
                ));
            }
        }
        if let Some(e) = seen.iter().position(|&s| !s) {
            return Err(format!("entry {e} is in no leaf"));
        }
        if let Some(n) = (0..nodes).find(|&n| !reach[n] && !freed.contains(&(n as u32))) {
            return Err(format!("node {n} is neither reachable nor free"));
        }
        Ok(())
    }
}

/// Most tiles of one box along one axis.
pub const MAX_TILES_PER_AXIS: usize = 512;

impl NeighborSearch for Quadtree {
    fn name(&self) -> &'static str {
        "quadtree"
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        self.store(src);
        self.make_entries();
        self.rebuild_tree();
        let mut found = std::mem::take(&mut self.pairs);
        self.find_pairs(&mut found);
        pairs.clear();
        pairs.extend_from_slice(&found);
        self.pairs = found;
        self.stale = false;
        self.stats.rebuilds += 1;
    }

    /// The tree is built anew from the saved boxes: its shape may differ from the migrated
    /// tree of the saved run, but its pair set is the same, and the changes are reported
    /// sorted (a diff of sorted sets), so the run continues exactly.
    fn restore(&mut self, boxes: &[[f32; 4]], _ends: [&[u64]; 2]) -> Result<Option<usize>, String> {
        super::check_stored_boxes(boxes)?;
        self.boxes = boxes.to_vec();
        self.make_entries();
        self.rebuild_tree();
        let mut found = std::mem::take(&mut self.pairs);
        self.find_pairs(&mut found);
        self.pairs = found;
        self.stale = false;
        Ok(Some(self.pairs.len()))
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        if !self.set_boxes(src) {
            // New or renumbered particles, or a box that needs another tiling: start afresh.
            let old = std::mem::take(&mut self.pairs);
            let mut new = Vec::new();
            self.rebuild(src, &mut new);
            diff_pairs(&old, &new, adds, removes);
            return;
        }
        self.migrate();
        let mut found = std::mem::take(&mut self.scratch);
        self.find_pairs(&mut found);
        diff_pairs(&self.pairs, &found, adds, removes);
        self.scratch = std::mem::replace(&mut self.pairs, found);
        self.stats.refreshes += 1;
    }

    fn query(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        let s = self.clamp_rect([
            r[0] as f64 - self.reach[0],
            r[1] as f64 + self.reach[0],
            r[2] as f64 - self.reach[1],
            r[3] as f64 + self.reach[1],
        ]);
        let mut stack = Vec::new();
        self.search(0, s, &mut stack, |f| {
            let q = self.owner[f as usize];
            if boxes_overlap(&self.boxes[q as usize], r) {
                out.push(q);
            }
        });
        out.sort_unstable();
        out.dedup();
    }

    fn stored_boxes(&self) -> &[[f32; 4]] {
        &self.boxes
    }

    fn push_particle(&mut self) {
        self.boxes.push(EMPTY_BOX);
    }

    fn renumber(&mut self, map: &[u32]) {
        renumber_boxes(&mut self.boxes, map);
        renumber_pairs(&mut self.pairs, map);
        self.stale = true;
    }

    fn memory_bytes(&self) -> usize {
        let entries = self.owner.capacity() * 4
            + (self.centre.capacity() + self.half.capacity()) * 16
            + (self.leaf.capacity() + self.next.capacity() + self.prev.capacity()) * 4
            + self.leaf_box.capacity() * 16;
        let nodes = self.nodes.capacity() * std::mem::size_of::<Node>();
        self.boxes.capacity() * 16
            + entries
            + nodes
            + (self.first_entry.capacity() + self.free_blocks.capacity()) * 4
            + self.tiles.capacity() * 4
            + (self.pairs.capacity() + self.scratch.capacity()) * 8
    }
}
