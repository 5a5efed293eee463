//! Convex-polygon geometry against independent computations: the tracked closest-feature
//! distance against the minimum over all vertex-edge pairs (cold start and warm cache),
//! the clipped overlap area against a convex hull of the intersection's corner points, and
//! the overlap tracked from cached crossing edges against the same hull.
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::kernels::contact::polygon_polygon::{polygon_polygon, ContactBody, PolyOutcome};
use talus::kernels::contact::ContactParams;
use talus::kernels::geometry::closest_features::{brute_force, closest_features, FeaturePair, Proximity};
use talus::kernels::geometry::crossings::{overlap_from_crossings, Crossings};
use talus::kernels::geometry::overlap::{overlap, overlap_about, OverlapScratch};
use talus::kernels::geometry::polygon::{area, centroid, is_convex_ccw};
use talus::kernels::geometry::projection::projections_apart;
use talus::kernels::geometry::separating_line::separating_line;

type Poly = Vec<[f64; 2]>;

/// A random convex polygon: vertices on an ellipse (aspect up to 1:4) at sorted random
/// angles, or a regular n-gon (parallel edges), rotated, scaled and placed.
fn polygon(rng: &mut Xoshiro256PlusPlus, size: f64, centre: [f64; 2]) -> Poly {
    let n = rng.random_range(3..=64usize);
    let regular = rng.random_range(0.0..1.0) < 0.3;
    let mut angles: Vec<f64> = if regular {
        (0..n)
            .map(|k| 2.0 * std::f64::consts::PI * k as f64 / n as f64)
            .collect()
    } else {
        (0..n)
            .map(|_| rng.random_range(0.0..2.0 * std::f64::consts::PI))
            .collect()
    };
    angles.sort_by(|a, b| a.total_cmp(b));
    angles.dedup_by(|a, b| (*a - *b).abs() < 1e-3);
    if angles.len() < 3 {
        angles = vec![0.0, 2.1, 4.2];
    }
    let aspect = if regular { 1.0 } else { rng.random_range(0.25..=1.0) };
    let rot = rng.random_range(0.0..2.0 * std::f64::consts::PI);
    let (s, c) = rot.sin_cos();
    let v: Poly = angles
        .iter()
        .map(|t| {
            let (x, y) = (size * t.cos(), size * aspect * t.sin());
            [centre[0] + c * x - s * y, centre[1] + s * x + c * y]
        })
        .collect();
    assert!(is_convex_ccw(&v), "generator made a non-convex polygon");
    v
}

fn moved(p: &Poly, d: [f64; 2], rot: f64) -> Poly {
    let n = p.len() as f64;
    let c = p.iter().fold([0.0; 2], |s, q| [s[0] + q[0] / n, s[1] + q[1] / n]);
    let (s, co) = rot.sin_cos();
    p.iter()
        .map(|q| {
            let (x, y) = (q[0] - c[0], q[1] - c[1]);
            [c[0] + d[0] + co * x - s * y, c[1] + d[1] + s * x + co * y]
        })
        .collect()
}

