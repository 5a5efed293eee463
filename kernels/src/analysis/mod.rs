//! Measurements of a granular assembly from its contacts, as the analysis of a run reports
//! them (`engine/src/sim/analysis.rs` gathers the inputs): the Love-Weber stress
//! ([`stress`]) and the coordination number with and without rattlers ([`rattlers`]).
pub mod rattlers;
pub mod stress;
