//! `[domain] servo` in the scenario file: a cell's y length under a servo to a stress.
use super::tests::{expect_err, line_of, parse};
use super::*;

fn cell(extra: &str) -> String {
    format!(
        "[domain]\nmin = [0.0, 0.0]\nmax = [0.05, 0.04]\n{extra}\n\n[[material]]\nname = \"g\"\ndensity = 2500.0\nkn = 1.0e4\nrestitution = 0.5\nfriction = 0.5\n\n[[particles]]\nmaterial = \"g\"\ncount = 10\nradius = {{ kind = \"fixed\", value = 1.0e-3 }}\npacking = \"lattice\"\nregion = {{ min = [0.0, 0.0], max = [0.05, 0.04] }}\n\n[run]\nsteps = 10\n"
    )
}

const XY: &str = "periodic = [\"x\", \"y\"]\nshear_rate = 2.0\n";

#[test]
fn a_cell_servo_is_read_with_its_defaults() {
    let d = parse(&cell(&format!(
        "{XY}servo = {{ stress = 10.0, gain = 1e-2, max_speed = 0.05 }}"
    )))
    .unwrap()
    .domain;
    let want = CellServo {
        stress: 10.0,
        gain: 1e-2,
        max_speed: 0.05,
        every: 10,
        min_length: 0.02,
        max_length: 0.08,
    };
    assert_eq!(d.servo, Some(want));
    let given =
        "servo = { stress = 10.0, gain = 1e-2, max_speed = 0.05, every = 3, min_length = 0.03, max_length = 0.05 }";
    let d = parse(&cell(&format!("periodic = [\"y\"]\n{given}"))).unwrap().domain;
    let s = d.servo.unwrap();
    assert_eq!((s.every, s.min_length, s.max_length), (3, 0.03, 0.05));
    assert_eq!(parse(&cell(XY)).unwrap().domain.servo, None);
}

#[test]
fn a_cell_servo_that_cannot_hold_is_refused_by_line() {
    let servo = "servo = { stress = 10.0, gain = 1e-2, max_speed = 0.05 }";
    // No periodic y.
    let t = cell(&format!("periodic = [\"x\"]\n{servo}"));
    expect_err(&t, line_of(&t, "servo"), &["domain.servo", "y periodic"]);
    // A range without the domain's length.
    let t = cell("periodic = [\"y\"]\nservo = { stress = 1.0, gain = 1.0, max_speed = 1.0, min_length = 0.041 }");
    expect_err(
        &t,
        line_of(&t, "servo"),
        &["domain.servo", "must hold the domain's y length 0.04"],
    );
    // No target; a stress that is not above 0; an interval of 0; an unknown key.
    for (servo, words) in [
        ("{ gain = 1.0, max_speed = 1.0 }", "stress"),
        ("{ stress = -5.0, gain = 1.0, max_speed = 1.0 }", "stress"),
        ("{ stress = 5.0, gain = 1.0, max_speed = 1.0, every = 0 }", "every"),
        (
            "{ stress = 5.0, gain = 1.0, max_speed = 1.0, every = 2000000000 }",
            "at most 10^9",
        ),
        ("{ stress = 5.0, gain = 1.0, max_speed = 1.0, target = 3.0 }", "target"),
    ] {
        let t = cell(&format!("periodic = [\"y\"]\nservo = {servo}"));
        expect_err(&t, line_of(&t, "servo"), &[words]);
    }
}
