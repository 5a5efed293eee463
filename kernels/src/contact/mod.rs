//! Contact laws: from the geometry and velocities of one touching pair to forces and
//! torques. One file per shape pair (parry's layout); the law's coefficients and its
//! normal models are shared by both dimensions (`law.rs`).
pub mod cohesion;
#[cfg(not(feature = "dim3"))]
pub mod disc_disc;
#[cfg(not(feature = "dim3"))]
pub mod disc_wall;
pub mod extras;
pub mod law;
#[cfg(not(feature = "dim3"))]
pub mod polygon_polygon;
#[cfg(not(feature = "dim3"))]
pub mod polygon_wall;
pub mod rolling;
#[cfg(feature = "dim3")]
pub mod sphere_sphere;
#[cfg(feature = "dim3")]
pub mod sphere_wall;

pub use cohesion::CohesionModel;
pub use extras::PairExtras;
pub use law::{ContactParams, PairForce};
pub use rolling::RollingModel;

use crate::math::{Vector, ANG};

/// The Cundall-Strack tangential spring a contact carries from step to step: a length
/// along the tangent in 2D, a vector in the tangent plane in 3D.
#[cfg(not(feature = "dim3"))]
pub type Spring = f64;
/// The Cundall-Strack tangential spring a contact carries from step to step: a length
/// along the tangent in 2D, a vector in the tangent plane in 3D.
#[cfg(feature = "dim3")]
pub type Spring = [f64; 3];

/// The spring of a contact that has not slipped yet.
#[cfg(not(feature = "dim3"))]
pub const SPRING_ZERO: Spring = 0.0;
/// The spring of a contact that has not slipped yet.
#[cfg(feature = "dim3")]
pub const SPRING_ZERO: Spring = [0.0; 3];

/// The spring's components (one in 2D, three in 3D): for checks and energies written once.
#[inline]
pub fn spring_components(s: &Spring) -> &[f64] {
    #[cfg(not(feature = "dim3"))]
    return std::slice::from_ref(s);
    #[cfg(feature = "dim3")]
    return &s[..];
}

/// The spring's components, writable.
#[inline]
pub fn spring_components_mut(s: &mut Spring) -> &mut [f64] {
    #[cfg(not(feature = "dim3"))]
    return std::slice::from_mut(s);
    #[cfg(feature = "dim3")]
    return &mut s[..];
}

/// Force and torques of one contact, in either dimension: `f` acts on the first body (the
/// second gets the opposite), `ti` and `tj` are the torques on the first and second body
/// (about z in 2D: one component).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactForce {
    /// Force on the first body (N).
    pub f: Vector,
    /// Torque on the first body (N m).
    pub ti: [f64; ANG],
    /// Torque on the second body (N m).
    pub tj: [f64; ANG],
    /// Depth of the overlap (a polygon pair's: its area over the contact line's length).
    pub overlap: f64,
}
