//! The polygon narrow phase against an exact reference (integer/rational arithmetic,
//! `common/exact_geometry.rs`) on the degenerate families of issue 17: coincident polygons
//! (any starting vertex), one inside the other touching its boundary, shared edges,
//! near-parallel edges at gaps of 1e-6 to 1e-15 of the size, touching corners, elongated
//! 1000:1 polygons, random pairs, and a corner poking into an edge by 1e-9 to 1e-2 of the
//! size (the shallow contacts of a bed at rest); many placed far from the origin.
//!
//! Goals checked on every pair (size: the larger circumradius):
//! - apart / overlapping decided right whenever the exact overlap area exceeds 1e-20
//!   size^2 or the exact gap exceeds 1e-15 size (closest-feature walk, cold and warm, and
//!   the full `polygon_polygon`, new and lasting contacts);
//! - distance within 1e-9 relative or 1e-15 size absolute of the exact distance;
//! - overlap area (clipped, about either interior point, swapped, tracked from the cached
//!   crossings of a nearby configuration and of its own, and the contact law's) within
//!   1e-10 relative of the exact area, centroid within 1e-9 size; an exact area of at most
//!   1e-20 size^2 may be reported as at most 2e-20 size^2;
//! - no brute-force fallback of the walk.
#[path = "../common/exact_geometry.rs"]
mod exact_geometry;

use exact_geometry::{ExactPair, Relation};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::kernels::contact::polygon_polygon::{polygon_polygon, ContactBody, PolyOutcome};
use talus::kernels::contact::ContactParams;
use talus::kernels::geometry::closest_features::{closest_features, FeaturePair, Proximity};
use talus::kernels::geometry::crossings::{overlap_clipped, overlap_tracked};
use talus::kernels::geometry::overlap::{overlap, overlap_about, Overlap, OverlapScratch};
use talus::kernels::geometry::overlap_result::Tier;
use talus::kernels::geometry::polygon::{centroid, is_convex_ccw};

type Poly = Vec<[f64; 2]>;
type Rng = Xoshiro256PlusPlus;
const TAU: f64 = std::f64::consts::TAU;

/// Corners at sorted random angles on an ellipse of semi-axes 1 and 1/aspect (or a regular
/// n-gon), turned by `rot`, scaled by `size`, about the origin.
fn body(rng: &mut Rng, n: std::ops::RangeInclusive<usize>, aspect: [f64; 2], size: f64) -> Poly {
    let aspect = if aspect[0] < aspect[1] {
        rng.random_range(aspect[0]..aspect[1])
    } else {
        aspect[0]
    };
    loop {
        let n = rng.random_range(n.clone());
        let regular = rng.random_bool(0.3);
        let mut t: Vec<f64> = (0..n)
            .map(|k| {
                if regular {
                    TAU * k as f64 / n as f64
                } else {
                    rng.random_range(0.0..TAU)
                }
            })
            .collect();
        t.sort_by(f64::total_cmp);
        t.dedup_by(|x, y| (*x - *y).abs() < 1e-2);
        if t.len() < 3 {
            continue;
        }
        let rot = rng.random_range(0.0..TAU);
        let (s, c) = rot.sin_cos();
        let v: Poly = t
            .iter()
            .map(|a| {
                let (x, y) = (size * a.cos(), size / aspect * a.sin());
                [c * x - s * y, s * x + c * y]
            })
            .collect();
        if is_convex_ccw(&v) {
            return v;
        }
    }
}

/// `p` turned by `rot` about the origin and moved by `d`.
fn xf(p: &[[f64; 2]], rot: f64, d: [f64; 2]) -> Poly {
    let (s, c) = rot.sin_cos();
    p.iter()
        .map(|q| [c * q[0] - s * q[1] + d[0], s * q[0] + c * q[1] + d[1]])
        .collect()
}

fn lerp(u: [f64; 2], v: [f64; 2], t: f64) -> [f64; 2] {
    [u[0] + t * (v[0] - u[0]), u[1] + t * (v[1] - u[1])]
}