fn check_distance(a: &Poly, b: &Poly, cache: &mut FeaturePair, size: f64, what: &str) -> u32 {
    let t = closest_features(a, b, cache);
    let (reference, _) = brute_force(a, b);
    // The fallback is the brute-force search itself: a comparison would prove nothing.
    assert!(
        !t.fallback,
        "{what}: the walk did not settle in {} steps (na {}, nb {})",
        t.steps,
        a.len(),
        b.len()
    );
    match (t.proximity, reference) {
        (Proximity::Separated { distance: d, pa, pb }, Proximity::Separated { distance: r, .. }) => {
            assert!(
                (d - r).abs() <= 1e-12 * r + 1e-15 * size,
                "{what}: tracked distance {d:e}, brute force {r:e} (na {}, nb {})",
                a.len(),
                b.len()
            );
            // The reported points are that far apart.
            assert!(((pb[0] - pa[0]).hypot(pb[1] - pa[1]) - d).abs() <= 1e-12 * size);
        }
        (Proximity::Penetrating, Proximity::Penetrating) => {}
        (got, want) => panic!("{what}: tracked {got:?}, brute force {want:?}"),
    }
    t.steps
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, .. ProptestConfig::default() })]

    /// Random pairs at random distances and sizes (1:10), cold start, then a warm cache
    /// after a small motion.
    #[test]
    fn tracked_distance_equals_brute_force(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sa = rng.random_range(0.5..5.0);
        let sb = rng.random_range(0.5..5.0);
        let a = polygon(&mut rng, sa, [0.0, 0.0]);
        let dist = rng.random_range(0.0..3.0) * (sa + sb);
        let dir = rng.random_range(0.0..2.0 * std::f64::consts::PI);
        let b = polygon(&mut rng, sb, [dist * dir.cos(), dist * dir.sin()]);
        let mut cache = FeaturePair::START;
        check_distance(&a, &b, &mut cache, sa.max(sb), "cold");
        for _ in 0..5 {
            let step = 0.01 * sb;
            let b2 = moved(&b, [rng.random_range(-step..step), rng.random_range(-step..step)], rng.random_range(-0.01..0.01));
            check_distance(&a, &b2, &mut cache, sa.max(sb), "warm");
        }
    }

    /// The overlap area equals an independent computation, is symmetric, and is zero
    /// exactly when the polygons do not overlap.
    #[test]
    fn overlap_area_equals_hull_reference(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sa = rng.random_range(0.5..5.0);
        let sb = rng.random_range(0.5..5.0);
        let a = polygon(&mut rng, sa, [0.0, 0.0]);
        let dist = rng.random_range(0.0..1.3) * (sa + sb);
        let dir = rng.random_range(0.0..2.0 * std::f64::consts::PI);
        let b = polygon(&mut rng, sb, [dist * dir.cos(), dist * dir.sin()]);
        let want = reference_overlap_area(&a, &b);
        let small = area(&a).min(area(&b));
        let ab = overlap(&a, &b).map_or(0.0, |o| o.area);
        let ba = overlap(&b, &a).map_or(0.0, |o| o.area);
        prop_assert!((ab - want).abs() <= 1e-10 * small, "clipped {ab:e}, reference {want:e}, smaller area {small:e}");
        prop_assert!((ab - ba).abs() <= 1e-10 * small, "not symmetric: {ab:e} vs {ba:e}");
        // The simulation narrows about the centroids, not the vertex means: same overlap.
        let about = overlap_about(&a, &b, centroid(&a), centroid(&b), &mut OverlapScratch::default());
        let about = about.map_or(0.0, |o| o.area);
        prop_assert!((about - want).abs() <= 1e-10 * small, "about the centroids {about:e}, reference {want:e}");
        let separated = matches!(brute_force(&a, &b).0, Proximity::Separated { .. });
        prop_assert_eq!(separated, overlap(&a, &b).is_none(), "area {} but brute force says separated = {}", ab, separated);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// Shallow contacts, the case of a settled bed, where the overlap kernel narrows the
    /// clipping to the few corners near the contact: pressed 1e-1 to 1e-8 of the size past
    /// touching (found by bisection), area and centroid against the hull reference. Also,
    /// at those depths and a little apart, the cheap rejection tests never reject a pair
    /// that touches.
    #[test]
    fn shallow_overlaps_and_sound_rejection(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sa = rng.random_range(0.5..5.0);
        let sb = rng.random_range(0.5..5.0);
        let a = polygon(&mut rng, sa, [0.0, 0.0]);
        let dir = rng.random_range(0.0..2.0 * std::f64::consts::PI);
        let b0 = polygon(&mut rng, sb, [0.0, 0.0]);
        // Shifted so that b's vertex mean sits at a's plus t along dir: at t = 0 two interior
        // points coincide, so the pair overlaps there and separates at one t > 0.
        let mean = |p: &Poly| p.iter().fold([0.0; 2], |s, q| [s[0] + q[0] / p.len() as f64, s[1] + q[1] / p.len() as f64]);
        let (ma, mb) = (mean(&a), mean(&b0));
        let at = |t: f64| moved(&b0, [ma[0] - mb[0] + t * dir.cos(), ma[1] - mb[1] + t * dir.sin()], 0.0);
        let (mut lo, mut hi) = (0.0, 2.0 * (sa + sb));
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if matches!(brute_force(&a, &at(mid)).0, Proximity::Separated { .. }) { hi = mid } else { lo = mid }
        }
        let size = sa.max(sb);
        let depth = size * 10f64.powf(-rng.random_range(1.0..8.0));
        let (ca, cb) = (centroid(&a), centroid(&b0));
        for (t, pressed) in [(hi - depth, true), (hi + depth, false)] {
            let b = at(t);
            let cb = [cb[0] + ma[0] - mb[0] + t * dir.cos(), cb[1] + ma[1] - mb[1] + t * dir.sin()];
            let touching = matches!(brute_force(&a, &b).0, Proximity::Penetrating);
            prop_assert_eq!(touching, pressed, "t {} hi {} depth {}", t, hi, depth);
            if touching {
                prop_assert!(!projections_apart(&a, &b, ca, cb), "projection rejected a touching pair");
                prop_assert!(!separating_line(&a, &b, ca, cb, 8).apart, "separating line through a touching pair");
                let (want, wc) = reference_overlap(&a, &b);
                let small = area(&a).min(area(&b));
                let o = overlap(&a, &b);
                let got = o.map_or(0.0, |o| o.area);
                prop_assert!((got - want).abs() <= 1e-10 * small, "depth {depth:e}: clipped {got:e}, reference {want:e}");
                if let Some(o) = o.filter(|_| want > 1e-6 * small) {
                    let err = (o.centroid[0] - wc[0]).hypot(o.centroid[1] - wc[1]);
                    prop_assert!(err <= 1e-8 * size, "centroid off by {err:e}");
                }
            }
        }
    }
}

