//! The contact table's far pairs (3D): which candidate pairs the sphere loop reads. Those
//! that cannot touch before one of their boxes is made anew (the test of the stored boxes'
//! cores, `kernels::neighbor::near_pairs`) are kept apart from the slots
//! (`ContactTable::far`): split from the method's list at a rebuild (`BroadUpdate`), and
//! after each incremental update a far pair goes back into a slot when its cores come
//! within reach, the slotted ones tested again when the table is compacted.
use talus_kernels::math::Aabb;
use talus_kernels::neighbor::near_pairs::{far_slots, may_touch};

use super::{Broad, Simulation};
use crate::contacts::FREE;
use crate::pool::Phase;
use talus_kernels::neighbor::NeighborSearch;

/// Whether the far pairs are kept apart: in 3D, where a sphere's box reaches far past it
/// (2D: every candidate in a slot).
pub(super) const FAR_PAIRS: bool = cfg!(feature = "dim3");

impl Simulation {
    /// After an incremental update: a far pair whose boxes' cores came within reach goes
    /// into a slot (its spring zero); and when the table is due for compaction (which
    /// follows in `update_neighbors`), the slotted pairs that cannot touch any more leave
    /// their slots first (they are apart now, so their springs would go at this step
    /// anyway), so that the compaction takes their holes out with the others. A test of
    /// every slot at each update instead cost 2.5 % of a 20,000-sphere drum's run for 3 %
    /// fewer slotted pairs (BENCHMARKS.md, issue 19). In a periodic cell a pair's two boxes
    /// may lie across a face from each other: every pair stays in a slot.
    pub(super) fn part_far_pairs(&mut self) {
        if !FAR_PAIRS || self.periodic.is_some() {
            return;
        }
        let ct = &mut self.contacts;
        let ps = &self.particles;
        let n = ps.len();
        let boxes: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let balls = (boxes, &ps.radius[..n]);
        self.workers.pool.serial(Phase::Contacts, || {
            let mut near = Vec::new();
            ct.far.part(|i, j| may_touch(balls, i, j), &mut near);
            for &[i, j] in &near {
                ct.add(i, j);
            }
            if ct.wants_compaction() {
                let mut slots = Vec::new();
                far_slots(&ct.i, &ct.j, FREE, balls, &mut slots);
                let mut far: Vec<[u32; 2]> = slots.iter().map(|&s| [ct.i[s as usize], ct.j[s as usize]]).collect();
                for &s in &slots {
                    ct.free_slot(s as usize);
                }
                ct.far.merge(&mut far);
            }
        });
    }
}
