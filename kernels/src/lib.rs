//! talus-kernels: pure computation on slices.
//!
//! Neighbour search, contact laws and integrator steps. Nothing here starts a thread,
//! touches a file or allocates in a per-pair or per-particle path: the engine schedules
//! these functions freely and the tests call them directly.
//!
//! One source, two builds ([`math`]): `talus-kernels` (2D: discs and convex polygons) and
//! `talus-kernels3d` (3D: spheres). The 3D build holds, so far, the dimension's algebra, the
//! sphere contact laws and walls, Gear's integrator, and of the neighbour searches the
//! incremental sort-and-sweep, linked cells, Verlet lists, the incrementally migrated
//! quadtree (an octree in 3D) and the brute-force reference (written against
//! [`math::DIM`]); the other searches and the polygon geometry are 2D only so far.
// Every public item has a doc comment (issue 20: the crates are libraries too); CI's
// clippy -D warnings holds it.
#![warn(missing_docs)]
pub mod analysis;
pub mod contact;
#[cfg(not(feature = "dim3"))]
pub mod geometry;
pub mod integrate;
pub mod math;
pub mod neighbor;
pub mod vector_build;
