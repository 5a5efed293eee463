//! Scenarios in 3D (the `dim3` build): the shipped ones parse and build, and what the 3D
//! build cannot do yet, or what belongs to 2D, is refused by name and line.
use super::*;
use crate::build::build;

fn parse(text: &str) -> Result<Scenario> {
    parse_scenario(text, Path::new("test3d.toml"))
}

/// A small 3D scenario: a box of planes, a cylinder, spheres on a lattice.
const SMALL: &str = r#"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[domain]
min = [-0.02, -0.02, -0.02]
max = [0.02, 0.02, 0.04]
[[material]]
name = "glass"
density = 2500.0
kn = 200.0
restitution = 0.5
friction = 0.5
[[wall]]
kind = "cylinder"
point = [0.0, 0.0, 0.0]
axis = [0.0, 0.0, 2.0]
radius = 0.015
omega = 2.0
[[wall]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 0.0, 1.0]
[[particles]]
material = "glass"
count = 300
radius = { kind = "uniform", mean = 1.0e-3, width = 0.1 }
packing = "lattice"
region = { min = [-0.009, -0.009, 0.0], max = [0.009, 0.009, 0.03] }
velocity = [0.0, 0.0, -0.1]
[run]
steps = 100
"#;

fn expect_err(text: &str, needles: &[&str]) {
    let e = parse(text).unwrap_err().to_string();
    for n in needles {
        assert!(e.contains(n), "`{n}` not in: {e}");
    }
}

