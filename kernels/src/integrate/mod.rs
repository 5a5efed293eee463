//! Time integration of the particle degrees of freedom, in the build's dimension: velocity
//! Verlet and the position check on per-axis arrays, Gear's predictor-corrector one degree
//! of freedom at a time.
pub mod gear;
pub mod position_check;
pub mod verlet;
