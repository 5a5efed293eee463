//! The 3D build of the commands that step a scenario (spheres): the same sources as
//! `dim2.rs` (`stepping.rs`, `resume.rs`, `profile.rs`, `thermo.rs`, `streams.rs`) on the
//! 3D crates.
pub use talus_engine3d as engine;
pub use talus_io3d as io;

#[path = "profile.rs"]
pub mod profile;
#[path = "resume.rs"]
pub mod resume;
#[path = "stepping.rs"]
pub mod stepping;
#[path = "streams.rs"]
pub mod streams;
#[path = "thermo.rs"]
pub mod thermo;

use talus_engine3d::Simulation;

pub use crate::run::SummaryExtras;
pub use streams::take_shortfalls;

/// The run summary's lines of this dimension: the insertion streams (no polygons in 3D).
pub fn summary_extras(sim: &Simulation) -> SummaryExtras {
    SummaryExtras {
        insertions: streams::insertion_lines(sim),
        narrow_phase: None,
    }
}
