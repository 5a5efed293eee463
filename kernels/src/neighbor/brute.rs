//! O(N^2) reference broad phase: every pair whose rounded boxes overlap. For tests and
//! tiny systems only; it is the independent computation the fast methods are checked
//! against.
use super::{boxes_overlap, rounded_box, BoxSource};

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
