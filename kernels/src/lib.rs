//! talus-kernels: pure computation on slices.
//!
//! Neighbour search, contact laws and integrator steps. Nothing here starts a thread,
//! touches a file or allocates in a per-pair or per-particle path: the engine schedules
//! these functions freely and the tests call them directly.
pub mod contact;
pub mod geometry;
pub mod integrate;
pub mod neighbor;
pub mod vector_build;
