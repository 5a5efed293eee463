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

pub use talus_engine::wall_motion::{Displacement, Servo};
pub use talus_engine::NeighborMethod;
pub use talus_kernels::contact::law::NormalModel;
pub use talus_kernels::contact::{CohesionModel, RollingModel};
use talus_kernels::math::{norm2, Vector, DIM};

use crate::{IoError, Result};

mod insert;
pub use insert::{Amount, Insert};

/// The built-in default scenario (also an annotated example of the format).
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/default.toml");

/// A whole, validated scenario. All values are in SI units; vectors have the build's
/// dimension (`dimension = 3` in the file for the 3D build).
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// `title`: a name for the run (None: the file's path names it).
    pub title: Option<String>,
    /// Seed of the random number generator used by particle generators.
    pub seed: u64,
    /// `[domain]`.
    pub domain: Domain,
    /// `gravity`, m/s^2 (default zero).
    pub gravity: Vector,
    /// At least one; walls and particle sources refer to them by index.
    pub materials: Vec<Material>,
    /// `[[wall]]`s, in file order.
    pub walls: Vec<Wall>,
    /// Particle sources (at least one of them or of `inserts`).
    pub particles: Vec<Particles>,
    /// Particles poured in over time (`[[insert]]`).
    pub inserts: Vec<Insert>,
    /// Single polygons given by their vertices (walls, obstacles, hopper sides).
    #[cfg(not(feature = "dim3"))]
    pub bodies: Vec<PolygonBody>,
    /// Rotating drums: rings of driven wall polygons.
    #[cfg(not(feature = "dim3"))]
    pub drums: Vec<Drum>,
    /// The normal force law (`[contact] model`; Hertz for discs and spheres, not polygons).
    pub normal_model: NormalModel,
    /// `[contact] rolling`: the rolling-resistance law of pairs with a rolling friction.
    pub rolling: RollingModel,
    /// `[contact] cohesion`: the size of contact cohesive pairs pull with (sjkr, or sjkr2
    /// in 3D).
    pub cohesion_model: CohesionModel,
    /// `[[pair]]` entries, in file order.
    pub pairs: Vec<PairSpec>,
    /// `[[wall]] move`: (the wall's index in `walls`, its motion), in file order.
    pub wall_motions: Vec<(usize, WallMove)>,
    /// `[integrator]`.
    pub integrator: Integrator,
    /// `[neighbor]`.
    pub neighbor: Neighbor,
    /// `[run]`: the run's length (with stages, their total).
    pub run: Run,
    /// `[[stage]]`s, in file order (none: the run is one stage, `run`).
    pub stages: Vec<Stage>,
    /// `[output]`.
    pub output: Output,
    /// `[analysis]`: None when the section is absent.
    pub analysis: Option<Analysis>,
    /// `[[outflow]]`: regions that take grains out.
    pub outflows: Vec<Outflow>,
    /// `[checkpoint]`.
    pub checkpoint: CheckpointSettings,
    /// The text the scenario was parsed from (checkpoints carry it and its hash).
    pub text: String,
}

/// Hard bounds of the simulation: a particle leaving them is an error of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Domain {
    /// Low corner, m.
    pub min: Vector,
    /// Strictly greater than `min` in every component.
    pub max: Vector,
    /// The axes that wrap (`periodic = ["x"]`): the domain is the periodic cell along them.
    pub periodic: [bool; DIM],
    /// Lees-Edwards shear rate (1/s; 0: none): x flows, y is the gradient.
    pub shear_rate: f64,
    /// `servo`: the cell's y length held by a servo to a normal stress across y.
    pub servo: Option<CellServo>,
}

