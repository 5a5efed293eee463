//! `[[stage]]` and the names stages refer to, in the scenario file.
use super::tests::{edit, expect_err, line_of, parse};
use super::*;

/// FULL with its line wall named "gate", its box "cell", a drum "drum", and `stages` in
/// place of `[run]`.
fn staged(stages: &str) -> String {
    edit("[run]\nsteps = 1000\n", stages)
        .replacen("[[wall]]\nkind = \"line\"", "[[wall]]\nname = \"gate\"\nkind = \"line\"", 1)
        .replacen("[[wall]]\nkind = \"box\"", "[[wall]]\nname = \"cell\"\nkind = \"box\"", 1)
        + "\n[[drum]]\nname = \"drum\"\nmaterial = \"steel\"\ncentre = [0.15, 0.2]\nradius = 0.1\nthickness = 0.01\nsegments = 16\nomega = 2.0\n"
}

const TWO: &str = "[[stage]]\nname = \"fill\"\nsteps = 300\nuntil = { kinetic = 1e-6, every = 50 }\n\n[[stage]]\nsteps = 700\nremove = [\"gate\"]\nstart = [\"drum\"]\ngravity = [1.0, -9.81]\nhold = [\"cell\"]\n";

#[test]
fn stages_are_read() {
    let s = parse(&staged(TWO)).unwrap();
    assert_eq!(s.run.steps, 1000, "the stages' steps");
    assert_eq!(s.run.until, None);
    assert_eq!(s.stages.len(), 2);
    let (a, b) = (&s.stages[0], &s.stages[1]);
    assert_eq!((a.name.as_str(), a.steps), ("fill", 300));
    assert_eq!(a.until.unwrap().kinetic, Some(1e-6));
    assert_eq!(a.until.unwrap().every, 50);
    assert!(a.remove.is_empty() && a.gravity.is_none());
    assert_eq!(b.name, "stage 2");
    assert_eq!(b.remove, vec![Named::Wall(0)]);
    assert_eq!(b.start, vec![Named::Drum(0)]);
    assert_eq!(b.hold, vec![WallPart { wall: 1, face: None }]);
    assert_eq!(b.gravity, Some([1.0, -9.81]));
    let m = parse(&staged(
        "[[stage]]\nsteps = 10\n[[stage]]\nsteps = 10\nmove = { cell = { velocity = 0.5 } }\n",
    ))
    .unwrap();
    assert_eq!(m.stages[1].moves[0].0, WallPart { wall: 1, face: None });
    assert_eq!(
        m.stages[1].moves[0].1.drive,
        WallDrive::Law(Displacement::Velocity(0.5))
    );
    // Without stages: [run] as before.
    assert!(parse(FULL_RUN).unwrap().stages.is_empty());
}

const FULL_RUN: &str = super::tests::FULL;

/// 1-based line of the last occurrence of `needle` in `text`.
fn last_line_of(text: &str, needle: &str) -> usize {
    let at = text.rfind(needle).unwrap_or_else(|| panic!("{needle:?} not in text"));
    text[..at].matches('\n').count() + 1
}

/// A box's faces by `NAME.FACE`: held or moved alone, a face moving along its inward
/// normal by default.
#[test]
fn box_faces_are_named() {
    let s = parse(&staged(
        "[[stage]]\nsteps = 10\nhold = [\"cell.floor\"]\nmove = { \"cell.x_high\" = { velocity = 0.5 } }\n",
    ))
    .unwrap();
    let st = &s.stages[0];
    assert_eq!(st.hold, vec![WallPart { wall: 1, face: Some(0) }]);
    assert_eq!(st.moves[0].0, WallPart { wall: 1, face: Some(2) });
    assert_eq!(st.moves[0].1.direction, [-1.0, 0.0]);
    assert_eq!(BOX_FACES[2], "x_high");
}

