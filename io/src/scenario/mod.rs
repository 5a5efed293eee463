//! Scenario files: a TOML description of one simulation (domain, materials, walls,
//! particle sources, integrator, neighbour search, run length, outputs), parsed and
//! validated into plain structs. Converting them to engine types happens elsewhere.
//!
//! Every error names the key path (e.g. `particles[1].radius.width`) and the line and
//! column in the file. Single-value checks run inside deserialization (the newtypes
//! below) so that toml attaches the span of the offending value; cross-field checks
//! keep `toml::Spanned` on the fields involved.

use std::collections::HashMap;
use std::fmt::Display;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use toml::Spanned;

pub use talus_engine::NeighborMethod;

use crate::{IoError, Result};

mod insert;
pub use insert::{Amount, Insert};

/// The built-in default scenario (also an annotated example of the format).
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/default.toml");

/// A whole, validated scenario. All values are in SI units.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub title: Option<String>,
    /// Seed of the random number generator used by particle generators.
    pub seed: u64,
    pub domain: Domain,
    pub gravity: [f64; 2],
    /// At least one; walls and particle sources refer to them by index.
    pub materials: Vec<Material>,
    pub walls: Vec<Wall>,
    /// Particle sources (at least one of them or of `inserts`).
    pub particles: Vec<Particles>,
    /// Particles poured in over time (`[[insert]]`).
    pub inserts: Vec<Insert>,
    /// Single polygons given by their vertices (walls, obstacles, hopper sides).
    pub bodies: Vec<PolygonBody>,
    /// Rotating drums: rings of driven wall polygons.
    pub drums: Vec<Drum>,
    pub integrator: Integrator,
    pub neighbor: Neighbor,
    pub run: Run,
    pub output: Output,
    pub checkpoint: CheckpointSettings,
    /// The text the scenario was parsed from (checkpoints carry it and its hash).
    pub text: String,
}

/// Hard bounds of the simulation: a particle leaving them is an error of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    pub min: [f64; 2],
    /// Strictly greater than `min` in both components.
    pub max: [f64; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    /// Areal density, kg/m^2 (disc mass = density * pi * r^2).
    pub density: f64,
    /// Normal spring stiffness, N/m.
    pub kn: f64,
    /// Tangential spring stiffness, N/m (default 2/7 kn already applied).
    pub kt: f64,
    pub damping: NormalDamping,
    /// Tangential damping, 1/s; `None` = derive it (gamma_n / 2) in the converter.
    pub gamma_t: Option<f64>,
    /// Coulomb friction coefficient.
    pub friction: f64,
}

/// How the normal damping is specified: exactly one of the two.
/// How a `[[body]]` moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Motion {
    /// Does not move (infinite mass).
    Fixed,
    /// A grain like any other.
    Free,
    /// Follows a prescribed rigid motion (infinite mass).
    Driven(Drive),
}

/// One polygon given by its vertices in the world frame (counter-clockwise, convex).
#[derive(Debug, Clone, PartialEq)]
pub struct PolygonBody {
    pub material: usize,
    pub type_id: u16,
    pub vertices: Vec<[f64; 2]>,
    pub motion: Motion,
}

