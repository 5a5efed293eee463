//! Polygon-polygon contact (Schinner 1999; Chen & Matuttis 2013): the normal force is
//! proportional to the overlap area, F_n = (E A + m_eff gamma_n dA/dt) / l, perpendicular
//! to the contact line and acting at the centroid of the overlap; l = 2 r_i r_j /
//! (r_i + r_j) is a characteristic length from the bounding radii, and E (the material's
//! `kn`, N/m in 2D) a Young's modulus. The tangential force is the Cundall-Strack spring
//! with the Coulomb cap, along the contact line.
use super::disc_disc::ContactForce;
use super::law::{coulomb_spring, ContactParams};
use crate::geometry::closest_features::{closest_features, Feature, FeaturePair, Proximity};
use crate::geometry::crossings::{overlap_clipped, overlap_tracked, Crossings};
use crate::geometry::overlap::{OverlapScratch, Tier};

/// One body of a contact: world vertices, centre of mass, velocity, spin, bounding radius.
#[derive(Debug, Clone, Copy)]
pub struct ContactBody<'a> {
    /// Vertices in world coordinates, counter-clockwise (m); unused for a disc.
    pub vertices: &'a [[f64; 2]],
    /// Centre of mass (m).
    pub pos: [f64; 2],
    /// The angle the vertices were turned by (only its size matters here: the rounding
    /// of a drift of a large angle, see [`approach_bound`]).
    pub angle: f64,
    /// Velocity of the centre of mass (m/s).
    pub vel: [f64; 2],
    /// Angular velocity about z (rad/s).
    pub omega: f64,
    /// Bounding radius about `pos` (a disc: its radius) (m).
    pub radius: f64,
}

/// Where a 2D contact with a polygon pushes: the unit normal from the first body into the
/// second (a wall: from the body into the wall), the point where the normal force acts
/// (the overlap's centroid, or a disc's nearest boundary point) and the size of the
/// contact, the length of its contact line (the chord between the two boundary crossings,
/// as for two discs): what cohesion ([`super::extras::add_cohesion_at`]) needs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContactFrame {
    /// Unit normal from the first body into the second.
    pub normal: [f64; 2],
    /// Where the normal force acts (m).
    pub point: [f64; 2],
    /// Length of the contact line (m).
    pub size: f64,
}

/// Where the contact kernels put a contact's [`ContactFrame`]: a frame, or `()` where
/// nothing needs it (no cohesion), which compiles the kernels as if there were no frame
/// (a frame in their result had made the pair loop 2 % slower without cohesion).
pub trait FrameOut {
    /// Whether the frame is kept (false: `()`).
    const WANTED: bool;
    /// Keep the frame `f` makes (called only for a contact).
    fn put(&mut self, f: impl FnOnce() -> ContactFrame);
    /// The frame to fill, if kept.
    fn as_frame(&mut self) -> Option<&mut ContactFrame>;
}

impl FrameOut for () {
    const WANTED: bool = false;
    #[inline(always)]
    fn put(&mut self, _: impl FnOnce() -> ContactFrame) {}
    #[inline(always)]
    fn as_frame(&mut self) -> Option<&mut ContactFrame> {
        None
    }
}

impl FrameOut for ContactFrame {
    const WANTED: bool = true;
    #[inline(always)]
    fn put(&mut self, f: impl FnOnce() -> ContactFrame) {
        *self = f();
    }
    #[inline(always)]
    fn as_frame(&mut self) -> Option<&mut ContactFrame> {
        Some(self)
    }
}

/// What the narrow phase found for one candidate pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PolyOutcome {
    /// Apart (closest-feature walk), with the feature pairs visited; `skipped` when the
    /// walk was not needed (the gap left from the last walk exceeds the step's motion).
    Separated {
        /// Feature pairs the walk visited.
        steps: u32,
        /// The walk did not settle and the brute-force search answered.
        fallback: bool,
        /// The gap budget ruled out a contact: no walk.
        skipped: bool,
    },
    /// Overlapping: the force, and the overlap area and contact-line length; `tracked`
    /// when the overlap came from the cached crossing edges, not from clipping; `tier`, the
    /// arithmetic that computed it (a slow tier where the f64 fast path could not vouch
    /// for it).
    Contact {
        /// Force and torques; its `overlap` is the area.
        force: ContactForce,
        /// Overlap area (m^2).
        area: f64,
        /// Length of the contact line (m).
        line: f64,
        /// Feature pairs the walk visited (0 when it did not run).
        steps: u32,
        /// The walk did not settle and the brute-force search answered.
        fallback: bool,
        /// The overlap came from the cached crossing edges.
        tracked: bool,
        /// The arithmetic that computed the overlap.
        tier: Tier,
    },
}