#[test]
fn bad_stages_are_refused_by_name_and_line() {
    let t = staged("[[stage]]\nsteps = 10\nremove = [\"door\"]\n");
    expect_err(
        &t,
        line_of(&t, "remove = [\"door\"]"),
        &["no wall, body or drum is named `door`", "`gate`", "`cell`"],
    );
    let t = staged("[[stage]]\nsteps = 10\nremove = [\"gate\"]\n[[stage]]\nsteps = 10\nremove = [\"gate\"]\n");
    expect_err(
        &t,
        last_line_of(&t, "remove = "),
        &["`gate` was removed in stage `stage 1`"],
    );
    let t = staged("[[stage]]\nsteps = 10\nremove = [\"gate\"]\n[[stage]]\nsteps = 10\nhold = [\"gate\"]\n");
    expect_err(&t, line_of(&t, "hold = "), &["`gate` was removed"]);
    let t = staged("[[stage]]\nsteps = 10\nremove = [\"drum\"]\n");
    expect_err(&t, line_of(&t, "remove = "), &["removing a drum is not done yet"]);
    let t = staged("[[stage]]\nsteps = 10\nstart = [\"gate\"]\n");
    expect_err(&t, line_of(&t, "start = "), &["`gate` is not a drum"]);
    let t = staged("[[stage]]\nsteps = 10\nstart = [\"drum\"]\n[[stage]]\nsteps = 10\nstart = [\"drum\"]\n");
    expect_err(
        &t,
        last_line_of(&t, "start = "),
        &["`drum` was started in stage `stage 1`"],
    );
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"drum\"]\n");
    expect_err(&t, line_of(&t, "hold = "), &["`drum` is not a [[wall]]"]);
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"cell\"]\nmove = { cell = { velocity = 1.0 } }\n");
    expect_err(
        &t,
        line_of(&t, "move = "),
        &["`cell` is held or moved twice in one stage"],
    );
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"cell.x_low\"]\nmove = { cell = { velocity = 1.0 } }\n");
    expect_err(
        &t,
        line_of(&t, "move = "),
        &["`cell` is held or moved twice in one stage"],
    );
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"cell.top\"]\n");
    expect_err(
        &t,
        line_of(&t, "hold = "),
        &[
            "box `cell` has no face `top`",
            "floor, x_low, x_high, top",
            "it is open",
        ],
    );
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"cell.side\"]\n");
    expect_err(&t, line_of(&t, "hold = "), &["box `cell` has no face `side`"]);
    let t = staged("[[stage]]\nsteps = 10\nhold = [\"gate.top\"]\n");
    expect_err(&t, line_of(&t, "hold = "), &["`gate` is not a box"]);
    let t =
        staged("[[stage]]\nsteps = 10\nmove = { cell = { servo = { force = 1.0, gain = 1.0, max_speed = 1.0 } } }\n");
    expect_err(
        &t,
        line_of(&t, "move = "),
        &["a servo to a `force` moves one line or plane"],
    );
    let t = staged("[[stage]]\nname = \"a\"\nsteps = 10\n[[stage]]\nname = \"a\"\nsteps = 10\n");
    expect_err(&t, last_line_of(&t, "[[stage]]"), &["a second stage named `a`"]);
    let t = staged("[[stage]]\nname = \"a\"\n");
    expect_err(&t, line_of(&t, "[[stage]]"), &["`steps` is required in a [[stage]]"]);
    let t = staged("[run]\nsteps = 5\n[[stage]]\nsteps = 10\n");
    expect_err(&t, line_of(&t, "steps = 5"), &["run.steps", "with [[stage]]s"]);
    let t = staged("[[stage]]\nsteps = 10\nuntil = { every = 5 }\n");
    expect_err(&t, line_of(&t, "until = "), &["names no condition"]);
    let t = staged("[[stage]]\nsteps = 10\nuntil = { servo = 0.01 }\n");
    expect_err(&t, line_of(&t, "until = "), &["`servo`: nothing has a servo"]);
    let servo = "[[stage]]\nsteps = 10\nuntil = { servo = 0.01 }\nmove = { gate = { servo = { force = 1.0, gain = 1e-3, max_speed = 0.1 } } }\n";
    assert_eq!(
        parse(&staged(servo)).unwrap().stages[0].until.unwrap().servo,
        Some(0.01)
    );
    let t =
        staged("[[stage]]\nsteps = 10\nstart = [\"drum\"]\n").replace("omega = 2.0\n", "omega = 2.0\nstart = 1.0\n");
    expect_err(&t, line_of(&t, "start = [\"drum\"]"), &["drum `drum` has start = 1 s"]);
    let t = staged("[[stage]]\nsteps = 10\n").replace("name = \"cell\"", "name = \"gate\"");
    expect_err(
        &t,
        line_of(&t, "name = \"gate\"\nkind = \"box\""),
        &["`gate` names a second wall, body or drum"],
    );
    let t = edit("[run]\nsteps = 1000\n", "");
    match parse(&t) {
        Err(IoError::Scenario { msg, .. }) => assert!(msg.contains("[run] is required"), "{msg}"),
        other => panic!("expected a scenario error, got {other:?}"),
    }
}
