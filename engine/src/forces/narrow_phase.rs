//! The polygon narrow phase's settings, counters and per-thread work (2D): the rejection
//! stages a candidate pair goes through, what each stage settled, the contact state of a
//! slot, and a particle as a body for the polygon kernels.
use talus_kernels::contact::polygon_polygon::ContactBody;
use talus_kernels::geometry::overlap::OverlapScratch;

use crate::shapes::Shapes;
use crate::store::ParticleStore;

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

/// Particle `p` as a body for the polygon contact kernels, moved by `shift` and faster
/// along x by `dvx` (its image across periodic faces: see `sim/periodic.rs`); a shifted
/// polygon's corners are written to `buf`.
#[inline(always)]
pub(crate) fn polygon_image<'a>(
    ps: &ParticleStore,
    sh: &'a Shapes,
    p: usize,
    shift: [f64; 2],
    dvx: f64,
    buf: &'a mut Vec<[f64; 2]>,
) -> ContactBody<'a> {
    let mut b = polygon_body(ps, sh, p);
    if shift == [0.0; 2] && dvx == 0.0 {
        return b;
    }
    buf.clear();
    buf.extend(b.vertices.iter().map(|v| [v[0] + shift[0], v[1] + shift[1]]));
    b.vertices = buf;
    b.pos = [b.pos[0] + shift[0], b.pos[1] + shift[1]];
    b.vel[0] += dvx;
    b
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