/// Velocity of the material point at `c` of a body.
#[inline(always)]
fn point_velocity(b: &ContactBody, c: [f64; 2]) -> [f64; 2] {
    [
        b.vel[0] - b.omega * (c[1] - b.pos[1]),
        b.vel[1] + b.omega * (c[0] - b.pos[0]),
    ]
}

/// How much closer any point of `a` can have come to any point of `b` in the step that
/// led here, when positions and angles were drifted by `dt` times the velocities the
/// bodies now carry (velocity Verlet: x += dt v, angle += dt omega, with the half-step
/// velocities the force phase sees). A point at distance r <= radius from its centre moves
/// by at most |dx| + r |d angle|, and a translation common to both changes no distance.
/// The other terms cover rounding: of the drifted angle (half a unit in its last place,
/// which grows with the angle), of positions and world vertices (a few units in the last
/// place of the coordinates), and of the walk's distance.
#[inline(always)]
pub fn approach_bound(a: &ContactBody, b: &ContactBody, dt: f64) -> f64 {
    let dv = (a.vel[0] - b.vel[0]).abs() + (a.vel[1] - b.vel[1]).abs();
    let turn = a.omega.abs() * a.radius + b.omega.abs() * b.radius;
    let angles = a.angle.abs() * a.radius + b.angle.abs() * b.radius;
    let coords = a.pos[0].abs() + a.pos[1].abs() + b.pos[0].abs() + b.pos[1].abs();
    dt * (dv + turn) + f64::EPSILON * angles + 1e-9 * (a.radius + b.radius) + 1e-15 * coords
}

/// Contact of polygons `a` (first) and `b`. `features` is the cached closest-feature pair
/// or crossing edges (packed), `prev_area` the overlap area of the last step (for dA/dt)
/// or, for a pair that was apart, minus the gap it has left (see below), `xi` the
/// tangential spring; all three are updated.
///
/// `gap_budget` (for integrators that drift by dt times the current velocities, see
/// [`approach_bound`]): a pair found apart by the walk stores minus its distance, and each
/// later step takes [`approach_bound`] off; while something is left the pair cannot touch
/// and the walk is not run. Without it the slot holds 0 for a pair that is apart.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn polygon_polygon(
    p: &ContactParams,
    a: &ContactBody,
    b: &ContactBody,
    inv_mass_sum: f64,
    features: &mut u32,
    prev_area: &mut f64,
    xi: &mut f64,
    dt: f64,
    gap_budget: bool,
    scratch: &mut OverlapScratch,
) -> PolyOutcome {
    polygon_polygon_into(
        p,
        a,
        b,
        inv_mass_sum,
        features,
        prev_area,
        xi,
        dt,
        gap_budget,
        scratch,
        &mut (),
    )
}