/// A rotating drum: `segments` wall polygons of the given thickness on a ring of inner
/// radius `radius` about `centre`, turning at `omega` (rad/s, counter-clockwise positive).
#[derive(Debug, Clone, PartialEq)]
pub struct Drum {
    pub material: usize,
    pub centre: [f64; 2],
    pub radius: f64,
    pub thickness: f64,
    pub segments: u64,
    pub omega: f64,
    /// Time (s) at which the drum starts turning.
    pub start: f64,
    /// Seconds over which it reaches `omega` from rest, after `start`.
    pub ramp: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormalDamping {
    /// Coefficient of restitution in (0, 1].
    Restitution(f64),
    /// Damping per unit effective mass, 1/s (LAMMPS gran/hooke convention).
    GammaN(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Wall {
    /// Infinite straight wall; particles stay on the side `normal` points to.
    Line {
        point: [f64; 2],
        /// Unit vector.
        normal: [f64; 2],
        /// Index into `Scenario::materials`.
        material: usize,
    },
    /// Four inward-facing line walls on the rectangle `min..max`.
    Box {
        min: [f64; 2],
        max: [f64; 2],
        /// Leave out the top wall.
        open_top: bool,
        /// Index into `Scenario::materials`.
        material: usize,
    },
}

/// One particle source.
#[derive(Debug, Clone, PartialEq)]
pub struct Particles {
    /// Index into `Scenario::materials`.
    pub material: usize,
    /// The `type` column in outputs, >= 1.
    pub type_id: u16,
    pub source: ParticleSource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ParticleSource {
    Generate {
        count: u64,
        radius: RadiusDist,
        packing: Packing,
        region_min: [f64; 2],
        region_max: [f64; 2],
        velocity: [f64; 2],
        /// Each velocity component gets a uniform random number in [-j, j].
        velocity_jitter: f64,
        /// Discs (default) or convex polygons of circumradius drawn from `radius`.
        shape: ShapeSpec,
    },
    /// A LAMMPS data file (atom_style sphere). `load_scenario` resolves a relative
    /// path against the scenario file's folder; `parse_scenario` leaves it as written.
    Lammps { file: PathBuf },
}

/// The radius distribution is the generator's own type (fixed, uniform in
/// [mean (1 - width), mean (1 + width)] with 0 <= width < 1, or a list taken in turn).
pub use talus_engine::generate::{RadiusDist, ShapeSpec};
pub use talus_engine::Drive;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Packing {
    /// Hexagonal lattice, spacing from the largest radius.
    Lattice,
    /// Random, non-overlapping.
    Random,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Integrator {
    pub scheme: Scheme,
    pub time_step: TimeStep,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Velocity Verlet.
    Verlet,
    /// 6-value Gear predictor-corrector.
    Gear,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeStep {
    /// dt in seconds.
    Fixed(f64),
    /// dt = t_contact / fraction for the stiffest (lightest) contact; fraction > 1.
    Fraction(f64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    pub method: NeighborMethod,
    /// Verlet skin as a fraction of the mean particle radius.
    pub margin: f64,
    /// Re-sweep every step instead of only when a particle left its enlarged box.
    pub every_step: bool,
    /// Cheap tests on candidate pairs of polygons before the exact one.
    pub rejection: Rejection,
}

/// See `talus_engine::Rejection`: each level includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Rejection {
    /// Bounding circles only.
    #[default]
    Circle,
    /// Then the projection of the corners on the centre line.
    Projection,
    /// Then the iterated separating line.
    SeparatingLine,
}

/// A neighbour-search method by its name: the engine's registry is the one list.
struct MethodName(NeighborMethod);

impl<'de> Deserialize<'de> for MethodName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        name.parse().map(MethodName).map_err(D::Error::custom)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    pub steps: u64,
}

/// `[checkpoint]`: when and where checkpoints are written during `talus run`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointSettings {
    /// Every this many steps; 0 = no checkpoints.
    pub every: u64,
    /// Newest checkpoints kept (older ones are deleted once a newer one is complete).
    pub keep: usize,
    /// Folder, relative to the output folder (so that `--out` moves it too) unless
    /// absolute; default `checkpoints`.
    pub dir: PathBuf,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Write frames every this many steps (>= 1).
    pub every: u64,
    /// Write an energy row every this many steps (None: with every frame).
    pub energy_every: Option<u64>,
    /// Relative to the current directory.
    pub dir: PathBuf,
    pub vtk: bool,
    pub dump: bool,
    pub energy: bool,
}

/// Parses and validates scenario text. `path` is only used in error messages; relative
/// particle file paths are returned as written.
pub fn parse_scenario(text: &str, path: &Path) -> Result<Scenario> {
    let ctx = Ctx { text, path };
    let raw: RawScenario = toml::from_str(text).map_err(|e| ctx.toml_error(&e))?;
    let mut s = ctx.convert(raw)?;
    s.text = text.to_string();
    Ok(s)
}

/// Reads and parses a scenario file; relative particle file paths are resolved against
/// the folder of the scenario file.
pub fn load_scenario(path: &Path) -> Result<Scenario> {
    let text = std::fs::read_to_string(path).map_err(|e| IoError::os(path, e))?;
    let mut scenario = parse_scenario(&text, path)?;
    let folder = path.parent().unwrap_or_else(|| Path::new(""));
    for p in &mut scenario.particles {
        if let ParticleSource::Lammps { file } = &mut p.source {
            // join keeps absolute paths as they are
            *file = folder.join(&*file);
        }
    }
    Ok(scenario)
}

/// The built-in default scenario, parsed.
pub fn default_scenario() -> Scenario {
    match parse_scenario(DEFAULT_SCENARIO, Path::new("<built-in default>")) {
        Ok(s) => s,
        Err(e) => panic!("the built-in default scenario is broken: {e}"),
    }
}

// ---------------------------------------------------------------------------------------
// Validating newtypes: the check runs during deserialization so the error gets the span.

macro_rules! bounded_f64 {
    ($name:ident, $what:literal, |$v:ident| $ok:expr) => {
        #[derive(Debug, Clone, Copy)]
        struct $name(f64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let $v = f64::deserialize(d)?;
                // TOML allows nan and inf; none of our quantities may be either
                if $v.is_finite() && $ok {
                    Ok($name($v))
                } else {
                    Err(D::Error::custom(format!("must be {}, got {}", $what, $v)))
                }
            }
        }
    };
}

bounded_f64!(Positive, "> 0", |v| v > 0.0);
bounded_f64!(NonNegative, ">= 0", |v| v >= 0.0);
bounded_f64!(Fraction01, "in [0, 1)", |v| (0.0..1.0).contains(&v));
bounded_f64!(Restitution, "in (0, 1]", |v| v > 0.0 && v <= 1.0);
bounded_f64!(AboveOne, "> 1", |v| v > 1.0);
bounded_f64!(Finite, "finite", |v| v.is_finite());

/// An integer >= 1 (TOML integers are i64, so reading i64 loses nothing and gives a
/// clearer message for negative values than u64 would).
#[derive(Debug, Clone, Copy)]
struct PositiveInt(u64);

impl<'de> Deserialize<'de> for PositiveInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u64::try_from(v) {
            Ok(u) if u >= 1 => Ok(PositiveInt(u)),
            _ => Err(D::Error::custom(format!("must be >= 1, got {v}"))),
        }
    }
}

/// A particle type id: 1 ..= u16::MAX (the particle store keeps types in 16 bits; a
/// larger one is refused rather than cut down to another type).
#[derive(Debug, Clone, Copy)]
struct TypeId(u16);

impl<'de> Deserialize<'de> for TypeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u16::try_from(v) {
            Ok(u) if u >= 1 => Ok(TypeId(u)),
            _ => Err(D::Error::custom(format!(
                "must be an integer in [1, {}] (particle types are stored in 16 bits), got {v}",
                u16::MAX
            ))),
        }
    }
}