/// A pair pressed together `depth` (a fraction of the size) past touching along a random
/// direction, found by bisection on the brute-force test; returns a, b and the function
/// placing b at a given push along the direction.
fn pressed_pair(rng: &mut Xoshiro256PlusPlus) -> (Poly, Poly, f64) {
    let sa = rng.random_range(0.5..5.0);
    let sb = rng.random_range(0.5..5.0);
    let a = polygon(rng, sa, [0.0, 0.0]);
    let dir = rng.random_range(0.0..2.0 * std::f64::consts::PI);
    let b0 = polygon(rng, sb, [0.0, 0.0]);
    let mean = |p: &Poly| {
        p.iter().fold([0.0; 2], |s, q| {
            [s[0] + q[0] / p.len() as f64, s[1] + q[1] / p.len() as f64]
        })
    };
    let (ma, mb) = (mean(&a), mean(&b0));
    let at = |t: f64| moved(&b0, [ma[0] - mb[0] + t * dir.cos(), ma[1] - mb[1] + t * dir.sin()], 0.0);
    let (mut lo, mut hi) = (0.0, 2.0 * (sa + sb));
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if matches!(brute_force(&a, &at(mid)).0, Proximity::Separated { .. }) {
            hi = mid
        } else {
            lo = mid
        }
    }
    let size = sa.max(sb);
    let depth = size * 10f64.powf(-rng.random_range(0.3..6.0));
    (a, at(hi - depth), size)
}

