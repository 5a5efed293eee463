//! The engine's one error type: every variant names the particle (by its stable id) and
//! the step, so a failed run says what went wrong where.
use talus_kernels::math::Vector;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("step {step}: particle id {id} left the domain at {pos:?}; domain is [{min:?}, {max:?}]")]
    Escaped {
        step: u64,
        id: u64,
        pos: Vector,
        min: Vector,
        max: Vector,
    },
    #[error("step {step}: particle id {id} has a non-finite position {pos:?} (NaN or infinite forces; is the time step too large?)")]
    NonFinite { step: u64, id: u64, pos: Vector },
    #[error("saved state, section {section}: {msg}")]
    State { section: String, msg: String },
    #[error("invalid setup: {0}")]
    Setup(String),
    #[error("a worker thread panicked in the {phase} phase: {msg}")]
    Worker { phase: &'static str, msg: String },
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