/// An [x, y] pair of finite numbers. Hand-written because serde's `[f64; 2]` silently
/// ignores extra elements in toml arrays.
#[derive(Debug, Clone, Copy)]
struct Vec2([f64; 2]);

impl<'de> Deserialize<'de> for Vec2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Vec::<f64>::deserialize(d)?;
        match v[..] {
            [x, y] if x.is_finite() && y.is_finite() => Ok(Vec2([x, y])),
            [_, _] => Err(D::Error::custom(format!("must be finite numbers, got {v:?}"))),
            _ => Err(D::Error::custom(format!(
                "must be an [x, y] pair, got {} element(s)",
                v.len()
            ))),
        }
    }
}

/// A non-zero [x, y] direction.
#[derive(Debug, Clone, Copy)]
struct NonZeroVec2([f64; 2]);

impl<'de> Deserialize<'de> for NonZeroVec2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let Vec2(v) = Vec2::deserialize(d)?;
        if v[0].hypot(v[1]) > 0.0 {
            Ok(NonZeroVec2(v))
        } else {
            Err(D::Error::custom("must be a non-zero vector, got [0, 0]"))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Raw file layout. Cross-field checks need spans, hence the `Spanned` fields.

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    title: Option<String>,
    seed: Option<u64>,
    domain: RawDomain,
    gravity: Option<Vec2>,
    material: Spanned<Vec<Spanned<RawMaterial>>>,
    #[serde(default)]
    wall: Vec<Spanned<RawWall>>,
    particles: Option<Spanned<Vec<Spanned<RawParticles>>>>,
    #[serde(default)]
    insert: Vec<Spanned<insert::RawInsert>>,
    #[serde(default)]
    body: Vec<Spanned<RawBody>>,
    #[serde(default)]
    drum: Vec<Spanned<RawDrum>>,
    integrator: Option<RawIntegrator>,
    neighbor: Option<RawNeighbor>,
    run: RawRun,
    output: Option<RawOutput>,
    checkpoint: Option<RawCheckpoint>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheckpoint {
    every: Option<u64>,
    keep: Option<PositiveInt>,
    dir: Option<String>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum MotionKind {
    Fixed,
    Free,
    Driven,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrive {
    centre: Vec2,
    omega: Option<Finite>,
    velocity: Option<Vec2>,
    start: Option<NonNegative>,
    ramp: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBody {
    material: Spanned<String>,
    #[serde(rename = "type")]
    type_id: Option<TypeId>,
    vertices: Spanned<Vec<Vec2>>,
    motion: Option<MotionKind>,
    drive: Option<Spanned<RawDrive>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDrum {
    material: Spanned<String>,
    centre: Vec2,
    radius: Positive,
    thickness: Positive,
    segments: Spanned<PositiveInt>,
    omega: Finite,
    start: Option<NonNegative>,
    ramp: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDomain {
    min: Vec2,
    max: Spanned<Vec2>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMaterial {
    name: Spanned<String>,
    density: Positive,
    kn: Positive,
    kt: Option<NonNegative>,
    restitution: Option<Spanned<Restitution>>,
    gamma_n: Option<Spanned<NonNegative>>,
    gamma_t: Option<NonNegative>,
    friction: NonNegative,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum WallKind {
    Line,
    Box,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWall {
    kind: WallKind,
    point: Option<Spanned<Vec2>>,
    normal: Option<Spanned<NonZeroVec2>>,
    min: Option<Spanned<Vec2>>,
    max: Option<Spanned<Vec2>>,
    open_top: Option<Spanned<bool>>,
    material: Option<Spanned<String>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
enum SourceKind {
    #[default]
    Generate,
    Lammps,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParticles {
    material: Spanned<String>,
    #[serde(rename = "type")]
    type_id: Option<TypeId>,
    source: Option<SourceKind>,
    count: Option<Spanned<PositiveInt>>,
    radius: Option<Spanned<RawRadius>>,
    packing: Option<Spanned<Packing>>,
    region: Option<Spanned<RawRegion>>,
    velocity: Option<Spanned<Vec2>>,
    velocity_jitter: Option<Spanned<NonNegative>>,
    file: Option<Spanned<String>>,
    shape: Option<Spanned<RawShape>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum ShapeKind {
    Disc,
    Random,
    Regular,
    Ellipse,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShape {
    kind: ShapeKind,
    vertices: Option<Spanned<Vec<PositiveInt>>>,
    aspect: Option<Spanned<Positive>>,
    jitter: Option<Spanned<NonNegative>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum RadiusKind {
    Fixed,
    Uniform,
    List,
}

// Flat rather than a serde-tagged enum: tagged enums buffer their content and lose the
// spans of the inner values.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRadius {
    kind: RadiusKind,
    value: Option<Spanned<Positive>>,
    mean: Option<Spanned<Positive>>,
    width: Option<Spanned<Fraction01>>,
    values: Option<Spanned<Vec<Positive>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegion {
    min: Vec2,
    max: Spanned<Vec2>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIntegrator {
    scheme: Option<Scheme>,
    dt: Option<Spanned<Positive>>,
    dt_fraction: Option<Spanned<AboveOne>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNeighbor {
    method: Option<MethodName>,
    margin: Option<NonNegative>,
    every_step: Option<bool>,
    rejection: Option<Rejection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRun {
    steps: PositiveInt,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    every: Option<PositiveInt>,
    energy_every: Option<PositiveInt>,
    dir: Option<String>,
    vtk: Option<bool>,
    dump: Option<bool>,
    energy: Option<bool>,
}

// ---------------------------------------------------------------------------------------
// Conversion and cross-field checks.

const DEFAULT_DT_FRACTION: f64 = 50.0;
const DEFAULT_MARGIN: f64 = 0.1;
const DEFAULT_OUTPUT_DIR: &str = "talus-out";
/// Checkpoints kept by default.
const DEFAULT_KEEP: usize = 3;
/// Default number of output frames over a run.
const DEFAULT_FRAMES: u64 = 20;

struct Ctx<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Ctx<'_> {
    /// An error at `span`, prefixed with the key path found at that place in the file.
    fn err(&self, span: Range<usize>, msg: impl Display) -> IoError {
        let (line, col) = line_col(self.text, span.start);
        let msg = match key_path_at(self.text, &span) {
            Some(key) => format!("{key}: {msg}"),
            None => msg.to_string(),
        };
        IoError::Scenario {
            path: self.path.to_path_buf(),
            line,
            col,
            msg,
        }
    }

    fn toml_error(&self, e: &toml::de::Error) -> IoError {
        match e.span() {
            Some(span) => self.err(span, e.message()),
            None => IoError::Invalid {
                path: self.path.to_path_buf(),
                msg: e.message().to_string(),
            },
        }
    }

    /// `value` must be given; `owner` is the span of the table that should hold it.
    fn required<T>(&self, value: Option<Spanned<T>>, owner: &Range<usize>, key: &str, when: &str) -> Result<T> {
        value
            .map(Spanned::into_inner)
            .ok_or_else(|| self.err(owner.clone(), format!("`{key}` is required {when}")))
    }

    /// `value` must not be given.
    fn forbidden<T>(&self, value: &Option<Spanned<T>>, when: &str) -> Result<()> {
        match value {
            Some(v) => Err(self.err(v.span(), format!("not allowed {when}"))),
            None => Ok(()),
        }
    }

    fn convert(&self, raw: RawScenario) -> Result<Scenario> {
        let domain = Domain {
            min: raw.domain.min.0,
            max: raw.domain.max.get_ref().0,
        };
        self.check_min_max(domain.min, &raw.domain.max, "domain.min")?;

        let (materials, names) = self.materials(raw.material)?;
        let lookup = |name: &Spanned<String>| -> Result<usize> {
            names.get(name.get_ref().as_str()).copied().ok_or_else(|| {
                let known: Vec<String> = materials.iter().map(|m| format!("`{}`", m.name)).collect();
                self.err(
                    name.span(),
                    format!("unknown material `{}` (defined: {})", name.get_ref(), known.join(", ")),
                )
            })
        };

        let mut walls = Vec::with_capacity(raw.wall.len());
        for w in raw.wall {
            walls.push(self.wall(w, &lookup)?);
        }

        let mut particles = Vec::new();
        match raw.particles {
            Some(p) if p.get_ref().is_empty() => {
                return Err(self.err(p.span(), "at least one particle source is required"));
            }
            Some(p) => {
                for p in p.into_inner() {
                    particles.push(self.particles(p, &domain, &lookup)?);
                }
            }
            None if raw.insert.is_empty() => {
                return Err(self.err(
                    0..0,
                    "at least one [[particles]] source or [[insert]] stream is required",
                ));
            }
            None => {}
        }
        let mut inserts = Vec::with_capacity(raw.insert.len());
        for i in raw.insert {
            inserts.push(self.insert(i, &domain, &lookup)?);
        }

        let mut bodies = Vec::with_capacity(raw.body.len());
        for b in raw.body {
            let span = b.span();
            let b = b.into_inner();
            let material = lookup(&b.material)?;
            let vspan = b.vertices.span();
            let vertices: Vec<[f64; 2]> = b.vertices.into_inner().into_iter().map(|v| v.0).collect();
            if let Err(e) = talus_engine::PolygonShape::new(&vertices) {
                return Err(self.err(vspan, e.to_string().trim_start_matches("invalid setup: ")));
            }
            let motion = match b.motion.unwrap_or(MotionKind::Fixed) {
                MotionKind::Fixed | MotionKind::Free if b.drive.is_some() => {
                    return Err(self.err(b.drive.unwrap().span(), "a drive needs motion = \"driven\""))
                }
                MotionKind::Fixed => Motion::Fixed,
                MotionKind::Free => Motion::Free,
                MotionKind::Driven => {
                    let d = b
                        .drive
                        .ok_or_else(|| self.err(span.clone(), "`drive` is required for motion = \"driven\""))?
                        .into_inner();
                    Motion::Driven(Drive {
                        centre: d.centre.0,
                        omega: d.omega.map_or(0.0, |w| w.0),
                        velocity: d.velocity.map_or([0.0; 2], |v| v.0),
                        start: d.start.map_or(0.0, |s| s.0),
                        ramp: d.ramp.map_or(0.0, |r| r.0),
                    })
                }
            };
            bodies.push(PolygonBody {
                material,
                type_id: b.type_id.map_or(1, |t| t.0),
                vertices,
                motion,
            });
        }
        let mut drums = Vec::with_capacity(raw.drum.len());
        for d in raw.drum {
            let d = d.into_inner();
            let segments = d.segments.get_ref().0;
            if !(3..=4096).contains(&segments) {
                return Err(self.err(d.segments.span(), format!("must be in 3..=4096, got {segments}")));
            }
            drums.push(Drum {
                material: lookup(&d.material)?,
                centre: d.centre.0,
                radius: d.radius.0,
                thickness: d.thickness.0,
                segments,
                omega: d.omega.0,
                start: d.start.map_or(0.0, |s| s.0),
                ramp: d.ramp.map_or(0.0, |r| r.0),
            });
        }

        let integrator = match raw.integrator {
            None => Integrator {
                scheme: Scheme::Verlet,
                time_step: TimeStep::Fraction(DEFAULT_DT_FRACTION),
            },
            Some(i) => {
                let time_step = match (i.dt, i.dt_fraction) {
                    (Some(_), Some(f)) => return Err(self.err(f.span(), "`dt` and `dt_fraction` cannot both be given")),
                    (Some(dt), None) => TimeStep::Fixed(dt.into_inner().0),
                    (None, Some(f)) => TimeStep::Fraction(f.into_inner().0),
                    (None, None) => TimeStep::Fraction(DEFAULT_DT_FRACTION),
                };
                Integrator {
                    scheme: i.scheme.unwrap_or(Scheme::Verlet),
                    time_step,
                }
            }
        };

        let neighbor = raw.neighbor.map_or(
            Neighbor {
                method: NeighborMethod::Sweep,
                margin: DEFAULT_MARGIN,
                every_step: false,
                rejection: Rejection::default(),
            },
            |n| Neighbor {
                method: n.method.map_or(NeighborMethod::Sweep, |m| m.0),
                margin: n.margin.map_or(DEFAULT_MARGIN, |m| m.0),
                every_step: n.every_step.unwrap_or(false),
                rejection: n.rejection.unwrap_or_default(),
            },
        );

        let run = Run { steps: raw.run.steps.0 };
        let default_every = (run.steps / DEFAULT_FRAMES).max(1);
        let output = match raw.output {
            None => Output {
                every: default_every,
                energy_every: None,
                dir: PathBuf::from(DEFAULT_OUTPUT_DIR),
                vtk: true,
                dump: true,
                energy: true,
            },
            Some(o) => Output {
                every: o.every.map_or(default_every, |e| e.0),
                energy_every: o.energy_every.map(|e| e.0),
                dir: PathBuf::from(o.dir.as_deref().unwrap_or(DEFAULT_OUTPUT_DIR)),
                vtk: o.vtk.unwrap_or(true),
                dump: o.dump.unwrap_or(true),
                energy: o.energy.unwrap_or(true),
            },
        };

        let checkpoint = match raw.checkpoint {
            None => CheckpointSettings {
                every: 0,
                keep: DEFAULT_KEEP,
                dir: PathBuf::from("checkpoints"),
            },
            Some(c) => CheckpointSettings {
                every: c.every.unwrap_or(0),
                keep: c.keep.map_or(DEFAULT_KEEP, |k| k.0 as usize),
                dir: c.dir.map_or_else(|| PathBuf::from("checkpoints"), PathBuf::from),
            },
        };

        Ok(Scenario {
            title: raw.title,
            seed: raw.seed.unwrap_or(1),
            domain,
            gravity: raw.gravity.map_or([0.0, 0.0], |g| g.0),
            materials,
            walls,
            particles,
            inserts,
            bodies,
            drums,
            integrator,
            neighbor,
            run,
            output,
            checkpoint,
            text: String::new(),
        })
    }

    /// `max` must exceed `min` in both components; the error points at `max`.
    fn check_min_max(&self, min: [f64; 2], max: &Spanned<Vec2>, min_name: &str) -> Result<()> {
        let m = max.get_ref().0;
        if m[0] > min[0] && m[1] > min[1] {
            Ok(())
        } else {
            Err(self.err(
                max.span(),
                format!("must be greater than {min_name} in both components, got max = {m:?}, min = {min:?}"),
            ))
        }
    }

    fn materials(&self, raw: Spanned<Vec<Spanned<RawMaterial>>>) -> Result<(Vec<Material>, HashMap<String, usize>)> {
        if raw.get_ref().is_empty() {
            return Err(self.err(raw.span(), "at least one [[material]] is required"));
        }
        let mut materials = Vec::with_capacity(raw.get_ref().len());
        let mut names = HashMap::new();
        for m in raw.into_inner() {
            let span = m.span();
            let m = m.into_inner();
            let damping = match (m.restitution, m.gamma_n) {
                (Some(_), Some(g)) => {
                    return Err(self.err(g.span(), "`restitution` and `gamma_n` cannot both be given"))
                }
                (Some(e), None) => NormalDamping::Restitution(e.into_inner().0),
                (None, Some(g)) => NormalDamping::GammaN(g.into_inner().0),
                (None, None) => return Err(self.err(span, "one of `restitution` or `gamma_n` is required")),
            };
            let name = m.name.get_ref().clone();
            if names.insert(name.clone(), materials.len()).is_some() {
                return Err(self.err(m.name.span(), format!("material `{name}` is defined twice")));
            }
            materials.push(Material {
                name,
                density: m.density.0,
                kn: m.kn.0,
                kt: m.kt.map_or(2.0 / 7.0 * m.kn.0, |k| k.0),
                damping,
                gamma_t: m.gamma_t.map(|g| g.0),
                friction: m.friction.0,
            });
        }
        Ok((materials, names))
    }

    fn wall(&self, raw: Spanned<RawWall>, lookup: &dyn Fn(&Spanned<String>) -> Result<usize>) -> Result<Wall> {
        let span = raw.span();
        let w = raw.into_inner();
        // walls without a material use the first one
        let material = w.material.as_ref().map_or(Ok(0), lookup)?;
        match w.kind {
            WallKind::Line => {
                let when = "with kind = \"line\"";
                self.forbidden(&w.min, when)?;
                self.forbidden(&w.max, when)?;
                self.forbidden(&w.open_top, when)?;
                let point = self.required(w.point, &span, "point", "for kind = \"line\"")?;
                let normal = self.required(w.normal, &span, "normal", "for kind = \"line\"")?;
                let [nx, ny] = normal.0;
                let len = nx.hypot(ny);
                Ok(Wall::Line {
                    point: point.0,
                    normal: [nx / len, ny / len],
                    material,
                })
            }
            WallKind::Box => {
                let when = "with kind = \"box\"";
                self.forbidden(&w.point, when)?;
                self.forbidden(&w.normal, when)?;
                let min = self.required(w.min, &span, "min", "for kind = \"box\"")?;
                let max = w
                    .max
                    .ok_or_else(|| self.err(span.clone(), "`max` is required for kind = \"box\""))?;
                self.check_min_max(min.0, &max, "min")?;
                Ok(Wall::Box {
                    min: min.0,
                    max: max.into_inner().0,
                    open_top: w.open_top.is_some_and(Spanned::into_inner),
                    material,
                })
            }
        }
    }

    fn particles(
        &self,
        raw: Spanned<RawParticles>,
        domain: &Domain,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<Particles> {
        let span = raw.span();
        let p = raw.into_inner();
        let material = lookup(&p.material)?;
        let source = match p.source.unwrap_or_default() {
            SourceKind::Lammps => {
                let when = "with source = \"lammps\"";
                self.forbidden(&p.count, when)?;
                self.forbidden(&p.radius, when)?;
                self.forbidden(&p.packing, when)?;
                self.forbidden(&p.region, when)?;
                // the data file carries its own velocities; an override would be ignored
                self.forbidden(&p.velocity, when)?;
                self.forbidden(&p.velocity_jitter, when)?;
                self.forbidden(&p.shape, when)?;
                let file = self.required(p.file, &span, "file", "for source = \"lammps\"")?;
                ParticleSource::Lammps {
                    file: PathBuf::from(file),
                }
            }
            SourceKind::Generate => {
                let when = "for source = \"generate\"";
                self.forbidden(&p.file, "with source = \"generate\"")?;
                let count = self.required(p.count, &span, "count", when)?;
                let radius = p
                    .radius
                    .ok_or_else(|| self.err(span.clone(), format!("`radius` is required {when}")))?;
                let radius = self.radius(radius)?;
                let packing = self.required(p.packing, &span, "packing", when)?;
                let region = p
                    .region
                    .ok_or_else(|| self.err(span.clone(), format!("`region` is required {when}")))?;
                let region_span = region.span();
                let region = region.into_inner();
                self.check_min_max(region.min.0, &region.max, "region.min")?;
                let (rmin, rmax) = (region.min.0, region.max.get_ref().0);
                let inside = (0..2).all(|k| rmin[k] >= domain.min[k] && rmax[k] <= domain.max[k]);
                if !inside {
                    return Err(self.err(
                        region_span,
                        format!(
                            "must lie inside the domain {:?}..{:?}, got {rmin:?}..{rmax:?}",
                            domain.min, domain.max
                        ),
                    ));
                }
                ParticleSource::Generate {
                    count: count.0,
                    radius,
                    packing,
                    region_min: rmin,
                    region_max: rmax,
                    velocity: p.velocity.map_or([0.0, 0.0], |v| v.into_inner().0),
                    velocity_jitter: p.velocity_jitter.map_or(0.0, |j| j.into_inner().0),
                    shape: match p.shape {
                        Some(sh) => self.shape(sh)?,
                        None => ShapeSpec::Disc,
                    },
                }
            }
        };
        Ok(Particles {
            material,
            type_id: p.type_id.map_or(1, |t| t.0),
            source,
        })
    }

    fn shape(&self, raw: Spanned<RawShape>) -> Result<ShapeSpec> {
        let span = raw.span();
        let r = raw.into_inner();
        let counts = |v: Option<Spanned<Vec<PositiveInt>>>, want: &str| -> Result<Vec<usize>> {
            let v = v.ok_or_else(|| self.err(span.clone(), format!("`vertices` is required {want}")))?;
            let vspan = v.span();
            let n: Vec<usize> = v.into_inner().into_iter().map(|k| k.0 as usize).collect();
            if n.iter().any(|&k| !(3..=64).contains(&k)) {
                return Err(self.err(vspan, format!("vertex counts must be in 3..=64, got {n:?}")));
            }
            Ok(n)
        };
        let aspect = |a: Option<Spanned<Positive>>| -> Result<f64> {
            match a {
                None => Ok(1.0),
                Some(a) if a.get_ref().0 >= 1.0 => Ok(a.into_inner().0),
                Some(a) => Err(self.err(a.span(), format!("must be >= 1, got {}", a.get_ref().0))),
            }
        };
        Ok(match r.kind {
            ShapeKind::Disc => {
                let when = "with kind = \"disc\"";
                self.forbidden(&r.vertices, when)?;
                self.forbidden(&r.aspect, when)?;
                self.forbidden(&r.jitter, when)?;
                ShapeSpec::Disc
            }
            ShapeKind::Regular => {
                self.forbidden(&r.aspect, "with kind = \"regular\"")?;
                self.forbidden(&r.jitter, "with kind = \"regular\"")?;
                let n = counts(r.vertices, "for kind = \"regular\" (e.g. [6])")?;
                if n.len() != 1 {
                    return Err(self.err(span, "`vertices` takes one count for kind = \"regular\""));
                }
                ShapeSpec::Regular { vertices: n[0] }
            }
            ShapeKind::Ellipse => {
                let n = counts(r.vertices, "for kind = \"ellipse\" (e.g. [16])")?;
                if n.len() != 1 {
                    return Err(self.err(span, "`vertices` takes one count for kind = \"ellipse\""));
                }
                ShapeSpec::Ellipse {
                    vertices: n[0],
                    aspect: aspect(r.aspect)?,
                    jitter: r.jitter.map_or(0.01, |j| j.into_inner().0),
                }
            }
            ShapeKind::Random => {
                self.forbidden(&r.jitter, "with kind = \"random\"")?;
                let n = counts(r.vertices, "for kind = \"random\" (e.g. [5, 8])")?;
                if n.len() != 2 || n[0] > n[1] {
                    return Err(self.err(
                        span,
                        "`vertices` takes [min, max] with min <= max for kind = \"random\"",
                    ));
                }
                ShapeSpec::Random {
                    vertices: [n[0], n[1]],
                    aspect: aspect(r.aspect)?,
                }
            }
        })
    }

    fn radius(&self, raw: Spanned<RawRadius>) -> Result<RadiusDist> {
        let span = raw.span();
        let r = raw.into_inner();
        Ok(match r.kind {
            RadiusKind::Fixed => {
                let when = "with kind = \"fixed\"";
                self.forbidden(&r.mean, when)?;
                self.forbidden(&r.width, when)?;
                self.forbidden(&r.values, when)?;
                RadiusDist::Fixed(self.required(r.value, &span, "value", "for kind = \"fixed\"")?.0)
            }
            RadiusKind::Uniform => {
                let when = "with kind = \"uniform\"";
                self.forbidden(&r.value, when)?;
                self.forbidden(&r.values, when)?;
                let req = "for kind = \"uniform\"";
                RadiusDist::Uniform {
                    mean: self.required(r.mean, &span, "mean", req)?.0,
                    width: self.required(r.width, &span, "width", req)?.0,
                }
            }
            RadiusKind::List => {
                let when = "with kind = \"list\"";
                self.forbidden(&r.value, when)?;
                self.forbidden(&r.mean, when)?;
                self.forbidden(&r.width, when)?;
                let values = r
                    .values
                    .ok_or_else(|| self.err(span, "`values` is required for kind = \"list\""))?;
                if values.get_ref().is_empty() {
                    return Err(self.err(values.span(), "must hold at least one radius"));
                }
                RadiusDist::List(values.into_inner().into_iter().map(|v| v.0).collect())
            }
        })
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The dotted key path (e.g. `particles[1].radius.width`) of the deepest key or value at
/// the start of `span`, found by re-parsing the text into toml's spanned tree. `None` for
/// an empty span (toml uses 0..0 for "the whole document") or unparsable text.
fn key_path_at(text: &str, span: &Range<usize>) -> Option<String> {
    if span.is_empty() {
        return None;
    }
    let doc = toml::de::DeTable::parse(text).ok()?;
    path_in_table(doc.get_ref(), span.start)
}

fn contains(span: Range<usize>, pos: usize) -> bool {
    span.contains(&pos)
}

// Children are searched before the entry itself because a table's own span is only its
// header (`[[particles]]`), which does not cover its keys.
fn path_in_table(table: &toml::de::DeTable<'_>, pos: usize) -> Option<String> {
    for (key, value) in table.iter() {
        if let Some(sub) = path_in_children(value.get_ref(), pos) {
            return Some(format!("{}{sub}", key.get_ref()));
        }
        if contains(key.span(), pos) || contains(value.span(), pos) {
            return Some(key.get_ref().to_string());
        }
    }
    None
}

/// The path below `value` (starting with `.` or `[`), if `pos` lies inside a child.
fn path_in_children(value: &toml::de::DeValue<'_>, pos: usize) -> Option<String> {
    match value {
        toml::de::DeValue::Table(t) => path_in_table(t, pos).map(|p| format!(".{p}")),
        toml::de::DeValue::Array(a) => a.iter().enumerate().find_map(|(i, item)| {
            path_in_children(item.get_ref(), pos)
                .or_else(|| contains(item.span(), pos).then(String::new))
                .map(|p| format!("[{i}]{p}"))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scenario using every key.
    const FULL: &str = r#"
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

    fn parse(text: &str) -> Result<Scenario> {
        parse_scenario(text, Path::new("test.toml"))
    }

    /// 1-based line of the first occurrence of `needle` in `text`.
    fn line_of(text: &str, needle: &str) -> usize {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in text"));
        text[..at].matches('\n').count() + 1
    }

    /// Replaces `from` (which must occur) by `to` in FULL.
    fn edit(from: &str, to: &str) -> String {
        assert!(FULL.contains(from), "{from:?} not in FULL");
        FULL.replacen(from, to, 1)
    }

    /// Asserts a scenario error at `line` whose message contains every `keys` entry.
    fn expect_err(text: &str, line: usize, keys: &[&str]) {
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
                max: [0.31, 0.4]
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
                },
                Material {
                    name: "steel".into(),
                    density: 7800.0,
                    kn: 2e6,
                    kt: 2.0 / 7.0 * 2e6,
                    damping: NormalDamping::GammaN(6876.3),
                    gamma_t: None,
                    friction: 0.3,
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
}