/// One configuration of a tracked contact: the cached crossings if they check out, else
/// the clipping (which re-seeds the cache), compared with the hull reference. Returns
/// whether the cache was used.
fn check_tracked(a: &Poly, b: &Poly, cache: &mut Option<Crossings>, size: f64) -> bool {
    let (ca, cb) = (centroid(a), centroid(b));
    let (want, wc) = reference_overlap(a, b);
    let small = area(a).min(area(b));
    let tracked = cache.and_then(|c| overlap_from_crossings(a, b, ca, cb, c));
    let hit = tracked.is_some();
    let got = tracked.or_else(|| {
        let o = overlap_about(a, b, ca, cb, &mut OverlapScratch::default());
        *cache = o.and_then(|o| o.crossings);
        o
    });
    let clip = overlap_about(a, b, ca, cb, &mut OverlapScratch::default());
    let area_got = got.map_or(0.0, |o| o.area);
    assert!(
        (area_got - want).abs() <= 1e-10 * small,
        "tracked {hit}: area {area_got:e}, reference {want:e} (na {}, nb {})",
        a.len(),
        b.len()
    );
    if let (Some(o), Some(c)) = (got, clip) {
        if want > 1e-6 * small {
            let err = (o.centroid[0] - wc[0]).hypot(o.centroid[1] - wc[1]);
            assert!(err <= 1e-8 * size, "tracked {hit}: centroid off by {err:e}");
        }
        // The same contact line as the clipping finds (the contact law's normal).
        if c.line.is_some() {
            let dn = (o.normal[0] - c.normal[0]).hypot(o.normal[1] - c.normal[1]);
            assert!(
                dn <= 1e-6,
                "tracked {hit}: normal {:?}, clipping {:?}",
                o.normal,
                c.normal
            );
            assert!((o.line_length - c.line_length).abs() <= 1e-9 * size);
        }
    }
    hit
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, .. ProptestConfig::default() })]

    /// The overlap tracked from the cached crossing edges, over a contact that moves and
    /// turns a little each step (so that crossings move on to other edges), equals the
    /// hull reference; and crossing edges that are not the right ones (random ones) are
    /// never accepted with a wrong result.
    #[test]
    fn tracked_overlap_equals_hull_reference(seed in any::<u64>()) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (a, mut b, size) = pressed_pair(&mut rng);
        let mut cache = None;
        for _ in 0..8 {
            check_tracked(&a, &b, &mut cache, size);
            let (ca, cb) = (centroid(&a), centroid(&b));
            let (want, _) = reference_overlap(&a, &b);
            let small = area(&a).min(area(&b));
            for _ in 0..4 {
                let r = |rng: &mut Xoshiro256PlusPlus, n: usize| rng.random_range(0..n) as u8;
                let c = Crossings { ia: r(&mut rng, a.len()), jb: r(&mut rng, b.len()), ka: r(&mut rng, a.len()), lb: r(&mut rng, b.len()) };
                if let Some(o) = overlap_from_crossings(&a, &b, ca, cb, c) {
                    prop_assert!((o.area - want).abs() <= 1e-10 * small, "random {c:?}: {:e} vs {want:e}", o.area);
                }
            }
            let step = 0.003 * size;
            b = moved(&b, [rng.random_range(-step..step), rng.random_range(-step..step)], rng.random_range(-0.003..0.003));
        }
    }
}

/// Tracking is what a lasting contact uses: over slowly moving shallow contacts of the
/// shapes above, the cached crossings settle most steps without clipping.
#[test]
fn tracked_overlap_is_used_for_lasting_contacts() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(17);
    let (mut hits, mut warm) = (0, 0);
    for _ in 0..300 {
        let (a, mut b, size) = pressed_pair(&mut rng);
        let mut cache = None;
        check_tracked(&a, &b, &mut cache, size);
        for _ in 0..10 {
            let step = 1e-4 * size;
            b = moved(
                &b,
                [rng.random_range(-step..step), rng.random_range(-step..step)],
                rng.random_range(-1e-4..1e-4),
            );
            warm += cache.is_some() as u32;
            hits += check_tracked(&a, &b, &mut cache, size) as u32;
        }
    }
    assert!(warm > 2500, "{warm} of 3000 steps had crossings cached");
    assert!(hits as f64 > 0.9 * warm as f64, "cache used in {hits} of {warm} steps");
}

/// The gap budget skips walks, never contacts: two polygons drifted as velocity Verlet
/// drifts them (x += dt v, angle += dt omega, with velocities that change every step),
/// approaching, touching and parting, give bitwise the same outcome at every step with the
/// budget as without it; and the budget does skip walks and the pairs do touch.
#[test]
fn gap_budget_never_misses_a_contact() {
    let (mut skips, mut contacts, mut apart) = (0, 0, 0);
    for seed in 0..400 {
        let (s, c, a) = budget_run(seed);
        (skips, contacts, apart) = (skips + s, contacts + c, apart + a);
    }
    println!("{skips} skipped, {contacts} in contact, {apart} apart");
    assert!(contacts > 20_000, "{contacts} contact steps of 160,000");
    assert!(skips > apart / 2, "{skips} walks skipped of {apart} steps apart");
}

