//! Where grains are placed: no overlap with anything at insertion, a hopper's plates by
//! their real shapes, a full region reported short.
use super::*;

/// Every particle inserted overlaps nothing at the moment it is inserted: its bounding
/// circle clears all other particles (grains, the ones inserted with it; discs as circles,
/// polygons as their shapes) and the walls.
#[test]
fn nothing_overlaps_at_insertion() {
    let mut sim = simulation(&crowded_scenario(5, "verlet"));
    let mut before = ids(&sim);
    let (mut inserted, mut closest) = (0, f64::INFINITY);
    for _ in 0..2000 {
        sim.insert_due().unwrap();
        let fresh = new_since(&sim, &before);
        let ps = &sim.particles;
        for &p in &fresh {
            for q in (0..sim.len()).filter(|&q| q != p) {
                let gap = clearance(&sim, p, q);
                assert!(
                    gap >= -1e-12 * ps.radius[p],
                    "step {}: inserted id {} overlaps id {} by {:e} m",
                    sim.step,
                    ps.id[p],
                    ps.id[q],
                    -gap
                );
                closest = closest.min(gap / ps.radius[p]);
            }
            for (w, wall) in sim.walls.iter().enumerate() {
                let d = wall.line.distance(ps.pos[0][p], ps.pos[1][p]);
                assert!(
                    d >= ps.radius[p],
                    "step {}: inserted id {} is {d:e} m from wall {w}, radius {}",
                    sim.step,
                    ps.id[p],
                    ps.radius[p]
                );
            }
        }
        inserted += fresh.len();
        before = ids(&sim);
        sim.run(1).unwrap();
    }
    let short: u64 = sim.insertions().iter().map(|i| i.counts.short_events).sum();
    println!("{inserted} inserted, {short} short insertions, closest gap at insertion {closest:.2e} radii");
    // The test means something only if the region was crowded: insertions fell short, and
    // particles were put within a hundredth of a radius of others.
    assert!(inserted > 300 && short > 5, "{inserted} inserted, {short} short");
    assert!(closest < 0.01, "closest gap {closest} radii");
}

