//! The refresh timing of `talus neighbors`, one source for both dimensions: included by
//! `neighbors.rs` (2D) and `neighbors3d.rs` (3D), each with its own kernels'
//! `NeighborSearch` and `BallBoxes` in scope, as `stepping.rs` is compiled once per
//! dimension.
use std::time::Instant;

use super::{BallBoxes, NeighborSearch};
use crate::neighbors::median;

/// Balls moving between walls, as the searches see them.
pub(super) trait Moving {
    /// Move every ball by one step.
    fn advance(&mut self);
    /// The balls' boxes now.
    fn ball_boxes(&self) -> BallBoxes<'_>;
    fn balls(&self) -> usize;
}

/// Median seconds per refresh over `repeats` runs of `steps` steps (the motion continues
/// between repeats; it is not timed), and the pairs per particle at the end.
pub(super) fn time_refresh<M: NeighborSearch, S: Moving>(
    mut m: M,
    sys: &mut S,
    steps: usize,
    repeats: usize,
) -> (f64, f64) {
    let mut pairs = Vec::new();
    m.rebuild(&sys.ball_boxes(), &mut pairs);
    let mut live = pairs.len() as i64;
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    let mut per = Vec::new();
    for _ in 0..repeats.max(1) {
        let mut t = 0.0;
        for _ in 0..steps.max(1) {
            sys.advance();
            let s = Instant::now();
            m.refresh(&sys.ball_boxes(), &mut adds, &mut removes);
            t += s.elapsed().as_secs_f64();
            // Every method but the sweep reports exact removals; the count is for the table.
            live += adds.len() as i64 - removes.len() as i64;
        }
        per.push(t / steps.max(1) as f64);
    }
    if m.name() == "sweep" {
        // The sweep's removals may name absent pairs: count afresh.
        m.rebuild(&sys.ball_boxes(), &mut pairs);
        live = pairs.len() as i64;
    }
    (median(per), live as f64 / sys.balls().max(1) as f64)
}