/// One pair of [`gap_budget_never_misses_a_contact`]: steps skipped, in contact, apart.
fn budget_run(seed: u64) -> (u32, u32, u32) {
    {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let (sa, sb) = (rng.random_range(0.5..2.0), rng.random_range(0.5..2.0));
        let body_a = polygon(&mut rng, sa, [0.0, 0.0]);
        let body_b = polygon(&mut rng, sb, [0.0, 0.0]);
        let (ra, rb) = (
            body_a.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max),
            body_b.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max),
        );
        let dir = rng.random_range(0.0..std::f64::consts::TAU);
        let gap = rng.random_range(0.0..0.3) * (ra + rb);
        let (mut pa, mut pb) = ([0.0, 0.0], [(ra + rb + gap) * dir.cos(), (ra + rb + gap) * dir.sin()]);
        let (mut ta, mut tb) = (rng.random_range(0.0..6.3), rng.random_range(0.0..6.3));
        // Closing along the centre line at a random speed, plus random jitter and spin.
        let speed = rng.random_range(0.0..0.02) * (ra + rb);
        let dt = 1.0;
        let params = ContactParams {
            kn: 1.0,
            kt: 0.5,
            gamma_n: 0.1,
            gamma_t: 0.05,
            mu: 0.5,
        };
        let world = |body: &Poly, p: [f64; 2], t: f64| -> Poly {
            let (s, c) = t.sin_cos();
            body.iter()
                .map(|v| [p[0] + c * v[0] - s * v[1], p[1] + s * v[0] + c * v[1]])
                .collect()
        };
        let mut state = [(FeaturePair::START.pack(), 0.0, 0.0); 2];
        let mut scratch = OverlapScratch::default();
        let (mut skips, mut contacts, mut apart) = (0, 0, 0);
        for step in 0..400 {
            let back = if step > 200 { -1.0 } else { 1.0 };
            let jitter = 0.2 * speed;
            let va = [
                back * speed * dir.cos() + rng.random_range(-jitter..=jitter),
                back * speed * dir.sin() + rng.random_range(-jitter..=jitter),
            ];
            let vb = [rng.random_range(-jitter..=jitter), rng.random_range(-jitter..=jitter)];
            let (wa, wb) = (rng.random_range(-0.01..0.01), rng.random_range(-0.01..0.01));
            pa = [pa[0] + dt * va[0], pa[1] + dt * va[1]];
            pb = [pb[0] + dt * vb[0], pb[1] + dt * vb[1]];
            ta += dt * wa;
            tb += dt * wb;
            let (va_w, vb_w) = (world(&body_a, pa, ta), world(&body_b, pb, tb));
            let a = ContactBody {
                vertices: &va_w,
                pos: pa,
                angle: ta,
                vel: va,
                omega: wa,
                radius: ra,
            };
            let b = ContactBody {
                vertices: &vb_w,
                pos: pb,
                angle: tb,
                vel: vb,
                omega: wb,
                radius: rb,
            };
            let mut out = Vec::new();
            for (k, budget) in [true, false].into_iter().enumerate() {
                let (f, area, xi) = &mut state[k];
                out.push(polygon_polygon(
                    &params,
                    &a,
                    &b,
                    1.0,
                    f,
                    area,
                    xi,
                    dt,
                    budget,
                    &mut scratch,
                ));
            }
            match (out[0], out[1]) {
                (PolyOutcome::Separated { skipped, .. }, PolyOutcome::Separated { .. }) => {
                    skips += skipped as u32;
                    apart += 1;
                }
                (PolyOutcome::Contact { force: f0, .. }, PolyOutcome::Contact { force: f1, .. }) => {
                    contacts += 1;
                    assert_eq!(f0, f1, "seed {seed} step {step}: forces differ");
                }
                (o0, o1) => panic!("seed {seed} step {step}: with the budget {o0:?}, without {o1:?}"),
            }
        }
        (skips, contacts, apart)
    }
}