/// [`polygon_polygon`] that also gives where the contact's force acts (`frame`, kept
/// only for a contact): what cohesion needs. (Two functions over one body inlined into
/// each, so that the pair loops without cohesion run the code they ran before frames.)
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn polygon_polygon_framed(
    p: &ContactParams,
    a: &ContactBody,
    b: &ContactBody,
    inv_mass_sum: f64,
    features: &mut u32,
    prev_area: &mut f64,
    xi: &mut f64,
    dt: f64,
    gap_budget: bool,
    scratch: &mut OverlapScratch,
    frame: &mut ContactFrame,
) -> PolyOutcome {
    polygon_polygon_into(
        p,
        a,
        b,
        inv_mass_sum,
        features,
        prev_area,
        xi,
        dt,
        gap_budget,
        scratch,
        frame,
    )
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn polygon_polygon_into(
    p: &ContactParams,
    a: &ContactBody,
    b: &ContactBody,
    inv_mass_sum: f64,
    features: &mut u32,
    prev_area: &mut f64,
    xi: &mut f64,
    dt: f64,
    gap_budget: bool,
    scratch: &mut OverlapScratch,
    frame: &mut impl FrameOut,
) -> PolyOutcome {
    if gap_budget && *prev_area < 0.0 {
        let left = -*prev_area - approach_bound(a, b, dt);
        if left > 0.0 {
            *prev_area = -left;
            *xi = 0.0;
            return PolyOutcome::Separated {
                steps: 0,
                fallback: false,
                skipped: true,
            };
        }
    }
    // The cache holds the closest features while the pair is apart and the crossing edges
    // while it overlaps. A pair that overlapped at the last step most likely still does:
    // its crossings (O(1), exact when they check out) or else the clipping decide, and
    // the walk runs only when the contact has ended, to bring the cache up to date. The
    // walk is for the pairs that are apart, where it is O(1).
    let walk = |features: &mut u32| {
        let mut pair = match Crossings::unpack(*features) {
            // Where the contact was: a good start for the walk.
            Some(c) => FeaturePair {
                a: Feature::Edge(c.ia as usize),
                b: Feature::Edge(c.jb as usize),
            },
            None => FeaturePair::unpack(*features),
        };
        let t = closest_features(a.vertices, b.vertices, &mut pair);
        *features = pair.pack();
        t
    };
    let (va, vb) = (a.vertices, b.vertices);
    let mut tracked = false;
    let (ov, t) = if *prev_area > 0.0 {
        match overlap_tracked(va, vb, a.pos, b.pos, features, scratch, &mut tracked) {
            Some(ov) => (Some(ov), None),
            None => (None, Some(walk(features))),
        }
    } else {
        let t = walk(features);
        let ov = match t.proximity {
            Proximity::Separated { .. } => None,
            Proximity::Penetrating => overlap_clipped(va, vb, a.pos, b.pos, features, scratch),
        };
        (ov, Some(t))
    };
    let (steps, fallback) = t.map_or((0, false), |t| (t.steps, t.fallback));
    let Some(ov) = ov else {
        *prev_area = match t.map(|t| t.proximity) {
            Some(Proximity::Separated { distance, .. }) if gap_budget => -distance,
            _ => 0.0,
        };
        *xi = 0.0;
        return PolyOutcome::Separated {
            steps,
            fallback,
            skipped: false,
        };
    };
    let area = ov.area;
    // A new contact grows from zero (the slot held minus a gap).
    let rate = if dt > 0.0 {
        (area - prev_area.max(0.0)) / dt
    } else {
        0.0
    };
    *prev_area = area;
    let meff = 1.0 / inv_mass_sum;
    let l = 2.0 * a.radius * b.radius / (a.radius + b.radius);
    let normal = (p.kn * area + meff * p.gamma_n * rate) / l;
    let n = ov.normal;
    let tdir = [-n[1], n[0]];
    let c = ov.centroid;
    let (va, vb) = (point_velocity(a, c), point_velocity(b, c));
    let v_t = (va[0] - vb[0]) * tdir[0] + (va[1] - vb[1]) * tdir[1];
    // Polygons take Hooke only (Hertz needs a radius of curvature at the contact).
    let ft = coulomb_spring(p, 1.0, normal, v_t, meff, xi, dt);
    let f = [-normal * n[0] + ft * tdir[0], -normal * n[1] + ft * tdir[1]];
    let arm = |x: [f64; 2], f: [f64; 2]| (c[0] - x[0]) * f[1] - (c[1] - x[1]) * f[0];
    let line = ov.line_length;
    frame.put(|| ContactFrame {
        normal: n,
        point: c,
        size: line,
    });
    PolyOutcome::Contact {
        force: ContactForce {
            f: [f[0], f[1]],
            ti: [arm(a.pos, f)],
            tj: [arm(b.pos, [-f[0], -f[1]])],
            overlap: area,
        },
        area,
        line,
        steps,
        fallback,
        tracked,
        tier: ov.tier,
    }
}

/// Contact of a disc (first) and a polygon: the disc-wall law against the polygon's
/// nearest boundary point (penetration depth r - distance, or r + depth when the centre
/// is inside). O(number of vertices). The frame's size is the disc's chord along the
/// polygon's edge there, as against a flat wall.
#[allow(clippy::too_many_arguments)]
pub fn disc_polygon(
    p: &ContactParams,
    disc: &ContactBody,
    poly: &ContactBody,
    inv_mass_sum: f64,
    xi: &mut f64,
    dt: f64,
    frame: &mut impl FrameOut,
) -> Option<ContactForce> {
    let v = poly.vertices;
    let n = v.len();
    let c = disc.pos;
    // Nearest boundary point and whether the centre is inside.
    let (mut best, mut best_d2, mut inside) = ([0.0; 2], f64::INFINITY, true);
    for k in 0..n {
        let (s0, s1) = (v[k], v[(k + 1) % n]);
        let e = [s1[0] - s0[0], s1[1] - s0[1]];
        let d = [c[0] - s0[0], c[1] - s0[1]];
        if e[0] * d[1] - e[1] * d[0] < 0.0 {
            inside = false;
        }
        let ee = e[0] * e[0] + e[1] * e[1];
        let t = ((d[0] * e[0] + d[1] * e[1]) / ee).clamp(0.0, 1.0);
        let q = [s0[0] + t * e[0], s0[1] + t * e[1]];
        let d2 = (c[0] - q[0]).powi(2) + (c[1] - q[1]).powi(2);
        if d2 < best_d2 {
            best = q;
            best_d2 = d2;
        }
    }
    let dist = best_d2.sqrt();
    let overlap = if inside { disc.radius + dist } else { disc.radius - dist };
    if overlap <= 0.0 || dist == 0.0 {
        *xi = 0.0;
        return None;
    }
    // Normal from the disc towards the polygon.
    let s = if inside { -1.0 } else { 1.0 };
    let nrm = [s * (best[0] - c[0]) / dist, s * (best[1] - c[1]) / dist];
    let meff = 1.0 / inv_mass_sum;
    let (va, vb) = (disc.vel, point_velocity(poly, best));
    let dv = [va[0] - vb[0], va[1] - vb[1]];
    let v_n = dv[0] * nrm[0] + dv[1] * nrm[1];
    let tdir = [-nrm[1], nrm[0]];
    let v_t = dv[0] * tdir[0] + dv[1] * tdir[1] + disc.omega * disc.radius;
    let normal = p.kn * overlap + meff * p.gamma_n * v_n;
    // Polygons take Hooke only (Hertz needs a radius of curvature at the contact).
    let ft = coulomb_spring(p, 1.0, normal, v_t, meff, xi, dt);
    let f = [-normal * nrm[0] + ft * tdir[0], -normal * nrm[1] + ft * tdir[1]];
    let arm_b = [best[0] - poly.pos[0], best[1] - poly.pos[1]];
    frame.put(|| ContactFrame {
        normal: nrm,
        point: best,
        size: super::cohesion::wall_chord(disc.radius, overlap),
    });
    Some(ContactForce {
        f: [f[0], f[1]],
        ti: [disc.radius * ft],
        tj: [arm_b[0] * (-f[1]) - arm_b[1] * (-f[0])],
        overlap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(c: [f64; 2], h: f64) -> Vec<[f64; 2]> {
        vec![
            [c[0] - h, c[1] - h],
            [c[0] + h, c[1] - h],
            [c[0] + h, c[1] + h],
            [c[0] - h, c[1] + h],
        ]
    }

    #[test]
    fn squares_pushed_apart_along_the_centre_line() {
        let p = ContactParams {
            kn: 1000.0,
            kt: 0.0,
            gamma_n: 0.0,
            gamma_t: 0.0,
            mu: 0.0,
        };
        let (va, vb) = (square([0.0, 0.0], 1.0), square([1.9, 0.0], 1.0));
        let body = |v: &'static [[f64; 2]], x: f64| ContactBody {
            vertices: v,
            pos: [x, 0.0],
            angle: 0.0,
            vel: [0.0; 2],
            omega: 0.0,
            radius: 2f64.sqrt(),
        };
        let (va, vb): (&'static [[f64; 2]], &'static [[f64; 2]]) = (va.leak(), vb.leak());
        let (mut f, mut a, mut xi) = (FeaturePair::START.pack(), 0.0, 0.0);
        match polygon_polygon(
            &p,
            &body(va, 0.0),
            &body(vb, 1.9),
            2.0,
            &mut f,
            &mut a,
            &mut xi,
            1e-3,
            true,
            &mut OverlapScratch::default(),
        ) {
            PolyOutcome::Contact { force, area, .. } => {
                assert!((area - 0.2).abs() < 1e-12);
                // F = E A / l with l = r (equal radii).
                assert!((force.f[0] + 1000.0 * 0.2 / 2f64.sqrt()).abs() < 1e-9, "{force:?}");
                assert!(force.f[1].abs() < 1e-12 && force.ti[0].abs() < 1e-12 && force.tj[0].abs() < 1e-12);
            }
            o => panic!("{o:?}"),
        }
    }
}