/// `[domain] servo`: a servo on a periodic cell's y length that holds the grains' normal
/// stress across y (the engine's `CellServo`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellServo {
    /// -stress_yy to hold: N/m in 2D, Pa in 3D.
    pub stress: f64,
    /// m/s of the cell's length per N of error on its face.
    pub gain: f64,
    /// The cell's largest speed of growth (m/s).
    pub max_speed: f64,
    /// Steps between measurements of the stress (default 10).
    pub every: u64,
    /// The shortest and longest y lengths (default half and twice the domain's).
    pub min_length: f64,
    /// See `min_length`.
    pub max_length: f64,
}

/// `[[material]]`: the density and contact coefficients of one material.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// `name`: unique; the other sections refer to the material by it.
    pub name: String,
    /// Areal density in 2D, kg/m^2 (disc mass = density pi r^2); density in 3D, kg/m^3
    /// (sphere mass = density 4/3 pi r^3).
    pub density: f64,
    /// Normal spring stiffness, N/m.
    pub kn: f64,
    /// Tangential spring stiffness, N/m (default 2/7 kn already applied).
    pub kt: f64,
    /// Normal damping: `restitution` or `gamma_n`.
    pub damping: NormalDamping,
    /// Tangential damping, 1/s; `None` = derive it (gamma_n / 2) in the converter.
    pub gamma_t: Option<f64>,
    /// Coulomb friction coefficient.
    pub friction: f64,
    /// Cohesion energy density (LIGGGHTS sjkr): J/m^3 in 3D (times the crossing area), J/m^2
    /// in 2D (times the chord); 0 = none.
    pub cohesion: f64,
    /// Rolling friction coefficient mu_r (LIGGGHTS coefficientRollingFriction); 0 = none.
    pub rolling_friction: f64,
}

/// `[[wall]] move`: a translation of the wall (every face of a box) along the unit
/// `direction` by a law of time, or by a servo (a line or plane); or a turn about a pivot.
#[derive(Debug, Clone, PartialEq)]
pub struct WallMove {
    /// Unit direction of the translation (`direction`; default the wall's normal, a box's +y in 2D,
    /// +z in 3D, a box face's inward normal).
    pub direction: Vector,
    /// What moves it: a law of time or a servo.
    pub drive: WallDrive,
}

/// How a wall moves.
#[derive(Debug, Clone, PartialEq)]
pub enum WallDrive {
    /// A displacement by a law of time: `velocity`, `sine` or `table`.
    Law(Displacement),
    /// A line or plane held to a force.
    Servo(Servo),
    /// Every face of a closed box held to the stress of its axis (Yade's
    /// TriaxialStressController): `stress` per axis (N/m^2 in 3D, N/m in 2D), the servo's
    /// gain and max_speed as a force servo's.
    Stress {
        /// Target stress per axis (N/m^2 in 3D, N/m in 2D).
        stress: Vector,
        /// m/s per N of force error.
        gain: f64,
        /// Greatest speed of a face, m/s.
        max_speed: f64,
    },
    /// A line or plane (every face of a box) turned about the axis through `pivot` by the
    /// angle a law of time gives (rad): a tilting floor, a flap, a turntable.
    Tilt {
        /// A point on the axis (m).
        pivot: Vector,
        /// The unit axis (3D, right-handed; 2D: `[1.0]`, counter-clockwise).
        axis: [f64; talus_kernels::math::ANG],
        /// The angle theta(t) (rad).
        law: Displacement,
    },
    /// A cylinder (3D) held to a radial stress over its area between two planes across its
    /// axis (a triaxial cell's confining pressure).
    CylinderStress {
        /// Target stress, N/m^2.
        stress: f64,
        /// m/s per N of force error.
        gain: f64,
        /// Greatest speed of the radius, m/s.
        max_speed: f64,
        /// The two planes (indices into `Scenario::walls`).
        between: [usize; 2],
    },
}

