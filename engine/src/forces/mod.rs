//! Contact forces: what the pair loops share (material parameters, the sinks a force goes
//! into, the narrow phase's work and counters), and one file per kind of pair: disc-disc,
//! disc-polygon, polygon-polygon, any pair of a simulation with polygons, walls. The pool's
//! force phase (`parallel/pair_forces.rs`) runs them over chunks of the contact table.
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::contact::polygon_polygon::ContactBody;
use talus_kernels::contact::ContactParams;
use talus_kernels::geometry::overlap::OverlapScratch;

use crate::material::PairTable;
use crate::shapes::Shapes;
use crate::store::{ParticleStore, LOADS};
use talus_kernels::math::{ANG, DIM};

pub(crate) mod disc_disc;
pub(crate) mod disc_polygon;
pub(crate) mod pair_with_shapes;
pub(crate) mod polygon_polygon;
pub(crate) mod walls;

/// The cheap rejection tests a candidate pair of polygons goes through before the
/// closest-feature walk (Chen & Matuttis 2013, App. B); each level includes the ones
/// before it. Pairs that touched at the last step skip them (they almost surely still
/// touch, and the overlap kernel starts with the projection anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Rejection {
    /// Bounding circles only.
    #[default]
    Circle,
    /// Then the projection of the corners on the centre line (App. B.1).
    Projection,
    /// Then the iterated separating line (App. B.2), at most
    /// [`SEPARATING_LINE_ITERATIONS`] moves of the line.
    SeparatingLine,
}

/// Iterations of the separating-line search (Chen & Matuttis found 1-4 to settle most
/// of the pairs it can settle).
pub const SEPARATING_LINE_ITERATIONS: u32 = 4;

/// Work of the narrow phase on pairs with a polygon: how many candidate pairs each stage
/// settled.
#[derive(Debug, Default, Clone, Copy)]
pub struct NarrowStats {
    /// Candidate pairs with at least one polygon, summed over the steps.
    pub candidates: u64,
    /// Rejected by the bounding-circle test.
    pub circle_rejected: u64,
    /// Polygon pairs that went through the projection test (not touching at the last step).
    pub projection_tested: u64,
    /// Rejected by the projection on the centre line.
    pub projection_rejected: u64,
    /// Rejected by the separating-line search.
    pub line_rejected: u64,
    /// Moves of the line in the separating-line search, summed over the pairs it ran on.
    pub line_iterations: u64,
    /// Found apart by the closest-feature walk.
    pub separated: u64,
    /// Overlapping (overlap polygon computed; disc-polygon contacts included).
    pub touching: u64,
    /// Feature pairs visited by the walks.
    pub walk_steps: u64,
    /// Walks that did not settle (came back to a feature pair: overlapping polygons whose
    /// nearby features prove nothing) and fell back to brute force.
    pub fallbacks: u64,
    /// Polygon-polygon overlaps computed in f64 with exact signs and accurately evaluated
    /// orientations: the f64 fast path could not vouch for 1e-10 of the area (mostly shallow
    /// contacts). Not kept in checkpoints: a restarted run counts from 0.
    pub accurate: u64,
    /// Polygon-polygon overlaps computed in expansion arithmetic: even exact signs could
    /// not vouch for the area (slivers along nearly parallel edges, coincident edges). Not
    /// kept in checkpoints either.
    pub exact: u64,
    /// Polygon-polygon overlaps taken from the cached crossing edges (no clipping).
    pub tracked: u64,
    /// Polygon-polygon overlaps that were clipped (new contacts, crossings that moved on).
    pub clipped: u64,
    /// Of the pairs counted in `separated`, those settled without a walk: the gap left
    /// from their last walk exceeded the step's motion.
    pub gap_skips: u64,
}

impl NarrowStats {
    /// Add another thread's counts.
    pub fn add(&mut self, o: &NarrowStats) {
        self.candidates += o.candidates;
        self.circle_rejected += o.circle_rejected;
        self.projection_tested += o.projection_tested;
        self.projection_rejected += o.projection_rejected;
        self.line_rejected += o.line_rejected;
        self.line_iterations += o.line_iterations;
        self.separated += o.separated;
        self.touching += o.touching;
        self.walk_steps += o.walk_steps;
        self.fallbacks += o.fallbacks;
        self.accurate += o.accurate;
        self.exact += o.exact;
        self.tracked += o.tracked;
        self.clipped += o.clipped;
        self.gap_skips += o.gap_skips;
    }
}

/// Contact parameters of a pair of materials.
pub(crate) trait Params {
    /// The same coefficients for every pair: the batched disc loop then takes them as
    /// constants rather than gathering them pair by pair.
    const UNIFORM: bool = false;
    fn get(&self, a: u16, b: u16) -> &ContactParams;
}

/// One material: the coefficients are loop constants, no per-pair lookup.
pub(crate) struct OneMaterial(pub ContactParams);

impl Params for OneMaterial {
    const UNIFORM: bool = true;
    #[inline(always)]
    fn get(&self, _: u16, _: u16) -> &ContactParams {
        &self.0
    }
}

impl Params for PairTable {
    #[inline(always)]
    fn get(&self, a: u16, b: u16) -> &ContactParams {
        PairTable::get(self, a, b)
    }
}

