//! Raw file layout. Cross-field checks need spans, hence the `Spanned` fields.
use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) title: Option<String>,
    pub(super) dimension: Option<Spanned<i64>>,
    pub(super) seed: Option<u64>,
    pub(super) domain: RawDomain,
    pub(super) gravity: Option<Coords>,
    pub(super) material: Spanned<Vec<Spanned<RawMaterial>>>,
    #[serde(default)]
    pub(super) wall: Vec<Spanned<RawWall>>,
    pub(super) particles: Option<Spanned<Vec<Spanned<RawParticles>>>>,
    #[serde(default)]
    pub(super) insert: Vec<Spanned<insert::RawInsert>>,
    #[cfg(not(feature = "dim3"))]
    #[serde(default)]
    pub(super) body: Vec<Spanned<RawBody>>,
    #[cfg(not(feature = "dim3"))]
    #[serde(default)]
    pub(super) drum: Vec<Spanned<RawDrum>>,
    // 2D only so far: read in 3D to be refused by name.
    #[cfg(feature = "dim3")]
    pub(super) body: Option<Spanned<toml::Value>>,
    #[cfg(feature = "dim3")]
    pub(super) drum: Option<Spanned<toml::Value>>,
    pub(super) contact: Option<RawContact>,
    #[serde(default)]
    pub(super) pair: Vec<Spanned<RawPair>>,
    pub(super) integrator: Option<RawIntegrator>,
    pub(super) neighbor: Option<RawNeighbor>,
    pub(super) run: Option<Spanned<RawRun>>,
    #[serde(default)]
    pub(super) stage: Vec<Spanned<super::stages::RawStage>>,
    pub(super) output: Option<RawOutput>,
    pub(super) analysis: Option<Spanned<RawAnalysis>>,
    #[serde(default)]
    pub(super) outflow: Vec<Spanned<RawOutflow>>,
    pub(super) checkpoint: Option<RawCheckpoint>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutflow {
    pub(super) region: Option<Spanned<RawRegion>>,
    pub(super) every: Option<PositiveInt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAnalysis {
    pub(super) every: Option<PositiveInt>,
    pub(super) region: Option<Spanned<RawRegion>>,
    pub(super) network: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCheckpoint {
    pub(super) every: Option<u64>,
    pub(super) keep: Option<PositiveInt>,
    pub(super) dir: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawContact {
    pub(super) model: Option<Spanned<ModelName>>,
    pub(super) rolling: Option<RollingName>,
    pub(super) cohesion: Option<Spanned<CohesionName>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum RollingName {
    Epsd2,
    Cdt,
}

/// `[contact] cohesion`: LIGGGHTS' `cohesion sjkr` or `sjkr2`.
#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum CohesionName {
    Sjkr,
    Sjkr2,
}

/// `[[pair]]`: the coefficients of one pair of materials, over their mixing.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPair {
    pub(super) materials: Spanned<Vec<Spanned<String>>>,
    pub(super) kn: Option<Positive>,
    pub(super) kt: Option<NonNegative>,
    pub(super) restitution: Option<Spanned<Restitution>>,
    pub(super) gamma_n: Option<Spanned<NonNegative>>,
    pub(super) gamma_t: Option<NonNegative>,
    pub(super) friction: Option<NonNegative>,
    pub(super) cohesion: Option<NonNegative>,
    pub(super) rolling_friction: Option<NonNegative>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum ModelName {
    Hooke,
    Hertz,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum MotionKind {
    Fixed,
    Free,
    Driven,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrive {
    pub(super) centre: Vec2,
    pub(super) omega: Option<Spanned<Finite>>,
    pub(super) velocity: Option<Spanned<Vec2>>,
    pub(super) start: Option<NonNegative>,
    pub(super) ramp: Option<Spanned<NonNegative>>,
    pub(super) slide: Option<Spanned<RawLaw>>,
    pub(super) turn: Option<Spanned<RawLaw>>,
}

/// A law of time: `slide = {direction, velocity | sine | table}` (m) or `turn = {velocity
/// | sine | table}` (rad) of a drive or a drum.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLaw {
    pub(super) direction: Option<Spanned<Direction>>,
    pub(super) velocity: Option<Finite>,
    pub(super) sine: Option<RawSine>,
    pub(super) table: Option<Spanned<Vec<[f64; 2]>>>,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBody {
    pub(super) name: Option<Spanned<String>>,
    pub(super) material: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) type_id: Option<TypeId>,
    pub(super) vertices: Spanned<Vec<Vec2>>,
    pub(super) motion: Option<MotionKind>,
    pub(super) drive: Option<Spanned<RawDrive>>,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrum {
    pub(super) name: Option<Spanned<String>>,
    pub(super) material: Spanned<String>,
    pub(super) centre: Vec2,
    pub(super) radius: Positive,
    pub(super) thickness: Positive,
    pub(super) segments: Spanned<PositiveInt>,
    pub(super) omega: Option<Finite>,
    pub(super) start: Option<NonNegative>,
    pub(super) ramp: Option<Spanned<NonNegative>>,
    pub(super) turn: Option<Spanned<RawLaw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDomain {
    pub(super) min: Coords,
    pub(super) max: Spanned<Coords>,
    pub(super) periodic: Option<Spanned<Vec<Spanned<String>>>>,
    pub(super) shear_rate: Option<Spanned<Finite>>,
    pub(super) servo: Option<Spanned<RawCellServo>>,
}

/// `[domain] servo = {stress, gain, max_speed, every, min_length, max_length}`: the cell's
/// y length under a servo to a normal stress.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCellServo {
    pub(super) stress: Positive,
    pub(super) gain: Positive,
    pub(super) max_speed: Positive,
    pub(super) every: Option<PositiveInt>,
    pub(super) min_length: Option<Positive>,
    pub(super) max_length: Option<Positive>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMaterial {
    pub(super) name: Spanned<String>,
    pub(super) density: Positive,
    pub(super) kn: Positive,
    pub(super) kt: Option<NonNegative>,
    pub(super) restitution: Option<Spanned<Restitution>>,
    pub(super) gamma_n: Option<Spanned<NonNegative>>,
    pub(super) gamma_t: Option<NonNegative>,
    pub(super) friction: NonNegative,
    pub(super) cohesion: Option<NonNegative>,
    pub(super) rolling_friction: Option<NonNegative>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum WallKind {
    Line,
    Plane,
    Box,
    Cylinder,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWall {
    pub(super) name: Option<Spanned<String>>,
    pub(super) kind: WallKind,
    pub(super) point: Option<Spanned<Coords>>,
    pub(super) normal: Option<Spanned<Direction>>,
    pub(super) min: Option<Spanned<Coords>>,
    pub(super) max: Option<Spanned<Coords>>,
    pub(super) open_top: Option<Spanned<bool>>,
    pub(super) axis: Option<Spanned<Direction>>,
    pub(super) radius: Option<Spanned<Positive>>,
    pub(super) omega: Option<Spanned<Finite>>,
    /// A cylinder's angle as a law of time, in place of `omega`.
    pub(super) turn: Option<Spanned<RawLaw>>,
    pub(super) material: Option<Spanned<String>>,
    #[serde(rename = "move")]
    pub(super) motion: Option<Spanned<RawMove>>,
}

/// `[[wall]] move = {...}`: a translation by a function of time, a servo, or (with a
/// `pivot`) a turn about the pivot.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMove {
    pub(super) direction: Option<Spanned<Direction>>,
    pub(super) pivot: Option<Spanned<Coords>>,
    pub(super) axis: Option<Spanned<Direction>>,
    pub(super) velocity: Option<Finite>,
    pub(super) sine: Option<RawSine>,
    pub(super) table: Option<Spanned<Vec<[f64; 2]>>>,
    pub(super) servo: Option<RawServo>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawServo {
    pub(super) force: Option<Finite>,
    pub(super) stress: Option<Spanned<RawStress>>,
    pub(super) gain: Positive,
    pub(super) max_speed: Positive,
    /// A cylinder's stress: the two planes that bound it (by name).
    pub(super) between: Option<Spanned<Vec<Spanned<String>>>>,
}

/// A servo's stress: one for every axis, or one per axis.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawStress {
    All(f64),
    Axes(Vec<f64>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSine {
    pub(super) amplitude: Finite,
    pub(super) frequency: Positive,
    pub(super) phase: Option<Finite>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
pub(super) enum SourceKind {
    #[default]
    Generate,
    Lammps,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawParticles {
    pub(super) material: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) type_id: Option<TypeId>,
    pub(super) source: Option<SourceKind>,
    pub(super) count: Option<Spanned<PositiveInt>>,
    pub(super) radius: Option<Spanned<RawRadius>>,
    pub(super) packing: Option<Spanned<Packing>>,
    pub(super) region: Option<Spanned<RawRegion>>,
    pub(super) velocity: Option<Spanned<Coords>>,
    pub(super) velocity_jitter: Option<Spanned<NonNegative>>,
    pub(super) file: Option<Spanned<String>>,
    #[cfg(not(feature = "dim3"))]
    pub(super) shape: Option<Spanned<RawShape>>,
    // Spheres only in 3D: read to be refused by name.
    #[cfg(feature = "dim3")]
    pub(super) shape: Option<Spanned<toml::Value>>,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum ShapeKind {
    Disc,
    Random,
    Regular,
    Ellipse,
}

#[cfg(not(feature = "dim3"))]
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawShape {
    pub(super) kind: ShapeKind,
    pub(super) vertices: Option<Spanned<Vec<PositiveInt>>>,
    pub(super) aspect: Option<Spanned<Positive>>,
    pub(super) jitter: Option<Spanned<NonNegative>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum RadiusKind {
    Fixed,
    Uniform,
    List,
}

// Flat rather than a serde-tagged enum: tagged enums buffer their content and lose the
// spans of the inner values.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRadius {
    pub(super) kind: RadiusKind,
    pub(super) value: Option<Spanned<Positive>>,
    pub(super) mean: Option<Spanned<Positive>>,
    pub(super) width: Option<Spanned<Fraction01>>,
    pub(super) values: Option<Spanned<Vec<Positive>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegion {
    pub(super) min: Coords,
    pub(super) max: Spanned<Coords>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIntegrator {
    pub(super) scheme: Option<Spanned<Scheme>>,
    pub(super) dt: Option<Spanned<Positive>>,
    pub(super) dt_fraction: Option<Spanned<AboveOne>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNeighbor {
    pub(super) method: Option<MethodName>,
    pub(super) margin: Option<NonNegative>,
    pub(super) every_step: Option<bool>,
    pub(super) rejection: Option<Spanned<Rejection>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRun {
    pub(super) steps: Option<Spanned<PositiveInt>>,
    pub(super) until: Option<Spanned<RawUntil>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUntil {
    pub(super) kinetic: Option<Positive>,
    pub(super) unbalanced: Option<Positive>,
    pub(super) servo: Option<Positive>,
    pub(super) every: Option<PositiveInt>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    pub(super) every: Option<PositiveInt>,
    pub(super) energy_every: Option<PositiveInt>,
    pub(super) dir: Option<String>,
    pub(super) vtk: Option<bool>,
    pub(super) dump: Option<bool>,
    pub(super) energy: Option<bool>,
}
