//! The tree itself: nodes over squares (cubes) of the domain, splitting a leaf when a second
//! entry arrives, linking and unlinking entries, giving back 2^DIM empty children (sections
//! 2.3-2.4).
use super::*;

impl Quadtree {
    pub(super) fn new_node(&mut self, lo: Vector, hi: Vector, parent: u32, depth: u8) -> u32 {
        let k = self.nodes.len() as u32;
        self.nodes.push(Node {
            lo,
            hi,
            mid: std::array::from_fn(|a| 0.5 * (lo[a] + hi[a])),
            child: NONE,
            parent,
            head: NONE,
            count: 0,
            depth,
        });
        k
    }

    /// The root square (cube) and nothing else.
    pub(super) fn clear_tree(&mut self) {
        let (lo, hi): (Vector, Vector) = match self.domain {
            Some(d) => (std::array::from_fn(|a| d[2 * a]), std::array::from_fn(|a| d[2 * a + 1])),
            None => {
                let (mut lo, mut hi) = ([f64::INFINITY; DIM], [f64::NEG_INFINITY; DIM]);
                for c in &self.centre {
                    for a in 0..DIM {
                        lo[a] = lo[a].min(c[a]);
                        hi[a] = hi[a].max(c[a]);
                    }
                }
                if self.centre.is_empty() {
                    ([0.0; DIM], [1.0; DIM])
                } else {
                    (lo, hi)
                }
            }
        };
        // A square (cube), padded a little so that the extreme centres are inside.
        let mut side = hi[0] - lo[0];
        for a in 1..DIM {
            side = side.max(hi[a] - lo[a]);
        }
        let side = side.max(f64::MIN_POSITIVE) * 1.01;
        let c: Vector = std::array::from_fn(|a| 0.5 * (lo[a] + hi[a]));
        let (lo, hi) = (c.map(|x| x - 0.5 * side), c.map(|x| x + 0.5 * side));
        self.nodes.clear();
        self.free_blocks.clear();
        self.new_node(lo, hi, NONE, 0);
    }

    /// Where the tree files a centre: clamped into the root's half-open square, so that a
    /// centre outside the root lives in a border leaf and stays there.
    #[inline(always)]
    pub(super) fn key(&self, c: Vector) -> Vector {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        std::array::from_fn(|a| c[a].clamp(lo[a], hi[a].next_down()))
    }

    /// A search rectangle clamped into the root (closed), to match [`Quadtree::key`]: a key
    /// lies in the clamped rectangle whenever its centre lies in the original one.
    #[inline]
    pub(super) fn clamp_rect(&self, r: Box64) -> Box64 {
        let (lo, hi) = (self.nodes[0].lo, self.nodes[0].hi);
        std::array::from_fn(|k| r[k].clamp(lo[k / 2], hi[k / 2]))
    }

    /// Which of node n's children holds c: bit a set when c is on the upper side of the
    /// middle on axis a (a quadrant in 2D, an octant in 3D).
    #[inline(always)]
    pub(super) fn quadrant(&self, n: u32, c: Vector) -> u32 {
        let m = self.nodes[n as usize].mid;
        let mut q = 0;
        for a in 0..DIM {
            q |= ((c[a] >= m[a]) as u32) << a;
        }
        q
    }

    /// Is the key inside node n's half-open square (cube)?
    #[inline(always)]
    pub(super) fn holds(&self, n: u32, k: Vector) -> bool {
        let node = &self.nodes[n as usize];
        (0..DIM).all(|a| k[a] >= node.lo[a] && k[a] < node.hi[a])
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
    pub(super) fn leaf_square(&self, n: u32) -> Aabb {
        let (lo, hi) = (self.nodes[n as usize].lo, self.nodes[n as usize].hi);
        // Rounded inwards: up from the lower edges, down from the upper ones.
        std::array::from_fn(|k| {
            if k % 2 == 0 {
                round_up(lo[k / 2])
            } else {
                round_down(hi[k / 2])
            }
        })
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

    /// 2^DIM children for leaf n (from the free list if there is a block), its chain
    /// handed down.
    pub(super) fn split(&mut self, n: u32) {
        let (lo, hi, m) = (
            self.nodes[n as usize].lo,
            self.nodes[n as usize].hi,
            self.nodes[n as usize].mid,
        );
        let d = self.nodes[n as usize].depth + 1;
        // Child k: the upper half on the axes whose bit is set in k (see `quadrant`).
        let quads: [(Vector, Vector); CHILDREN] = std::array::from_fn(|k| {
            let up = |a: usize| (k >> a) & 1 == 1;
            (
                std::array::from_fn(|a| if up(a) { m[a] } else { lo[a] }),
                std::array::from_fn(|a| if up(a) { hi[a] } else { m[a] }),
            )
        });
        let block = match self.free_blocks.pop() {
            Some(b) => {
                for (k, (l, h)) in quads.into_iter().enumerate() {
                    let c = (b + k as u32) as usize;
                    self.nodes[c].lo = l;
                    self.nodes[c].hi = h;
                    self.nodes[c].mid = std::array::from_fn(|a| 0.5 * (l[a] + h[a]));
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

    /// Node n gives back its 2^DIM children if they are empty leaves; then the same for its
    /// parent.
    pub(super) fn merge_up(&mut self, mut n: u32) {
        while n != NONE {
            let b = self.nodes[n as usize].child;
            if b == NONE {
                n = self.nodes[n as usize].parent;
                continue;
            }
            let kids = b as usize..b as usize + CHILDREN;
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
