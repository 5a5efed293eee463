use super::*;

/// A scenario using every key.
pub(super) const FULL: &str = r#"
title = "full example"
seed = 42

gravity = [0.0, -9.81]

[domain]
min = [0.0, -0.01]
max = [0.31, 0.4]

[[material]]
name = "glass"
density = 2500.0
kn = 1.0e6
kt = 2.0e5
restitution = 0.5
gamma_t = 100.0
friction = 0.5

[[material]]
name = "steel"
density = 7800
kn = 2.0e6
gamma_n = 6876.3
friction = 0.3

[[wall]]
kind = "line"
point = [0.0, 0.0]
normal = [0.0, 2.0]

[[wall]]
kind = "box"
min = [0.0, 0.0]
max = [0.3, 0.39]
open_top = true
material = "steel"

[[particles]]
material = "glass"
type = 2
source = "generate"
count = 200
radius = { kind = "uniform", mean = 1.0e-3, width = 0.5 }
packing = "lattice"
region = { min = [0.0, 0.0], max = [0.3, 0.3] }
velocity = [0.1, -0.2]
velocity_jitter = 0.01

[[particles]]
material = "steel"
count = 10
radius = { kind = "fixed", value = 2.0e-3 }
packing = "random"
region = { min = [0.0, 0.3], max = [0.3, 0.35] }

[[particles]]
material = "steel"
radius = { kind = "list", values = [1e-3, 2e-3] }
count = 4
packing = "lattice"
region = { min = [0.0, 0.35], max = [0.3, 0.4] }

[[particles]]
material = "glass"
source = "lammps"
file = "bed.data"

[integrator]
scheme = "gear"
dt = 2.784e-6

[neighbor]
method = "brute"
margin = 0.2
every_step = true
rejection = "separating_line"

[run]
steps = 1000

[output]
every = 100
dir = "out"
vtk = false
dump = true
energy = false
"#;

pub(super) fn parse(text: &str) -> Result<Scenario> {
    parse_scenario(text, Path::new("test.toml"))
}

/// 1-based line of the first occurrence of `needle` in `text`.
pub(super) fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in text"));
    text[..at].matches('\n').count() + 1
}

/// Replaces `from` (which must occur) by `to` in FULL.
pub(super) fn edit(from: &str, to: &str) -> String {
    assert!(FULL.contains(from), "{from:?} not in FULL");
    FULL.replacen(from, to, 1)
}

/// Asserts a scenario error at `line` whose message contains every `keys` entry.
pub(super) fn expect_err(text: &str, line: usize, keys: &[&str]) {
    match parse(text) {
        Err(IoError::Scenario {
            path,
            line: l,
            col,
            msg,
        }) => {
            assert_eq!(path, Path::new("test.toml"));
            assert_eq!(l, line, "wrong line for {msg:?}");
            assert!(col >= 1);
            for k in keys {
                assert!(msg.contains(k), "{msg:?} does not name {k:?}");
            }
        }
        other => panic!("expected a scenario error, got {other:?}"),
    }
}

#[test]
fn scenario_default_parses() {
    let s = default_scenario();
    assert_eq!(s.materials.len(), 1);
    assert_eq!(s.gravity, [0.0, -9.81]);
    assert_eq!(s.run.steps, 70000);
    assert_eq!(s.output.every, 7000);
    assert_eq!(s.integrator.time_step, TimeStep::Fraction(50.0));
    assert_eq!(s.neighbor.method, NeighborMethod::Sweep);
    match &s.particles[0].source {
        ParticleSource::Generate {
            count, radius, packing, ..
        } => {
            assert_eq!(*count, 20000);
            assert_eq!(*radius, RadiusDist::Uniform { mean: 1e-3, width: 0.5 });
            assert_eq!(*packing, Packing::Lattice);
        }
        other => panic!("unexpected source {other:?}"),
    }
    assert!(matches!(s.walls[0], Wall::Box { open_top: true, .. }));
}

