//! `[[wall]] move` in the scenario file.
use super::tests::{edit, expect_err, line_of, parse};
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
