//! What the overlap kernels return, and the one place they assemble it: the overlap's area,
//! centroid and contact line ([`Overlap`]), the arithmetic that computed it ([`Tier`]), the
//! crossing edges a lasting contact is tracked by ([`Crossings`], packed into the contact
//! table). The clipping (`overlap.rs`), the tracked crossings (`crossings.rs`) and the slow
//! paths (`accurate_overlap.rs`, `exact_overlap.rs`) all build on it, and it on none of them.

/// Largest vertex count of one polygon.
pub const MAX_VERTICES: usize = 64;

/// The overlap of two convex polygons: its area and centroid, the contact line and its normal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlap {
    /// Area of the overlap (m^2).
    pub area: f64,
    /// Centroid of the overlap, in world coordinates (m).
    pub centroid: [f64; 2],
    /// The points where the two boundaries cross (the ends of the contact line), when there
    /// are exactly two (always, unless the configuration is degenerate).
    pub line: Option<[[f64; 2]; 2]>,
    /// Unit normal of the contact line, pointing from the first polygon into the second.
    pub normal: [f64; 2],
    /// Length of the contact line (0 without one).
    pub line_length: f64,
    /// The edges carrying the two crossing points, for [`super::crossings`] to track.
    pub crossings: Option<Crossings>,
    /// The arithmetic that computed it.
    pub tier: Tier,
}

/// Which arithmetic computed an overlap, cheapest first. The narrow-phase statistics count
/// the slow tiers apart: their costs differ by an order of magnitude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// f64, vouched for to 1e-10 of the area by its forward error bound (the clipping
    /// here, the tracked crossings of [`super::crossings`]).
    Fast,
    /// f64 with exact signs and accurately evaluated orientations
    /// ([`super::accurate_overlap`], and the retry of the tracked crossings), where the fast
    /// path could not vouch for the area.
    Accurate,
    /// Expansion arithmetic ([`super::exact_overlap`]), where even that could not.
    Exact,
}

/// Where a's boundary crosses b's: a's edge, b's edge, and whether a enters b there.
pub(crate) type Crossing = (usize, usize, bool);

/// The overlap of twice-area `a2` and `centroid`, whose boundary passes the crossing points
/// `cuts` (in order, relative to `origin`): the contact line between them when there are
/// exactly two, and their edges for [`super::crossings`] to track when a enters b at one
/// and leaves at the other. The one place every tier turns its crossings into a contact;
/// the normal from the relative points (their rounding, not the origin's, sets its error).
#[inline(always)]
pub(crate) fn assemble(
    a2: f64,
    centroid: [f64; 2],
    origin: [f64; 2],
    cuts: impl IntoIterator<Item = ([f64; 2], Crossing)>,
    ca: [f64; 2],
    cb: [f64; 2],
    tier: Tier,
) -> Overlap {
    let mut pts = [[0.0; 2]; 2];
    let mut found = 0;
    let (mut entry, mut exit) = (None, None);
    for (p, (ea, eb, enters)) in cuts {
        if found < 2 {
            pts[found] = p;
        }
        found += 1;
        if enters {
            entry = Some((ea as u8, eb as u8));
        } else {
            exit = Some((ea as u8, eb as u8));
        }
    }
    let local = (found == 2).then_some(pts);
    let crossings = match (found, entry, exit) {
        (2, Some((ia, jb)), Some((ka, lb))) => Some(Crossings { ia, jb, ka, lb }),
        _ => None,
    };
    let (normal, line_length) = contact_normal(local, ca, cb);
    let at = |p: [f64; 2]| [origin[0] + p[0], origin[1] + p[1]];
    let line = local.map(|[p, q]| [at(p), at(q)]);
    Overlap {
        area: 0.5 * a2,
        centroid,
        line,
        normal,
        line_length,
        crossings,
        tier,
    }
}