/// Where the force of a slot goes: straight into loads (the serial loop, and the
/// per-thread arrays), into the per-slot buffer (deterministic) or through per-particle
/// locks. The pair loops are generic over it, so that each strategy gets its own
/// monomorphised loop with no per-slot branch on the strategy.
pub(crate) trait ForceSink {
    /// Cut the sink to the first `n` particles (the pair loop's view): the loop then knows
    /// its sink as long as its view, and its particle indices, checked against the view,
    /// need no second bounds check at every addition (they cost the force phase 10 %).
    fn fit(&mut self, n: usize);
    /// Slot `o` of the loop (pair i, j) produced the force `f` on i (j gets its opposite).
    fn add(&mut self, o: usize, i: usize, j: usize, f: &ContactForce);
    /// Slot `o` produced no force.
    #[inline(always)]
    fn none(&mut self, _o: usize) {}
}

/// Where a wall's force on a particle goes (walls take no reaction): the loads, or the
/// loads shared by the pool's threads, each particle's written by one.
pub(crate) trait WallSink {
    /// Wall force `f` on particle `p` (its torque in `f.ti[0]`).
    fn wall(&mut self, p: usize, f: &ContactForce);
}

/// A particle's loads: the force per axis, then the torque's components (fx, fy, torque
/// in 2D).
pub(crate) type Load = [f64; LOADS];

/// A slot's force as the deterministic sum keeps a deferred one: the force on i per axis,
/// then i's torque, then j's.
pub(crate) type SlotRecord = [f64; DIM + 2 * ANG];

/// What a contact adds to the loads of its first particle.
#[inline(always)]
pub(crate) fn load_i(c: &ContactForce) -> Load {
    std::array::from_fn(|k| if k < DIM { c.f[k] } else { c.ti[k - DIM] })
}

/// What it adds to its second particle's: the opposite force (x + (-f) is x - f, bit for
/// bit) and that particle's own torque.
#[inline(always)]
pub(crate) fn load_j(c: &ContactForce) -> Load {
    std::array::from_fn(|k| if k < DIM { -c.f[k] } else { c.tj[k - DIM] })
}

/// The contact as a [`SlotRecord`].
#[inline(always)]
pub(crate) fn slot_record(c: &ContactForce) -> SlotRecord {
    std::array::from_fn(|k| {
        if k < DIM {
            c.f[k]
        } else if k < DIM + ANG {
            c.ti[k - DIM]
        } else {
            c.tj[k - DIM - ANG]
        }
    })
}

/// What a [`SlotRecord`] adds to its first particle's loads ([`load_i`]), or to its
/// second's ([`load_j`]).
#[inline(always)]
pub(crate) fn record_load(r: &SlotRecord, second: bool) -> Load {
    std::array::from_fn(|k| match (second, k < DIM) {
        (false, _) => r[k],
        (true, true) => -r[k],
        (true, false) => r[k + ANG],
    })
}

/// Loads summed in place: the force per axis, then the torque's components.
pub(crate) struct LoadSink<'a> {
    pub loads: [&'a mut [f64]; LOADS],
}

impl ForceSink for LoadSink<'_> {
    #[inline(always)]
    fn fit(&mut self, n: usize) {
        for l in self.loads.iter_mut() {
            *l = &mut std::mem::take(l)[..n];
        }
    }

    #[inline(always)]
    fn add(&mut self, _o: usize, i: usize, j: usize, c: &ContactForce) {
        let (a, b) = (load_i(c), load_j(c));
        for (l, (a, b)) in self.loads.iter_mut().zip(a.into_iter().zip(b)) {
            l[i] += a;
            l[j] += b;
        }
    }
}

impl WallSink for LoadSink<'_> {
    #[inline(always)]
    fn wall(&mut self, p: usize, c: &ContactForce) {
        for (l, a) in self.loads.iter_mut().zip(load_i(c)) {
            l[p] += a;
        }
    }
}

/// What the narrow phase works with besides the particles and contacts: its counters, the
/// clipping scratch and the rejection stages to run.
pub(crate) struct NarrowWork<'a> {
    pub stats: &'a mut NarrowStats,
    pub scratch: &'a mut OverlapScratch,
    pub rejection: Rejection,
    /// Skip the walk of pairs whose gap outlasts their motion (velocity Verlet only: see
    /// `polygon_polygon`).
    pub gap_budget: bool,
}

/// The contact state of a pair at its slot of the contact table.
pub(crate) struct SlotState<'a> {
    pub xi: &'a mut f64,
    pub area: &'a mut f64,
    pub features: &'a mut u32,
}

/// Particle `p` as a body for the polygon contact kernels.
#[inline(always)]
pub(crate) fn polygon_body<'a>(ps: &ParticleStore, sh: &'a Shapes, p: usize) -> ContactBody<'a> {
    ContactBody {
        vertices: &sh.world[sh.range(p)],
        pos: [ps.pos[0][p], ps.pos[1][p]],
        angle: ps.angle[p],
        vel: [ps.vel[0][p], ps.vel[1][p]],
        omega: ps.omega[0][p],
        radius: ps.radius[p],
    }
}
