//! talus-io: scenario files, LAMMPS data files, ParaView (VTU/PVD) and OVITO (LAMMPS dump)
//! output, energy time series.
//!
//! One source, two builds (as the engine): `talus-io` (2D) and `talus-io3d` (`io3d/`,
//! feature `dim3`), which so far holds the LAMMPS data reader only.
pub mod error;
pub use error::{IoError, Result};
#[cfg(not(feature = "dim3"))]
pub mod build;
pub mod checkpoint;
pub mod checkpoint_validate;
pub mod checkpointer;
#[cfg(not(feature = "dim3"))]
pub mod dump;
pub mod lammps_data;
#[cfg(not(feature = "dim3"))]
mod number_text;
#[cfg(not(feature = "dim3"))]
pub mod output;
#[cfg(not(feature = "dim3"))]
pub mod preflight;
#[cfg(not(feature = "dim3"))]
pub mod scenario;
#[cfg(not(feature = "dim3"))]
pub mod series;
#[cfg(not(feature = "dim3"))]
pub mod vtk;
#[cfg(not(feature = "dim3"))]
pub mod walls_vtu;
