//! Time integration of the particle degrees of freedom: Gear's predictor-corrector works
//! on one degree of freedom at a time, in either dimension; velocity Verlet and the
//! position check are written for the 2D store (x, y, angle) so far.
pub mod gear;
#[cfg(not(feature = "dim3"))]
pub mod position_check;
#[cfg(not(feature = "dim3"))]
pub mod verlet;
