//! A cell whose y length a servo sets (`sim/cell_servo.rs`): a restart is bitwise the
//! straight run for every method, and forged servo sections are refused by name.
use super::*;
use crate::wall_motion::Servo;

/// The sheared cell of the restart tests with its y length under a servo to a stress its
/// grains cannot carry: the cell shrinks at its largest speed (its grains stretched with
/// it, its images' boxes made again several times) before and after the checkpoint,
/// measuring every 7 steps (the checkpoint falls between two measurements).
fn servoed_cell(neighbor: NeighborMethod, integrator: Integrator) -> Simulation {
    let mut sim = sheared_cell(neighbor, integrator);
    let l = sim.config.domain_max[1] - sim.config.domain_min[1];
    let spec = CellServo {
        servo: Servo {
            target: 1.0e6,
            gain: 1.0,
            max_speed: 4.0,
        },
        every: 7,
        min_length: 0.6 * l,
        max_length: 1.2 * l,
    };
    sim.set_cell_servo(spec).unwrap();
    sim
}

#[test]
fn restart_of_a_cell_under_a_servo_is_bitwise_the_straight_run() {
    let l0 = servoed_cell(NeighborMethod::Sweep, Integrator::Verlet)
        .config
        .domain_max[1];
    drifting_cell_restarts_bitwise("servo", servoed_cell, &[Integrator::Verlet], |sim, what| {
        let (spec, speed, stress) = sim.cell_servo().expect("a cell servo");
        assert_eq!((spec.every, speed), (7, -4.0), "{what}");
        assert!(stress.is_finite(), "{what}: stress {stress}");
        // Shrunk by 4 m/s over the steps after the first measurement (by more than the
        // images' give: their boxes were made again for it).
        let shrunk = l0 - sim.config.domain_max[1];
        let want = 4.0 * sim.config.dt * (N - 7) as f64;
        assert!((shrunk - want).abs() < 1e-9, "{what}: shrunk by {shrunk}, not {want}");
    });
}

#[test]
fn a_cell_servo_with_gear_or_without_periodic_y_is_refused() {
    let spec = |l: f64| CellServo {
        servo: Servo {
            target: 1.0,
            gain: 1.0,
            max_speed: 1.0,
        },
        every: 1,
        min_length: 0.5 * l,
        max_length: 2.0 * l,
    };
    let mut sim = sheared_cell(NeighborMethod::Sweep, Integrator::Gear);
    let l = sim.config.domain_max[1] - sim.config.domain_min[1];
    let e = sim.set_cell_servo(spec(l)).unwrap_err().to_string();
    assert!(e.contains("cell servo") && e.contains("Gear"), "{e}");
    let mut sim = periodic_bed(NeighborMethod::Sweep, Integrator::Verlet);
    let e = sim.set_cell_servo(spec(2.5 * l)).unwrap_err().to_string();
    // In 2D the bed is periodic along x only; in 3D along x and y, but its length is
    // outside the range given.
    let words = if DIM == 2 {
        "periodic along y"
    } else {
        "outside min_length..max_length"
    };
    assert!(e.contains(words), "{e}");
    let mut sim = sheared_cell(NeighborMethod::Sweep, Integrator::Verlet);
    let mut bad = spec(l);
    bad.every = 0;
    let e = sim.set_cell_servo(bad).unwrap_err().to_string();
    assert!(e.contains("interval"), "{e}");
    // A range too short for the images.
    let mut bad = spec(l);
    bad.min_length = 1e-3;
    let e = sim.set_cell_servo(bad).unwrap_err().to_string();
    assert!(e.contains("periodic axis y") && e.contains("longer"), "{e}");
    // And the cell is as it was.
    assert!(sim.cell_servo().is_none());
    sim.run(10).unwrap();
    // A refused servo leaves the one before it, and the cell's checkpoint readable.
    sim.set_cell_servo(spec(l)).unwrap();
    let e = sim.set_cell_servo(bad).unwrap_err().to_string();
    assert!(e.contains("periodic axis y"), "{e}");
    assert_eq!(sim.cell_servo().unwrap().0, spec(l));
    sim.run(10).unwrap();
    Simulation::from_sections(&save(&sim)).unwrap();
    // No wall bodies once the cell has a servo.
    let mut body = grains().swap_remove(0);
    (body.id, body.flags) = (9999, crate::store::flags::FIXED);
    let e = sim.add_particles(&[body]).unwrap_err().to_string();
    assert!(e.contains("wall bodies") && e.contains("cell servo"), "{e}");
}

