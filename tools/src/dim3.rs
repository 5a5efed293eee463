//! The 3D build of the commands that step a scenario (spheres): the same sources as
//! `dim2.rs` (`stepping.rs`, `resume.rs`, `profile.rs`, `thermo.rs`) on the 3D crates.
pub use talus_engine3d as engine;
pub use talus_io3d as io;

#[path = "profile.rs"]
pub mod profile;
#[path = "resume.rs"]
pub mod resume;
#[path = "stepping.rs"]
pub mod stepping;
#[path = "thermo.rs"]
pub mod thermo;

use talus_engine3d::Simulation;

pub use crate::run::{Shortfall, SummaryExtras};

/// The run summary's lines of this dimension: none yet (insertion streams and polygons
/// are 2D only).
pub fn summary_extras(_sim: &Simulation) -> SummaryExtras {
    SummaryExtras::default()
}

/// Insertion events that fell short since the last call: there are no insertion streams
/// in 3D yet.
pub fn take_shortfalls(_sim: &mut Simulation) -> Vec<Shortfall> {
    Vec::new()
}
