//! O(N^2) reference broad phase: every pair whose rounded boxes overlap. For tests and
//! tiny systems only; it is the independent computation the fast methods are checked
//! against.
use super::{boxes_overlap, rounded_box, scan_query, Aabb, BoxSource, PairSet, WholeSet};

/// All pairs (i < j) whose rounded boxes overlap, sorted.
pub fn brute_force_pairs<B: BoxSource>(src: &B) -> Vec<(u32, u32)> {
    let n = src.len();
    let boxes: Vec<Aabb> = (0..n).map(|p| rounded_box(src.bbox(p))).collect();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if boxes_overlap(&boxes[i], &boxes[j]) {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// The brute-force reference behind the common interface: all pairs tested at every
/// refresh, O(N^2). For tests and tiny systems.
#[derive(Debug, Default, Clone)]
pub struct BruteForce {
    boxes: Vec<Aabb>,
    set: PairSet,
}

impl BruteForce {
    /// An empty search; the first rebuild stores the boxes.
    pub fn new() -> Self {
        Self::default()
    }

    fn all_pairs(&self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let b = &self.boxes;
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                if boxes_overlap(&b[i], &b[j]) {
                    out.push((i as u32, j as u32));
                }
            }
        }
    }
}

impl WholeSet for BruteForce {
    const NAME: &'static str = "brute";

    kept_fields!();

    fn index(&mut self, _fresh: bool) {}

    fn find(&self, out: &mut Vec<(u32, u32)>) {
        self.all_pairs(out)
    }

    fn query_index(&self, r: &Aabb, out: &mut Vec<u32>) {
        scan_query(&self.boxes, r, out);
    }

    fn forget(&mut self) {}

    fn index_bytes(&self) -> usize {
        0
    }
}
