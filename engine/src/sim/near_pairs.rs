//! Which candidate pairs of the contact table have a slot (3D): the slots, which the sphere
//! loop reads, hold the pairs that touch; the others wait without one. Those that cannot
//! touch before one of their boxes is made anew (the test of the stored boxes' cores,
//! `kernels::neighbor::near_pairs`) wait in `ContactTable::far`, tested again after each
//! update of the broad phase; the others in `ContactTable::apart`, tested every step
//! before the forces with the sphere loop's own test. A rebuild splits the method's list
//! three ways (`BroadUpdate`); after an incremental update the far pairs whose cores came
//! within reach join the apart list, and when the table is due for compaction the slotted
//! pairs that do not touch leave their slots (they are apart now, so their springs would go
//! at this step anyway); before each step's forces the apart pairs that touch take a slot
//! each, their springs zero, as a pair's is when it starts to touch (appended after the
//! other slots, and sorted in when they are many: `ContactTable::merge_appended`; the
//! deterministic sum's owner plan extends itself over them, or in waves takes them as its
//! tail: `OwnerPlan::prepare`). In a settled bed of the
//! LAMMPS S3D spheres 1.9 of 3.6 such candidates per sphere touch: a slot costs 37 bytes, a
//! pair without one 8 (BENCHMARKS.md, issue 19).
use talus_kernels::math::Aabb;
use talus_kernels::neighbor::near_pairs::{may_touch, place, Balls, Place};

use super::{Broad, Simulation};
use crate::contacts::FREE;
use crate::error::Result;
use crate::parallel::Tier;
use crate::pool::Phase;
use crate::store::ParticleStore;
use talus_kernels::neighbor::NeighborSearch;

/// Whether the pairs that do not touch are kept out of the slots: in 3D, where a sphere's
/// box reaches far past it (2D: every candidate in a slot).
pub(super) const FAR_PAIRS: bool = cfg!(feature = "dim3");

/// What the touch test reads of the particles.
pub(super) fn balls(ps: &ParticleStore) -> Balls<'_> {
    let n = ps.len();
    Balls {
        pos: ps.pos.each_ref().map(|v| &v[..n]),
        radius: &ps.radius[..n],
        inv_mass: &ps.inv_mass[..n],
    }
}

impl Simulation {
    /// After an incremental update: the far pairs whose boxes' cores came within reach
    /// join the apart list, and when the table is due for compaction (which follows in
    /// `update_neighbors`) the slotted pairs that do not touch leave their slots for the
    /// apart or the far list first, so that the compaction takes their holes out with the
    /// others. (A test of every slot at each update instead of at compactions cost 2.5 % of
    /// a 20,000-sphere drum's run for 3 % fewer slotted pairs, BENCHMARKS.md, issue 19.) In
    /// a periodic cell a pair's two boxes may lie across a face from each other: every pair
    /// stays in a slot.
    pub(super) fn part_slotless_pairs(&mut self) {
        if !FAR_PAIRS || self.periodic.is_some() {
            return;
        }
        let ct = &mut self.contacts;
        let ps = &self.particles;
        let n = ps.len();
        let boxes: &[Aabb] = with_broad!(&self.broad, m => &m.stored_boxes()[..n]);
        let stored = (boxes, &ps.radius[..n]);
        let balls = balls(ps);
        self.workers.pool.serial(Phase::Contacts, || {
            // The marks of the pairs that took slots go first: the merges need them gone.
            let mut near = Vec::new();
            ct.apart.part(|_, _| false, &mut near);
            ct.far.part(|i, j| may_touch(stored, i, j), &mut near);
            ct.apart.merge(&mut near);
            if ct.wants_compaction() {
                let (mut apart, mut far) = (Vec::new(), Vec::new());
                for s in 0..ct.i.len() {
                    let (i, j) = (ct.i[s], ct.j[s]);
                    if i == FREE {
                        continue;
                    }
                    match place(stored, &balls, i, j) {
                        Place::Slot => continue,
                        Place::Apart => apart.push([i, j]),
                        Place::Far => far.push([i, j]),
                    }
                    ct.free_slot(s);
                }
                ct.apart.merge(&mut apart);
                ct.far.merge(&mut far);
            }
        });
    }

    /// Before a step's forces: each apart pair that touches now takes a slot, its spring
    /// zero, in the list's order (so the slots are the same for any thread count). The
    /// test runs on the pool, each thread over its share of the pairs: of the near tier
    /// only while no centre can have moved half its gap since the last test of every pair.
    pub(super) fn slot_touching_pairs(&mut self) -> Result<()> {
        if !FAR_PAIRS || self.contacts.apart.is_empty() {
            self.apart_tiers.version = None;
            return Ok(());
        }
        let tiers = &mut self.apart_tiers;
        let apart = &self.contacts.apart;
        let gap = NEAR_GAP * self.config.margin;
        let mut found = std::mem::take(&mut tiers.found);
        let balls = balls(&self.particles);
        // Two centres each at most `drift` from where they were tested: a gap of `gap`
        // then cannot have closed while 2 drift < gap (false for a drift not finite).
        if tiers.version == Some(apart.version()) && 2.0 * tiers.drift < gap {
            self.workers
                .touching_pairs(apart.pairs(), &balls, Tier::Near(&tiers.near), &mut found)?;
        } else {
            let tier = Tier::All {
                gap,
                near: &mut tiers.near,
            };
            self.workers.touching_pairs(apart.pairs(), &balls, tier, &mut found)?;
            tiers.version = Some(apart.version());
            tiers.drift = 0.0;
        }
        if !found.is_empty() {
            let ct = &mut self.contacts;
            self.workers.pool.serial(Phase::Contacts, || {
                for &k in &found {
                    let [i, j] = ct.apart.pairs()[k as usize];
                    ct.apart.remove_at(k as usize);
                    ct.add(i, j);
                }
                // A new slot goes after the others, in no order, each a miss for both
                // spheres' data in the loop: sorted in once they are 1/256 of the table
                // (one pass from the back; in a settled bed of 583,200 spheres, about every
                // other step). Left at the end until the next compaction, they took back
                // the loop's 17 % (BENCHMARKS.md, issue 19).
                if ct.churn * MERGE_AT > ct.live && ct.appended_only() {
                    ct.merge_appended();
                }
            });
        }
        self.apart_tiers.found = found;
        Ok(())
    }
}

/// The share of the table (1 / this) the slots appended since the last sort may reach.
const MERGE_AT: usize = 256;

/// The gap, in margins, below which an apart pair is in the near tier: tested every step,
/// where the others wait until some centre may have moved half of it.
const NEAR_GAP: f64 = 0.125;

/// The apart pairs' tiers (`Simulation::slot_touching_pairs`): the indices in the apart
/// list of those whose gap was below `NEAR_GAP` margins at the last test of every pair,
/// and how far any centre may have moved since (the steps' speed bounds times dt).
#[derive(Debug, Clone, Default)]
pub(super) struct ApartTiers {
    near: Vec<u32>,
    /// The apart list's version the indices are of (none before a first test).
    version: Option<u64>,
    pub(super) drift: f64,
    /// The pairs found touching (a buffer kept between steps).
    found: Vec<u32>,
}
