//! Every neighbour-search method against the brute-force reference: after every step of
//! random motion the set each method keeps (rebuild, then adds and removes applied) is
//! exactly the set of pairs whose stored boxes overlap, for size ratios 1:1 to 1:100 and
//! for elongated boxes; range queries agree with brute force; the quadtree's structure
//! stays valid under long random migration.
use std::collections::BTreeSet;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus as StdRng;
use talus::kernels::neighbor::{
    boxes_overlap, brute_force_pairs, rounded_box, BoundingVolumes, Boxes, Dess, LinkedCells, NeighborSearch, Quadtree,
    SpatialHash, StripedSort, SweepAndPrune, VerletLists,
};

/// Particles in a square of side `side`: centre, half-sizes (x, y) and a velocity.
struct Cloud {
    c: Vec<[f64; 2]>,
    h: Vec<[f64; 2]>,
    v: Vec<[f64; 2]>,
    side: f64,
}

impl Cloud {
    /// `ratio` = largest / smallest half-size (sizes log-uniform in between); `aspect` =
    /// largest elongation (a box `aspect` times longer on a random axis).
    fn new(n: usize, ratio: f64, aspect: f64, seed: u64) -> Cloud {
        let mut rng = StdRng::seed_from_u64(seed);
        let small = 0.01;
        let side = small * (n as f64).sqrt() * 3.0;
        let mut c = Vec::new();
        let mut h = Vec::new();
        let mut v = Vec::new();
        for _ in 0..n {
            let s = small * ratio.powf(rng.random_range(0.0..1.0));
            let e = 1.0 + (aspect - 1.0) * rng.random_range(0.0..1.0);
            let hs = if rng.random_range(0..2) == 0 {
                [s * e, s]
            } else {
                [s, s * e]
            };
            c.push([rng.random_range(0.0..1.0) * side, rng.random_range(0.0..1.0) * side]);
            h.push(hs);
            let speed = small * 0.3;
            v.push([rng.random_range(-speed..speed), rng.random_range(-speed..speed)]);
        }
        Cloud { c, h, v, side }
    }

    fn boxes(&self) -> Vec<[f64; 4]> {
        self.c
            .iter()
            .zip(&self.h)
            .map(|(c, h)| [c[0] - h[0], c[0] + h[0], c[1] - h[1], c[1] + h[1]])
            .collect()
    }

    /// One step of motion; a particle reflects off the square's sides, and now and then
    /// one jumps far (the quadtree must lift it through several levels).
    fn step(&mut self, rng: &mut StdRng) {
        for k in 0..self.c.len() {
            for a in 0..2 {
                self.c[k][a] += self.v[k][a];
                if self.c[k][a] < 0.0 || self.c[k][a] > self.side {
                    self.v[k][a] = -self.v[k][a];
                    self.c[k][a] = self.c[k][a].clamp(0.0, self.side);
                }
            }
        }
        if rng.random_range(0.0..1.0) < 0.3 {
            let k = rng.random_range(0..self.c.len());
            self.c[k] = [
                rng.random_range(0.0..1.0) * self.side,
                rng.random_range(0.0..1.0) * self.side,
            ];
        }
    }
}

/// The pair set a method keeps, followed step by step from its rebuild.
fn follow<M: NeighborSearch>(mut m: M, cloud: &mut Cloud, steps: usize, seed: u64, label: &str) -> M {
    let mut rng = StdRng::seed_from_u64(seed);
    let b = cloud.boxes();
    let mut pairs = Vec::new();
    m.rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, brute_force_pairs(&Boxes(&b)), "{label} ({}): rebuild", m.name());
    let mut set: BTreeSet<(u32, u32)> = pairs.into_iter().collect();
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    for step in 0..steps {
        cloud.step(&mut rng);
        let b = cloud.boxes();
        m.refresh(&Boxes(&b), &mut adds, &mut removes);
        for &p in &adds {
            assert!(set.insert(p), "{label} ({}): step {step}: {p:?} added twice", m.name());
        }
        for p in &removes {
            set.remove(p);
        }
        let want: BTreeSet<(u32, u32)> = brute_force_pairs(&Boxes(&b)).into_iter().collect();
        if set != want {
            let missing: Vec<_> = want.difference(&set).take(5).collect();
            let extra: Vec<_> = set.difference(&want).take(5).collect();
            panic!(
                "{label} ({}): step {step}: missing {missing:?}, extra {extra:?}",
                m.name()
            );
        }
    }
    m
}

