//! Contact laws: from the geometry and velocities of one touching pair to forces and
//! torques. One file per shape pair (parry's layout); the law's coefficients and its
//! normal models are shared by both dimensions (`law.rs`).
#[cfg(not(feature = "dim3"))]
pub mod disc_disc;
#[cfg(not(feature = "dim3"))]
pub mod disc_wall;
pub mod law;
#[cfg(not(feature = "dim3"))]
pub mod polygon_polygon;
#[cfg(not(feature = "dim3"))]
pub mod polygon_wall;
#[cfg(feature = "dim3")]
pub mod sphere_sphere;
#[cfg(feature = "dim3")]
pub mod sphere_wall;

pub use law::{ContactParams, PairForce};