#[test]
fn shipped_3d_scenarios_parse_and_build() {
    for (name, text) in [
        ("bed3d.toml", include_str!("../../../scenarios/bed3d.toml")),
        ("drum3d.toml", include_str!("../../../scenarios/drum3d.toml")),
        ("column3d.toml", include_str!("../../../scenarios/column3d.toml")),
        ("drum3d_pour.toml", include_str!("../../../scenarios/drum3d_pour.toml")),
        (
            "rocking_drum3d.toml",
            include_str!("../../../scenarios/rocking_drum3d.toml"),
        ),
    ] {
        assert_eq!(scenario_dimension(text, Path::new(name)).unwrap(), 3);
        let s = parse_scenario(text, Path::new(name)).unwrap_or_else(|e| panic!("{e}"));
        let b = build(&s, Path::new(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let count: u64 = s
            .particles
            .iter()
            .map(|p| match p.source {
                ParticleSource::Generate { count, .. } => count,
                _ => 0,
            })
            .sum();
        assert_eq!(b.sim.len() as u64, count, "{name}");
        assert_eq!(b.sim.insertions().len(), s.inserts.len(), "{name}");
    }
}

/// A stream over SMALL's spheres, inside its cylinder.
const POUR: &str = r#"[[insert]]
material = "glass"
type = 2
region = { min = [-0.008, -0.008, 0.032], max = [0.008, 0.008, 0.038] }
radius = { kind = "uniform", mean = 1.0e-3, width = 0.1 }
velocity = [0.0, 0.1, -0.5]
velocity_jitter = 0.05
rate = 20000.0
total = 40
"#;

#[test]
fn an_insert_stream_in_3d_is_read_and_built() {
    let s = parse(&format!("{SMALL}{POUR}")).unwrap();
    let i = &s.inserts[0];
    assert_eq!(
        (i.region_min, i.region_max),
        ([-0.008, -0.008, 0.032], [0.008, 0.008, 0.038])
    );
    assert_eq!((i.velocity, i.velocity_jitter, i.type_id), ([0.0, 0.1, -0.5], 0.05, 2));
    assert_eq!((i.amount, i.total), (Amount::Rate(20000.0), Some(40)));
    let mut b = build(&s, Path::new("pour.toml")).unwrap();
    let spec = &b.sim.insertions()[0].spec;
    assert_eq!((spec.region_min, spec.velocity), (i.region_min, [0.0, 0.1, -0.5]));
    b.sim.run(b.steps).unwrap();
    // 20000 /s over 100 steps: 40 if dt >= 2e-5 s (rounded to whole steps).
    let n = b.sim.insertions()[0].counts.inserted;
    assert!(n > 0 && n <= 40 && b.sim.len() as u64 == 300 + n, "{n} inserted");
    // Bad settings are named, in 3D terms.
    expect_err(
        &format!(
            "{SMALL}{}",
            POUR.replace("velocity = [0.0, 0.1, -0.5]", "velocity = [0.0, -0.5]")
        ),
        &["insert[0].velocity", "[x, y, z]"],
    );
    expect_err(
        &format!("{SMALL}{}", POUR.replace("0.038] }", "0.05] }")),
        &["insert[0].region", "inside the domain"],
    );
    expect_err(
        &format!("{SMALL}{}", POUR.replace("0.032], max", "0.0375], max")),
        &["insert[0].region", "too small"],
    );
    // Without [[particles]] a stream alone makes a scenario.
    let alone = SMALL.split("[[particles]]").next().unwrap().to_string()
        + POUR
        + "[run]
steps = 10
";
    assert!(parse(&alone).unwrap().particles.is_empty());
}

#[test]
fn a_3d_scenario_builds_walls_spheres_and_runs() {
    let s = parse(SMALL).unwrap();
    assert_eq!(s.gravity, [0.0, 0.0, -9.81]);
    match &s.walls[0] {
        Wall::Cylinder {
            axis, radius, omega, ..
        } => {
            assert_eq!((*axis, *radius, *omega), ([0.0, 0.0, 1.0], 0.015, 2.0));
        }
        w => panic!("{w:?}"),
    }
    let mut b = build(&s, Path::new("small.toml")).unwrap();
    assert_eq!(b.sim.walls.len(), 2);
    assert_eq!(b.sim.len(), 300);
    // Sphere masses: density 4/3 pi r^3.
    let p = &b.sim.particles;
    let r = p.radius[0];
    let m = 1.0 / p.inv_mass[0];
    assert!((m - 2500.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r).abs() < 1e-12 * m);
    assert!((0..p.len()).all(|k| p.vel[2][k] == -0.1));
    b.sim.run(200).unwrap();
    // Inside the cylinder and above the floor, every one.
    let p = &b.sim.particles;
    for k in 0..p.len() {
        let (x, y, z) = (p.pos[0][k], p.pos[1][k], p.pos[2][k]);
        assert!(x.hypot(y) < 0.015 && z > 0.0, "({x}, {y}, {z})");
    }
}

/// The quadtree is an octree in 3D, by either name; a run on it builds and steps.
#[test]
fn the_octree_is_named_quadtree_or_octree() {
    for name in ["quadtree", "octree"] {
        let s = parse(&format!("{SMALL}[neighbor]\nmethod = \"{name}\"\n")).unwrap();
        assert_eq!(s.neighbor.method, NeighborMethod::Quadtree, "{name}");
        let mut b = build(&s, Path::new("small.toml")).unwrap();
        b.sim.run(50).unwrap();
    }
}

#[test]
fn a_box_is_six_planes_or_five_open_at_the_top() {
    let text = SMALL.replace(
        "kind = \"cylinder\"\npoint = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 2.0]\nradius = 0.015\nomega = 2.0",
        "kind = \"box\"\nmin = [-0.01, -0.01, 0.0]\nmax = [0.01, 0.01, 0.035]",
    );
    let walls = |t: &str| crate::preflight::surface_walls(&parse(t).unwrap().walls);
    let w = walls(&text);
    // The box and the extra plane.
    assert_eq!(w.len(), 7);
    assert!(w[0].0.contains("floor: z = 0"), "{}", w[0].0);
    let w = walls(&text.replace(
        "max = [0.01, 0.01, 0.035]",
        "max = [0.01, 0.01, 0.035]\nopen_top = true",
    ));
    assert_eq!(w.len(), 6);
    // Every sphere of the lattice is inside the box: it builds.
    build(&parse(&text).unwrap(), Path::new("box.toml")).unwrap();
}

#[test]
fn particles_outside_the_cylinder_are_refused() {
    let text = SMALL.replace("max = [0.009, 0.009, 0.03]", "max = [0.018, 0.018, 0.03]");
    let e = build(&parse(&text).unwrap(), Path::new("out.toml"))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("into wall[0] (cylinder of radius 0.015"), "{e}");
}

#[test]
fn the_dimension_is_said_and_vectors_have_three_components() {
    expect_err(&SMALL.replace("dimension = 3\n", ""), &["say `dimension = 3`"]);
    expect_err(
        &SMALL.replace("dimension = 3", "dimension = 2"),
        &["this is a 2D scenario"],
    );
    expect_err(
        &SMALL.replace("dimension = 3", "dimension = 4"),
        &["dimension", "must be 2 or 3"],
    );
    expect_err(
        &SMALL.replace("gravity = [0.0, 0.0, -9.81]", "gravity = [0.0, -9.81]"),
        &["gravity", "[x, y, z] triple", "2 element(s)"],
    );
    expect_err(
        &SMALL.replace("normal = [0.0, 0.0, 1.0]", "normal = [0.0, 0.0, 0.0]"),
        &["wall[1].normal", "non-zero"],
    );
}

#[test]
fn what_is_2d_only_is_refused_by_name() {
    expect_err(
        &SMALL.replace("kind = \"plane\"", "kind = \"line\""),
        &["wall[1]", "a 2D wall", "\"plane\""],
    );
    expect_err(
        &format!("{SMALL}[[drum]]\nmaterial = \"glass\"\n"),
        &["[[drum]] is 2D only", "kind = \"cylinder\""],
    );
    expect_err(
        &format!("{SMALL}[[body]]\nmaterial = \"glass\"\n"),
        &["[[body]] is 2D only"],
    );
    expect_err(
        &format!("{SMALL}{POUR}shape = {{ kind = \"regular\", vertices = [6] }}\n"),
        &["insert[0].shape", "spheres"],
    );
    expect_err(
        &SMALL.replace(
            "packing = \"lattice\"",
            "packing = \"lattice\"\nshape = { kind = \"regular\", vertices = [6] }",
        ),
        &["particles[0].shape", "spheres"],
    );
    expect_err(
        &format!("{SMALL}[neighbor]\nrejection = \"projection\"\n"),
        &["neighbor.rejection", "2D only"],
    );
    expect_err(
        &format!("{SMALL}[neighbor]\nmethod = \"hashing\"\n"),
        &["neighbor.method"],
    );
    expect_err(
        &SMALL.replace("radius = 0.015\n", ""),
        &["wall[0]", "`radius` is required for kind = \"cylinder\""],
    );
    expect_err(
        &SMALL.replace("axis = [0.0, 0.0, 2.0]", "normal = [0.0, 0.0, 2.0]"),
        &["normal", "not allowed"],
    );
    // Gear is in both builds: accepted, built and run.
    let s = parse(&format!("{SMALL}[integrator]\nscheme = \"gear\"\n")).unwrap();
    assert_eq!(s.integrator.scheme, Scheme::Gear);
    let mut b = build(&s, Path::new("gear.toml")).unwrap();
    assert_eq!(b.sim.config.integrator, talus_engine::Integrator::Gear);
    b.sim.run(100).unwrap();
    assert!(b.sim.particles.pos[2].iter().all(|&z| z > 0.0));
}

#[test]
fn hertz_needs_gamma_n_and_a_time_step() {
    let hertz = format!("{SMALL}[contact]\nmodel = \"hertz\"\n");
    expect_err(&hertz, &["material `glass`", "gamma_n"]);
    let hertz = hertz.replace("restitution = 0.5", "gamma_n = 5000.0");
    expect_err(&hertz, &["[integrator] dt"]);
    let s = parse(&format!("{hertz}[integrator]\ndt = 1.0e-6\n")).unwrap();
    assert_eq!(s.normal_model, NormalModel::Hertz);
    let b = build(&s, Path::new("hertz.toml")).unwrap();
    assert_eq!(b.sim.config.normal_model, NormalModel::Hertz);
    assert_eq!(b.sim.config.dt, 1e-6);
}

/// Spheres of a data file that start at one centre, or deep in one another, are warned
/// about by the build (ids, centres with z, the source), as in 2D.
#[test]
fn coincident_and_deep_spheres_of_a_data_file_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let data = "LAMMPS data file\n\n4 atoms\n1 atom types\n\n-0.01 0.01 xlo xhi\n-0.01 0.01 ylo yhi\n\
                0 0.02 zlo zhi\n\nAtoms # sphere\n\n\
                1 1 0.002 2500 0.0 0.0 0.005 0 0 0\n\
                2 1 0.002 2500 0.0 0.0 0.005 0 0 0\n\
                3 1 0.002 2500 0.005 0.005 0.005 0 0 0\n\
                4 1 0.002 2500 0.005 0.005 0.0065 0 0 0\n";
    std::fs::write(dir.path().join("bed.data"), data).unwrap();
    let text = "dimension = 3\n[domain]\nmin = [-0.01, -0.01, 0.0]\nmax = [0.01, 0.01, 0.02]\n\
         [[material]]\nname = \"glass\"\ndensity = 2500.0\nkn = 200.0\nrestitution = 0.5\nfriction = 0.5\n\
         [[particles]]\nmaterial = \"glass\"\nsource = \"lammps\"\nfile = \"bed.data\"\n[run]\nsteps = 10\n";
    let path = dir.path().join("s.toml");
    std::fs::write(&path, text).unwrap();
    let s = load_scenario(&path).unwrap();
    let w = build(&s, &path).unwrap().warnings;
    assert!(
        w.iter().any(|m| m.contains("1 pair of particles start at the same centre")
            && m.contains("ids 1 at (0, 0, 0.005)")),
        "{w:?}"
    );
    // Centres 1.5 mm apart, radii 1 mm: 0.5 mm deep, half a radius.
    assert!(
        w.iter()
            .any(|m| m.contains("1 pair of particles start overlapping") && m.contains("the deepest 50 % (5.000e-4 m)")),
        "{w:?}"
    );
}

