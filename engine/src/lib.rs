//! talus-engine: the particle store (structure of arrays), the contact table with its
//! history, walls, materials, particle generators and the simulation loop.
pub mod contacts;
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
pub mod shapes;
pub mod sim;
pub mod store;
pub mod topology;
pub mod walls;

pub use drive::Drive;
pub use error::{EngineError, Result};
pub use insert::{Amount, InsertCounts, InsertSpec, Inserter, Shortfall};
pub use material::Material;
pub use parallel::ForceStrategy;
pub use shapes::PolygonShape;
pub use sim::{
    Config, Elem, Energies, Integrator, NarrowStats, NeighborMethod, Rejection, Section, SectionSource, Simulation,
    SETTINGS_SECTIONS,
};
pub use store::{flags, ParticleInit, ParticleStore};
pub use talus_kernels::contact::disc_wall::LineWall;
pub use talus_kernels::contact::ContactParams;
/// The most particles a simulation holds (the sort-and-sweep's keys hold a 31-bit index).
pub use talus_kernels::neighbor::sweep::MAX_PARTICLES;
pub use walls::Wall;
