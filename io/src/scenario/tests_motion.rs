//! `[[wall]] move` in the scenario file.
use super::tests::{edit, expect_err, line_of, parse, FULL};
use super::*;

const LINE: &str = "normal = [0.0, 2.0]\n";

fn moving(motion: &str) -> String {
    edit(LINE, &format!("normal = [0.0, 2.0]\nmove = {motion}\n"))
}

#[test]
fn wall_moves_are_read() {
    let s = parse(&moving("{ velocity = -0.01 }")).unwrap();
    assert_eq!(
        s.wall_motions,
        vec![(
            0,
            WallMove {
                direction: [0.0, 1.0],
                drive: WallDrive::Law(Displacement::Velocity(-0.01))
            }
        )]
    );
    let s = parse(&moving(
        "{ direction = [3.0, 4.0], sine = { amplitude = 1e-3, frequency = 50.0 } }",
    ))
    .unwrap();
    assert_eq!(s.wall_motions[0].1.direction, [0.6, 0.8]);
    assert_eq!(
        s.wall_motions[0].1.drive,
        WallDrive::Law(Displacement::Sine {
            amplitude: 1e-3,
            frequency: 50.0,
            phase: 0.0
        })
    );
    let s = parse(&moving("{ table = [[0.0, 0.0], [0.5, 0.01]] }")).unwrap();
    assert_eq!(
        s.wall_motions[0].1.drive,
        WallDrive::Law(Displacement::Table(vec![[0.0, 0.0], [0.5, 0.01]]))
    );
    let s = parse(&moving("{ servo = { force = 20.0, gain = 1e-3, max_speed = 0.1 } }")).unwrap();
    assert_eq!(
        s.wall_motions[0].1.drive,
        WallDrive::Servo(Servo {
            target: 20.0,
            gain: 1e-3,
            max_speed: 0.1
        })
    );
    assert!(parse(super::tests::FULL).unwrap().wall_motions.is_empty());
}

#[test]
fn bad_wall_moves_are_refused_by_line() {
    let t = moving("{ table = [[0.0, 0.0], [0.5, 0.01], [0.4, 0.0]] }");
    expect_err(&t, line_of(&t, "move = "), &["table row 2", "does not come after 0.5"]);
    let t = moving("{ velocity = 1.0, table = [[0.0, 0.0], [0.5, 0.01]] }");
    expect_err(&t, line_of(&t, "move = "), &["give exactly one of"]);
    let t = moving("{ direction = [0.0, 1.0] }");
    expect_err(&t, line_of(&t, "move = "), &["give exactly one of"]);
    let t = moving("{ sine = { amplitude = 1e-3, frequency = 0.0 } }");
    expect_err(&t, line_of(&t, "move = "), &["frequency", "must be > 0"]);
    let t = moving("{ direction = [0.0, 0.0], velocity = 1.0 }");
    expect_err(&t, line_of(&t, "move = "), &["non-zero vector"]);
    let t = moving("{ servo = { force = 20.0, gain = 0.0, max_speed = 0.1 } }");
    expect_err(&t, line_of(&t, "move = "), &["gain", "must be > 0"]);
    let t = moving("{ speed = 1.0 }");
    expect_err(&t, line_of(&t, "move = "), &["unknown field `speed`"]);
}

/// `move` with a `pivot`: a turn about it by an angle law (rad), in the plane; refused
/// with a direction, a servo, an `axis` (2D), or no law.
#[test]
fn wall_tilts_are_read_and_refused_by_line() {
    let s = parse(&moving("{ pivot = [0.1, 0.0], velocity = 0.05 }")).unwrap();
    assert_eq!(
        s.wall_motions[0].1.drive,
        WallDrive::Tilt {
            pivot: [0.1, 0.0],
            axis: [1.0],
            law: Displacement::Velocity(0.05)
        }
    );
    for (motion, words) in [
        (
            "{ pivot = [0.0, 0.0], direction = [1.0, 0.0], velocity = 0.1 }",
            "has no `direction`",
        ),
        (
            "{ pivot = [0.0, 0.0], servo = { force = 1.0, gain = 1.0, max_speed = 1.0 } }",
            "no `pivot`",
        ),
        ("{ pivot = [0.0, 0.0] }", "rad/s"),
        ("{ axis = [0.0, 1.0], velocity = 0.1 }", "give a `pivot` too"),
        (
            "{ pivot = [0.0, 0.0], axis = [0.0, 1.0], velocity = 0.1 }",
            "in 2D a wall turns in the plane",
        ),
    ] {
        let t = moving(motion);
        expect_err(&t, line_of(&t, "move = "), &[words]);
    }
}