#[test]
fn scenario_full_example() {
    let s = parse(FULL).unwrap();
    assert_eq!(s.title.as_deref(), Some("full example"));
    assert_eq!(s.seed, 42);
    assert_eq!(s.gravity, [0.0, -9.81]);
    assert_eq!(
        s.domain,
        Domain {
            min: [0.0, -0.01],
            max: [0.31, 0.4],
            periodic: [false; 2],
            shear_rate: 0.0,
            servo: None,
        }
    );
    assert_eq!(
        s.materials,
        vec![
            Material {
                name: "glass".into(),
                density: 2500.0,
                kn: 1e6,
                kt: 2e5,
                damping: NormalDamping::Restitution(0.5),
                gamma_t: Some(100.0),
                friction: 0.5,
                cohesion: 0.0,
                rolling_friction: 0.0,
            },
            Material {
                name: "steel".into(),
                density: 7800.0,
                kn: 2e6,
                kt: 2.0 / 7.0 * 2e6,
                damping: NormalDamping::GammaN(6876.3),
                gamma_t: None,
                friction: 0.3,
                cohesion: 0.0,
                rolling_friction: 0.0,
            },
        ]
    );
    assert_eq!(
        s.walls,
        vec![
            Wall::Line {
                point: [0.0, 0.0],
                normal: [0.0, 1.0],
                material: 0
            },
            Wall::Box {
                min: [0.0, 0.0],
                max: [0.3, 0.39],
                open_top: true,
                material: 1
            },
        ]
    );
    assert_eq!(
        s.particles,
        vec![
            Particles {
                material: 0,
                type_id: 2,
                source: ParticleSource::Generate {
                    count: 200,
                    radius: RadiusDist::Uniform { mean: 1e-3, width: 0.5 },
                    packing: Packing::Lattice,
                    region_min: [0.0, 0.0],
                    region_max: [0.3, 0.3],
                    velocity: [0.1, -0.2],
                    velocity_jitter: 0.01,
                    shape: ShapeSpec::Disc,
                },
            },
            Particles {
                material: 1,
                type_id: 1,
                source: ParticleSource::Generate {
                    count: 10,
                    radius: RadiusDist::Fixed(2e-3),
                    packing: Packing::Random,
                    region_min: [0.0, 0.3],
                    region_max: [0.3, 0.35],
                    velocity: [0.0, 0.0],
                    velocity_jitter: 0.0,
                    shape: ShapeSpec::Disc,
                },
            },
            Particles {
                material: 1,
                type_id: 1,
                source: ParticleSource::Generate {
                    count: 4,
                    radius: RadiusDist::List(vec![1e-3, 2e-3]),
                    packing: Packing::Lattice,
                    region_min: [0.0, 0.35],
                    region_max: [0.3, 0.4],
                    velocity: [0.0, 0.0],
                    velocity_jitter: 0.0,
                    shape: ShapeSpec::Disc,
                },
            },
            Particles {
                material: 0,
                type_id: 1,
                source: ParticleSource::Lammps {
                    file: PathBuf::from("bed.data")
                },
            },
        ]
    );
    assert_eq!(
        s.integrator,
        Integrator {
            scheme: Scheme::Gear,
            time_step: TimeStep::Fixed(2.784e-6)
        }
    );
    assert_eq!(
        s.neighbor,
        Neighbor {
            method: NeighborMethod::Brute,
            margin: 0.2,
            every_step: true,
            rejection: Rejection::SeparatingLine,
        }
    );
    assert_eq!(s.run.steps, 1000);
    assert_eq!(
        s.output,
        Output {
            every: 100,
            energy_every: None,
            dir: PathBuf::from("out"),
            vtk: false,
            dump: true,
            energy: false
        }
    );
}

#[test]
fn scenario_minimal_defaults() {
    let text = r#"
[domain]
min = [0, 0]
max = [1, 1]
[[material]]
name = "m"
density = 1
kn = 7
restitution = 1
friction = 0
[[particles]]
material = "m"
count = 1
radius = { kind = "fixed", value = 0.1 }
packing = "random"
region = { min = [0, 0], max = [1, 1] }
[run]
steps = 10
"#;
    let s = parse(text).unwrap();
    assert_eq!(s.title, None);
    assert_eq!(s.seed, 1);
    assert_eq!(s.gravity, [0.0, 0.0]);
    assert_eq!(s.materials[0].kt, 2.0);
    assert!(s.walls.is_empty());
    assert_eq!(s.particles[0].type_id, 1);
    assert_eq!(
        s.integrator,
        Integrator {
            scheme: Scheme::Verlet,
            time_step: TimeStep::Fraction(50.0)
        }
    );
    assert_eq!(
        s.neighbor,
        Neighbor {
            method: NeighborMethod::Sweep,
            margin: 0.1,
            every_step: false,
            rejection: Rejection::Circle,
        }
    );
    assert_eq!(s.output.every, 1, "steps/20 rounds down to 0, clamped to 1");
    assert_eq!(s.output.dir, PathBuf::from("talus-out"));
    assert!(s.output.vtk && s.output.dump && s.output.energy);
}

