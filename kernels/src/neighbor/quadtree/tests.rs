//! The tree in the build's dimension (a quadtree in 2D, an octree in 3D) against brute
//! force: random boxes, uniform and clustered, of varied sizes and elongations, moved
//! step by step with the incremental update; the kept pair set is brute force's and the
//! structure validates after every update. Also entries that leave the root and come
//! back, a box as large as the domain, and many entries at one point.
use std::collections::BTreeSet;

use super::*;
use crate::neighbor::{brute_force_pairs, rounded_box, scan_query, Boxes};

/// xorshift64: uniform in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// Boxes in the cube [0, side]^DIM: centres, half-sizes per axis, velocities.
struct Cloud {
    c: Vec<Vector>,
    h: Vec<Vector>,
    v: Vec<Vector>,
    side: f64,
    /// Centres move within [-out, side + out] per axis (beyond the root when out > 0).
    out: f64,
}

impl Cloud {
    /// `ratio`: largest / smallest half-size (log-uniform); `aspect`: largest elongation
    /// (on one random axis); `clusters` > 0 puts the centres in that many tight heaps.
    fn new(n: usize, ratio: f64, aspect: f64, clusters: usize, rng: &mut Rng) -> Cloud {
        let small = 0.01;
        let side = small * 3.0 * (n as f64).powf(1.0 / DIM as f64);
        let heaps: Vec<Vector> = (0..clusters)
            .map(|_| std::array::from_fn(|_| rng.range(0.2, 0.8) * side))
            .collect();
        let mut cloud = Cloud {
            c: Vec::new(),
            h: Vec::new(),
            v: Vec::new(),
            side,
            out: 0.0,
        };
        for k in 0..n {
            let s = small * ratio.powf(rng.next());
            let long = (rng.next() * DIM as f64) as usize;
            let e = 1.0 + (aspect - 1.0) * rng.next();
            cloud.h.push(std::array::from_fn(|a| if a == long { s * e } else { s }));
            cloud.c.push(if clusters > 0 {
                let m = heaps[k % clusters];
                std::array::from_fn(|a| m[a] + small * rng.range(-2.0, 2.0))
            } else {
                std::array::from_fn(|_| rng.next() * side)
            });
            let speed = 0.3 * small;
            cloud.v.push(std::array::from_fn(|_| rng.range(-speed, speed)));
        }
        cloud
    }

    fn domain(&self) -> Box64 {
        std::array::from_fn(|k| if k % 2 == 0 { 0.0 } else { self.side })
    }

    fn boxes(&self) -> Vec<Box64> {
        self.c
            .iter()
            .zip(&self.h)
            .map(|(c, h)| {
                std::array::from_fn(|k| {
                    if k % 2 == 0 {
                        c[k / 2] - h[k / 2]
                    } else {
                        c[k / 2] + h[k / 2]
                    }
                })
            })
            .collect()
    }

    /// One step: reflection at the walls, and now and then a jump across the cube (the
    /// entry climbs several levels).
    fn step(&mut self, rng: &mut Rng) {
        let (lo, hi) = (-self.out, self.side + self.out);
        for k in 0..self.c.len() {
            for a in 0..DIM {
                self.c[k][a] += self.v[k][a];
                if self.c[k][a] < lo || self.c[k][a] > hi {
                    self.v[k][a] = -self.v[k][a];
                    self.c[k][a] = self.c[k][a].clamp(lo, hi);
                }
            }
        }
        if rng.next() < 0.3 {
            let k = (rng.next() * self.c.len() as f64) as usize;
            self.c[k] = std::array::from_fn(|_| rng.range(lo, hi));
        }
    }
}

