//! O(N^2) reference broad phase: every pair whose rounded boxes overlap. For tests and
//! tiny systems only; it is the independent computation the fast methods are checked
//! against.
use super::{boxes_overlap, renumber_boxes, rounded_box, store_boxes, BoxSource, NeighborSearch, PairSet, EMPTY_BOX};

/// All pairs (i < j) whose rounded boxes overlap, sorted.
pub fn brute_force_pairs<B: BoxSource>(src: &B) -> Vec<(u32, u32)> {
    let n = src.len();
    let boxes: Vec<[f32; 4]> = (0..n).map(|p| rounded_box(src.bbox(p))).collect();
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
    boxes: Vec<[f32; 4]>,
    set: PairSet,
}

impl BruteForce {
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

impl NeighborSearch for BruteForce {
    fn name(&self) -> &'static str {
        "brute"
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        store_boxes(&mut self.boxes, src);
        let mut set = std::mem::take(&mut self.set);
        set.rebuilt(pairs, |out| self.all_pairs(out));
        self.set = set;
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        store_boxes(&mut self.boxes, src);
        let mut set = std::mem::take(&mut self.set);
        set.refreshed(adds, removes, |out| self.all_pairs(out));
        self.set = set;
    }

    fn query(&self, r: &[f32; 4], out: &mut Vec<u32>) {
        out.clear();
        out.extend((0..self.boxes.len() as u32).filter(|&p| boxes_overlap(&self.boxes[p as usize], r)));
    }

    fn stored_boxes(&self) -> &[[f32; 4]] {
        &self.boxes
    }

    fn push_particle(&mut self) {
        self.boxes.push(EMPTY_BOX);
    }

    fn renumber(&mut self, map: &[u32]) {
        renumber_boxes(&mut self.boxes, map);
        self.set.renumber(map);
    }

    fn memory_bytes(&self) -> usize {
        self.boxes.capacity() * 16 + self.set.memory_bytes()
    }
}