#[test]
fn scenario_unknown_key_top_level() {
    let t = edit("seed = 42\n", "seed = 42\nsede = 3\n");
    expect_err(&t, line_of(&t, "sede"), &["sede"]);
}

#[test]
fn scenario_unknown_key_nested() {
    let t = edit("count = 10\n", "count = 10\ncolour = \"red\"\n");
    expect_err(&t, line_of(&t, "colour"), &["particles[1].colour"]);
    let t = edit("width = 0.5 }", "width = 0.5, sigma = 1 }");
    expect_err(&t, line_of(&t, "sigma"), &["particles[0].radius.sigma"]);
}

#[test]
fn scenario_polygon_shapes() {
    let t = edit(
        "count = 10\n",
        "count = 10\nshape = { kind = \"random\", vertices = [5, 8], aspect = 1.5 }\n",
    );
    let s = parse_scenario(&t, Path::new("t.toml")).unwrap();
    match &s.particles[1].source {
        ParticleSource::Generate { shape, .. } => {
            assert_eq!(
                *shape,
                ShapeSpec::Random {
                    vertices: [5, 8],
                    aspect: 1.5
                }
            )
        }
        other => panic!("{other:?}"),
    }
    let t = edit(
        "count = 10\n",
        "count = 10\nshape = { kind = \"random\", vertices = [5, 80] }\n",
    );
    expect_err(&t, line_of(&t, "shape"), &["particles[1].shape.vertices", "3..=64"]);
    let t = edit(
        "count = 10\n",
        "count = 10\nshape = { kind = \"ellipse\", vertices = [12], aspect = 0.5 }\n",
    );
    expect_err(&t, line_of(&t, "shape"), &["particles[1].shape.aspect", ">= 1"]);
    let t = edit("count = 10\n", "count = 10\nshape = { kind = \"hexagon\" }\n");
    expect_err(&t, line_of(&t, "shape"), &["particles[1].shape.kind"]);
}

#[test]
fn scenario_misspelt_section() {
    let t = edit("[neighbor]", "[neighbour]");
    expect_err(&t, line_of(&t, "[neighbour]"), &["neighbour"]);
}

#[test]
fn scenario_negative_kn() {
    let t = edit("kn = 2.0e6", "kn = -2.0e6");
    expect_err(&t, line_of(&t, "kn = -2.0e6"), &["material[1].kn", "> 0"]);
}

#[test]
fn scenario_restitution_out_of_range() {
    let t = edit("restitution = 0.5", "restitution = 1.5");
    expect_err(
        &t,
        line_of(&t, "restitution = 1.5"),
        &["material[0].restitution", "1.5"],
    );
}

#[test]
fn scenario_width_one() {
    let t = edit("width = 0.5", "width = 1.0");
    expect_err(
        &t,
        line_of(&t, "width = 1.0"),
        &["particles[0].radius.width: must be in [0, 1), got 1"],
    );
}

#[test]
fn scenario_domain_min_not_below_max() {
    let t = edit("max = [0.31, 0.4]", "max = [0.31, -0.01]");
    expect_err(&t, line_of(&t, "max = [0.31, -0.01]"), &["domain.max", "domain.min"]);
}

#[test]
fn scenario_box_and_region_min_max() {
    let t = edit("max = [0.3, 0.39]", "max = [0.0, 0.39]");
    expect_err(&t, line_of(&t, "max = [0.0, 0.39]"), &["wall[1].max"]);
    let t = edit("max = [0.3, 0.35] }", "max = [0.3, 0.29] }");
    expect_err(&t, line_of(&t, "max = [0.3, 0.29] }"), &["particles[1].region.max"]);
}

#[test]
fn scenario_region_outside_domain() {
    let t = edit("max = [0.3, 0.4] }", "max = [0.3, 0.5] }");
    expect_err(
        &t,
        line_of(&t, "max = [0.3, 0.5] }"),
        &["particles[2].region", "domain"],
    );
}