/// The tree followed over `steps` refreshes of `cloud`: after each, the kept set (adds,
/// then removes) is brute force's and the structure validates; a range query agrees with
/// a scan now and then.
fn follow(mut t: Quadtree, cloud: &mut Cloud, steps: usize, rng: &mut Rng, label: &str) -> Quadtree {
    let b = cloud.boxes();
    let mut pairs = Vec::new();
    t.rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, brute_force_pairs(&Boxes(&b)), "{label}: rebuild");
    t.validate().unwrap_or_else(|e| panic!("{label}: rebuild: {e}"));
    let mut set: BTreeSet<(u32, u32)> = pairs.into_iter().collect();
    let (mut adds, mut removes, mut got, mut want) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for step in 0..steps {
        cloud.step(rng);
        let b = cloud.boxes();
        t.refresh(&Boxes(&b), &mut adds, &mut removes);
        t.validate().unwrap_or_else(|e| panic!("{label}: step {step}: {e}"));
        for &p in &adds {
            assert!(set.insert(p), "{label}: step {step}: {p:?} added twice");
        }
        for p in &removes {
            set.remove(p);
        }
        let all: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&b)).into_iter().collect();
        if set != all {
            let missing: Vec<_> = all.difference(&set).take(5).collect();
            let extra: Vec<_> = set.difference(&all).take(5).collect();
            panic!("{label}: step {step}: missing {missing:?}, extra {extra:?}");
        }
        if step % 10 == 0 {
            let x = rng.range(-0.2, 1.0) * cloud.side;
            let w = rng.range(0.0, 0.5) * cloud.side;
            let q = rounded_box(std::array::from_fn(|k| if k % 2 == 0 { x } else { x + w }));
            t.query(&q, &mut got);
            scan_query(t.stored_boxes(), &q, &mut want);
            got.sort_unstable();
            assert_eq!(got, want, "{label}: step {step}: query {q:?}");
        }
    }
    assert_eq!(t.stats.rebuilds, 1, "{label}: the tree was rebuilt");
    t
}

/// Uniform and clustered clouds, equal and mixed sizes, cubes and elongated boxes; over
/// the entries' own cube and over a fixed domain, with leaves of 1 (the paper's) and 4
/// (the simulation's).
#[test]
fn random_boxes_keep_the_brute_force_set_and_a_valid_tree() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (n, ratio, aspect, clusters) in [
        (300, 1.0, 1.0, 0),
        (300, 10.0, 1.0, 0),
        (250, 3.0, 6.0, 0),
        (300, 4.0, 2.0, 5),
    ] {
        for capacity in [1, 4] {
            let label =
                format!("{DIM}D: n {n}, ratio {ratio}, aspect {aspect}, {clusters} clusters, leaves of {capacity}");
            let mut cloud = Cloud::new(n, ratio, aspect, clusters, &mut rng);
            let t = follow(
                Quadtree::with_capacity(None, capacity),
                &mut cloud,
                60,
                &mut rng,
                &label,
            );
            assert!(t.stats.migrations > 0, "{label}: nothing migrated");
            let mut cloud = Cloud::new(n, ratio, aspect, clusters, &mut rng);
            let d = cloud.domain();
            let t = follow(
                Quadtree::with_capacity(Some(d), capacity),
                &mut cloud,
                60,
                &mut rng,
                &label,
            );
            assert!(t.stats.migrations > 0, "{label}: nothing migrated");
        }
    }
}

/// Fast entries over many steps: splits, merges and migrations by the thousand, the tree
/// never rebuilt, the node count bounded (freed blocks are reused).
#[test]
fn long_migration_splits_merges_and_reuses_nodes() {
    let mut rng = Rng(7);
    let mut cloud = Cloud::new(200, 3.0, 1.0, 0, &mut rng);
    for v in &mut cloud.v {
        *v = v.map(|x| 8.0 * x);
    }
    let d = cloud.domain();
    let t = follow(
        Quadtree::with_capacity(Some(d), 1),
        &mut cloud,
        1500,
        &mut rng,
        "long migration",
    );
    let s = t.stats;
    assert!(s.migrations > 5_000 && s.splits > 500 && s.merges > 500, "{s:?}");
    assert!(
        t.nodes() < 40 * t.entries(),
        "{} nodes for {} entries",
        t.nodes(),
        t.entries()
    );
}