/// Sort-and-sweep behind the common interface (its own tests are in sweep_props.rs).
fn check_all(n: usize, ratio: f64, aspect: f64, steps: usize, seed: u64) {
    let label = format!("n {n}, size ratio {ratio}, aspect {aspect}");
    let fresh = || Cloud::new(n, ratio, aspect, seed);
    follow(SweepAndPrune::new(), &mut fresh(), steps, seed, &label);
    follow(LinkedCells::new(), &mut fresh(), steps, seed, &label);
    follow(SpatialHash::new(), &mut fresh(), steps, seed, &label);
    follow(Dess::new(), &mut fresh(), steps, seed, &label);
    follow(StripedSort::new(), &mut fresh(), steps, seed, &label);
    follow(BoundingVolumes::new(), &mut fresh(), steps, seed, &label);
    let v = follow(VerletLists::new(), &mut fresh(), steps, seed, &label);
    assert!(
        v.builds > 1 && v.builds < v.refreshes,
        "{label}: verlet built {} lists in {} refreshes",
        v.builds,
        v.refreshes
    );
    let t = follow(Quadtree::new(None), &mut fresh(), steps, seed, &label);
    t.validate().unwrap_or_else(|e| panic!("{label}: quadtree: {e}"));
    let mut cloud = fresh();
    let d = [0.0, cloud.side, 0.0, cloud.side];
    let t = follow(Quadtree::new(Some(d)), &mut cloud, steps, seed, &label);
    t.validate()
        .unwrap_or_else(|e| panic!("{label}: quadtree in a fixed domain: {e}"));
}

#[test]
fn equal_sizes() {
    check_all(600, 1.0, 1.0, 200, 1);
}

#[test]
fn size_ratio_10() {
    check_all(500, 10.0, 1.0, 150, 2);
}

#[test]
fn size_ratio_100() {
    check_all(400, 100.0, 1.0, 100, 3);
}

#[test]
fn elongated() {
    check_all(500, 2.0, 8.0, 150, 4);
}

#[test]
fn coincident_centres_and_a_dense_heap() {
    // Many particles at exactly the same place: the quadtree chains them at its depth
    // limit instead of splitting forever.
    let mut b: Vec<[f64; 4]> = (0..50).map(|_| [0.5, 0.6, 0.5, 0.6]).collect();
    b.extend((0..50).map(|k| {
        let x = 0.01 * k as f64;
        [x, x + 0.02, 0.0, 0.02]
    }));
    let want = brute_force_pairs(&Boxes(&b));
    for mut m in [Quadtree::new(None), Quadtree::new(Some([0.0, 1.0, 0.0, 1.0]))] {
        let mut pairs = Vec::new();
        m.rebuild(&Boxes(&b), &mut pairs);
        assert_eq!(pairs, want);
        m.validate().unwrap();
    }
    let mut pairs = Vec::new();
    LinkedCells::new().rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, want);
    SpatialHash::new().rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, want);
    Dess::new().rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, want);
    BoundingVolumes::new().rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, want);
    StripedSort::new().rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, want);
}

