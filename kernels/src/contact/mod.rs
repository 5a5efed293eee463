//! Contact laws: from the geometry and velocities of one touching pair to forces and
//! torques. One file per shape pair (parry's layout).
pub mod disc_disc;
pub mod disc_wall;
pub mod law;
pub mod polygon_polygon;
pub mod polygon_wall;

pub use law::{ContactParams, PairForce};
