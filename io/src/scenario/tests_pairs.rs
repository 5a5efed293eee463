//! `[[pair]]`, cohesion and rolling friction in the scenario file.
use super::tests::{edit, expect_err, line_of, parse};
use super::*;

const GLASS_END: &str = "friction = 0.5\n";

#[test]
fn material_cohesion_rolling_and_pairs() {
    let s = parse(&with_pairs()).unwrap();
    assert_eq!((s.materials[0].cohesion, s.materials[0].rolling_friction), (50.0, 0.1));
    assert_eq!((s.materials[1].cohesion, s.materials[1].rolling_friction), (0.0, 0.0));
    assert_eq!(s.rolling, RollingModel::ConstantTorque);
    assert_eq!(
        s.pairs,
        vec![
            PairSpec {
                a: 0,
                b: 1,
                kn: None,
                kt: None,
                damping: Some(NormalDamping::Restitution(0.3)),
                gamma_t: None,
                friction: Some(0.9),
                cohesion: Some(20.0),
                rolling_friction: None,
            },
            PairSpec {
                a: 1,
                b: 1,
                kn: Some(3e6),
                kt: None,
                damping: None,
                gamma_t: None,
                friction: None,
                cohesion: None,
                rolling_friction: Some(0.05),
            },
        ]
    );
    // Without any of it: none, and epsd2 by default.
    let s = parse(super::tests::FULL).unwrap();
    assert!(s.pairs.is_empty() && s.rolling == RollingModel::ElasticPlastic);
    assert_eq!((s.materials[0].cohesion, s.materials[0].rolling_friction), (0.0, 0.0));
}

/// The FULL scenario with cohesion and rolling friction on glass, a glass-steel pair and a
/// steel-steel pair, cdt.
fn with_pairs() -> String {
    let t = edit(GLASS_END, "friction = 0.5\ncohesion = 50.0\nrolling_friction = 0.1\n").replacen(
        "[integrator]",
        "[contact]\nrolling = \"cdt\"\n\n[integrator]",
        1,
    );
    format!(
        "{t}\n[[pair]]\nmaterials = [\"glass\", \"steel\"]\nrestitution = 0.3\nfriction = 0.9\ncohesion = 20.0\n\n\
         [[pair]]\nmaterials = [\"steel\", \"steel\"]\nkn = 3.0e6\nrolling_friction = 0.05\n"
    )
}

#[test]
fn bad_pairs_are_refused_by_line() {
    let base = with_pairs();
    let t = base.replace(
        "materials = [\"glass\", \"steel\"]",
        "materials = [\"glass\", \"brass\"]",
    );
    expect_err(
        &t,
        line_of(&t, "\"brass\""),
        &["unknown material `brass`", "`glass`, `steel`"],
    );
    let t = base.replace("materials = [\"glass\", \"steel\"]", "materials = [\"glass\"]");
    expect_err(
        &t,
        line_of(&t, "materials = [\"glass\"]"),
        &["pair", "names 1 materials"],
    );
    let t = base.replace(
        "materials = [\"steel\", \"steel\"]",
        "materials = [\"steel\", \"glass\"]",
    );
    expect_err(
        &t,
        line_of(&t, "[\"steel\", \"glass\"]"),
        &["`steel`-`glass` is given twice"],
    );
    let t = base.replace("kn = 3.0e6\nrolling_friction = 0.05\n", "");
    expect_err(
        &t,
        line_of(&t, "materials = [\"steel\", \"steel\"]") - 1,
        &["pair[1]", "sets no coefficient"],
    );
    let t = base.replace("cohesion = 20.0", "cohesion = -20.0");
    expect_err(
        &t,
        line_of(&t, "cohesion = -20.0"),
        &["cohesion", "must be >= 0, got -20"],
    );
    let t = base.replace("cohesion = 50.0", "cohesion = -1.0");
    expect_err(&t, line_of(&t, "cohesion = -1.0"), &["cohesion", "must be >= 0"]);
    let t = base.replace("restitution = 0.3", "restitution = 0.3\ngamma_n = 10.0");
    expect_err(&t, line_of(&t, "gamma_n = 10.0"), &["cannot both be given"]);
    let t = base.replace("rolling = \"cdt\"", "rolling = \"sds\"");
    expect_err(
        &t,
        line_of(&t, "rolling = \"sds\""),
        &["rolling", "unknown variant `sds`"],
    );
    let t = base.replace("friction = 0.9", "friction = 0.9\nstiffness = 1.0");
    expect_err(&t, line_of(&t, "stiffness = 1.0"), &["unknown field `stiffness`"]);
}