/// Distance from `p` to the convex polygon `v` (counter-clockwise), 0 inside: the
/// nearest of its edges as segments, unless `p` is behind every edge line.
fn distance_to_polygon(p: [f64; 2], v: &[[f64; 2]]) -> f64 {
    let n = v.len();
    let edge = |k: usize| (v[k], v[(k + 1) % n]);
    let inside = (0..n).all(|k| {
        let (a, b) = edge(k);
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0.0
    });
    if inside {
        return 0.0;
    }
    (0..n)
        .map(|k| {
            let (a, b) = edge(k);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            let t = (((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / (ex * ex + ey * ey)).clamp(0.0, 1.0);
            (p[0] - a[0] - t * ex).hypot(p[1] - a[1] - t * ey)
        })
        .fold(f64::INFINITY, f64::min)
}

/// How far the bounding circle of particle `p` is from particle `q` (negative: how deep it
/// overlaps it): from `q`'s circle for a disc, from its shape (corners placed from its pose)
/// for a polygon. Insertion keeps it non-negative for what it inserts.
fn clearance(sim: &Simulation, p: usize, q: usize) -> f64 {
    let ps = &sim.particles;
    let (x, y, r) = (ps.pos[0][p], ps.pos[1][p], ps.radius[p]);
    match sim.shapes.as_ref().filter(|sh| sh.is_polygon(q)) {
        Some(sh) => {
            let (s, c) = ps.angle[q].sin_cos();
            let corners: Vec<[f64; 2]> = sh.body[sh.range(q)]
                .iter()
                .map(|v| [ps.pos[0][q] + c * v[0] - s * v[1], ps.pos[1][q] + s * v[0] + c * v[1]])
                .collect();
            distance_to_polygon([x, y], &corners) - r
        }
        None => (ps.pos[0][q] - x).hypot(ps.pos[1][q] - y) - r - ps.radius[q],
    }
}

/// Pouring into a hopper: the two plates of scenarios/hopper.toml form the funnel. The
/// discs' region sits between them, inside both plates' bounding circles (radius 0.071)
/// though 11 mm from the plates themselves; the hexagons' region is wider, 6 mm from the
/// plates at its lower corners. Every particle asked for comes, none overlapping a plate
/// (the distance from its centre to the plate's polygon is at least its bounding radius)
/// or a grain. Bounding circles as obstacles found the region full and inserted none.
#[test]
fn pouring_into_a_hopper_fills_between_the_plates() {
    let plates = [
        [[0.05, 0.24], [0.14, 0.14], [0.14, 0.15], [0.05, 0.25]],
        [[0.16, 0.14], [0.25, 0.24], [0.25, 0.25], [0.16, 0.15]],
    ];
    // scenarios/hopper.toml up to its grains: the box, the plates.
    let hopper = include_str!("../../../scenarios/hopper.toml");
    let walls = &hopper[..hopper.find("[[particles]]").expect("hopper.toml has particles")];
    for plate in &plates {
        assert!(
            walls.contains(&format!("vertices = {plate:?}")),
            "plate {plate:?} not in hopper.toml"
        );
    }
    let text = format!(
        r#"{walls}
[[insert]]
material = "grain"
region = {{ min = [0.11, 0.20], max = [0.19, 0.235] }}
radius = {{ kind = "fixed", value = 1.5e-3 }}
per_insert = 20
every = 1000
total = 100
[[insert]]
material = "grain"
type = 2
region = {{ min = [0.09, 0.215], max = [0.21, 0.235] }}
radius = {{ kind = "fixed", value = 1.5e-3 }}
shape = {{ kind = "regular", vertices = [6] }}
per_insert = 10
every = 1000
total = 50
[integrator]
dt = 7.62939453125e-6
[run]
steps = 5000
{OUTPUT_OFF}"#
    );
    let mut sim = simulation(&text);
    assert_eq!(sim.len(), 2, "the plates");
    let mut before = ids(&sim);
    for _ in 0..5000 {
        sim.insert_due().unwrap();
        let fresh = new_since(&sim, &before);
        let ps = &sim.particles;
        for &p in &fresh {
            let (x, y, r) = (ps.pos[0][p], ps.pos[1][p], ps.radius[p]);
            for (k, plate) in plates.iter().enumerate() {
                let d = distance_to_polygon([x, y], plate);
                assert!(
                    d >= r,
                    "step {}: inserted id {} at ({x}, {y}) is {d:e} m from plate {k}, radius {r}",
                    sim.step,
                    ps.id[p]
                );
            }
            for q in (0..sim.len()).filter(|&q| q != p && ps.flags[q] == 0) {
                assert!(
                    clearance(&sim, p, q) >= -1e-12 * r,
                    "step {}: inserted id {} overlaps id {}",
                    sim.step,
                    ps.id[p],
                    ps.id[q]
                );
            }
        }
        before = ids(&sim);
        sim.run(1).unwrap();
    }
    let counts: Vec<_> = sim
        .insertions()
        .iter()
        .map(|i| (i.counts.inserted, i.counts.requested, i.counts.short_events))
        .collect();
    assert_eq!(counts, vec![(100, 100, 0), (50, 50, 0)]);
    assert_eq!(sim.len(), 152);
}

#[test]
fn a_full_region_gets_fewer_and_says_so() {
    // A region of 10 x 6 mm: room for a handful of discs of 1 mm, 50 asked for at once.
    let scenario = r#"
gravity = [0.0, -9.81]
[domain]
min = [0.0, 0.0]
max = [0.05, 0.1]
[[material]]
name = "grain"
density = 2500.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.05, 0.1]
[[insert]]
material = "grain"
region = { min = [0.02, 0.06], max = [0.03, 0.066] }
radius = { kind = "fixed", value = 1.0e-3 }
per_insert = 50
every = 1000
total = 60
[integrator]
dt = 7.62939453125e-6
[run]
steps = 1500
"#;
    let mut sim = simulation(&format!("{scenario}{OUTPUT_OFF}"));
    sim.run(1).unwrap();
    let short = sim.take_shortfalls();
    assert_eq!(short.len(), 1, "{short:?}");
    let f = short[0];
    assert_eq!((f.stream, f.step, f.requested), (0, 0, 50));
    assert!(
        f.inserted >= 3 && f.inserted < 12,
        "{} discs in a 10 x 6 mm box",
        f.inserted
    );
    assert_eq!(sim.len() as u64, f.inserted);
    assert!(sim.take_shortfalls().is_empty(), "taken once");
    sim.run(1499).unwrap();
    let c = sim.insertions()[0].counts;
    // The second insertion asked for the 60 - k still missing, and fell short again.
    assert_eq!((c.events, c.requested), (2, 50 + (60 - f.inserted).min(50)));
    assert_eq!(c.short_events, 2);
    assert_eq!(c.inserted, sim.len() as u64);
    assert_eq!(sim.take_shortfalls().len(), 1);
    // Asking for a billion: the insertion gives up once particles keep finding no place.
    let mut big = simulation(&format!("{scenario}{OUTPUT_OFF}").replace("per_insert = 50", "per_insert = 1000000000"));
    big.run(1).unwrap();
    let b = big.insertions()[0].counts;
    assert_eq!((b.requested, b.inserted), (60, f.inserted), "capped by the total");
    let mut big = simulation(
        &format!("{scenario}{OUTPUT_OFF}")
            .replace("per_insert = 50", "per_insert = 1000000000")
            .replace("total = 60", "stop = 0.01"),
    );
    big.run(1).unwrap();
    let b = big.insertions()[0].counts;
    assert_eq!(
        (b.requested, b.inserted, b.short_events),
        (1_000_000_000, f.inserted, 1)
    );

    // The command line: a warning line per short insertion, and the summary.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("full.toml"),
        format!("{scenario}[output]\ndir = \"o\"\nvtk = false\n"),
    )
    .unwrap();
    let out = run(&["run", "full.toml", "-q"], dir.path());
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{se}");
    assert!(
        se.contains(&format!(
            "talus: warning: step 0: insert[0] placed {} of 50 particles",
            f.inserted
        )),
        "{se}"
    );
    assert_eq!(se.matches("talus: warning: step").count(), 2, "{se}");
    let line = format!(
        "inserted            insert[0]: {} particles of {} requested in 2 insertions, 2 short by {} in all",
        c.inserted,
        c.requested,
        c.requested - c.inserted
    );
    assert!(so.contains(&line), "{so}");
    // The dump has the particles of each frame: the count grows at step 1000.
    let dump = std::fs::read_to_string(dir.path().join("o/particles.dump")).unwrap();
    let counts: Vec<u64> = dump
        .split("ITEM: NUMBER OF ATOMS\n")
        .skip(1)
        .map(|s| s.lines().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        counts.first(),
        Some(&0),
        "the first frame is of step 0, before any insertion"
    );
    assert_eq!(counts.last(), Some(&c.inserted));
    assert!(counts.contains(&f.inserted));
}
