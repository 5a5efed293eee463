//! A candidate pair of polygons: the cheap rejection stages (Chen & Matuttis 2013, App. B),
//! then the closest-feature walk and the overlap kernel (`kernels::contact::polygon_polygon`),
//! each counted in the narrow-phase statistics.
use talus_kernels::contact::disc_disc::ContactForce;
use talus_kernels::contact::polygon_polygon::{
    polygon_polygon, polygon_polygon_framed, ContactBody, FrameOut, PolyOutcome,
};
use talus_kernels::contact::ContactParams;
use talus_kernels::geometry::overlap::Tier;
use talus_kernels::geometry::projection::projections_apart;
use talus_kernels::geometry::separating_line::separating_line;

use super::{NarrowWork, Rejection, SlotState, SEPARATING_LINE_ITERATIONS};

/// Polygons a and b, whose bounding circles overlap: the force on a (b gets its
/// opposite), or None; where it acts into `frame`. `inv` is the sum of their inverse
/// masses (not 0).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn polygon_pair(
    prm: &ContactParams,
    a: &ContactBody,
    b: &ContactBody,
    inv: f64,
    slot: SlotState,
    dt: f64,
    work: &mut NarrowWork,
    frame: &mut impl FrameOut,
) -> Option<ContactForce> {
    let SlotState { xi, area, features } = slot;
    let NarrowWork {
        stats,
        scratch,
        rejection,
        gap_budget,
    } = work;
    let (rejection, gap_budget) = (*rejection, *gap_budget);
    // Pairs that touched at the last step skip the rejection stages (they almost surely
    // still touch).
    if rejection > Rejection::Circle && *area == 0.0 {
        let (ca, cb) = (a.pos, b.pos);
        let (a, b) = (a.vertices, b.vertices);
        stats.projection_tested += 1;
        let apart = if projections_apart(a, b, ca, cb) {
            stats.projection_rejected += 1;
            true
        } else if rejection == Rejection::SeparatingLine {
            let found = separating_line(a, b, ca, cb, SEPARATING_LINE_ITERATIONS);
            stats.line_iterations += found.iterations as u64;
            stats.line_rejected += found.apart as u64;
            found.apart
        } else {
            false
        };
        if apart {
            *xi = 0.0;
            return None;
        }
    }
    let outcome = match frame.as_frame() {
        Some(frame) => polygon_polygon_framed(prm, a, b, inv, features, area, xi, dt, gap_budget, scratch, frame),
        None => polygon_polygon(prm, a, b, inv, features, area, xi, dt, gap_budget, scratch),
    };
    match outcome {
        PolyOutcome::Separated {
            steps,
            fallback,
            skipped,
        } => {
            stats.separated += 1;
            stats.gap_skips += skipped as u64;
            stats.walk_steps += steps as u64;
            stats.fallbacks += fallback as u64;
            None
        }
        PolyOutcome::Contact {
            force,
            steps,
            fallback,
            tracked,
            tier,
            ..
        } => {
            stats.walk_steps += steps as u64;
            stats.fallbacks += fallback as u64;
            // (Branches, not sums of flags: almost every contact is tracked in f64, and
            // four counters read and written on every contact showed in profiles.)
            match tier {
                Tier::Fast => {}
                Tier::Accurate => stats.accurate += 1,
                Tier::Exact => stats.exact += 1,
            }
            if tracked {
                stats.tracked += 1;
            } else {
                stats.clipped += 1;
            }
            Some(force)
        }
    }
}