#[test]
fn scenario_unknown_material() {
    let t = edit("material = \"steel\"\ncount = 10", "material = \"sand\"\ncount = 10");
    expect_err(&t, line_of(&t, "\"sand\""), &["particles[1].material", "sand", "glass"]);
    let t = edit(
        "material = \"steel\"\n\n[[particles]]",
        "material = \"wood\"\n\n[[particles]]",
    );
    expect_err(&t, line_of(&t, "\"wood\""), &["wall[1].material", "wood"]);
}

#[test]
fn scenario_duplicate_material() {
    let t = edit("name = \"steel\"", "name = \"glass\"");
    expect_err(
        &t,
        line_of(&t, "name = \"glass\"\ndensity = 7800"),
        &["material[1].name", "glass"],
    );
}

#[test]
fn scenario_dt_and_dt_fraction() {
    let t = edit("dt = 2.784e-6\n", "dt = 2.784e-6\ndt_fraction = 50\n");
    expect_err(&t, line_of(&t, "dt_fraction"), &["dt_fraction", "dt`"]);
    let t = edit("dt = 2.784e-6\n", "dt_fraction = 1\n");
    expect_err(&t, line_of(&t, "dt_fraction"), &["integrator.dt_fraction", "> 1"]);
}

#[test]
fn scenario_restitution_and_gamma_n() {
    let t = edit("restitution = 0.5\n", "restitution = 0.5\ngamma_n = 10.0\n");
    expect_err(&t, line_of(&t, "gamma_n = 10.0"), &["restitution", "gamma_n"]);
}

#[test]
fn scenario_neither_restitution_nor_gamma_n() {
    let t = edit("gamma_n = 6876.3\n", "");
    // reported at the [[material]] header of the second material
    let line = line_of(&t, "name = \"steel\"") - 1;
    expect_err(&t, line, &["material[1]", "restitution", "gamma_n"]);
}

#[test]
fn scenario_lammps_with_count() {
    let t = edit("file = \"bed.data\"\n", "file = \"bed.data\"\ncount = 5\n");
    expect_err(&t, line_of(&t, "count = 5"), &["particles[3].count", "lammps"]);
}

#[test]
fn scenario_lammps_without_file() {
    let t = edit("file = \"bed.data\"\n", "");
    let line = line_of(&t, "source = \"lammps\"") - 2;
    expect_err(&t, line, &["particles[3]", "file"]);
}

#[test]
fn scenario_generate_without_count() {
    let t = edit("count = 10\n", "");
    let line = line_of(&t, "material = \"steel\"\nradius = { kind = \"fixed\"") - 1;
    expect_err(&t, line, &["particles[1]", "count"]);
}

#[test]
fn scenario_generate_with_file() {
    let t = edit("count = 10\n", "count = 10\nfile = \"x.data\"\n");
    expect_err(&t, line_of(&t, "x.data"), &["particles[1].file", "generate"]);
}

#[test]
fn scenario_wrong_type() {
    let t = edit("density = 2500.0", "density = \"heavy\"");
    expect_err(&t, line_of(&t, "\"heavy\""), &["material[0].density", "string"]);
    let t = edit("steps = 1000", "steps = \"many\"");
    expect_err(&t, line_of(&t, "\"many\""), &["run.steps"]);
}

#[test]
fn scenario_bad_vectors_and_kinds() {
    let t = edit("normal = [0.0, 2.0]", "normal = [0.0, 0.0]");
    expect_err(&t, line_of(&t, "normal = [0.0, 0.0]"), &["wall[0].normal", "non-zero"]);
    let t = edit("gravity = [0.0, -9.81]", "gravity = [0.0, -9.81, 1.0]");
    expect_err(&t, line_of(&t, "gravity"), &["gravity", "pair"]);
    let t = edit("kind = \"line\"", "kind = \"circle\"");
    expect_err(&t, line_of(&t, "\"circle\""), &["wall[0].kind", "circle"]);
    let t = edit("kind = \"box\"\nmin", "kind = \"box\"\npoint = [0, 0]\nmin");
    expect_err(&t, line_of(&t, "point = [0, 0]"), &["wall[1].point", "box"]);
    let t = edit("mean = 1.0e-3, ", "");
    expect_err(&t, line_of(&t, "kind = \"uniform\""), &["particles[0].radius", "mean"]);
    let t = edit("values = [1e-3, 2e-3]", "values = [1e-3, 0.0]");
    expect_err(&t, line_of(&t, "values"), &["particles[2].radius.values", "> 0, got 0"]);
    let t = edit("type = 2", "type = 0");
    expect_err(&t, line_of(&t, "type = 0"), &["particles[0].type"]);
    let t = edit("steps = 1000", "steps = 0");
    expect_err(&t, line_of(&t, "steps = 0"), &["run.steps", ">= 1"]);
}

