//! talus-engine: the particle store (structure of arrays), the contact table with its
//! history, walls, materials, particle generators and the simulation loop.
//!
//! One source, two builds (as the kernels): `talus-engine` (2D: discs and convex polygons)
//! and `talus-engine3d` (`engine3d/Cargo.toml`, feature `dim3`: spheres). The modules of
//! one dimension only sit behind `#[cfg]`; 3D does not have yet what is marked 2D here.
// Every public item has a doc comment (issue 20: the crates are libraries too); CI's
// clippy -D warnings holds it.
#![warn(missing_docs)]
pub mod cache_size;
pub mod contact_log;
pub mod contacts;
#[cfg(not(feature = "dim3"))]
pub mod drive;
pub mod error;
mod forces;
pub mod generate;
pub mod insert;
pub mod material;
pub mod overlaps;
mod owner_sum;
pub mod parallel;
pub mod pool;
#[cfg(not(feature = "dim3"))]
pub mod shapes;
pub mod sim;
pub mod store;
pub mod topology;
pub mod wall_motion;
pub mod walls;
pub mod work_split;

#[cfg(not(feature = "dim3"))]
pub use drive::{Drive, DriveLaws};
pub use error::{EngineError, Result};
pub use insert::{Amount, InsertCounts, InsertSpec, Inserter, Shortfall};
pub use material::Material;
pub use parallel::ForceStrategy;
#[cfg(not(feature = "dim3"))]
pub use shapes::PolygonShape;
pub use sim::{Analysis, CellServo, Config, Energies, Integrator, MemoryParts, NeighborMethod, Region, Simulation};
pub use sim::{Elem, Section, SectionSource, SETTINGS_SECTIONS};
#[cfg(not(feature = "dim3"))]
pub use sim::{NarrowStats, Rejection};
pub use store::{flags, ParticleInit, ParticleStore};
pub use talus_kernels::contact::ContactParams;
/// The most particles a simulation holds (the sort-and-sweep's keys hold a 31-bit index).
pub use talus_kernels::neighbor::sweep::MAX_PARTICLES;
#[cfg(not(feature = "dim3"))]
pub use walls::LineWall;
pub use walls::Wall;