/// `[[pair]]`: coefficients of one pair of materials (indices into the materials) that
/// replace their mixing; `None` keeps the mixed value.
#[derive(Debug, Clone, PartialEq)]
pub struct PairSpec {
    /// Index of the first material into `Scenario::materials`.
    pub a: usize,
    /// Index of the second material (`a` again for the like pair).
    pub b: usize,
    /// Normal spring stiffness, N/m.
    pub kn: Option<f64>,
    /// Tangential spring stiffness, N/m.
    pub kt: Option<f64>,
    /// Normal damping: `restitution` or `gamma_n`.
    pub damping: Option<NormalDamping>,
    /// Tangential damping, 1/s.
    pub gamma_t: Option<f64>,
    /// Coulomb friction coefficient.
    pub friction: Option<f64>,
    /// Cohesion energy density: J/m^3 in 3D, J/m^2 in 2D.
    pub cohesion: Option<f64>,
    /// Rolling friction coefficient mu_r.
    pub rolling_friction: Option<f64>,
}

/// How a `[[body]]` moves.
#[cfg(not(feature = "dim3"))]
#[derive(Debug, Clone, PartialEq)]
pub enum Motion {
    /// Does not move (infinite mass).
    Fixed,
    /// A grain like any other.
    Free,
    /// Follows a prescribed rigid motion (infinite mass).
    Driven(Drive),
}

/// One polygon given by its vertices in the world frame (counter-clockwise, convex).
#[cfg(not(feature = "dim3"))]
#[derive(Debug, Clone, PartialEq)]
pub struct PolygonBody {
    /// Index into `Scenario::materials`.
    pub material: usize,
    /// The `type` column in outputs, >= 1.
    pub type_id: u16,
    /// Vertices in the world frame, m.
    pub vertices: Vec<[f64; 2]>,
    /// `motion` (default fixed), with its `drive` when driven.
    pub motion: Motion,
}

/// A rotating drum: `segments` wall polygons of the given thickness on a ring of inner
/// radius `radius` about `centre`, turning at `omega` (rad/s, counter-clockwise positive).
#[cfg(not(feature = "dim3"))]
#[derive(Debug, Clone, PartialEq)]
pub struct Drum {
    /// Index into `Scenario::materials`.
    pub material: usize,
    /// Centre of the ring, m.
    pub centre: [f64; 2],
    /// Inner radius of the ring, m.
    pub radius: f64,
    /// Radial thickness of the wall polygons, m.
    pub thickness: f64,
    /// Number of wall polygons on the ring (3..=4096).
    pub segments: u64,
    /// Angular velocity once turning, rad/s (0 with `turn`).
    pub omega: f64,
    /// Time (s) at which the drum starts turning.
    pub start: f64,
    /// Seconds over which it reaches `omega` from rest, after `start`.
    pub ramp: f64,
    /// In place of `omega`: the angle turned (rad) as a law of the time since `start`.
    pub turn: Option<Displacement>,
}

/// How the normal damping is specified: exactly one of the two.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormalDamping {
    /// Coefficient of restitution in (0, 1].
    Restitution(f64),
    /// Damping per unit effective mass, 1/s (LAMMPS gran/hooke convention).
    GammaN(f64),
}