/// Entries whose centres leave the fixed root (filed clamped into a border leaf) and
/// come back in: the set stays exact and the tree valid; some did leave.
#[test]
fn entries_leave_the_root_and_come_back() {
    let mut rng = Rng(31);
    let mut cloud = Cloud::new(200, 2.0, 1.0, 0, &mut rng);
    cloud.out = 0.3 * cloud.side;
    for v in &mut cloud.v {
        *v = v.map(|x| 5.0 * x);
    }
    let d = cloud.domain();
    let mut t = Quadtree::with_capacity(Some(d), 1);
    let (mut outside, mut back) = (0, 0);
    let mut was_out = vec![false; cloud.c.len()];
    let b = cloud.boxes();
    t.rebuild(&Boxes(&b), &mut Vec::new());
    let mut set: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&b)).into_iter().collect();
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    for step in 0..800 {
        cloud.step(&mut rng);
        let b = cloud.boxes();
        t.refresh(&Boxes(&b), &mut adds, &mut removes);
        t.validate().unwrap_or_else(|e| panic!("step {step}: {e}"));
        set.extend(adds.iter().copied());
        for p in &removes {
            set.remove(p);
        }
        let all: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&b)).into_iter().collect();
        assert_eq!(set, all, "step {step}");
        for (k, c) in cloud.c.iter().enumerate() {
            let out = c.iter().any(|&x| x < 0.0 || x >= cloud.side);
            outside += out as usize;
            back += (was_out[k] && !out) as usize;
            was_out[k] = out;
        }
    }
    assert!(outside > 1000 && back > 50, "outside {outside}, came back {back}");
    assert_eq!(t.stats.rebuilds, 1);
}

/// A box as large as the domain among small ones: cut into tiles (their Fig. 3), it
/// meets every other box; it then moves by a fraction of its size and the set follows.
#[test]
fn a_box_as_large_as_the_domain() {
    let mut rng = Rng(5);
    let mut cloud = Cloud::new(150, 2.0, 1.0, 0, &mut rng);
    let s = cloud.side;
    cloud.c.push([0.5 * s; DIM]);
    cloud.h.push([0.5 * s; DIM]);
    cloud.v.push([0.002 * s; DIM]);
    let big = cloud.c.len() as u32 - 1;
    let d = cloud.domain();
    for t in [Quadtree::new(Some(d)), Quadtree::new(None)] {
        let mut cloud = Cloud {
            c: cloud.c.clone(),
            h: cloud.h.clone(),
            v: cloud.v.clone(),
            side: s,
            out: 0.0,
        };
        let mut t = follow(t, &mut cloud, 40, &mut rng, "large box");
        assert!(t.entries() > cloud.c.len(), "not tiled: {} entries", t.entries());
        // Everything inside the cube meets the big box.
        let mut pairs = Vec::new();
        t.rebuild(&Boxes(&cloud.boxes()), &mut pairs);
        let inside = (0..big)
            .filter(|&p| {
                let c = cloud.c[p as usize];
                let b = cloud.c[big as usize];
                (0..DIM).all(|a| (c[a] - b[a]).abs() < 0.5 * s)
            })
            .count();
        let with_big = pairs.iter().filter(|&&(_, q)| q == big).count();
        assert!(
            with_big >= inside && inside > 50,
            "{with_big} pairs with the big box, {inside} inside it"
        );
    }
}

/// A box ten thousand times the others' size: its tiles per axis are capped (2^18 tiles
/// in all), larger tiles widen the search, and the set is still exact.
#[test]
fn a_huge_box_gets_capped_tiles() {
    let mut b: Vec<Box64> = (0..20)
        .map(|k| {
            let x = 0.03 * k as f64;
            std::array::from_fn(|j| if j % 2 == 0 { x } else { x + 0.02 })
        })
        .collect();
    b.push(std::array::from_fn(|j| if j % 2 == 0 { -100.0 } else { 100.0 }));
    let mut t = Quadtree::new(None);
    let mut pairs = Vec::new();
    t.rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, brute_force_pairs(&Boxes(&b)));
    assert_eq!(t.entries(), 20 + MAX_TILES_PER_AXIS.pow(DIM as u32));
    assert!(t.entries() <= 20 + (1 << 18));
    t.validate().unwrap();
}

