//! Checks of a scenario's particles before anything is simulated: what would fail or
//! explode later is refused (or warned about) at set-up, naming the source and a
//! particle. One check per module:
//!
//! - [`memory`]: a count that would not fit in the machine's memory (or in the engine's
//!   particle indices) is refused before anything is allocated ([`check_memory`]);
//! - [`placement`]: particles that start outside the domain, behind or inside a wall
//!   (lines, planes, cylinders, wall bodies, drums) or deep in it are refused ([`check_placement`]);
//! - [`regions`]: `[[insert]]` regions reaching behind or into a wall are refused
//!   ([`check_insert_regions`]);
//! - [`overlaps`]: coincident and deeply overlapping pairs are warned about
//!   ([`overlap_warnings`]);
//! - [`timestep`]: a dt that is a large fraction of the contact duration, or absurdly
//!   small, is warned about ([`dt_warnings`]).
//!
//! [`walls`] gives the walls as these checks see them, each with its name in messages.
use std::ops::Range;

use crate::scenario as sc;

pub mod memory;
pub mod overlaps;
pub mod placement;
pub mod regions;
pub mod timestep;
pub mod walls;

pub use memory::{
    available_memory, check_generated_memory, check_memory, parse_meminfo, Footprint, MAX_PARTICLES, PAIRS_PER_PARTICLE,
};
pub use overlaps::{overlap_warnings, DEEP_OVERLAP};
pub use placement::{check_placement, WALL_OVERLAP};
pub use regions::check_insert_regions;
pub use timestep::{dt_warnings, DT_FRACTION_WARN, DT_TINY};
#[cfg(not(feature = "dim3"))]
pub use walls::WallBody;
pub use walls::{surface_walls, Reacher, WallShape, Walls};

/// One source of particles (a `[[particles]]` entry, a free `[[body]]`): its name in
/// messages and its particles' places in the build's list.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its name in messages, e.g. `particles[0] (...)`.
    pub label: String,
    /// Its particles' places in the build's list.
    pub range: Range<usize>,
}

/// The label of `[[particles]]` entry `k` in messages.
pub fn source_label(k: usize, source: &sc::ParticleSource) -> String {
    match source {
        sc::ParticleSource::Generate {
            region_min, region_max, ..
        } => format!("particles[{k}] (source = \"generate\", region {region_min:?}..{region_max:?})"),
        sc::ParticleSource::Lammps { file } => format!("particles[{k}] (data file {})", file.display()),
    }
}