/// `[[wall]]`: one wall, by its `kind`.
#[derive(Debug, Clone, PartialEq)]
pub enum Wall {
    /// Infinite straight wall (2D); particles stay on the side `normal` points to.
    #[cfg(not(feature = "dim3"))]
    Line {
        /// A point of the line, m.
        point: [f64; 2],
        /// Unit vector.
        normal: [f64; 2],
        /// Index into `Scenario::materials`.
        material: usize,
    },
    /// Infinite plane (3D); particles stay on the side `normal` points to.
    #[cfg(feature = "dim3")]
    Plane {
        /// A point of the plane, m.
        point: [f64; 3],
        /// Unit vector.
        normal: [f64; 3],
        /// Index into `Scenario::materials`.
        material: usize,
    },
    /// Inward-facing walls on the box `min..max`: four lines in 2D, six planes in 3D.
    Box {
        /// Low corner, m.
        min: Vector,
        /// High corner, m.
        max: Vector,
        /// Leave out the top wall (the high side of the last axis: y in 2D, z in 3D).
        open_top: bool,
        /// Index into `Scenario::materials`.
        material: usize,
    },
    /// The inside of a cylinder (3D) of `radius` about the line through `point` along the
    /// unit `axis`, turning about it at `omega` rad/s (right-handed about `axis`): a drum.
    #[cfg(feature = "dim3")]
    Cylinder {
        /// A point of the axis, m.
        point: [f64; 3],
        /// Unit direction of the axis.
        axis: [f64; 3],
        /// Inner radius, m.
        radius: f64,
        /// Angular velocity, rad/s (0: still).
        omega: f64,
        /// In place of `omega`: the angle turned (rad) as a law of the time since the run
        /// began or the stage that starts the drum.
        turn: Option<Displacement>,
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
    /// Where the particles come from (`source`).
    pub source: ParticleSource,
}

/// Where the particles of a `[[particles]]` source come from (`source`).
#[derive(Debug, Clone, PartialEq)]
pub enum ParticleSource {
    /// Generated in a region (`source = "generate"`, the default).
    Generate {
        /// `count`: number of particles.
        count: u64,
        /// `radius`: the distribution of radii, m.
        radius: RadiusDist,
        /// `packing`: how they are placed.
        packing: Packing,
        /// Low corner of the region they are placed in (`region.min`), m; inside the domain.
        region_min: Vector,
        /// High corner of that region, m.
        region_max: Vector,
        /// Initial velocity before the jitter, m/s (default zero).
        velocity: Vector,
        /// Each velocity component gets a uniform random number in [-j, j].
        velocity_jitter: f64,
        /// Discs (default) or convex polygons of circumradius drawn from `radius` (2D).
        #[cfg(not(feature = "dim3"))]
        shape: ShapeSpec,
    },
    /// A LAMMPS data file (atom_style sphere). `load_scenario` resolves a relative
    /// path against the scenario file's folder; `parse_scenario` leaves it as written.
    Lammps {
        /// `file`: the data file.
        file: PathBuf,
    },
}

/// The radius distribution is the generator's own type (fixed, uniform in
/// [mean (1 - width), mean (1 + width)] with 0 <= width < 1, or a list taken in turn).
pub use talus_engine::generate::RadiusDist;
#[cfg(not(feature = "dim3"))]
pub use talus_engine::generate::ShapeSpec;
#[cfg(not(feature = "dim3"))]
pub use talus_engine::Drive;

/// `[[particles]] packing`: how generated particles are placed in their region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Packing {
    /// Close-packed lattice (hexagonal in 2D, hexagonal close packing in 3D), spacing
    /// from the largest radius.
    Lattice,
    /// Random, non-overlapping.
    Random,
}

/// `[integrator]`: the time-integration scheme and the time step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Integrator {
    /// `scheme` (default Verlet).
    pub scheme: Scheme,
    /// `dt` or `dt_fraction` (default `dt_fraction` = 50; under Hertz `dt` is required).
    pub time_step: TimeStep,
}

/// `[integrator] scheme`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// Velocity Verlet.
    Verlet,
    /// 6-value Gear predictor-corrector.
    Gear,
}

/// The time step: `[integrator] dt` or `dt_fraction`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeStep {
    /// dt in seconds.
    Fixed(f64),
    /// dt = t_contact / fraction for the stiffest (lightest) contact; fraction > 1.
    Fraction(f64),
}

/// `[neighbor]`: the neighbour search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    /// `method` (default sweep).
    pub method: NeighborMethod,
    /// Verlet skin as a fraction of the mean particle radius.
    pub margin: f64,
    /// Re-sweep every step instead of only when a particle left its enlarged box.
    pub every_step: bool,
    /// Cheap tests on candidate pairs of polygons before the exact one (2D).
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

