//! The periodic images against brute force over every shift, for every method.
use super::super::{brute_force_pairs, Boxes, NeighborSearch, Quadtree, SweepAndPrune};
use super::*;
use crate::neighbor::{BallBoxes, LinkedCells, VerletLists};
use std::collections::BTreeSet;

type PairSet = BTreeSet<(u32, u32)>;

/// Bounds on the candidate pairs of a periodic cell, pair by pair over every shift:
/// `inner` are the pairs whose exact (unrounded) boxes meet for some shift (every one
/// must be a candidate), `outer` those whose boxes meet when grown by more than the
/// methods' rounding (no other may be).
fn reference(
    cell: &PeriodicCell,
    offset: f64,
    pos: &[Vec<f64>; DIM],
    radius: &[f64],
    margin: f64,
) -> (PairSet, PairSet) {
    let n = radius.len();
    let src = BallBoxes {
        pos: std::array::from_fn(|a| pos[a].as_slice()),
        radius,
        margin,
    };
    // Under shear a shift across y moves x by the offset, and x takes up to 3 lengths.
    let reach_x: i32 = if cell.shear_velocity != 0.0 { 3 } else { 1 };
    let wide = (2 * reach_x + 1) as usize;
    let shifts: Vec<Vector> = (0..wide * 3usize.pow(DIM as u32 - 1))
        .map(|combo| {
            let kx = (combo % wide) as f64 - reach_x as f64;
            let mut rest = combo / wide;
            let k: Vector = std::array::from_fn(|a| {
                if a == 0 {
                    return kx;
                }
                let k = (rest % 3) as f64 - 1.0;
                rest /= 3;
                k
            });
            std::array::from_fn(|a| {
                if !cell.periodic[a] {
                    0.0
                } else if a == 0 {
                    k[0] * cell.length(0) + k[1] * offset
                } else {
                    k[a] * cell.length(a)
                }
            })
        })
        .collect();
    // Rounding to f32 grows a box by at most 2^-22 of its coordinates (twice for an
    // image's box): within 1e-5 here.
    let meets = |bi: &Box64, bj: &Box64, s: &Vector, eps: f64| {
        (0..DIM).all(|a| bi[2 * a] <= bj[2 * a + 1] + s[a] + eps && bj[2 * a] + s[a] <= bi[2 * a + 1] + eps)
    };
    // Two images across y, each widened by the drift (the slack, 0.045 here).
    let drift = if cell.shear_velocity != 0.0 { 0.1 } else { 0.0 };
    let (mut inner, mut outer) = (BTreeSet::new(), BTreeSet::new());
    for i in 0..n {
        for j in i + 1..n {
            let (bi, bj) = (src.bbox(i), src.bbox(j));
            if shifts.iter().any(|s| meets(&bi, &bj, s, 0.0)) {
                inner.insert((i as u32, j as u32));
            }
            // Boxes across y under shear are wider by the offset's drift.
            if shifts.iter().any(|s| meets(&bi, &bj, s, 1e-5 + drift)) {
                outer.insert((i as u32, j as u32));
            }
        }
    }
    (inner, outer)
}

