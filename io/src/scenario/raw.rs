//! Raw file layout. Cross-field checks need spans, hence the `Spanned` fields.
use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) title: Option<String>,
    pub(super) seed: Option<u64>,
    pub(super) domain: RawDomain,
    pub(super) gravity: Option<Vec2>,
    pub(super) material: Spanned<Vec<Spanned<RawMaterial>>>,
    #[serde(default)]
    pub(super) wall: Vec<Spanned<RawWall>>,
    pub(super) particles: Option<Spanned<Vec<Spanned<RawParticles>>>>,
    #[serde(default)]
    pub(super) insert: Vec<Spanned<insert::RawInsert>>,
    #[serde(default)]
    pub(super) body: Vec<Spanned<RawBody>>,
    #[serde(default)]
    pub(super) drum: Vec<Spanned<RawDrum>>,
    pub(super) integrator: Option<RawIntegrator>,
    pub(super) neighbor: Option<RawNeighbor>,
    pub(super) run: RawRun,
    pub(super) output: Option<RawOutput>,
    pub(super) checkpoint: Option<RawCheckpoint>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCheckpoint {
    pub(super) every: Option<u64>,
    pub(super) keep: Option<PositiveInt>,
    pub(super) dir: Option<String>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum MotionKind {
    Fixed,
    Free,
    Driven,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrive {
    pub(super) centre: Vec2,
    pub(super) omega: Option<Finite>,
    pub(super) velocity: Option<Vec2>,
    pub(super) start: Option<NonNegative>,
    pub(super) ramp: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBody {
    pub(super) material: Spanned<String>,
    #[serde(rename = "type")]
    pub(super) type_id: Option<TypeId>,
    pub(super) vertices: Spanned<Vec<Vec2>>,
    pub(super) motion: Option<MotionKind>,
    pub(super) drive: Option<Spanned<RawDrive>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrum {
    pub(super) material: Spanned<String>,
    pub(super) centre: Vec2,
    pub(super) radius: Positive,
    pub(super) thickness: Positive,
    pub(super) segments: Spanned<PositiveInt>,
    pub(super) omega: Finite,
    pub(super) start: Option<NonNegative>,
    pub(super) ramp: Option<NonNegative>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDomain {
    pub(super) min: Vec2,
    pub(super) max: Spanned<Vec2>,
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
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum WallKind {
    Line,
    Box,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWall {
    pub(super) kind: WallKind,
    pub(super) point: Option<Spanned<Vec2>>,
    pub(super) normal: Option<Spanned<NonZeroVec2>>,
    pub(super) min: Option<Spanned<Vec2>>,
    pub(super) max: Option<Spanned<Vec2>>,
    pub(super) open_top: Option<Spanned<bool>>,
    pub(super) material: Option<Spanned<String>>,
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
    pub(super) velocity: Option<Spanned<Vec2>>,
    pub(super) velocity_jitter: Option<Spanned<NonNegative>>,
    pub(super) file: Option<Spanned<String>>,
    pub(super) shape: Option<Spanned<RawShape>>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub(super) enum ShapeKind {
    Disc,
    Random,
    Regular,
    Ellipse,
}

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
    pub(super) min: Vec2,
    pub(super) max: Spanned<Vec2>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawIntegrator {
    pub(super) scheme: Option<Scheme>,
    pub(super) dt: Option<Spanned<Positive>>,
    pub(super) dt_fraction: Option<Spanned<AboveOne>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNeighbor {
    pub(super) method: Option<MethodName>,
    pub(super) margin: Option<NonNegative>,
    pub(super) every_step: Option<bool>,
    pub(super) rejection: Option<Rejection>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRun {
    pub(super) steps: PositiveInt,
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
