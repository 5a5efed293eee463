//! The engine's one error type: every variant names the particle (by its stable id) and
//! the step, so a failed run says what went wrong where.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("step {step}: particle id {id} left the domain at ({x:.6e}, {y:.6e}); domain is [{min:?}, {max:?}]")]
    Escaped {
        step: u64,
        id: u64,
        x: f64,
        y: f64,
        min: [f64; 2],
        max: [f64; 2],
    },
    #[error("step {step}: particle id {id} has a non-finite position ({x}, {y}) (NaN or infinite forces; is the time step too large?)")]
    NonFinite { step: u64, id: u64, x: f64, y: f64 },
    #[error("saved state, section {section}: {msg}")]
    State { section: String, msg: String },
    #[error("invalid setup: {0}")]
    Setup(String),
    #[error("a worker thread panicked in the {phase} phase: {msg}")]
    Worker { phase: &'static str, msg: String },
}

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