/// Every cached crossing tuple (ia, jb, ka, lb) of small polygons, on generic and
/// degenerate pairs (an edge of b on the line of an edge of a, same or opposite direction,
/// tilted by 1e-16 to 1e-9 rad; b a scaled copy of a sharing a corner or an edge line; a
/// corner of b on an edge of a), each then moved by a random rigid motion so that the
/// degenerate relations carry rounding: whatever the tracked overlap accepts has the
/// reference area and centroid, its contact line ends on both boundaries, and (generic
/// pairs) its normal is the clipping's.
#[test]
fn every_cached_tuple_on_degenerate_pairs() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    let xf = |p: &Poly, rot: f64, d: [f64; 2]| -> Poly {
        let (s, c) = rot.sin_cos();
        p.iter()
            .map(|q| [c * q[0] - s * q[1] + d[0], s * q[0] + c * q[1] + d[1]])
            .collect()
    };
    let lerp = |u: [f64; 2], v: [f64; 2], t: f64| [u[0] + t * (v[0] - u[0]), u[1] + t * (v[1] - u[1])];
    // Distance outside convex polygon q (negative inside).
    let outside = |pt: [f64; 2], q: &Poly| {
        (0..q.len())
            .map(|m| {
                let (u, v) = (q[m], q[(m + 1) % q.len()]);
                -((v[0] - u[0]) * (pt[1] - u[1]) - (v[1] - u[1]) * (pt[0] - u[0])) / (v[0] - u[0]).hypot(v[1] - u[1])
            })
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let (mut accepted, mut tried) = (0u64, 0u64);
    for trial in 0..4000 {
        let (sa, sb) = (rng.random_range(0.5..3.0), rng.random_range(0.5..3.0));
        let small_poly = |rng: &mut Xoshiro256PlusPlus, size: f64| loop {
            let p = polygon(rng, size, [0.0, 0.0]);
            if p.len() <= 8 {
                return p;
            }
        };
        let a0 = small_poly(&mut rng, sa);
        let mut b0 = small_poly(&mut rng, sb);
        let (na, nb) = (a0.len(), b0.len());
        match trial % 6 {
            0 => {
                let (d, t): (f64, f64) = (rng.random_range(0.0..1.2) * (sa + sb), rng.random_range(0.0..6.3));
                b0 = xf(&b0, rng.random_range(0.0..6.3), [d * t.cos(), d * t.sin()]);
            }
            1..=3 => {
                let (ea, eb) = (rng.random_range(0..na), rng.random_range(0..nb));
                let (p0, p1) = (a0[ea], a0[(ea + 1) % na]);
                let (q0, q1) = (b0[eb], b0[(eb + 1) % nb]);
                let opposite = trial % 6 == 2;
                let tilt = if trial % 6 == 3 {
                    rng.random_range(-1.0..1.0) * 10f64.powf(-rng.random_range(9.0..16.0))
                } else {
                    0.0
                };
                let rot = (p1[1] - p0[1]).atan2(p1[0] - p0[0]) - (q1[1] - q0[1]).atan2(q1[0] - q0[0])
                    + if opposite { std::f64::consts::PI } else { 0.0 }
                    + tilt;
                let bq = xf(&b0, rot, [0.0, 0.0]);
                let anchor = lerp(p0, p1, rng.random_range(-0.5..1.5));
                b0 = xf(&bq, 0.0, [anchor[0] - bq[eb][0], anchor[1] - bq[eb][1]]);
                if opposite {
                    let (nx, ny) = (-(p1[1] - p0[1]), p1[0] - p0[0]);
                    let e = rng.random_range(0.0..0.3) * sa / nx.hypot(ny);
                    b0 = xf(&b0, 0.0, [nx * e, ny * e]);
                }
            }
            4 => {
                let e = rng.random_range(0..na);
                let c = lerp(
                    a0[e],
                    a0[(e + 1) % na],
                    if rng.random_bool(0.5) {
                        0.0
                    } else {
                        rng.random_range(-0.3..1.3)
                    },
                );
                let f = rng.random_range(0.2..2.0);
                b0 = a0
                    .iter()
                    .map(|q| [c[0] + f * (q[0] - c[0]), c[1] + f * (q[1] - c[1])])
                    .collect();
            }
            _ => {
                let (ea, vb) = (rng.random_range(0..na), rng.random_range(0..nb));
                let anchor = lerp(a0[ea], a0[(ea + 1) % na], rng.random_range(0.0..1.0));
                let bq = xf(&b0, rng.random_range(0.0..6.3), [0.0, 0.0]);
                b0 = xf(&bq, 0.0, [anchor[0] - bq[vb][0], anchor[1] - bq[vb][1]]);
            }
        }
        let (rot, d) = (
            rng.random_range(0.0..6.3),
            [rng.random_range(-100.0..100.0), rng.random_range(-100.0..100.0)],
        );
        let (a, b) = (xf(&a0, rot, d), xf(&b0, rot, d));
        if !is_convex_ccw(&a) || !is_convex_ccw(&b) {
            continue;
        }
        let (ca, cb) = (centroid(&a), centroid(&b));
        // The hull reference can take in a spurious crossing of two nearly collinear
        // edges; plain clipping cannot.
        let (want, wc) = reference_clip(&a, &b);
        let small = area(&a).min(area(&b));
        let size = sa.max(sb);
        let clip = overlap_about(&a, &b, ca, cb, &mut OverlapScratch::default());
        for t in 0..(na * nb * na * nb) {
            let (i, j, k, l) = (t % na, t / na % nb, t / (na * nb) % na, t / (na * nb * na));
            let c = Crossings {
                ia: i as u8,
                jb: j as u8,
                ka: k as u8,
                lb: l as u8,
            };
            tried += 1;
            let Some(o) = overlap_from_crossings(&a, &b, ca, cb, c) else {
                continue;
            };
            accepted += 1;
            let what = format!("trial {trial} {c:?}\n a = {a:?}\n b = {b:?}");
            assert!(
                (o.area - want).abs() <= 1e-9 * small,
                "area {} against {want}: {what}",
                o.area
            );
            if want > 1e-6 * small {
                let err = (o.centroid[0] - wc[0]).hypot(o.centroid[1] - wc[1]);
                assert!(err <= 1e-6 * size, "centroid off by {err:e}: {what}");
            }
            let [p, q] = o.line.expect("a tracked overlap has its contact line");
            for x in [p, q] {
                let off = outside(x, &a).max(outside(x, &b));
                assert!(off <= 1e-9 * size, "line end {x:?} {off:e} off a boundary: {what}");
            }
            // Where edges cross at a grazing angle any point of their common stretch is a
            // crossing, and the two computations may pick different ones (the area does not
            // care): normals are compared on the generic pairs.
            if let Some(cl) = clip.filter(|cl| trial % 6 == 0 && cl.line.is_some() && cl.line_length > 1e-6 * size) {
                let dn = (o.normal[0] - cl.normal[0]).hypot(o.normal[1] - cl.normal[1]);
                assert!(dn <= 1e-6, "normal {:?}, clipping {:?}: {what}", o.normal, cl.normal);
            }
        }
    }
    println!("{accepted} of {tried} tuples accepted");
    assert!(accepted > 1200, "{accepted} of {tried} tuples accepted");
}