/// A cylinder moves along its radius: by a law, a servo to a force, or a servo to a
/// stress over its area between two named planes across its axis; not with a
/// `direction`.
#[test]
fn a_cylinder_moves_along_its_radius() {
    let with = |m: &str| SMALL.replacen("omega = 2.0\n", &format!("omega = 2.0\nmove = {m}\n"), 1);
    let s = parse(&with("{ velocity = 0.01 }")).unwrap();
    assert_eq!(s.wall_motions[0].1.direction, [-1.0, 0.0, 0.0]);
    let s = parse(&with("{ servo = { force = 2.0, gain = 1e-3, max_speed = 0.1 } }")).unwrap();
    assert!(matches!(s.wall_motions[0].1.drive, WallDrive::Servo(_)));
    let built = crate::build::build(&s, std::path::Path::new("t.toml")).unwrap();
    assert_eq!(built.sim.wall_servos().len(), 1);
    expect_err(
        &with("{ direction = [1.0, 0.0, 0.0], velocity = 0.01 }"),
        &["moves along its radius", "no `direction`"],
    );
    expect_err(
        &with("{ servo = { stress = 2.0, gain = 1e-3, max_speed = 0.1 } }"),
        &["between two planes across its axis", "between = [\"bottom\", \"top\"]"],
    );
    // Bounded by the floor and a lid, both named.
    let named = SMALL
        .replacen(
            "[[wall]]\nkind = \"cylinder\"\n",
            "[[wall]]\nname = \"cell\"\nkind = \"cylinder\"\n",
            1,
        )
        .replacen(
            "[[wall]]\nkind = \"plane\"\n",
            "[[wall]]\nname = \"floor\"\nkind = \"plane\"\n",
            1,
        )
        .replacen(
            "[[particles]]",
            "[[wall]]\nname = \"lid\"\nkind = \"plane\"\npoint = [0.0, 0.0, 0.035]\nnormal = [0.0, 0.0, -1.0]\n\
             [[wall]]\nname = \"side\"\nkind = \"plane\"\npoint = [0.019, 0.0, 0.0]\nnormal = [-1.0, 0.0, 0.0]\n\
             [[particles]]",
            1,
        );
    let with = |m: &str| named.replacen("omega = 2.0\n", &format!("omega = 2.0\nmove = {m}\n"), 1);
    let s = parse(&with(
        "{ servo = { stress = 50.0, gain = 1e-3, max_speed = 0.1, between = [\"floor\", \"lid\"] } }",
    ))
    .unwrap();
    assert!(matches!(
        s.wall_motions[0].1.drive,
        WallDrive::CylinderStress { stress, between: [1, 2], .. } if stress == 50.0
    ));
    let built = crate::build::build(&s, std::path::Path::new("t.toml")).unwrap();
    let servo = &built.sim.wall_servos()[0];
    assert_eq!(servo.across, vec![[1, 2]]);
    // 2 pi r times the 35 mm between the planes.
    let area = servo.extent(&built.sim.walls);
    assert!(
        (area - 2.0 * std::f64::consts::PI * 0.015 * 0.035).abs() < 1e-12,
        "{area}"
    );
    for (m, words) in [
        (
            "between = [\"floor\", \"side\"]",
            &["`side` is not a plane across the cylinder's axis"][..],
        ),
        ("between = [\"floor\", \"roof\"]", &["no [[wall]] is named `roof`"]),
        ("between = [\"floor\"]", &["1 names: give the two planes"]),
        ("between = [\"lid\", \"lid\"]", &["two different planes"]),
        (
            "force = 1.0, between = [\"floor\", \"lid\"]",
            &["exactly one of `force` (N) or `stress`"],
        ),
    ] {
        expect_err(
            &with(&format!(
                "{{ servo = {{ stress = 5.0, gain = 1e-3, max_speed = 0.1, {m} }} }}"
            )),
            words,
        );
    }
    let text = named.replacen(
        "normal = [0.0, 0.0, 1.0]\n",
        "normal = [0.0, 0.0, 1.0]\nmove = { servo = { force = 1.0, gain = 1e-3, max_speed = 0.1, between = [\"lid\", \"floor\"] } }\n",
        1,
    );
    expect_err(&text, &["`between` is for a cylinder's stress"]);
    // A stage may not hold a stress over a plane an earlier stage took away.
    let staged = named.replacen("[run]\nsteps = 100\n", "", 1)
        + "[[stage]]\nname = \"open\"\nsteps = 10\nremove = [\"lid\"]\n\
           [[stage]]\nname = \"press\"\nsteps = 10\n\
           move = { cell = { servo = { stress = 5.0, gain = 1e-3, max_speed = 0.1, between = [\"floor\", \"lid\"] } } }\n";
    expect_err(&staged, &["`lid` was removed in stage `open`"]);
}