/// `[run]`: the run's length. With `[[stage]]`s, `steps` is their total and `until` is None.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    /// The most steps.
    pub steps: u64,
    /// Stop earlier, once settled (`[run] until`).
    pub until: Option<Until>,
}

/// `[run] until`: the run stops at the first check (every `every` steps) where each
/// quantity given is below its threshold: the grains' kinetic energy (translational and
/// rotational, J), Yade's unbalanced-force ratio, and every servo's relative error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Until {
    /// `kinetic`: threshold of the grains' kinetic energy, J.
    pub kinetic: Option<f64>,
    /// `unbalanced`: threshold of the unbalanced-force ratio.
    pub unbalanced: Option<f64>,
    /// Every servo's load within this fraction of its target (Yade's stress criterion).
    pub servo: Option<f64>,
    /// Steps between checks (default: a twentieth of the steps).
    pub every: u64,
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

/// `[output]`: the files a run writes, how often and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Write frames every this many steps (>= 1).
    pub every: u64,
    /// Write an energy row every this many steps (None: with every frame).
    pub energy_every: Option<u64>,
    /// Relative to the current directory.
    pub dir: PathBuf,
    /// `vtk`: ParaView `.vtu` frames and their `.pvd` series (default true).
    pub vtk: bool,
    /// `dump`: a LAMMPS text dump, for OVITO (default true).
    pub dump: bool,
    /// `energy`: the CSV time series of the energies (default true).
    pub energy: bool,
}

/// `[analysis]`: stress, coordination, wall forces and the rest of
/// [`talus_engine::Analysis`] every `every` steps, into `analysis.csv`, each frame's
/// per-grain stress and contacts, and (with `network`) the contact network.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Every this many steps (default: with every frame).
    pub every: u64,
    /// The box whose packing fraction is measured (None: not measured).
    pub region: Option<talus_engine::Region>,
    /// Write the contact network (`contacts.pvd`) with each analysis.
    pub network: bool,
}

/// `[[outflow]]`: every `every` steps, the grains whose centres lie in `region` are taken
/// out and counted (a hopper's discharge: `outflow.csv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outflow {
    /// The box (inside the domain) whose grains are taken out.
    pub region: talus_engine::Region,
    /// Steps between checks (default [`OUTFLOW_EVERY`]).
    pub every: u64,
}

/// Steps between an outflow's checks when `every` is not given.
pub const OUTFLOW_EVERY: u64 = 100;

/// The dimension a scenario text asks for (`dimension`, 2 when absent), read before
/// anything else so that the program can pick the build that runs it. A file that is not
/// TOML at all gets the error the full parse would give.
pub fn scenario_dimension(text: &str, path: &Path) -> Result<usize> {
    #[derive(Deserialize)]
    struct Only {
        dimension: Option<Spanned<i64>>,
    }
    let ctx = Ctx { text, path };
    let only: Only = toml::from_str(text).map_err(|e| ctx.toml_error(&e))?;
    ctx.dimension(&only.dimension)
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

#[cfg(not(feature = "dim3"))]
mod bodies;
mod convert;
mod location;
mod pairs;
mod periodic;
mod raw;
mod stages;
mod time_law;
mod values;
mod wall_move;
use convert::*;
use location::*;
use raw::*;
use stages::Names;
pub use stages::{Named, Stage, WallPart, BOX_FACES};
use values::*;

#[cfg(all(test, not(feature = "dim3")))]
mod tests;
#[cfg(all(test, feature = "dim3"))]
mod tests3d;
#[cfg(all(test, not(feature = "dim3")))]
mod tests_cell_servo;
#[cfg(all(test, not(feature = "dim3")))]
mod tests_motion;
#[cfg(all(test, not(feature = "dim3")))]
mod tests_pairs;
#[cfg(all(test, not(feature = "dim3")))]
mod tests_stages;