/// `servo = {stress}` on a closed box's faces: one stress or one per axis; refused on an
/// open box, on a line, with a count that is not the dimension's, with a force beside it.
#[test]
fn box_stress_servos() {
    let closed = |servo: &str| {
        edit(
            "open_top = true\n",
            &format!("open_top = false\nmove = {{ servo = {servo} }}\n"),
        )
    };
    let s = parse(&closed("{ stress = 1.0e4, gain = 1e-3, max_speed = 0.1 }")).unwrap();
    assert_eq!(
        s.wall_motions[0].1.drive,
        WallDrive::Stress {
            stress: [1.0e4, 1.0e4],
            gain: 1e-3,
            max_speed: 0.1
        }
    );
    let s = parse(&closed("{ stress = [1.0e4, 2.0e4], gain = 1e-3, max_speed = 0.1 }")).unwrap();
    assert!(matches!(
        s.wall_motions[0].1.drive,
        WallDrive::Stress {
            stress: [1.0e4, 2.0e4],
            ..
        }
    ));
    let t = closed("{ stress = [1.0, 2.0, 3.0], gain = 1e-3, max_speed = 0.1 }");
    expect_err(&t, line_of(&t, "move = "), &["3 values", "one per axis (2)"]);
    let t = closed("{ stress = 1.0, force = 2.0, gain = 1e-3, max_speed = 0.1 }");
    expect_err(&t, line_of(&t, "move = "), &["exactly one of `force` (N) or `stress`"]);
    let t = closed("{ force = 2.0, gain = 1e-3, max_speed = 0.1 }");
    expect_err(&t, line_of(&t, "move = "), &["a box's faces take a `stress`"]);
    let t = edit(
        "open_top = true\n",
        "open_top = true\nmove = { servo = { stress = 1.0, gain = 1e-3, max_speed = 0.1 } }\n",
    );
    expect_err(&t, line_of(&t, "move = "), &["needs a closed box"]);
    let t = moving("{ servo = { stress = 1.0, gain = 1e-3, max_speed = 0.1 } }");
    expect_err(
        &t,
        line_of(&t, "move = "),
        &["moves a box's faces; give a line a `force`"],
    );
}

/// FULL with a driven square `[[body]]` whose drive is `drive`.
fn driven(drive: &str) -> String {
    format!(
        "{FULL}\n[[body]]\nmaterial = \"steel\"\nvertices = [[0.1, 0.1], [0.2, 0.1], [0.2, 0.2], [0.1, 0.2]]\n\
         motion = \"driven\"\ndrive = {drive}\n"
    )
}

/// FULL with a `[[drum]]` whose last lines are `tail`.
fn drum(tail: &str) -> String {
    format!(
        "{FULL}\n[[drum]]\nmaterial = \"steel\"\ncentre = [0.5, 0.5]\nradius = 0.3\nthickness = 0.01\n\
         segments = 16\n{tail}\n"
    )
}

#[test]
fn drives_by_laws_are_read() {
    let s = parse(&driven(
        "{ centre = [0.15, 0.15], start = 0.1, slide = { direction = [3.0, 4.0], sine = { amplitude = 1e-3, \
         frequency = 5.0 } }, turn = { table = [[0.0, 0.0], [1.0, 0.5]] } }",
    ))
    .unwrap();
    let Motion::Driven(d) = &s.bodies[0].motion else {
        panic!("not driven")
    };
    assert_eq!(
        (d.centre, d.start, d.omega, d.velocity),
        ([0.15, 0.15], 0.1, 0.0, [0.0; 2])
    );
    let laws = d.laws.as_ref().expect("laws");
    assert_eq!(
        laws.slide,
        Some((
            [0.6, 0.8],
            Displacement::Sine {
                amplitude: 1e-3,
                frequency: 5.0,
                phase: 0.0
            }
        ))
    );
    assert_eq!(laws.turn, Some(Displacement::Table(vec![[0.0, 0.0], [1.0, 0.5]])));
    let s = parse(&drum(
        "turn = { sine = { amplitude = 0.5, frequency = 1.0 } }\nstart = 0.2",
    ))
    .unwrap();
    let dr = &s.drums[0];
    assert_eq!((dr.omega, dr.start), (0.0, 0.2));
    assert!(matches!(dr.turn, Some(Displacement::Sine { amplitude, .. }) if amplitude == 0.5));
    // The constant drive as before.
    let s = parse(&driven("{ centre = [0.15, 0.15], omega = 2.0, ramp = 0.1 }")).unwrap();
    assert!(matches!(&s.bodies[0].motion, Motion::Driven(d) if d.laws.is_none() && d.omega == 2.0));
}

#[test]
fn bad_drive_laws_are_refused_by_line() {
    let t = driven("{ centre = [0.1, 0.1], omega = 1.0, turn = { velocity = 1.0 } }");
    expect_err(&t, line_of(&t, "drive = "), &["replace `omega`, `velocity` and `ramp`"]);
    let t = driven("{ centre = [0.1, 0.1], slide = { velocity = 1.0 } }");
    expect_err(&t, line_of(&t, "drive = "), &["a slide needs a `direction`"]);
    let t = driven("{ centre = [0.1, 0.1], turn = { direction = [1.0, 0.0], velocity = 1.0 } }");
    expect_err(&t, line_of(&t, "drive = "), &["a turn is about a centre or an axis"]);
    let t = driven("{ centre = [0.1, 0.1], turn = { velocity = 1.0, table = [[0.0, 0.0], [1.0, 1.0]] } }");
    expect_err(&t, line_of(&t, "drive = "), &["exactly one of `velocity` (rad/s)"]);
    let t = driven("{ centre = [0.1, 0.1], slide = { direction = [0.0, 1.0], table = [[0.0, 0.0], [0.0, 1.0]] } }");
    expect_err(&t, line_of(&t, "drive = "), &["row 1", "times must increase"]);
    let t = drum("omega = 1.0\nturn = { velocity = 1.0 }");
    expect_err(&t, line_of(&t, "turn = "), &["`omega` or `turn`, not both"]);
    let t = drum("turn = { velocity = 1.0 }\nramp = 0.1");
    expect_err(&t, line_of(&t, "ramp = "), &["no `ramp`"]);
    let t = drum("start = 0.1");
    expect_err(&t, line_of(&t, "[[drum]]"), &["needs `omega` (rad/s) or `turn`"]);
}
