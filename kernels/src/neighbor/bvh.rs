//! Bounding-volume hierarchy, built anew every step (the R-tree reference of Perkins'
//! thesis, section 4.3: "the tree is constructed and destroyed every timestep").
//!
//! A binary tree of boxes: each node's box bounds its objects; a node is split at the
//! median of its objects' centres along its longer side until at most `LEAF` remain
//! (top-down, O(N log N)). The pair set comes from one traversal of the tree against
//! itself: a node meets itself through its two children and their meeting; two nodes
//! whose boxes do not overlap are dropped whole. Every pair of objects is met once. It is
//! a reference, independent of the incremental methods, with the R-tree's strength: a few
//! large objects do not slow it down.
use super::{boxes_overlap, scan_query, PairSet, WholeSet};

/// Objects per leaf at most.
const LEAF: usize = 4;

#[derive(Debug, Default, Clone, Copy)]
struct BvhNode {
    bounds: [f32; 4],
    /// Leaf: `order[first..first + count]`; inner: children `first` and `first + 1`
    /// (count = 0).
    first: u32,
    count: u32,
}

/// Bounding-volume hierarchy, rebuilt at every refresh (see the module documentation).
#[derive(Debug, Default, Clone)]
pub struct BoundingVolumes {
    boxes: Vec<[f32; 4]>,
    order: Vec<u32>,
    nodes: Vec<BvhNode>,
    set: PairSet,
}

fn union(a: [f32; 4], b: &[f32; 4]) -> [f32; 4] {
    [a[0].min(b[0]), a[1].max(b[1]), a[2].min(b[2]), a[3].max(b[3])]
}

impl BoundingVolumes {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    fn build(&mut self) {
        let n = self.boxes.len();
        self.order.clear();
        self.order.extend(0..n as u32);
        self.nodes.clear();
        if n == 0 {
            return;
        }
        self.nodes.push(BvhNode::default());
        // (node, range of `order`), split top-down.
        let mut todo = vec![(0usize, 0usize, n)];
        while let Some((k, lo, hi)) = todo.pop() {
            let bounds = self.order[lo..hi]
                .iter()
                .fold(self.boxes[self.order[lo] as usize], |b, &p| {
                    union(b, &self.boxes[p as usize])
                });
            if hi - lo <= LEAF {
                self.nodes[k] = BvhNode {
                    bounds,
                    first: lo as u32,
                    count: (hi - lo) as u32,
                };
                continue;
            }
            let axis = if bounds[1] - bounds[0] >= bounds[3] - bounds[2] {
                0
            } else {
                1
            };
            let mid = (lo + hi) / 2;
            let boxes = &self.boxes;
            let centre = |p: &u32| {
                let b = &boxes[*p as usize];
                b[2 * axis] + b[2 * axis + 1]
            };
            self.order[lo..hi].select_nth_unstable_by(mid - lo, |a, b| centre(a).total_cmp(&centre(b)));
            let c = self.nodes.len();
            self.nodes.push(BvhNode::default());
            self.nodes.push(BvhNode::default());
            self.nodes[k] = BvhNode {
                bounds,
                first: c as u32,
                count: 0,
            };
            todo.push((c, lo, mid));
            todo.push((c + 1, mid, hi));
        }
    }

    fn leaf(&self, n: &BvhNode) -> &[u32] {
        &self.order[n.first as usize..(n.first + n.count) as usize]
    }

    /// All pairs, sorted, into `out`: the tree against itself.
    fn find_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        if self.nodes.is_empty() {
            return;
        }
        // (a, b): a == b means "a against itself".
        let mut todo = vec![(0u32, 0u32)];
        while let Some((a, b)) = todo.pop() {
            let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            if a == b {
                if na.count > 0 {
                    let l = self.leaf(na);
                    for (i, &p) in l.iter().enumerate() {
                        for &q in &l[i + 1..] {
                            self.test(p, q, out);
                        }
                    }
                } else {
                    let c = na.first;
                    todo.push((c, c));
                    todo.push((c + 1, c + 1));
                    todo.push((c, c + 1));
                }
                continue;
            }
            if !boxes_overlap(&na.bounds, &nb.bounds) {
                continue;
            }
            match (na.count > 0, nb.count > 0) {
                (true, true) => {
                    for &p in self.leaf(na) {
                        for &q in self.leaf(nb) {
                            self.test(p, q, out);
                        }
                    }
                }
                // Open the inner node (the larger one if both are inner).
                (true, false) => {
                    todo.push((a, nb.first));
                    todo.push((a, nb.first + 1));
                }
                (false, true) => {
                    todo.push((na.first, b));
                    todo.push((na.first + 1, b));
                }
                (false, false) => {
                    let area = |n: &BvhNode| (n.bounds[1] - n.bounds[0]) * (n.bounds[3] - n.bounds[2]);
                    if area(na) >= area(nb) {
                        todo.push((na.first, b));
                        todo.push((na.first + 1, b));
                    } else {
                        todo.push((a, nb.first));
                        todo.push((a, nb.first + 1));
                    }
                }
            }
        }
        out.sort_unstable();
    }

    #[inline]
    fn test(&self, p: u32, q: u32, out: &mut Vec<(u32, u32)>) {
        if boxes_overlap(&self.boxes[p as usize], &self.boxes[q as usize]) {
            out.push(if p < q { (p, q) } else { (q, p) });
        }
    }
}

impl WholeSet for BoundingVolumes {
    const NAME: &'static str = "bvh";

    kept_fields!();

    fn index(&mut self, _fresh: bool) {
        self.build();
    }

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.find_pairs(out)
    }

    fn query_index(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        out.clear();
        if self.order.len() != self.boxes.len() || self.nodes.is_empty() {
            scan_query(&self.boxes, r, out);
            return;
        }
        let mut todo = vec![0u32];
        while let Some(k) = todo.pop() {
            let n = &self.nodes[k as usize];
            if !boxes_overlap(&n.bounds, r) {
                continue;
            }
            if n.count > 0 {
                out.extend(
                    self.leaf(n)
                        .iter()
                        .copied()
                        .filter(|&p| boxes_overlap(&self.boxes[p as usize], r)),
                );
            } else {
                todo.push(n.first);
                todo.push(n.first + 1);
            }
        }
    }

    fn forget(&mut self) {
        self.order.clear();
    }

    fn index_bytes(&self) -> usize {
        self.order.capacity() * 4 + self.nodes.capacity() * std::mem::size_of::<BvhNode>()
    }
}
