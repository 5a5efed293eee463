//! The incremental sort-and-sweep against the brute-force reference: after every update
//! of a random motion, the maintained pair set must equal the set of pairs whose rounded
//! enlarged boxes overlap, exactly. Random seeds, size ratios up to 1:100, particles that
//! cross each other within one update, particles added and removed on the way. A twin
//! sweep sorts the pieces of its axes on threads at once (as the worker pool runs them)
//! and must report exactly the serial sweep's changes, in the same order.
use std::collections::BTreeSet;

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use talus::kernels::neighbor::{brute_force_pairs, BallBoxes, BoxSource, SweepAndPrune};

struct World {
    x: Vec<f64>,
    y: Vec<f64>,
    r: Vec<f64>,
}

fn run_case(seed: u64, n0: usize, ratio: f64, jump: f64, margin: f64, steps: usize) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let rmin = 1.0;
    let side = 10.0 * rmin * (n0 as f64).sqrt() * ratio.sqrt();
    let radius = |rng: &mut Xoshiro256PlusPlus| {
        // Log-uniform in [rmin, ratio * rmin]: every scale is represented.
        rmin * ratio.powf(rng.random_range(0.0..=1.0))
    };
    let mut w = World {
        x: (0..n0).map(|_| rng.random_range(0.0..side)).collect(),
        y: (0..n0).map(|_| rng.random_range(0.0..side)).collect(),
        r: Vec::new(),
    };
    w.r = (0..n0).map(|_| radius(&mut rng)).collect();
    let mut sweep = SweepAndPrune::new();
    let mut twin = SweepAndPrune::new();
    let mut full = Vec::new();
    sweep.rebuild(
        &BallBoxes {
            pos: [&w.x, &w.y],
            radius: &w.r,
            margin,
        },
        &mut full,
    );
    let mut twin_full = Vec::new();
    twin.rebuild(
        &BallBoxes {
            pos: [&w.x, &w.y],
            radius: &w.r,
            margin,
        },
        &mut twin_full,
    );
    assert_eq!(full, twin_full);
    let mut set: BTreeSet<(u32, u32)> = full.iter().copied().collect();
    assert_eq!(
        full,
        brute_force_pairs(&BallBoxes {
            pos: [&w.x, &w.y],
            radius: &w.r,
            margin
        })
    );
    for step in 0..steps {
        // Motion: small jitter for most, large jumps (across several neighbours) for some.
        for p in 0..w.x.len() {
            let s = if rng.random_range(0.0..1.0) < 0.05 {
                jump * side
            } else {
                0.5 * rmin
            };
            w.x[p] += rng.random_range(-s..=s);
            w.y[p] += rng.random_range(-s..=s);
        }
        // Now and then remove some particles and add some.
        if step % 7 == 3 && w.x.len() > 5 {
            let n = w.x.len();
            let kill: Vec<bool> = (0..n).map(|_| rng.random_range(0.0..1.0) < 0.1).collect();
            let mut map = vec![u32::MAX; n];
            let mut k = 0;
            for p in 0..n {
                if !kill[p] {
                    map[p] = k;
                    k += 1;
                }
            }
            sweep.renumber(&map);
            twin.renumber(&map);
            set = set
                .into_iter()
                .filter_map(|(i, j)| {
                    let (a, b) = (map[i as usize], map[j as usize]);
                    (a != u32::MAX && b != u32::MAX).then(|| (a.min(b), a.max(b)))
                })
                .collect();
            let keep = |v: &Vec<f64>| -> Vec<f64> { (0..n).filter(|&p| !kill[p]).map(|p| v[p]).collect() };
            w = World {
                x: keep(&w.x),
                y: keep(&w.y),
                r: keep(&w.r),
            };
        }
        if step % 5 == 1 {
            for _ in 0..rng.random_range(1..6) {
                w.x.push(rng.random_range(0.0..side));
                w.y.push(rng.random_range(0.0..side));
                w.r.push(radius(&mut rng));
                sweep.push_particle();
                twin.push_particle();
            }
        }
        let src = BallBoxes {
            pos: [&w.x, &w.y],
            radius: &w.r,
            margin,
        };
        sweep.update(&src);
        {
            // Staged in two pieces on two threads, as the pool does.
            let n = src.len();
            let mut parts = twin.staging(n).split([n / 2, n - n / 2].into_iter());
            let (lo, hi) = parts.split_at_mut(1);
            std::thread::scope(|sc| {
                sc.spawn(|| lo[0].fill(&src, 0));
                sc.spawn(|| hi[0].fill(&src, n / 2));
            });
            // Every piece of both axes on its own thread, started last to first.
            let pieces = twin.pieces(n);
            std::thread::scope(|sc| {
                for mut piece in pieces.into_iter().rev() {
                    sc.spawn(move || piece.run());
                }
            });
        }
        twin.finish_update();
        assert_eq!(
            sweep.adds, twin.adds,
            "seed {seed} step {step}: axis-per-thread additions differ"
        );
        assert_eq!(
            sweep.removes, twin.removes,
            "seed {seed} step {step}: axis-per-thread removals differ"
        );
        assert_eq!(sweep.boxes(), twin.boxes());
        for a in &sweep.adds {
            assert!(set.insert(*a), "seed {seed} step {step}: pair {a:?} added twice");
        }
        for rm in &sweep.removes {
            set.remove(rm);
        }
        let want: BTreeSet<(u32, u32)> = brute_force_pairs(&src).into_iter().collect();
        if set != want {
            let missing: Vec<_> = want.difference(&set).take(5).collect();
            let extra: Vec<_> = set.difference(&want).take(5).collect();
            panic!("seed {seed} step {step}: missing {missing:?}, extra {extra:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn sweep_equals_brute_force(
        seed in any::<u64>(),
        n in 2usize..250,
        ratio in prop::sample::select(vec![1.0, 3.0, 10.0, 100.0]),
        jump in prop::sample::select(vec![0.0, 0.05, 0.5]),
        margin in prop::sample::select(vec![0.0, 0.1, 1.0]),
    ) {
        run_case(seed, n, ratio, jump, margin, 40);
    }
}

/// Equal boxes on a lattice touch exactly (closed intervals, ties everywhere) and then all
/// move by the same amount: ties between begins and ends must not be lost or duplicated.
#[test]
fn exact_ties_on_a_lattice() {
    let n = 20;
    let mut x: Vec<f64> = (0..n * n).map(|k| (k % n) as f64 * 2.0).collect();
    let mut y: Vec<f64> = (0..n * n).map(|k| (k / n) as f64 * 2.0).collect();
    let r = vec![1.0; n * n];
    let mut s = SweepAndPrune::new();
    let mut full = Vec::new();
    s.rebuild(
        &BallBoxes {
            pos: [&x, &y],
            radius: &r,
            margin: 0.0,
        },
        &mut full,
    );
    let mut set: BTreeSet<(u32, u32)> = full.into_iter().collect();
    for step in 0..30 {
        for p in 0..n * n {
            // Alternate rows move apart and back: boxes touch, separate, touch again.
            let d = if (p / n) % 2 == 0 { 0.25 } else { -0.25 };
            y[p] += if step % 2 == 0 { d } else { -d };
            x[p] += 0.125;
        }
        let src = BallBoxes {
            pos: [&x, &y],
            radius: &r,
            margin: 0.0,
        };
        s.update(&src);
        for a in &s.adds {
            assert!(set.insert(*a));
        }
        for rm in &s.removes {
            set.remove(rm);
        }
        let want: BTreeSet<(u32, u32)> = brute_force_pairs(&src).into_iter().collect();
        assert_eq!(set, want, "step {step}");
    }
}

/// A large seeded case, bigger than the property cases.
#[test]
fn many_particles_long_run() {
    run_case(20261122, 2000, 100.0, 0.02, 0.1, 60);
}

/// Enough particles for three pieces per axis (`PIECE` ends each): jumps across the seams,
/// particles added and removed, the pieces sorted on threads in any order.
#[test]
fn axes_in_pieces_and_seams() {
    run_case(20261127, 20_000, 3.0, 0.02, 0.1, 8);
}