fn check<M: NeighborSearch>(
    mut m: M,
    periodic: [bool; DIM],
    shear_velocity: f64,
    middle: bool,
    jitter: f64,
    drift: f64,
) -> usize {
    let cell = PeriodicCell {
        lo: [0.0; DIM],
        hi: std::array::from_fn(|a| 1.0 + 0.25 * a as f64),
        periodic,
        shear_velocity,
    };
    let mut rnd = super::super::any_dimension::uniform(4242);
    let n = 300;
    let margin = 0.005;
    let radius: Vec<f64> = (0..n).map(|_| 0.01 + 0.03 * rnd()).collect();
    // `middle`: the particles start in the middle of the cell along x.
    let mut pos: [Vec<f64>; DIM] = std::array::from_fn(|a| {
        (0..n)
            .map(|_| cell.hi[a] * if middle && a == 0 { 0.3 + 0.4 * rnd() } else { rnd() })
            .collect()
    });
    let mut images = PeriodicImages::new(cell, 0.04 + margin).unwrap();
    assert_eq!(images.drift, if shear_velocity != 0.0 { images.slack } else { 0.0 });
    let (mut entries, mut pairs) = (Vec::new(), Vec::new());
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    let mut set = BTreeSet::new();
    let (mut rebuilds, mut missed) = (0, 0);
    for step in 0..40 {
        let offset = cell.shear_offset(0.01 * step as f64);
        images.set_offset(offset);
        let too_far = (0..n).any(|p| (0..DIM).any(|a| images.too_far(a, pos[a][p])));
        if too_far {
            #[allow(clippy::needless_range_loop)] // p indexes every axis's array
            for p in 0..n {
                let mut c: Vector = std::array::from_fn(|a| pos[a][p]);
                cell.wrap_point(&mut c, offset);
                (0..DIM).for_each(|a| pos[a][p] = c[a]);
            }
        }
        let view: [&[f64]; DIM] = std::array::from_fn(|a| pos[a].as_slice());
        let src = BallBoxes {
            pos: view,
            radius: &radius,
            margin,
        };
        let missing = step > 0 && !too_far && images.missing(view);
        missed += missing as usize;
        if step == 0 || too_far || missing {
            rebuilds += 1;
            images.build(view);
            m.rebuild(&images.boxes(&src), &mut entries);
            images.particle_pairs(n, &entries, &mut pairs);
            set = pairs.iter().copied().collect();
        } else {
            m.refresh(&images.boxes(&src), &mut adds, &mut removes);
            let mut touched = Vec::new();
            images.particle_pairs(n, &adds, &mut touched);
            let mut more = Vec::new();
            images.particle_pairs(n, &removes, &mut more);
            touched.extend(more);
            for (i, j) in touched {
                if images.any_copy_meets(n, m.stored_boxes(), i, j) {
                    set.insert((i, j));
                } else {
                    set.remove(&(i, j));
                }
            }
        }
        // The methods keep the brute-force set of the entries.
        let entry_boxes: Vec<Box64> = (0..src.len() + images.len())
            .map(|e| images.boxes(&src).bbox(e))
            .collect();
        let mut kept = Vec::new();
        images.particle_pairs(n, &brute_force_pairs(&Boxes(&entry_boxes)), &mut kept);
        assert_eq!(set, kept.into_iter().collect(), "{} step {step}: entries", m.name());
        let (inner, outer) = reference(&cell, offset, &pos, &radius, margin);
        assert!(
            inner.is_subset(&set),
            "{} step {step}: a pair that meets is missing",
            m.name()
        );
        assert!(
            set.is_subset(&outer),
            "{} step {step} shear {shear_velocity}: pairs that cannot meet: {:?}",
            m.name(),
            set.difference(&outer).collect::<Vec<_>>()
        );
        // Every other particle drifts the other way, so that particles near both faces
        // meet across them.
        for (a, x) in pos.iter_mut().enumerate() {
            for (p, v) in x.iter_mut().enumerate() {
                let sign = if p % 2 == 0 { 1.0 } else { -1.0 };
                *v += jitter * (rnd() - 0.5) + if a == 0 { sign * drift } else { 0.0 };
            }
        }
    }
    assert!(rebuilds > 1 && rebuilds < 40, "{rebuilds} rebuilds");
    missed
}

#[test]
fn every_method_keeps_the_periodic_set_of_pairs() {
    let mut axes = vec![[true; DIM]];
    axes.push(std::array::from_fn(|a| a == 0));
    // Spread over the cell, drifting along x (wrapped, often), and starting in the
    // middle (images made again as particles near the faces, before any is wrapped);
    // every axis periodic with Lees-Edwards shear too (the cell above sliding at 3
    // lengths a time unit).
    let cases = axes.into_iter().map(|p| (p, 0.0)).chain([([true; DIM], 3.0)]);
    for (periodic, shear) in cases {
        for (middle, jitter, drift) in [(false, 0.02, 0.004), (true, 0.005, 0.01)] {
            let root = std::array::from_fn(|k| if k % 2 == 0 { -1.5 } else { 3.0 });
            let missed = [
                check(SweepAndPrune::new(), periodic, shear, middle, jitter, drift),
                check(LinkedCells::new(), periodic, shear, middle, jitter, drift),
                check(VerletLists::new(), periodic, shear, middle, jitter, drift),
                check(
                    Quadtree::with_capacity(Some(root), 4),
                    periodic,
                    shear,
                    middle,
                    jitter,
                    drift,
                ),
            ];
            assert!(!middle || missed.iter().all(|&m| m > 0), "{missed:?}");
        }
    }
}