/// `turn` on a cylinder: its angle by a law of time, which the build sets turning (or a
/// stage that starts the drum, from its start); refused beside `omega`, on a plane or a
/// box, with a `direction`, or as a table out of order, by line.
#[test]
fn a_cylinder_turns_by_a_law() {
    let turned = SMALL.replace("omega = 2.0", "turn = { sine = { amplitude = 0.2, frequency = 3.0 } }");
    let s = parse(&turned).unwrap();
    let law = Displacement::Sine {
        amplitude: 0.2,
        frequency: 3.0,
        phase: 0.0,
    };
    match &s.walls[0] {
        Wall::Cylinder { omega, turn, .. } => assert_eq!((*omega, turn.as_ref()), (0.0, Some(&law))),
        w => panic!("{w:?}"),
    }
    let b = build(&s, Path::new("turned.toml")).unwrap();
    assert_eq!(b.sim.wall_turns().len(), 1);
    assert_eq!((b.sim.wall_turns()[0].wall, &b.sim.wall_turns()[0].law), (0, &law));
    // A stage that starts the drum: still until then, turning by the law from its start.
    let staged = format!(
        "{}[[stage]]\nname = \"settle\"\nsteps = 10\n[[stage]]\nname = \"turn\"\nsteps = 10\nstart = [\"drum\"]\n",
        turned
            .replace("kind = \"cylinder\"", "name = \"drum\"\nkind = \"cylinder\"")
            .replace("[run]\nsteps = 100\n", "")
    );
    let s = parse(&staged).unwrap();
    let mut b = build(&s, Path::new("staged.toml")).unwrap();
    assert!(b.sim.wall_turns().is_empty());
    let plans = crate::stages::stage_plans(&s, 1);
    plans[1].begin(&mut b.sim).unwrap();
    assert_eq!(b.sim.wall_turns()[0].law, law);
    assert!(
        plans[1].describe().contains("turning by a sine law"),
        "{}",
        plans[1].describe()
    );
    let line = |t: &str, at: &str| t.lines().position(|l| l.contains(at)).unwrap() + 1;
    let both = turned.replace("turn = {", "omega = 1.0\nturn = {");
    expect_err(&both, &[&format!(":{}:", line(&both, "omega = 1.0")), "not both"]);
    let plane = SMALL.replace(
        "normal = [0.0, 0.0, 1.0]",
        "normal = [0.0, 0.0, 1.0]\nturn = { velocity = 1.0 }",
    );
    expect_err(
        &plane,
        &[
            &format!(":{}:", line(&plane, "turn =")),
            "not allowed with kind = \"plane\"",
        ],
    );
    let aimed = SMALL.replace("omega = 2.0", "turn = { direction = [1.0, 0.0, 0.0], velocity = 1.0 }");
    expect_err(&aimed, &["no `direction`"]);
    let table = SMALL.replace("omega = 2.0", "turn = { table = [[0.0, 0.0], [0.0, 1.0]] }");
    expect_err(&table, &["does not come after"]);
}