/// Nearly parallel edges and touching corners, the degenerate cases of the walk.
#[test]
fn parallel_edges_and_touching_corners() {
    let sq = |cx: f64, cy: f64, h: f64| vec![[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]];
    let a = sq(0.0, 0.0, 1.0);
    let mut steps = Vec::new();
    for k in 0..2000 {
        let t = k as f64 / 2000.0;
        // Face to face at distance 0.5, sliding along, tilted by at most 1e-9 rad.
        let b = moved(&sq(2.5, -3.0 + 6.0 * t, 1.0), [0.0, 0.0], 1e-9 * (t - 0.5));
        let mut c = FeaturePair::START;
        steps.push(check_distance(&a, &b, &mut c, 1.0, "parallel"));
        // Overlapping by 0.1 with collinear edges, sliding along.
        let b = sq(1.9, -3.0 + 6.0 * t, 1.0);
        let mut c = FeaturePair::START;
        check_distance(&a, &b, &mut c, 1.0, "collinear overlap");
        // Corner to corner, touching exactly and just apart.
        let gap = if k % 2 == 0 { 0.0 } else { 1e-12 * t };
        let b = sq(2.0 + gap, 2.0 + gap, 1.0);
        check_distance(&a, &b, &mut c, 1.0, "corners");
    }
    let mean = steps.iter().sum::<u32>() as f64 / steps.len() as f64;
    assert!(
        mean < 8.0,
        "cold walks between parallel squares take {mean} steps on average"
    );
}