/// Grains at rest in a cell periodic across the floor (2D: x and y, the lattice's rows
/// one spacing apart; 3D: x and y over the floor) whose y length a servo grows to 1.9
/// times itself: no grain wraps and none is renumbered, so the images are those made at
/// the start, stretched far from the faces they were made at. A checkpoint on the way is read back, and the
/// restart is bitwise the straight run, for every method.
#[test]
fn restart_of_a_grown_cell_is_bitwise_the_straight_run() {
    let make = |method: NeighborMethod| {
        let mut sim = sheared_cell(method, Integrator::Verlet);
        // No renumbering either: it would make the images anew.
        sim.config.sort_every = 0;
        let axes = sim.periodic_axes();
        sim.set_periodic(axes).unwrap();
        sim.particles.vel.iter_mut().for_each(|v| v.fill(0.0));
        let l = sim.config.domain_max[1] - sim.config.domain_min[1];
        // At its longest by the checkpoint, and held there after it.
        let rate = 0.9 * l / (sim.config.dt * (N - 7) as f64);
        let spec = CellServo {
            servo: Servo {
                target: -1.0e6,
                gain: 1.0e3,
                max_speed: rate,
            },
            every: 7,
            min_length: 0.9 * l,
            max_length: 1.9 * l,
        };
        sim.set_cell_servo(spec).unwrap();
        (sim, l)
    };
    for method in NeighborMethod::ALL.iter().copied() {
        let what = method.name();
        let (mut first, l) = make(method);
        first.run(N).unwrap();
        let restored = Simulation::from_sections(&save(&first));
        let mut restored = restored.unwrap_or_else(|e| panic!("{what}: {e}"));
        restored.run(M).unwrap();
        let (mut straight, _) = make(method);
        straight.run(N + M).unwrap();
        let grown = straight.config.domain_max[1] - straight.config.domain_min[1];
        assert!((grown / l - 1.9).abs() < 1e-9, "{what}: grown to {} lengths", grown / l);
        let (a, b) = (&restored.particles, &straight.particles);
        same_bits(&a.pos, &b.pos, &format!("{what}: positions"));
        same_bits(&a.vel, &b.vel, &format!("{what}: velocities"));
        assert_same_state(&restored, &straight, what);
    }
}

/// A forged checkpoint that puts a servo on a cell of the Gear integrator is refused.
#[test]
fn a_checkpoint_with_a_servo_under_gear_is_refused() {
    let mut servoed = servoed_cell(NeighborMethod::Sweep, Integrator::Verlet);
    servoed.run(10).unwrap();
    let with = save(&servoed);
    let mut gear = sheared_cell(NeighborMethod::Sweep, Integrator::Gear);
    gear.run(10).unwrap();
    let mut bad = save(&gear);
    for name in ["periodic.servo", "periodic.servo.state"] {
        bad.0.insert(name, with.0[name].clone());
    }
    let msg = refused(&bad);
    assert!(msg.starts_with("periodic.servo: ") && msg.contains("Gear"), "{msg}");
}

#[test]
fn forged_cell_servo_sections_are_refused_by_name() {
    let mut sim = servoed_cell(NeighborMethod::Sweep, Integrator::Verlet);
    sim.run(N).unwrap();
    let good = save(&sim);
    assert!(Simulation::from_sections(&good).is_ok());
    // (section, value index, value, words the refusal must hold)
    let cases = [
        ("periodic.servo", 1, -1.0, "gain > 0"),
        ("periodic.servo", 3, 7.5, "whole interval"),
        ("periodic.servo", 4, 1.0, "min_length <= max_length"),
        ("periodic.servo", 5, 1e-6, "min_length <= max_length"),
        ("periodic.servo.state", 0, 9.0, "within max_speed"),
        ("periodic.servo.state", 2, f64::NAN, "length in range"),
    ];
    for (name, k, v, words) in cases {
        let mut bad = Saved(good.0.clone());
        set_f64(&mut bad, name, k, v);
        let msg = refused(&bad);
        assert!(
            msg.starts_with(&format!("{name}: ")) && msg.contains(words),
            "{name}[{k}] = {v}: {msg}"
        );
    }
    let mut bad = Saved(good.0.clone());
    bad.0.remove("periodic.servo.state");
    assert_eq!(refused(&bad), "periodic.servo.state: missing");
    // A servo's settings in a checkpoint without a periodic cell.
    let mut plain = bed(NeighborMethod::Sweep, Integrator::Verlet);
    plain.run(10).unwrap();
    let mut bad = save(&plain);
    bad.0.insert("periodic.servo", good.0["periodic.servo"].clone());
    assert!(
        refused(&bad).starts_with("periodic.servo: a cell servo without"),
        "{}",
        refused(&bad)
    );
}