/// A plane turned about a pivot: `move = { pivot, axis, law }` (the angle in rad); the
/// build sets it turning. Refused: no `axis`, a cylinder with a `pivot`.
#[test]
fn a_plane_turns_about_a_pivot() {
    let plane = "normal = [0.0, 0.0, 1.0]\n";
    let with = |m: &str| SMALL.replacen(plane, &format!("{plane}move = {m}\n"), 1);
    let s = parse(&with(
        "{ pivot = [0.0, 0.0, 0.0], axis = [0.0, 2.0, 0.0], sine = { amplitude = 0.1, frequency = 1.0 } }",
    ))
    .unwrap();
    let WallDrive::Tilt { pivot, axis, .. } = &s.wall_motions[0].1.drive else {
        panic!("{:?}", s.wall_motions);
    };
    assert_eq!((*pivot, *axis), ([0.0; 3], [0.0, 1.0, 0.0]));
    let built = build(&s, Path::new("t.toml")).unwrap();
    let tilts = built.sim.wall_tilts();
    assert!(tilts.len() == 1 && tilts[0].wall == 1, "{tilts:?}");
    expect_err(
        &with("{ pivot = [0.0, 0.0, 0.0], velocity = 0.1 }"),
        &["needs the `axis`"],
    );
    let drum = SMALL.replacen(
        "omega = 2.0\n",
        "omega = 2.0\nmove = { pivot = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0], velocity = 1.0 }\n",
        1,
    );
    expect_err(&drum, &["a cylinder turns about its own axis"]);
}
