//! The tree itself: nodes over squares of the domain, splitting a leaf when a second entry
//! arrives, linking and unlinking entries, giving back four empty children (sections 2.3-2.4).
use super::*;

impl Quadtree {
    pub(super) fn new_node(&mut self, lo: [f64; 2], hi: [f64; 2], parent: u32, depth: u8) -> u32 {
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
    pub(super) fn clear_tree(&mut self) {
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
    pub(super) fn key(&self, c: [f64; 2]) -> [f64; 2] {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        [
            c[0].clamp(lo[0], hi[0].next_down()),
            c[1].clamp(lo[1], hi[1].next_down()),
        ]
    }

    /// A search rectangle clamped into the root (closed), to match [`Quadtree::key`]: a key
    /// lies in the clamped rectangle whenever its centre lies in the original one.
    #[inline]
    pub(super) fn clamp_rect(&self, r: [f64; 4]) -> [f64; 4] {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        [
            r[0].clamp(lo[0], hi[0]),
            r[1].clamp(lo[0], hi[0]),
            r[2].clamp(lo[1], hi[1]),
            r[3].clamp(lo[1], hi[1]),
        ]
    }

    #[inline(always)]
    pub(super) fn quadrant(&self, n: u32, c: [f64; 2]) -> u32 {
        let m = self.nodes[n as usize].mid;
        (c[0] >= m[0]) as u32 + 2 * (c[1] >= m[1]) as u32
    }

    /// Is the key inside node n's half-open square?
    #[inline(always)]
    pub(super) fn holds(&self, n: u32, k: [f64; 2]) -> bool {
        let n = n as usize;
        k[0] >= self.nodes[n].lo[0]
            && k[0] < self.nodes[n].hi[0]
            && k[1] >= self.nodes[n].lo[1]
            && k[1] < self.nodes[n].hi[1]
    }

    pub(super) fn link(&mut self, e: u32, n: u32) {
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
    pub(super) fn leaf_square(&self, n: u32) -> [f32; 4] {
        let (lo, hi) = (self.nodes[n as usize].lo, self.nodes[n as usize].hi);
        // Rounded inwards: up from the lower edges, down from the upper ones.
        [round_up(lo[0]), round_down(hi[0]), round_up(lo[1]), round_down(hi[1])]
    }

    pub(super) fn unlink(&mut self, e: u32) {
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
    pub(super) fn split(&mut self, n: u32) {
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
    pub(super) fn descend(&mut self, e: u32, mut n: u32) {
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
    pub(super) fn merge_up(&mut self, mut n: u32) {
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
    pub(super) fn insert_all(&mut self) {
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
}
