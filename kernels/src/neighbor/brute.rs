//! O(N^2) reference broad phase: every pair whose rounded boxes overlap. For tests and
//! tiny systems only; it is the independent computation the fast methods are checked
//! against.
use super::{
    boxes_overlap, diff_pairs, renumber_boxes, renumber_pairs, rounded_box, BoxSource, NeighborSearch, EMPTY_BOX,
};

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
    pairs: Vec<(u32, u32)>,
}

impl BruteForce {
    pub fn new() -> Self {
        Self::default()
    }

    fn all_pairs(&self) -> Vec<(u32, u32)> {
        let b = &self.boxes;
        let mut out = Vec::new();
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                if boxes_overlap(&b[i], &b[j]) {
                    out.push((i as u32, j as u32));
                }
            }
        }
        out
    }
}

impl NeighborSearch for BruteForce {
    fn name(&self) -> &'static str {
        "brute"
    }

    fn rebuild<B: BoxSource>(&mut self, src: &B, pairs: &mut Vec<(u32, u32)>) {
        self.boxes = (0..src.len()).map(|p| rounded_box(src.bbox(p))).collect();
        self.pairs = self.all_pairs();
        pairs.clear();
        pairs.extend_from_slice(&self.pairs);
    }

    fn refresh<B: BoxSource>(&mut self, src: &B, adds: &mut Vec<(u32, u32)>, removes: &mut Vec<(u32, u32)>) {
        self.boxes = (0..src.len()).map(|p| rounded_box(src.bbox(p))).collect();
        let new = self.all_pairs();
        diff_pairs(&self.pairs, &new, adds, removes);
        self.pairs = new;
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
        renumber_pairs(&mut self.pairs, map);
    }

    fn memory_bytes(&self) -> usize {
        self.boxes.capacity() * 16 + self.pairs.capacity() * 8
    }
}