/// A random far-away offset for half the pairs (rounding then happens at a coarser scale
/// than the polygons' size), else none.
fn offset(rng: &mut Rng, size: f64) -> [f64; 2] {
    if rng.random_bool(0.5) {
        [0.0, 0.0]
    } else {
        let r = size * 10f64.powf(rng.random_range(0.0..3.0));
        let t = rng.random_range(0.0..TAU);
        [r * t.cos(), r * t.sin()]
    }
}

fn rotate_start(p: &[[f64; 2]], k: usize) -> Poly {
    let n = p.len();
    (0..n).map(|m| p[(m + k) % n]).collect()
}

fn mean(p: &[[f64; 2]]) -> [f64; 2] {
    let n = p.len() as f64;
    p.iter().fold([0.0; 2], |s, q| [s[0] + q[0] / n, s[1] + q[1] / n])
}

fn radius(p: &[[f64; 2]]) -> f64 {
    let c = mean(p);
    p.iter().map(|q| (q[0] - c[0]).hypot(q[1] - c[1])).fold(0.0, f64::max)
}

/// The families of the issue. Each returns a pair (a, b), both counter-clockwise.
const FAMILIES: [&str; 8] = [
    "coincident",
    "inside touching",
    "shared edge",
    "near-parallel",
    "touching corners",
    "elongated 1000:1",
    "random",
    "shallow corner",
];