#[test]
fn range_queries_agree_with_brute_force() {
    let mut rng = StdRng::seed_from_u64(9);
    let cloud = Cloud::new(800, 20.0, 3.0, 9);
    let b = cloud.boxes();
    let stored: Vec<[f32; 4]> = b.iter().map(|&x| rounded_box(x)).collect();
    // Rectangles from points to twice the square, some of zero height, partly outside.
    let queries: Vec<[f32; 4]> = (0..300)
        .map(|k| {
            let w = cloud.side * [0.001, 0.05, 0.5, 2.0][k % 4];
            let (x, y) = (
                rng.random_range(-0.5..1.5) * cloud.side,
                rng.random_range(-0.5..1.5) * cloud.side,
            );
            rounded_box([x, x + w, y, y + if k % 7 == 0 { 0.0 } else { w }])
        })
        .collect();
    check_queries(SweepAndPrune::new(), &b, &stored, &queries);
    check_queries(LinkedCells::new(), &b, &stored, &queries);
    check_queries(Quadtree::new(None), &b, &stored, &queries);
    check_queries(VerletLists::new(), &b, &stored, &queries);
    check_queries(SpatialHash::new(), &b, &stored, &queries);
    check_queries(Dess::new(), &b, &stored, &queries);
    check_queries(StripedSort::new(), &b, &stored, &queries);
    check_queries(BoundingVolumes::new(), &b, &stored, &queries);
}

/// Every query of `m`, rebuilt on `b`, against a scan of the stored boxes.
fn check_queries<M: NeighborSearch>(mut m: M, b: &[[f64; 4]], stored: &[[f32; 4]], queries: &[[f32; 4]]) {
    m.rebuild(&Boxes(b), &mut Vec::new());
    let mut got = Vec::new();
    for (k, r) in queries.iter().enumerate() {
        let want: Vec<u32> = (0..stored.len() as u32)
            .filter(|&p| boxes_overlap(&stored[p as usize], r))
            .collect();
        m.query(r, &mut got);
        got.sort_unstable();
        assert_eq!(got, want, "{}: query {k} {r:?}", m.name());
    }
}

/// 10^4 steps of random migration, particles crossing the root's quadrants (a fixed
/// domain, reflecting walls, and random jumps): the structure stays valid throughout,
/// and nodes are reused rather than piling up. A second tree takes the pool's path (the
/// walk to each leaver's new leaf done first, in three chunks, then the moves) and must
/// grow exactly as the first.
#[test]
fn quadtree_stays_valid_under_long_migration() {
    let mut rng = StdRng::seed_from_u64(11);
    let side = Cloud::new(300, 3.0, 1.0, 11).side;
    let d = [0.0, side, 0.0, side];
    for capacity in [1, 3] {
        long_migration(Cloud::new(300, 3.0, 1.0, 11), d, capacity, &mut rng);
    }
}

fn long_migration(mut cloud: Cloud, d: [f64; 4], capacity: u32, rng: &mut StdRng) {
    // Fast particles: several leaves per step.
    for v in &mut cloud.v {
        v[0] *= 8.0;
        v[1] *= 8.0;
    }
    let mut t = Quadtree::with_capacity(Some(d), capacity);
    let mut w = Quadtree::with_capacity(Some(d), capacity);
    let mut pairs = Vec::new();
    t.rebuild(&Boxes(&cloud.boxes()), &mut pairs);
    w.rebuild(&Boxes(&cloud.boxes()), &mut pairs);
    let (mut adds, mut removes) = (Vec::new(), Vec::new());
    let mut most_nodes = 0;
    let mut moves = Vec::new();
    for step in 0..10_000 {
        cloud.step(rng);
        let b = cloud.boxes();
        t.refresh(&Boxes(&b), &mut adds, &mut removes);
        most_nodes = most_nodes.max(t.nodes());
        assert!(w.set_boxes(&Boxes(&b)));
        moves.clear();
        let m = w.entries();
        for r in [0..m / 3, m / 3..m / 2, m / 2..m] {
            w.leavers(r, true, &mut moves);
        }
        w.migrate_listed(&moves);
        let (st, sw) = (t.stats, w.stats);
        assert_eq!(
            (w.nodes(), sw.migrations, sw.splits, sw.merges),
            (t.nodes(), st.migrations, st.splits, st.merges),
            "capacity {capacity}, step {step}: the walked moves grew another tree"
        );
        if step % 100 == 0 || step > 9_990 {
            t.validate()
                .unwrap_or_else(|e| panic!("capacity {capacity}, step {step}: {e}"));
            w.validate()
                .unwrap_or_else(|e| panic!("capacity {capacity}, step {step}, walked: {e}"));
        }
    }
    assert!(t.stats.migrations > 10_000, "too little migration: {:?}", t.stats);
    assert!(t.stats.merges > 1_000 && t.stats.splits > 1_000, "{:?}", t.stats);
    assert_eq!(t.stats.rebuilds, 1, "the tree must never be rebuilt");
    // With leaves of one entry the tree has a few nodes per entry; reuse keeps it there.
    assert!(
        most_nodes < 40 * t.entries(),
        "{most_nodes} nodes for {} entries",
        t.entries()
    );
    // The pair set after all that is still exact.
    let b = cloud.boxes();
    let mut fresh = Vec::new();
    Quadtree::new(Some(d)).rebuild(&Boxes(&b), &mut fresh);
    assert_eq!(fresh, brute_force_pairs(&Boxes(&b)));
}

