//! talus-io: scenario files, LAMMPS data files, ParaView (VTU/PVD) and OVITO (LAMMPS dump)
//! output, energy time series.
//!
//! One source, two builds (as the engine): `talus-io` (2D) and `talus-io3d` (`io3d/`,
//! feature `dim3`: 3D scenarios, spheres' output and checkpoints). What is 2D only
//! (polygons, bodies, drums) sits behind `#[cfg]` in the modules.
// Every public item has a doc comment (issue 20: the crates are libraries too); CI's
// clippy -D warnings holds it.
#![warn(missing_docs)]
pub mod error;
pub use error::{IoError, Result};
pub mod analysis_series;
pub mod build;
pub mod checkpoint;
pub mod checkpoint_validate;
pub mod checkpointer;
pub mod contact_network;
pub mod dump;
pub mod lammps_data;
mod number_text;
pub mod output;
pub mod preflight;
pub mod pvd;
pub mod scenario;
pub mod series;
pub mod stages;
pub mod vtk;
pub mod walls_vtu;