/// The particle store keeps types in 16 bits: 65535 is the largest type, 65536 is
/// refused at its line, for particles and bodies alike (no longer cut down to 65535).
#[test]
fn scenario_types_above_16_bits_are_refused() {
    let t = edit("type = 2", "type = 65536");
    expect_err(
        &t,
        line_of(&t, "type = 65536"),
        &["particles[0].type", "[1, 65535]", "16 bits", "got 65536"],
    );
    let t = edit("type = 2", "type = 65535");
    assert_eq!(parse(&t).unwrap().particles[0].type_id, 65535);
    let t = format!(
        "{FULL}\n[[body]]\nmaterial = \"glass\"\ntype = 70000\nvertices = [[0.0, 0.0], [0.1, 0.0], [0.0, 0.1]]\n"
    );
    expect_err(&t, line_of(&t, "type = 70000"), &["body[0].type", "got 70000"]);
}

#[test]
fn scenario_missing_section() {
    let t = edit("[run]\nsteps = 1000\n", "");
    match parse(&t) {
        Err(IoError::Scenario { msg, .. }) => assert!(msg.contains("run"), "{msg}"),
        other => panic!("expected a scenario error, got {other:?}"),
    }
    let t = edit("[domain]\nmin = [0.0, -0.01]\n", "[domain]\n");
    expect_err(&t, line_of(&t, "[domain]"), &["domain", "min"]);
}

#[test]
fn scenario_syntax_error_has_line() {
    let t = edit("seed = 42", "seed = = 42");
    match parse(&t) {
        Err(IoError::Scenario { line, .. }) => assert_eq!(line, line_of(&t, "seed = =")),
        other => panic!("expected a scenario error, got {other:?}"),
    }
}

#[test]
fn scenario_error_display_has_path_line_col() {
    let t = edit("width = 0.5", "width = 1.5");
    let e = parse(&t).unwrap_err().to_string();
    let line = line_of(&t, "width = 1.5");
    assert!(e.starts_with(&format!("test.toml:{line}:")), "unexpected display {e:?}");
    assert!(
        e.ends_with("particles[0].radius.width: must be in [0, 1), got 1.5"),
        "{e}"
    );
}

#[test]
fn scenario_load_resolves_relative_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, FULL).unwrap();
    let s = load_scenario(&path).unwrap();
    match &s.particles[3].source {
        ParticleSource::Lammps { file } => assert_eq!(file, &dir.path().join("bed.data")),
        other => panic!("unexpected source {other:?}"),
    }
}

#[test]
fn scenario_load_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.toml");
    match load_scenario(&path) {
        Err(e @ IoError::Os { .. }) => {
            let IoError::Os { path: p, .. } = &e else {
                unreachable!()
            };
            assert_eq!(p, &path);
            assert!(e.to_string().contains("nope.toml"));
        }
        other => panic!("expected an Os error, got {other:?}"),
    }
}

#[test]
fn scenario_line_col() {
    assert_eq!(line_col("ab\ncd", 0), (1, 1));
    assert_eq!(line_col("ab\ncd", 4), (2, 2));
    assert_eq!(line_col("é\nx", 3), (2, 1));
}