/// [`assemble`] for a contact whose crossings `c` are known, P and Q (relative to
/// `origin`) on them: the tracked contacts' form, without the search. None where P = Q (no
/// line to take the normal from).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn assemble_line(
    a2: f64,
    centroid: [f64; 2],
    origin: [f64; 2],
    [p, q]: [[f64; 2]; 2],
    c: Crossings,
    ca: [f64; 2],
    cb: [f64; 2],
    tier: Tier,
) -> Option<Overlap> {
    // (Not `contact_normal`: its fallback normal for a zero length, a select on every
    // call, is never taken here.)
    let (nrm, line_length) = towards(perpendicular(p, q), ca, cb);
    if line_length == 0.0 {
        return None;
    }
    let normal = [nrm[0] / line_length, nrm[1] / line_length];
    let at = |p: [f64; 2]| [origin[0] + p[0], origin[1] + p[1]];
    Some(Overlap {
        area: 0.5 * a2,
        centroid,
        line: Some([at(p), at(q)]),
        normal,
        line_length,
        crossings: Some(c),
        tier,
    })
}

/// The unit normal of the contact line (perpendicular to it, or along the centres without
/// one), pointing from `ca` towards `cb`, and the line's length (0 without one).
#[inline(always)]
pub(crate) fn contact_normal(line: Option<[[f64; 2]; 2]>, ca: [f64; 2], cb: [f64; 2]) -> ([f64; 2], f64) {
    let (nrm, len) = match line {
        Some([p, q]) => towards(perpendicular(p, q), ca, cb),
        None => towards([cb[0] - ca[0], cb[1] - ca[1]], ca, cb),
    };
    let normal = if len > 0.0 {
        [nrm[0] / len, nrm[1] / len]
    } else {
        [1.0, 0.0]
    };
    (normal, if line.is_some() { len } else { 0.0 })
}

/// A normal of the line from `p` to `q` (q - p turned a quarter left).
#[inline(always)]
fn perpendicular(p: [f64; 2], q: [f64; 2]) -> [f64; 2] {
    [-(q[1] - p[1]), q[0] - p[0]]
}

/// `v` or its opposite, whichever points from `ca` towards `cb`, and its length.
#[inline(always)]
fn towards(v: [f64; 2], ca: [f64; 2], cb: [f64; 2]) -> ([f64; 2], f64) {
    let v = if v[0] * (cb[0] - ca[0]) + v[1] * (cb[1] - ca[1]) < 0.0 {
        [-v[0], -v[1]]
    } else {
        v
    };
    (v, (v[0] * v[0] + v[1] * v[1]).sqrt())
}

/// The edges on which the boundaries of a and b cross (edge k runs from vertex k to k+1,
/// counter-clockwise): at the entry point P, a's edge `ia` passes into b through b's edge
/// `jb`; at the exit point Q, a's edge `ka` leaves b through b's edge `lb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossings {
    /// a's edge at the entry point P.
    pub ia: u8,
    /// b's edge at the entry point P.
    pub jb: u8,
    /// a's edge at the exit point Q.
    pub ka: u8,
    /// b's edge at the exit point Q.
    pub lb: u8,
}

// Edge indices are packed in 7 bits each.
const _: () = assert!(MAX_VERTICES <= 128);

impl Crossings {
    /// Marks a packed value as crossings; a packed closest-feature pair
    /// ([`super::closest_features::FeaturePair`], 16 bits a side, indices below 64) never
    /// has this bit, so the contact table keeps either in the same `u32`.
    const TAG: u32 = 1 << 31;

    /// The four edges packed in 7 bits each (one byte apart), with the tag bit set.
    pub fn pack(self) -> u32 {
        Self::TAG
            | (self.ia as u32 & 0x7f)
            | (self.jb as u32 & 0x7f) << 8
            | (self.ka as u32 & 0x7f) << 16
            | (self.lb as u32 & 0x7f) << 24
    }

    /// The crossings packed in `v`, if it holds crossings (indices not yet checked
    /// against the polygons).
    pub fn unpack(v: u32) -> Option<Crossings> {
        (v & Self::TAG != 0).then_some(Crossings {
            ia: (v & 0x7f) as u8,
            jb: (v >> 8 & 0x7f) as u8,
            ka: (v >> 16 & 0x7f) as u8,
            lb: (v >> 24 & 0x7f) as u8,
        })
    }
}