/// Many entries at exactly one point: a leaf at the depth limit chains them (splitting
/// would never separate them); they then spread out and gather again.
#[test]
fn many_entries_at_one_point() {
    let mut rng = Rng(77);
    let n = 120;
    let mut cloud = Cloud::new(n, 1.0, 1.0, 0, &mut rng);
    let p: Vector = [0.37 * cloud.side; DIM];
    for c in &mut cloud.c {
        *c = p;
    }
    let d = cloud.domain();
    for capacity in [1, 4] {
        let mut t = Quadtree::with_capacity(Some(d), capacity);
        let mut pairs = Vec::new();
        t.rebuild(&Boxes(&cloud.boxes()), &mut pairs);
        assert_eq!(pairs.len(), n * (n - 1) / 2);
        t.validate().unwrap();
        let deepest = t.nodes.iter().map(|n| n.depth).max().unwrap();
        assert_eq!(deepest, MAX_DEPTH, "the heap was not chained at the depth limit");
    }
    // Spread out (every entry on its own path), then all back to the point.
    let mut spread = Cloud {
        c: cloud.c.clone(),
        h: cloud.h.clone(),
        v: cloud.v.iter().map(|v| v.map(|x| 3.0 * x)).collect(),
        side: cloud.side,
        out: 0.0,
    };
    let mut t = follow(
        Quadtree::with_capacity(Some(d), 1),
        &mut spread,
        50,
        &mut rng,
        "spreading heap",
    );
    let mut set: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&spread.boxes())).into_iter().collect();
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    let b = cloud.boxes();
    t.refresh(&Boxes(&b), &mut adds, &mut removes);
    t.validate().unwrap();
    set.extend(adds.iter().copied());
    for r in &removes {
        set.remove(r);
    }
    assert_eq!(set.len(), n * (n - 1) / 2);
    assert!(t.stats.merges > 0, "{:?}", t.stats);
}

/// Each split makes 2^DIM children, one per combination of halves: two entries in
/// opposite corners give the root its 2^DIM children and nothing more.
#[test]
fn a_split_makes_one_child_per_orthant() {
    let b: Vec<Box64> = [0.1, 0.9]
        .iter()
        .map(|&x| std::array::from_fn(|k| if k % 2 == 0 { x - 0.01 } else { x + 0.01 }))
        .collect();
    let mut t = Quadtree::new(Some(std::array::from_fn(|k| (k % 2) as f64)));
    let mut pairs = Vec::new();
    t.rebuild(&Boxes(&b), &mut pairs);
    assert!(pairs.is_empty());
    assert_eq!(t.nodes(), 1 + CHILDREN);
    t.validate().unwrap();
    // The two entries are in the first and last children, which are the lower and upper
    // corners on every axis.
    let first = t.nodes[0].child;
    assert_eq!(t.leaf, vec![first, first + CHILDREN as u32 - 1]);
    for k in 0..CHILDREN as u32 {
        let c = &t.nodes[(first + k) as usize];
        for a in 0..DIM {
            let up = (k >> a) & 1 == 1;
            assert_eq!(c.lo[a] == t.nodes[0].mid[a], up, "child {k}, axis {a}");
        }
    }
}

/// A restore from the stored boxes of a migrated tree gives its pair set.
#[test]
fn restore_gives_the_migrated_set() {
    let mut rng = Rng(99);
    let mut cloud = Cloud::new(200, 3.0, 2.0, 3, &mut rng);
    let d = cloud.domain();
    let t = follow(
        Quadtree::with_capacity(Some(d), 4),
        &mut cloud,
        30,
        &mut rng,
        "before restore",
    );
    let mut r = Quadtree::with_capacity(Some(d), 4);
    let ends: [&[u32]; DIM] = [&[]; DIM];
    let found = r.restore(t.stored_boxes(), ends).unwrap();
    assert_eq!(found, Some(t.pairs.len()));
    assert_eq!(r.pairs, t.pairs);
    r.validate().unwrap();
}