/// The 2D build reads 2D scenarios: a 3D one and 3D walls are refused by name and line;
/// `scenario_dimension` tells the program which build runs a file.
#[test]
fn scenario_dimensions() {
    assert_eq!(scenario_dimension(FULL, Path::new("a.toml")).unwrap(), 2);
    let three = format!("dimension = 3\n{FULL}");
    assert_eq!(scenario_dimension(&three, Path::new("a.toml")).unwrap(), 3);
    expect_err(&three, 1, &["dimension", "this is a 3D scenario"]);
    let two = format!("dimension = 2\n{FULL}");
    assert_eq!(parse(&two).unwrap().title, parse(FULL).unwrap().title);
    let e = scenario_dimension("dimension = 5\n", Path::new("a.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a.toml:1:") && e.contains("must be 2 or 3"), "{e}");
    let e = scenario_dimension("dimension = \n", Path::new("a.toml"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a.toml:1:"), "{e}");
    let t = edit("kind = \"line\"", "kind = \"plane\"");
    expect_err(
        &t,
        line_of(&t, "[[wall]]"),
        &["wall[0]", "a 3D wall", "\"line\" or \"box\""],
    );
    let t = format!("{FULL}\n[contact]\nmodel = \"hooke\"\n");
    assert_eq!(parse(&t).unwrap().normal_model, NormalModel::Hooke);
}

/// Hertz in 2D (LAMMPS gran/hertz/history on discs): damping by `gamma_n`, not by a
/// restitution; a polygon anywhere is refused where it is given.
#[test]
fn scenario_hertz_discs() {
    let hertz = format!("{FULL}\n[contact]\nmodel = \"hertz\"\n");
    let e = parse(&hertz).unwrap_err().to_string();
    assert!(e.contains("material `glass`") && e.contains("gamma_n"), "{e}");
    let hertz = hertz.replace("restitution = 0.5", "gamma_n = 5000.0");
    let s = parse(&hertz).unwrap();
    assert_eq!(s.normal_model, NormalModel::Hertz);
    let t = hertz.replace(
        "count = 10\n",
        "count = 10\nshape = { kind = \"regular\", vertices = [6] }\n",
    );
    expect_err(&t, line_of(&t, "shape = "), &["polygon shape", "hertz", "\"hooke\""]);
    let t = format!("{hertz}\n[[body]]\nmaterial = \"steel\"\nvertices = [[0.1, 0.1], [0.2, 0.1], [0.15, 0.2]]\n");
    expect_err(&t, line_of(&t, "[[body]]"), &["[[body]]", "hertz"]);
    let t = hertz.replace("count = 10\n", "count = 10\nshape = { kind = \"disc\" }\n");
    assert_eq!(parse(&t).unwrap().normal_model, NormalModel::Hertz);
}

#[test]
fn scenario_analysis() {
    assert!(parse(FULL).unwrap().analysis.is_none());
    let t = format!("{FULL}\n[analysis]\nregion = {{ min = [0.0, 0.0], max = [0.3, 0.2] }}\nnetwork = false\n");
    let a = parse(&t).unwrap().analysis.unwrap();
    // Every frame by default (FULL's [output] every = 100).
    assert_eq!((a.every, a.network), (100, false));
    assert_eq!(a.region.map(|r| (r.min, r.max)), Some(([0.0, 0.0], [0.3, 0.2])));
    let t = format!("{FULL}\n[analysis]\nevery = 50\nregion = {{ min = [0.0, 0.0], max = [0.3, 0.5] }}\n");
    expect_err(
        &t,
        line_of(&t, "region = { min = [0.0, 0.0], max = [0.3, 0.5]"),
        &["analysis.region", "domain"],
    );
    let t = format!("{FULL}\n[analysis]\nregion = {{ min = [0.2, 0.0], max = [0.1, 0.2] }}\n");
    expect_err(
        &t,
        line_of(&t, "region = { min = [0.2"),
        &["analysis.region.max", "region.min"],
    );
    let t = format!("{FULL}\n[analysis]\nevery = 0\n");
    expect_err(&t, line_of(&t, "every = 0"), &["analysis.every"]);
    let t = format!("{FULL}\n[analysis]\nstress = true\n");
    expect_err(&t, line_of(&t, "stress = true"), &["stress"]);
}

#[test]
fn scenario_run_until() {
    assert_eq!(parse(FULL).unwrap().run.until, None);
    let t = edit(
        "[run]\nsteps = 1000",
        "[run]\nsteps = 1000\nuntil = { unbalanced = 0.01, every = 50 }",
    );
    let u = parse(&t).unwrap().run.until.unwrap();
    assert_eq!((u.kinetic, u.unbalanced, u.every), (None, Some(0.01), 50));
    let t = edit("[run]\nsteps = 1000", "[run]\nsteps = 1000\nuntil = { every = 50 }");
    expect_err(&t, line_of(&t, "until ="), &["run.until", "kinetic", "unbalanced"]);
    let t = edit("[run]\nsteps = 1000", "[run]\nsteps = 1000\nuntil = { kinetic = -1.0 }");
    expect_err(&t, line_of(&t, "until ="), &["run.until.kinetic"]);
}

#[test]
fn scenario_outflow() {
    assert!(parse(FULL).unwrap().outflows.is_empty());
    let t = format!("{FULL}\n[[outflow]]\nregion = {{ min = [0.0, 0.0], max = [0.3, 0.05] }}\n[[outflow]]\nregion = {{ min = [0.0, 0.3], max = [0.3, 0.4] }}\nevery = 7\n");
    let o = parse(&t).unwrap().outflows;
    assert_eq!(o.len(), 2);
    assert_eq!((o[0].every, o[1].every), (OUTFLOW_EVERY, 7));
    assert_eq!(o[1].region.max, [0.3, 0.4]);
    let t = format!("{FULL}\n[[outflow]]\nevery = 7\n");
    expect_err(&t, line_of(&t, "[[outflow]]"), &["outflow[0]", "region"]);
    let t = format!("{FULL}\n[[outflow]]\nregion = {{ min = [0.0, 0.0], max = [0.3, 0.5] }}\n");
    expect_err(
        &t,
        line_of(&t, "region = { min = [0.0, 0.0], max = [0.3, 0.5]"),
        &["outflow[0].region", "domain"],
    );
}

#[test]
fn scenario_periodic() {
    assert_eq!(parse(FULL).unwrap().domain.periodic, [false; 2]);
    // Without the box wall (across x), x may wrap: the line wall is a floor.
    let open = |axes: &str| {
        let t = edit("max = [0.31, 0.4]", &format!("max = [0.31, 0.4]\nperiodic = {axes}"));
        let a = t.find("[[wall]]\nkind = \"box\"").unwrap();
        let b = a + t[a..].find("material = \"steel\"").unwrap() + "material = \"steel\"".len();
        format!("{}{}", &t[..a], &t[b..])
    };
    assert_eq!(parse(&open("[\"x\"]")).unwrap().domain.periodic, [true, false]);
    let t = open("[\"x\", \"z\"]");
    expect_err(
        &t,
        line_of(&t, "periodic = "),
        &["domain.periodic", "unknown axis \"z\"", "x, y"],
    );
    let t = open("[\"x\", \"x\"]");
    expect_err(
        &t,
        line_of(&t, "periodic = "),
        &["domain.periodic", "axis x named twice"],
    );
    // The floor lies across y.
    let t = open("[\"y\"]");
    expect_err(&t, line_of(&t, "[[wall]]"), &["wall[0]", "across periodic axis y"]);
    // The box has walls across x.
    let t = edit("max = [0.31, 0.4]", "max = [0.31, 0.4]\nperiodic = [\"x\"]");
    expect_err(
        &t,
        line_of(&t, "kind = \"box\"") - 1,
        &["wall[1]", "across periodic axis x"],
    );
}

#[test]
fn scenario_shear_rate() {
    let cell = |extra: &str| {
        format!(
            "[domain]\nmin = [0.0, 0.0]\nmax = [0.05, 0.05]\n{extra}\n\n[[material]]\nname = \"g\"\ndensity = 2500.0\nkn = 1.0e4\nrestitution = 0.5\nfriction = 0.5\n\n[[particles]]\nmaterial = \"g\"\ncount = 10\nradius = {{ kind = \"fixed\", value = 1.0e-3 }}\npacking = \"lattice\"\nregion = {{ min = [0.0, 0.0], max = [0.05, 0.05] }}\n\n[run]\nsteps = 10\n"
        )
    };
    let d = parse(&cell("periodic = [\"x\", \"y\"]\nshear_rate = 12.5"))
        .unwrap()
        .domain;
    assert_eq!((d.periodic, d.shear_rate), ([true, true], 12.5));
    assert_eq!(parse(&cell("")).unwrap().domain.shear_rate, 0.0);
    let t = cell("periodic = [\"x\"]\nshear_rate = 12.5");
    expect_err(
        &t,
        line_of(&t, "shear_rate"),
        &["domain.shear_rate", "periodic = [\"x\", \"y\"]"],
    );
    let t = cell("periodic = [\"x\", \"y\"]\nshear_rate = 0.0");
    expect_err(&t, line_of(&t, "shear_rate"), &["domain.shear_rate", "must not be 0"]);
}