fn make_pair(family: usize, rng: &mut Rng) -> (Poly, Poly) {
    let size = 10f64.powf(rng.random_range(-3.0..1.0));
    match family {
        // Identical corner sets, listed from any starting corner.
        0 => {
            let a = xf(&body(rng, 3..=16, [1.0, 3.0], size), 0.0, offset(rng, size));
            let k = rng.random_range(0..a.len());
            (a.clone(), rotate_start(&a, k))
        }
        // b inside a, scaled about a corner of a (touching there exactly) or a point on an
        // edge of a (touching up to rounding); either one first.
        1 => {
            let a = xf(&body(rng, 3..=16, [1.0, 3.0], size), 0.0, offset(rng, size));
            let n = a.len();
            let e = rng.random_range(0..n);
            let c = if rng.random_bool(0.5) {
                a[e]
            } else {
                lerp(a[e], a[(e + 1) % n], rng.random_range(0.0..1.0))
            };
            let f = rng.random_range(0.05..0.95);
            let b: Poly = a
                .iter()
                .map(|q| [c[0] + f * (q[0] - c[0]), c[1] + f * (q[1] - c[1])])
                .collect();
            let b = rotate_start(&b, rng.random_range(0..n));
            if rng.random_bool(0.5) {
                (a, b)
            } else {
                (b, a)
            }
        }
        // b shares an edge of a exactly (its corners are a's), on the outside; or, for
        // axis-aligned rectangles, lies along a's edge line shifted (collinear edges).
        2 => {
            if rng.random_bool(0.3) {
                let o = offset(rng, size);
                let (w, h) = (size * rng.random_range(0.2..2.0), size * rng.random_range(0.2..2.0));
                let rect = |x: f64, y: f64, w: f64, h: f64| vec![[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
                let a = rect(o[0], o[1], w, h);
                let (w2, h2) = (size * rng.random_range(0.2..2.0), size * rng.random_range(0.2..2.0));
                let x2 = o[0] + rng.random_range(-1.2..1.2) * w;
                let b = if rng.random_bool(0.5) {
                    rect(x2, o[1] + h, w2, h2)
                } else {
                    rect(x2, o[1] - h2, w2, h2)
                };
                return (a, b);
            }
            let a = xf(&body(rng, 3..=12, [1.0, 3.0], size), 0.0, offset(rng, size));
            let (na, e) = (a.len(), rng.random_range(0..a.len()));
            let (p0, p1) = (a[e], a[(e + 1) % na]);
            let su = size * rng.random_range(0.3..2.0);
            let u = body(rng, 3..=12, [1.0, 3.0], su);
            let nb = u.len();
            let j = rng.random_range(0..nb);
            let (u0, u1) = (u[j], u[(j + 1) % nb]);
            // The similarity taking u0 -> p1, u1 -> p0 (complex ratio).
            let (dx, dy) = (p0[0] - p1[0], p0[1] - p1[1]);
            let (ex, ey) = (u1[0] - u0[0], u1[1] - u0[1]);
            let den = ex * ex + ey * ey;
            let (zr, zi) = ((dx * ex + dy * ey) / den, (dy * ex - dx * ey) / den);
            let mut b: Poly = u
                .iter()
                .map(|q| {
                    let (x, y) = (q[0] - u0[0], q[1] - u0[1]);
                    [p1[0] + zr * x - zi * y, p1[1] + zi * x + zr * y]
                })
                .collect();
            b[j] = p1;
            b[(j + 1) % nb] = p0;
            (a, b)
        }
        // An edge of b antiparallel to an edge of a (tilted by up to 1e-9 rad, or not),
        // slid along it, at a gap of +-1e-6 .. 1e-15 of the size.
        3 => {
            let a = xf(&body(rng, 3..=12, [1.0, 3.0], size), 0.0, offset(rng, size));
            let (na, e) = (a.len(), rng.random_range(0..a.len()));
            let (p0, p1) = (a[e], a[(e + 1) % na]);
            let su = size * rng.random_range(0.3..2.0);
            let u = body(rng, 3..=12, [1.0, 3.0], su);
            let nb = u.len();
            let j = rng.random_range(0..nb);
            let (u0, u1) = (u[j], u[(j + 1) % nb]);
            let tilt = if rng.random_bool(0.5) {
                0.0
            } else {
                rng.random_range(-1.0..1.0) * 10f64.powf(-rng.random_range(9.0..16.0))
            };
            let rot = (p0[1] - p1[1]).atan2(p0[0] - p1[0]) - (u1[1] - u0[1]).atan2(u1[0] - u0[0]) + tilt;
            let ur = xf(&u, rot, [0.0, 0.0]);
            let mid_u = lerp(ur[j], ur[(j + 1) % nb], 0.5);
            let anchor = lerp(p0, p1, rng.random_range(-0.3..1.3));
            let len = (p1[0] - p0[0]).hypot(p1[1] - p0[1]);
            let nrm = [(p1[1] - p0[1]) / len, -(p1[0] - p0[0]) / len];
            let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let gap = sign * size * 10f64.powf(-rng.random_range(6.0..15.0));
            let d = [anchor[0] - mid_u[0] + gap * nrm[0], anchor[1] - mid_u[1] + gap * nrm[1]];
            (a, xf(&ur, 0.0, d))
        }
        // A corner of b exactly on a corner of a, b turned into the outer cone of that
        // corner (more or less), sometimes moved off by a tiny gap.
        4 => {
            let a = xf(&body(rng, 3..=12, [1.0, 3.0], size), 0.0, offset(rng, size));
            let na = a.len();
            let i = rng.random_range(0..na);
            let su = size * rng.random_range(0.3..2.0);
            let u = body(rng, 3..=12, [1.0, 3.0], su);
            let j = rng.random_range(0..u.len());
            let out = {
                let c = mean(&a);
                (a[i][1] - c[1]).atan2(a[i][0] - c[0])
            };
            let cu = mean(&u);
            let back = (cu[1] - u[j][1]).atan2(cu[0] - u[j][0]);
            let ur = xf(&u, out - back + rng.random_range(-0.6..0.6), [0.0, 0.0]);
            let (vx, vy) = (ur[j][0], ur[j][1]);
            let mut local: Poly = ur.iter().map(|q| [q[0] - vx, q[1] - vy]).collect();
            local[j] = [0.0, 0.0];
            let g = if rng.random_bool(0.5) {
                0.0
            } else {
                size * 10f64.powf(-rng.random_range(6.0..16.0))
            };
            let t = rng.random_range(0.0..TAU);
            let b: Poly = local
                .iter()
                .map(|q| [a[i][0] + q[0] + g * t.cos(), a[i][1] + q[1] + g * t.sin()])
                .collect();
            (a, b)
        }
        // Two 1000:1 needles: side by side (near-parallel, tiny gaps or overlaps), crossing,
        // or end to end.
        5 => {
            let a = xf(&body(rng, 4..=12, [1000.0, 1000.0], size), 0.0, offset(rng, size));
            let su = size * rng.random_range(0.5..2.0);
            let u = body(rng, 4..=12, [1000.0, 1000.0], su);
            let (ca, cu) = (mean(&a), mean(&u));
            let ang = |p: &Poly, c: [f64; 2]| {
                let far = p
                    .iter()
                    .max_by(|x, y| {
                        (x[0] - c[0])
                            .hypot(x[1] - c[1])
                            .total_cmp(&(y[0] - c[0]).hypot(y[1] - c[1]))
                    })
                    .unwrap();
                (far[1] - c[1]).atan2(far[0] - c[0])
            };
            let (ta, tu) = (ang(&a, ca), ang(&u, cu));
            let mode = rng.random_range(0..3);
            let rot = match mode {
                0 => ta - tu + rng.random_range(-1.0..1.0) * 10f64.powf(-rng.random_range(3.0..16.0)),
                1 => ta - tu + rng.random_range(0.1..3.0),
                _ => ta - tu + rng.random_range(-0.01..0.01),
            };
            let ur = xf(&u, rot, [-cu[0], -cu[1]]);
            let (along, across) = ([ta.cos(), ta.sin()], [-ta.sin(), ta.cos()]);
            let thick = 2.0 * size / 1000.0;
            let (s, t) = match mode {
                0 => (
                    rng.random_range(-1.0..1.0) * size,
                    thick * rng.random_range(0.5..1.5)
                        + size * rng.random_range(-1.0..1.0) * 10f64.powf(-rng.random_range(4.0..15.0)),
                ),
                1 => (rng.random_range(-0.5..0.5) * size, rng.random_range(-0.5..0.5) * size),
                _ => (size * rng.random_range(1.5..2.5), thick * rng.random_range(-1.0..1.0)),
            };
            let d = [
                ca[0] + s * along[0] + t * across[0],
                ca[1] + s * along[1] + t * across[1],
            ];
            (a, xf(&ur, 0.0, d))
        }
        // Random polygons (3-64 corners, aspect up to 4) about contact distance, far from the
        // origin or not.
        6 => {
            // Mostly grain-like corner counts, one pair in ten up to 64 (the reference is
            // O(n m) in big integers).
            let n = if rng.random_bool(0.1) { 3..=64 } else { 3..=12 };
            let a = xf(&body(rng, n.clone(), [1.0, 4.0], size), 0.0, offset(rng, size));
            let su = size * rng.random_range(0.3..2.0);
            let u = body(rng, n, [1.0, 4.0], su);
            let (ra, ru) = (radius(&a), radius(&u));
            let d = rng.random_range(0.0..1.2) * (ra + ru);
            let t = rng.random_range(0.0..TAU);
            let c = mean(&a);
            (a, xf(&u, 0.0, [c[0] + d * t.cos(), c[1] + d * t.sin()]))
        }
        // A corner of b poking into an edge of a by 1e-9 .. 1e-2 of the size, b turned away
        // from a (give or take 0.3 rad): the shallow contacts of a bed at rest, whose area
        // the tracked crossings vouch for in f64 down to about 1e-4 of the size. Most are
        // triangles; where b's corner is flat and tilted, more of its corners poke in.
        _ => {
            let a = xf(&body(rng, 3..=12, [1.0, 2.0], size), 0.0, offset(rng, size));
            let n = a.len();
            let e = rng.random_range(0..n);
            let (p0, p1) = (a[e], a[(e + 1) % n]);
            let c = lerp(p0, p1, rng.random_range(0.2..0.8));
            let len = (p1[0] - p0[0]).hypot(p1[1] - p0[1]);
            // Outward: the edge's direction turned clockwise (a is counter-clockwise).
            let out = [(p1[1] - p0[1]) / len, -(p1[0] - p0[0]) / len];
            let su = size * rng.random_range(0.5..2.0);
            let u = body(rng, 3..=12, [1.0, 2.0], su);
            let k = rng.random_range(0..u.len());
            let g = mean(&u);
            let from = (g[1] - u[k][1]).atan2(g[0] - u[k][0]);
            let to = out[1].atan2(out[0]) + rng.random_range(-0.3..0.3);
            let ur = xf(&u, to - from, [0.0, 0.0]);
            let depth = size * 10f64.powf(rng.random_range(-9.0..-2.0));
            let d = [c[0] - out[0] * depth - ur[k][0], c[1] - out[1] * depth - ur[k][1]];
            (a, xf(&ur, 0.0, d))
        }
    }
}

/// What the exact reference says about a pair.
struct Truth {
    rel: Relation,
    dist: f64,
    area: f64,
    centroid: Option<[f64; 2]>,
    size: f64,
}

impl Truth {
    /// Must the pair be reported apart / overlapping? (None: either answer will do.)
    fn must_overlap(&self) -> Option<bool> {
        if self.rel == Relation::Overlapping && self.area > 1e-20 * self.size * self.size {
            Some(true)
        } else if self.rel == Relation::Apart && self.dist > 1e-15 * self.size {
            Some(false)
        } else {
            None
        }
    }

    fn distance_ok(&self, d: f64) -> bool {
        (d - self.dist).abs() <= 1e-9 * self.dist + 1e-15 * self.size
    }

    /// An overlap result (None: zero area) against the exact area and centroid.
    fn area_ok(&self, got: Option<(f64, [f64; 2])>) -> bool {
        let s2 = self.size * self.size;
        let (area, c) = got.unwrap_or((0.0, [f64::NAN; 2]));
        if self.area > 1e-20 * s2 {
            let Some(wc) = self.centroid else { return false };
            (area - self.area).abs() <= 1e-10 * self.area
                && got.is_some()
                && (c[0] - wc[0]).hypot(c[1] - wc[1]) <= 1e-9 * self.size
        } else {
            area <= 2e-20 * s2
        }
    }
}

/// Failure counts of one family, per check, and the worst errors seen.
#[derive(Default, Clone)]
struct Tally {
    pairs: u32,
    apart: u32,
    touching: u32,
    overlapping: u32,
    walk_decision: u32,
    walk_distance: u32,
    fallbacks: u32,
    clip_area: u32,
    tracked_area: u32,
    /// Overlapping pairs (by more than 1e-20 size^2) tracked from their own crossings: how
    /// many the cache served, and how many of those the f64 fast path vouched for.
    tracked_own: u32,
    tracked_hits: u32,
    tracked_fast: u32,
    contact_decision: u32,
    contact_area: u32,
    worst_distance_rel: f64,
    worst_area_rel: f64,
}

fn rel_err(got: f64, want: f64) -> f64 {
    if want == 0.0 {
        if got == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (got - want).abs() / want
    }
}

fn ov(o: Option<Overlap>) -> Option<(f64, [f64; 2])> {
    o.map(|o| (o.area, o.centroid))
}

/// A small rigid motion of b (for warm caches).
fn nudge(rng: &mut Rng, b: &Poly, size: f64) -> Poly {
    let c = mean(b);
    let rot = rng.random_range(-1e-3..1e-3);
    let centred: Poly = b.iter().map(|q| [q[0] - c[0], q[1] - c[1]]).collect();
    let s = 1e-3 * size;
    xf(
        &centred,
        rot,
        [c[0] + rng.random_range(-s..s), c[1] + rng.random_range(-s..s)],
    )
}

fn check_pair(a: &Poly, b: &Poly, rng: &mut Rng, t: &mut Tally, verbose: bool) {
    let ex = ExactPair::new(a, b);
    if !ex.both_strictly_convex() {
        return;
    }
    let size = radius(a).max(radius(b));
    let (area, centroid_ex) = ex.overlap();
    let truth = Truth {
        rel: ex.relation(),
        dist: ex.distance(),
        area,
        centroid: centroid_ex,
        size,
    };
    t.pairs += 1;
    match truth.rel {
        Relation::Apart => t.apart += 1,
        Relation::Touching => t.touching += 1,
        Relation::Overlapping => t.overlapping += 1,
    }
    let must = truth.must_overlap();
    let report = |what: &str, detail: String| {
        if verbose {
            println!(
                "{what}: {detail}\n  rel {:?} dist {:e} area {:e} size {size:e}\n  a = {a:?}\n  b = {b:?}",
                truth.rel, truth.dist, truth.area
            );
        }
    };
    // The walk, cold and from the features of a nearby configuration.
    let mut warm = FeaturePair::START;
    closest_features(a, &nudge(rng, b, size), &mut warm);
    for mut cache in [FeaturePair::START, warm] {
        let start = cache;
        let r = closest_features(a, b, &mut cache);
        t.fallbacks += r.fallback as u32;
        if r.fallback {
            report("walk: fallback", format!("from {start:?}"));
        }
        match r.proximity {
            Proximity::Penetrating => {
                if must == Some(false) {
                    t.walk_decision += 1;
                    report("walk: penetrating", String::new());
                }
            }
            Proximity::Separated { distance, .. } => {
                if must == Some(true) {
                    t.walk_decision += 1;
                    report("walk: separated", format!("distance {distance:e}"));
                } else if !truth.distance_ok(distance) {
                    t.walk_distance += 1;
                    report("walk: distance", format!("{distance:e}"));
                }
                if truth.dist > 0.0 {
                    t.worst_distance_rel = t.worst_distance_rel.max(rel_err(distance, truth.dist));
                }
            }
        }
    }
    // The clipped overlap, every way round.
    let (ca, cb) = (centroid(a), centroid(b));
    let mut scratch = OverlapScratch::default();
    let clips = [
        ov(overlap(a, b)),
        ov(overlap(b, a)),
        ov(overlap_about(a, b, ca, cb, &mut scratch)),
    ];
    let mut bad = false;
    for o in clips {
        bad |= !truth.area_ok(o);
        if truth.area > 1e-20 * size * size {
            t.worst_area_rel = t.worst_area_rel.max(rel_err(o.map_or(0.0, |o| o.0), truth.area));
        }
    }
    if bad {
        t.clip_area += 1;
        report("clip", format!("{clips:?}"));
    }
    // Tracked from the crossings of a nearby configuration.
    let mut cache = FeaturePair::START.pack();
    let nb = nudge(rng, b, size);
    overlap_clipped(a, &nb, ca, centroid(&nb), &mut cache, &mut scratch);
    let o = overlap_tracked(a, b, ca, cb, &mut cache, &mut scratch, &mut false);
    if !truth.area_ok(ov(o)) {
        t.tracked_area += 1;
        report("tracked", format!("{:?}", ov(o)));
    }
    // And from its own crossings, as a contact that lasts with its edges unchanged.
    let mut cache = FeaturePair::START.pack();
    overlap_clipped(a, b, ca, cb, &mut cache, &mut scratch);
    let mut hit = false;
    let o = overlap_tracked(a, b, ca, cb, &mut cache, &mut scratch, &mut hit);
    if !truth.area_ok(ov(o)) {
        t.tracked_area += 1;
        report("tracked, same edges", format!("{:?}", ov(o)));
    }
    if truth.must_overlap() == Some(true) {
        t.tracked_own += 1;
        t.tracked_hits += hit as u32;
        t.tracked_fast += (hit && o.is_some_and(|o| o.tier == Tier::Fast)) as u32;
    }
    // The contact law's decision, as a new contact (walk, clip) and as a lasting one
    // (tracked crossings or clip, walk when they find nothing).
    let p = ContactParams {
        kn: 1.0,
        kt: 0.0,
        gamma_n: 0.0,
        gamma_t: 0.0,
        mu: 0.0,
    };
    fn body(v: &[[f64; 2]], c: [f64; 2]) -> ContactBody<'_> {
        ContactBody {
            vertices: v,
            pos: c,
            angle: 0.0,
            vel: [0.0; 2],
            omega: 0.0,
            radius: radius(v),
        }
    }
    let (ba, bb) = (body(a, ca), body(b, cb));
    let mut lasting = FeaturePair::START.pack();
    overlap_clipped(a, &nb, ca, centroid(&nb), &mut lasting, &mut scratch);
    for (mut features, mut prev) in [(FeaturePair::START.pack(), 0.0), (lasting, 1.0)] {
        let mut xi = 0.0;
        let out = polygon_polygon(
            &p,
            &ba,
            &bb,
            1.0,
            &mut features,
            &mut prev,
            &mut xi,
            1e-3,
            false,
            &mut scratch,
        );
        let got = match out {
            PolyOutcome::Separated { fallback, .. } => {
                t.fallbacks += fallback as u32;
                None
            }
            PolyOutcome::Contact { area, fallback, .. } => {
                t.fallbacks += fallback as u32;
                Some(area)
            }
        };
        match (must, got) {
            (Some(true), None) | (Some(false), Some(_)) => {
                t.contact_decision += 1;
                report("contact decision", format!("{got:?}"));
            }
            _ => {
                let s2 = size * size;
                let ok = match got {
                    Some(g) if truth.area > 1e-20 * s2 => (g - truth.area).abs() <= 1e-10 * truth.area,
                    Some(g) => g <= 2e-20 * s2,
                    None => truth.area <= 1e-20 * s2,
                };
                if !ok {
                    t.contact_area += 1;
                    report("contact area", format!("{got:?}"));
                }
            }
        }
    }
}

fn run_families(pairs: usize, seed: u64, verbose: bool) -> Vec<Tally> {
    let mut out = vec![Tally::default(); FAMILIES.len()];
    for (f, tally) in out.iter_mut().enumerate() {
        let mut rng = Rng::seed_from_u64(seed ^ (f as u64 * 0x9e37_79b9));
        let t0 = std::time::Instant::now();
        for _ in 0..pairs {
            let (a, b) = make_pair(f, &mut rng);
            check_pair(&a, &b, &mut rng, tally, verbose);
        }
        if verbose {
            println!("{}: {:.2} s", FAMILIES[f], t0.elapsed().as_secs_f64());
        }
    }
    out
}

fn print(t: &[Tally]) {
    println!(
        "{:<18} {:>5} {:>5} {:>5} {:>5} | {:>6} {:>6} {:>5} {:>6} {:>7} {:>7} {:>7} | {:>9} {:>9}",
        "family",
        "pairs",
        "apart",
        "touch",
        "overl",
        "walkDc",
        "walkDs",
        "fallb",
        "clipA",
        "trackA",
        "contDc",
        "contA",
        "dist err",
        "area err"
    );
    for (name, t) in FAMILIES.iter().zip(t) {
        println!(
            "{:<18} {:>5} {:>5} {:>5} {:>5} | {:>6} {:>6} {:>5} {:>6} {:>7} {:>7} {:>7} | {:>9.1e} {:>9.1e}",
            name,
            t.pairs,
            t.apart,
            t.touching,
            t.overlapping,
            t.walk_decision,
            t.walk_distance,
            t.fallbacks,
            t.clip_area,
            t.tracked_area,
            t.contact_decision,
            t.contact_area,
            t.worst_distance_rel,
            t.worst_area_rel
        );
    }
    println!("tracked from their own crossings (overlapping pairs): served by the cache / in f64");
    for (name, t) in FAMILIES.iter().zip(t) {
        println!(
            "{name:<18} {:>5} {:>5} {:>5}",
            t.tracked_own, t.tracked_hits, t.tracked_fast
        );
    }
}

/// Every family, 1,500 pairs each, every check. Prints the table of failures per family
/// and check (walk decision and distance, fallbacks, clipped / tracked / contact-law area,
/// contact decision) and the worst relative errors of distance and area.
#[test]
fn narrow_phase_is_exact_on_degenerate_families() {
    let pairs = std::env::var("EXACT_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let verbose = std::env::var("EXACT_VERBOSE").is_ok();
    let seed = std::env::var("EXACT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(17);
    let t = run_families(pairs, seed, verbose);
    print(&t);
    for (name, t) in FAMILIES.iter().zip(&t) {
        assert!(t.pairs as usize > pairs / 2, "{name}: only {} usable pairs", t.pairs);
        let failures = t.walk_decision
            + t.walk_distance
            + t.fallbacks
            + t.clip_area
            + t.tracked_area
            + t.contact_decision
            + t.contact_area;
        assert_eq!(failures, 0, "{name}: {failures} failures (table above)");
    }
    // The checks above must have gone through the tracked crossings, and in f64 where the
    // bound allows: of the shallow corners (1e-9 .. 1e-2 of the size deep, log-uniform) it
    // vouches for those deeper than about 1e-4 of the size, about half (49.9 % with the
    // default seed; 44.1 % with the bound before 255c2ab, the edges' sum and twice the
    // perimeter).
    let s = &t[FAMILIES.iter().position(|&f| f == "shallow corner").unwrap()];
    assert!(
        s.tracked_hits * 20 >= s.tracked_own * 19,
        "shallow corners: the cache served {} of {}",
        s.tracked_hits,
        s.tracked_own
    );
    assert!(
        s.tracked_fast * 100 >= s.tracked_own * 47,
        "shallow corners: f64 vouched for {} of {}",
        s.tracked_fast,
        s.tracked_own
    );
}

/// The reference itself on cases worked by hand.
#[test]
fn exact_reference_by_hand() {
    let sq = |x: f64, y: f64, h: f64| vec![[x, y], [x + h, y], [x + h, y + h], [x, y + h]];
    let a = sq(0.0, 0.0, 1.0);
    // Apart by 0.5 along x.
    let e = ExactPair::new(&a, &sq(1.5, 0.25, 1.0));
    assert_eq!(e.relation(), Relation::Apart);
    assert_eq!(e.distance(), 0.5);
    assert_eq!(e.overlap().0, 0.0);
    // Apart diagonally: corner to corner (3, 4) * 1e-3.
    let e = ExactPair::new(&a, &sq(1.003, 1.004, 1.0));
    assert!((e.distance() - 5e-3).abs() < 1e-15);
    // Sharing an edge: touching, no area.
    let e = ExactPair::new(&a, &sq(1.0, 0.5, 1.0));
    assert_eq!(e.relation(), Relation::Touching);
    assert_eq!(e.distance(), 0.0);
    assert_eq!(e.overlap(), (0.0, None));
    // Overlapping: a 0.25 x 0.5 rectangle, centroid (0.875, 0.75).
    let e = ExactPair::new(&a, &sq(0.75, 0.5, 1.0));
    assert_eq!(e.relation(), Relation::Overlapping);
    assert_eq!(e.overlap(), (0.125, Some([0.875, 0.75])));
    // Coincident from another start: the whole square.
    let e = ExactPair::new(&a, &rotate_start(&a, 2));
    assert_eq!(e.overlap(), (1.0, Some([0.5, 0.5])));
    // Tiny overlap: 1e-300 is exact in the integers.
    let e = ExactPair::new(&sq(-1.0, 0.0, 1.0), &sq(-1e-300, 0.0, 1.0));
    assert_eq!(e.relation(), Relation::Overlapping);
    assert_eq!(e.overlap().0, 1e-300);
    // A triangle pushed 1e-20 into an edge: its tip, area 1e-40, centroid 1e-20 / 3 in.
    let tri = vec![[-0.5, -1.0], [1.5, -1.0], [0.5, 1e-20]];
    let e = ExactPair::new(&a, &tri);
    assert_eq!(e.relation(), Relation::Overlapping);
    let (ar, c) = e.overlap();
    assert!((ar - 1e-40).abs() <= 1e-55, "{ar:e}");
    let c = c.unwrap();
    assert!(
        (c[1] - 1e-20 / 3.0).abs() < 1e-35 && (c[0] - 0.5).abs() < 1e-16,
        "{c:?}"
    );
}