/// A warm cache makes the walk O(1): the mean number of feature pairs visited per query,
/// for polygons of 64 vertices turning slowly against each other, stays small.
#[test]
fn warm_walk_is_short_for_many_vertices() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let n = 64;
    let circle = |c: [f64; 2], r: f64| -> Poly {
        (0..n)
            .map(|k| {
                let t = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                [c[0] + r * t.cos(), c[1] + r * t.sin()]
            })
            .collect()
    };
    let a = circle([0.0, 0.0], 1.0);
    let b0 = circle([2.2, 0.0], 1.0);
    let mut cache = FeaturePair::START;
    let mut total = 0;
    let queries = 2000;
    for k in 0..queries {
        let phi = 0.002 * k as f64;
        let b = moved(
            &b0,
            [2.2 * phi.cos() - 2.2, 2.2 * phi.sin()],
            rng.random_range(-0.01..0.01),
        );
        total += check_distance(&a, &b, &mut cache, 1.0, "warm circle");
    }
    let mean = total as f64 / queries as f64;
    assert!(mean < 4.0, "warm walk visits {mean} feature pairs per query");
}

/// Independent overlap by the plainest clipping: a cut by every edge half-plane of b in
/// turn (Sutherland-Hodgman), no narrowing, new vectors each time; area and centroid.
fn reference_clip(a: &Poly, b: &Poly) -> (f64, [f64; 2]) {
    let orient = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
    let mut cur = a.clone();
    for j in 0..b.len() {
        let (p, q) = (b[j], b[(j + 1) % b.len()]);
        let mut out = Vec::new();
        for k in 0..cur.len() {
            let (u, v) = (cur[k], cur[(k + 1) % cur.len()]);
            let (du, dv) = (orient(p, q, u), orient(p, q, v));
            if du >= 0.0 {
                out.push(u);
            }
            if (du >= 0.0) != (dv >= 0.0) {
                let t = du / (du - dv);
                out.push([u[0] + t * (v[0] - u[0]), u[1] + t * (v[1] - u[1])]);
            }
        }
        cur = out;
        if cur.len() < 3 {
            return (0.0, [0.0; 2]);
        }
    }
    let a2 = area(&cur);
    if a2 <= 0.0 {
        (0.0, [0.0; 2])
    } else {
        (a2, centroid(&cur))
    }
}

/// Independent overlap area: the corners of the intersection are the vertices of each
/// polygon inside the other and the crossing points of their edges; the intersection is
/// their convex hull.
fn reference_overlap_area(a: &Poly, b: &Poly) -> f64 {
    reference_overlap(a, b).0
}

/// [`reference_overlap_area`] and the centroid of the intersection.
fn reference_overlap(a: &Poly, b: &Poly) -> (f64, [f64; 2]) {
    let inside = |p: [f64; 2], q: &Poly| {
        (0..q.len()).all(|k| {
            let (s, t) = (q[k], q[(k + 1) % q.len()]);
            (t[0] - s[0]) * (p[1] - s[1]) - (t[1] - s[1]) * (p[0] - s[0]) >= 0.0
        })
    };
    let mut pts: Vec<[f64; 2]> = Vec::new();
    pts.extend(a.iter().filter(|&&p| inside(p, b)));
    pts.extend(b.iter().filter(|&&p| inside(p, a)));
    for i in 0..a.len() {
        let (p, p2) = (a[i], a[(i + 1) % a.len()]);
        for j in 0..b.len() {
            let (q, q2) = (b[j], b[(j + 1) % b.len()]);
            let r = [p2[0] - p[0], p2[1] - p[1]];
            let s = [q2[0] - q[0], q2[1] - q[1]];
            let den = r[0] * s[1] - r[1] * s[0];
            if den == 0.0 {
                continue;
            }
            let w = [q[0] - p[0], q[1] - p[1]];
            let t = (w[0] * s[1] - w[1] * s[0]) / den;
            let u = (w[0] * r[1] - w[1] * r[0]) / den;
            if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
                pts.push([p[0] + t * r[0], p[1] + t * r[1]]);
            }
        }
    }
    if pts.len() < 3 {
        return (0.0, [0.0; 2]);
    }
    // Convex hull (Andrew's monotone chain), then the shoelace formula.
    pts.sort_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])));
    let turn = |o: [f64; 2], a: [f64; 2], b: [f64; 2]| (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    let mut hull: Vec<[f64; 2]> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &[f64; 2]>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    if hull.len() < 3 {
        return (0.0, [0.0; 2]);
    }
    (area(&hull).abs(), centroid(&hull))
}
