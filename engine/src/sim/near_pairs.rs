//! The contact table's `near` marks (3D): which candidate pairs the sphere loop reads.
//! Tested after each update of the broad phase, from the stored boxes
//! (`kernels::neighbor::near_pairs`).
use talus_kernels::contact::SPRING_ZERO;
use talus_kernels::math::Aabb;
use talus_kernels::neighbor::near_pairs::mark_near_pairs;

use super::{Broad, Simulation};
use crate::contacts::FREE;
use crate::pool::Phase;
use talus_kernels::neighbor::NeighborSearch;

impl Simulation {
    /// Mark the pairs that may touch before a box is made anew. The pairs marked 0 since
    /// the last test can only have come near through a box made anew, so only they are
    /// tested again, unless this update `rebuilt` the table (its pairs all marked 1; a
    /// pair added later stays marked 1 untested until the next rebuild). A
    /// pair dropped is apart now, so its spring and rolling torque go, as the loop would
    /// let them go at this step. In a periodic cell a pair's two boxes may lie across a
    /// face from each other: every pair is marked.
    pub(super) fn mark_near_pairs(&mut self, rebuilt: bool) {
        let ct = &mut self.contacts;
        if !ct.near_state {
            return;
        }
        if self.periodic.is_some() {
            for (m, &i) in ct.near.iter_mut().zip(&ct.i) {
                ct.generation += (*m != (i != FREE) as u8) as u64;
                *m = (i != FREE) as u8;
            }
            return;
        }
        let ps = &self.particles;
        let n = ps.len();
        let boxes: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let (_, changed) = self.workers.pool.serial(Phase::Contacts, || {
            let (xi, rolling) = (&mut ct.xi, &mut ct.rolling);
            mark_near_pairs(
                &ct.i,
                &ct.j,
                FREE,
                (boxes, &ps.radius[..n]),
                &mut ct.near,
                rebuilt,
                |s| {
                    xi[s] = SPRING_ZERO;
                    if let Some(m) = rolling.get_mut(s) {
                        *m = [0.0; 3];
                    }
                },
            )
        });
        // What the table's pair set is to the force phase changed: the deterministic sum's
        // plan of owners (built from the near pairs) is made again.
        if changed > 0 {
            ct.generation += 1;
        }
        // After a test of every pair, the far ones moved after the others (see
        // `ContactTable::compact`): the loop's pass over the near ones then reads and
        // writes none of their bytes. A pair marked near later is read where it is.
        if rebuilt {
            self.workers.pool.serial(Phase::Contacts, || ct.compact());
        }
    }
}
