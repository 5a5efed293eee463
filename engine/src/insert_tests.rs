//! Tests of `insert.rs`.
use super::*;

/// The first DIM of (x, y, z).
fn v(x: f64, y: f64, z: f64) -> Vector {
    std::array::from_fn(|k| [x, y, z][k])
}

fn spec() -> InsertSpec {
    InsertSpec {
        region_min: v(0.0, 0.5, 0.1),
        region_max: v(1.0, 1.0, 0.9),
        radius: RadiusDist::List(vec![0.01, 0.02]),
        #[cfg(not(feature = "dim3"))]
        shape: ShapeSpec::Ellipse {
            vertices: 7,
            aspect: 1.5,
            jitter: 0.02,
        },
        material: 1,
        ptype: 3,
        velocity: v(0.5, -1.0, 0.25),
        velocity_jitter: 0.1,
        amount: Amount::Rate(1234.5),
        every: 17,
        start_step: 100,
        stop_step: Some(5000),
        total: None,
        seed: 99,
        attempts: 40,
    }
}

#[test]
fn records_round_trip() {
    let mut a = Inserter::new(spec());
    a.counts = InsertCounts {
        events: 3,
        inserted: 20,
        requested: 25,
        short_events: 1,
    };
    let mut b = Inserter::new(InsertSpec {
        radius: RadiusDist::Uniform { mean: 0.01, width: 0.2 },
        #[cfg(not(feature = "dim3"))]
        shape: ShapeSpec::Random {
            vertices: [5, 8],
            aspect: 1.3,
        },
        amount: Amount::PerInsert(7),
        stop_step: None,
        total: Some(70),
        ..spec()
    });
    b.counts.events = 9;
    let all = [a, b];
    let specs = decode_specs(&encode_specs(&all)).unwrap();
    assert_eq!(specs, vec![all[0].spec.clone(), all[1].spec.clone()]);
    let (next, counts) = decode_counts(&encode_counts(77, &all), 2).unwrap();
    assert_eq!((next, counts), (77, vec![all[0].counts, all[1].counts]));
    let words = encode_specs(&all);
    assert!(decode_specs(&words[..words.len() - 1]).is_err());
    assert!(decode_counts(&encode_counts(1, &all), 3).is_err());
}

#[test]
fn a_rate_is_spread_over_the_events_exactly() {
    let s = InsertSpec {
        amount: Amount::Rate(1000.0),
        every: 3,
        ..spec()
    };
    // 1000 /s x 3 steps x 1e-4 s = 0.3 per event: 3 in 10 events, 300 in 1000.
    let sum = |n: u64| (0..n).map(|k| s.scheduled(k, 1e-4)).sum::<u64>();
    assert_eq!(sum(10), 3);
    assert_eq!(sum(1000), 300);
    assert!((0..1000).all(|k| s.scheduled(k, 1e-4) <= 1));
    // The first event has a particle: 1 at events 0, 10, 20, ...
    let q = InsertSpec {
        amount: Amount::Rate(1000.0),
        every: 1,
        ..spec()
    };
    let at: Vec<u64> = (0..30).filter(|&k| q.scheduled(k, 1e-4) == 1).collect();
    assert_eq!(at, vec![0, 10, 20]);
}

#[test]
fn the_stream_ends_at_its_total_or_its_stop() {
    let mut i = Inserter::new(InsertSpec {
        total: Some(10),
        ..spec()
    });
    assert_eq!(i.next_step(), Some(100));
    i.counts.events = 2;
    assert_eq!(i.next_step(), Some(134));
    i.counts.inserted = 10;
    assert_eq!(i.next_step(), None);
    i.counts.inserted = 9;
    i.counts.events = (5000 - 100) / 17 + 1;
    assert_eq!(i.next_step(), None, "past the stop");
    i.counts.events -= 1;
    assert!(i.next_step().unwrap() < 5000);
    let mut j = Inserter::new(spec());
    j.skip_to(135);
    assert_eq!(j.next_step(), Some(151));
}

#[test]
fn bad_settings_are_named() {
    let check = |s: InsertSpec| s.check([0.0; DIM], [1.0; DIM], 2).unwrap_err();
    assert!(check(InsertSpec {
        region_max: v(1.5, 1.0, 0.9),
        ..spec()
    })
    .contains("inside the domain"));
    assert!(check(InsertSpec {
        radius: RadiusDist::Fixed(0.3),
        ..spec()
    })
    .contains("does not fit"));
    assert!(check(InsertSpec {
        amount: Amount::Rate(-1.0),
        ..spec()
    })
    .contains("rate"));
    assert!(check(InsertSpec {
        stop_step: Some(100),
        ..spec()
    })
    .contains("after the start"));
    assert!(check(InsertSpec { material: 2, ..spec() }).contains("material"));
    assert!(spec().check([0.0; DIM], [1.0; DIM], 2).is_ok());
}

#[test]
#[cfg(not(feature = "dim3"))]
fn a_polygon_obstacle_is_its_shape_a_disc_its_circle() {
    // The left plate of scenarios/hopper.toml about its centroid, turned so that its
    // long faces (0.1345 long, 0.0067 apart) lie along y either side of x = 0, placed
    // at the origin. Its bounding circle (radius 0.071) covers much that is clear of it.
    let plate = PolygonShape::new(&[[0.05, 0.24], [0.14, 0.14], [0.14, 0.15], [0.05, 0.25]]).unwrap();
    let turn = std::f64::consts::FRAC_PI_2 - 0.1f64.atan2(-0.09);
    let mut obs = Obstacles::default();
    obs.polygon([0.0, 0.0], plate.radius, turn, &plate.vertices);
    obs.ball([1.0, 0.0], 0.1);
    // Beside the plate, 0.0217 from its face: clear for radius 0.01, not for 0.03.
    assert!(!obs.overlap(0, [0.025, 0.0], 0.01));
    assert!(obs.overlap(0, [0.025, 0.0], 0.03));
    assert!(!obs.overlap(0, [-0.025, 0.03], 0.02));
    assert!(obs.overlap(0, [0.0, 0.05], 0.001), "on the plate");
    // Past its end (0.067 along its axis, slanted at 42 degrees): 0.002 away.
    assert!(!obs.overlap(0, [0.0, 0.07], 0.001));
    assert!(obs.overlap(0, [0.0, 0.07], 0.0025));
    // The disc: its circle.
    assert!(!obs.overlap(1, [0.85, 0.0], 0.0499));
    assert!(obs.overlap(1, [0.85, 0.0], 0.0501));
}