#[test]
fn wrap_and_minimum_image() {
    let cell = PeriodicCell {
        lo: [-1.0; DIM],
        hi: [3.0; DIM],
        periodic: [true; DIM],
        shear_velocity: 0.0,
    };
    assert_eq!(cell.wrap(0, 3.5), -0.5);
    assert_eq!(cell.wrap(0, -1.5), 2.5);
    assert_eq!(cell.wrap(0, 3.0), -1.0);
    assert_eq!(cell.wrap(0, -1e-300), -1e-300);
    let mi = cell.min_image(0.0);
    assert_eq!(mi.axis(0, 3.5), -0.5);
    assert_eq!(mi.axis(0, -2.5), 1.5);
    assert_eq!(mi.axis(0, 0.1234567), 0.1234567);
    assert!(PeriodicImages::new(cell, 0.5).is_ok());
    assert!(PeriodicImages::new(cell, 1.0).is_err());
}

/// A cell whose y length changes: its images' boxes, placed at one length, hold the images
/// at any length within the give of it (the particles left where they are), and a length
/// further off says the boxes must be placed again; the broad phase's domain reaches the
/// longest length whatever the length now; a range that cannot hold is refused.
#[test]
fn a_resizable_cells_image_boxes_hold_within_the_give() {
    let cell = PeriodicCell {
        lo: [0.0; DIM],
        hi: [1.0; DIM],
        periodic: [true; DIM],
        shear_velocity: 0.0,
    };
    let (half_width, margin) = (0.045, 0.005);
    assert!(PeriodicImages::new_resizable(cell, half_width, 1.1, 1.5).is_err());
    assert!(PeriodicImages::new_resizable(cell, half_width, 0.1, 1.5).is_err());
    let mut images = PeriodicImages::new_resizable(cell, half_width, 0.5, 1.5).unwrap();
    assert!(images.give() > 2.0 * margin, "a give of {} is tested", images.give());
    let (mut lo, mut hi) = (cell.lo, cell.hi);
    images.broad_domain(&mut lo, &mut hi);
    // Images made within the band of a face at the shortest length are within 3 bands of
    // it at the longest.
    let (e, grow) = (images.extent(), 2.0 * images.band());
    assert_eq!(
        (lo[1], hi[1], lo[0], hi[0]),
        (-(e + grow), 1.5 + (e + grow), -e, 1.0 + e)
    );

    let mut rnd = super::super::any_dimension::uniform(77);
    let n = 400;
    let radius: Vec<f64> = (0..n).map(|_| 0.01 + 0.03 * rnd()).collect();
    let pos: [Vec<f64>; DIM] = std::array::from_fn(|_| (0..n).map(|_| rnd()).collect());
    let view: [&[f64]; DIM] = std::array::from_fn(|a| pos[a].as_slice());
    let src = BallBoxes {
        pos: view,
        radius: &radius,
        margin,
    };
    images.build(view);
    images.mark_stored();
    assert!(images.len() > 50);
    let stored: Vec<Box64> = (0..n + images.len()).map(|e| images.boxes(&src).bbox(e)).collect();
    for f in [-0.99, -0.5, 0.5, 0.99] {
        images.set_length_y(1.0 + f * images.give());
        assert!(!images.length_drifted(), "length {}", images.cell.length(1));
        // Each image's ball box at the length now, inside its stored box.
        for k in 0..images.len() {
            let (p, s) = (images.owners()[k] as usize, images.shifts()[k]);
            let b = src.bbox(p);
            let inside = (0..DIM).all(|a| {
                let shift = s[a] as f64 * images.cell.length(a);
                stored[n + k][2 * a] <= b[2 * a] + shift && b[2 * a + 1] + shift <= stored[n + k][2 * a + 1]
            });
            assert!(
                inside,
                "image {k} of {p} (shift {s:?}) left its box at length {}",
                images.cell.length(1)
            );
        }
    }
    images.set_length_y(1.0 - 1.01 * images.give());
    assert!(images.length_drifted());
    images.mark_stored();
    assert!(!images.length_drifted());
}