/// Large bodies are tiled: a wall-like box 100 particles long becomes many entries, and
/// the search reach stays that of the small particles.
#[test]
fn large_bodies_are_tiled() {
    let mut b: Vec<[f64; 4]> = Vec::new();
    for k in 0..200 {
        let x = 0.01 * (k % 100) as f64;
        let y = 0.02 + 0.01 * (k / 100) as f64;
        b.push([x, x + 0.008, y, y + 0.008]);
    }
    b.push([0.0, 1.0, 0.0, 0.015]); // a floor
    let mut t = Quadtree::new(None);
    let mut pairs = Vec::new();
    t.rebuild(&Boxes(&b), &mut pairs);
    assert_eq!(pairs, brute_force_pairs(&Boxes(&b)));
    assert!(
        t.entries() > 200 + 50,
        "the floor was not tiled: {} entries",
        t.entries()
    );
    t.validate().unwrap();
}

/// The simulation does not know which method runs: the polygon drum (driven walls, 500
/// grains) stepped with each method keeps exactly the same candidate pairs at every
/// step, and the trajectories agree to rounding (the contact table's slot order, hence
/// the order of force summation, depends on the order in which pairs were added).
#[test]
fn the_simulation_runs_on_every_method() {
    use talus::engine::NeighborMethod;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let make = |m: NeighborMethod| {
        let mut sim = talus::io::build::build_file(&root.join("scenarios/drum.toml"))
            .unwrap_or_else(|e| panic!("{e}"))
            .sim;
        sim.set_neighbor_method(m);
        sim.config.every_step = true;
        sim
    };
    let mut sims: Vec<_> = [
        NeighborMethod::Sweep,
        NeighborMethod::Quadtree,
        NeighborMethod::Cells,
        NeighborMethod::Verlet,
        NeighborMethod::Hashing,
        NeighborMethod::Dess,
        NeighborMethod::Striped,
        NeighborMethod::Bvh,
        NeighborMethod::Brute,
    ]
    .into_iter()
    .map(make)
    .collect();
    for step in 0..400 {
        for s in &mut sims {
            s.run(1).unwrap();
        }
        let want = sims[0].candidate_pairs();
        for s in &sims[1..] {
            assert_eq!(
                s.candidate_pairs(),
                want,
                "step {step}: {} against sweep",
                s.neighbor_method().name()
            );
        }
    }
    assert!(sims[0].candidate_pairs() > 100, "the drum must have candidates");
    let pos = |s: &talus::engine::Simulation| {
        let ps = &s.particles;
        let mut v: Vec<(u64, f64, f64)> = (0..s.len()).map(|p| (ps.id[p], ps.pos[0][p], ps.pos[1][p])).collect();
        v.sort_by_key(|t| t.0);
        v
    };
    let a = pos(&sims[0]);
    for s in &sims[1..] {
        let worst = a
            .iter()
            .zip(pos(s))
            .map(|(p, q)| (p.1 - q.1).abs().max((p.2 - q.2).abs()))
            .fold(0.0, f64::max);
        assert!(
            worst < 1e-9,
            "{}: positions differ by {worst:e} m",
            s.neighbor_method().name()
        );
    }
}
