//! Time integration of the particle degrees of freedom (x, y, angle).
pub mod gear;
pub mod position_check;
pub mod verlet;
