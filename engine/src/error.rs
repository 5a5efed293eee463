//! The engine's one error type: every variant names the particle (by its stable id) and
//! the step, so a failed run says what went wrong where.
use talus_kernels::math::Vector;

/// An error of the engine: a run that cannot go on, a state or a set-up it refuses.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A particle centre left the domain (`Config::domain_min` .. `domain_max`).
    #[error("step {step}: particle id {id} left the domain at {pos:?}; domain is [{min:?}, {max:?}]")]
    Escaped {
        /// The step being computed (one more than the steps done).
        step: u64,
        /// Stable id of the particle.
        id: u64,
        /// Its position (m).
        pos: Vector,
        /// Low corner of the domain (m).
        min: Vector,
        /// High corner of the domain (m).
        max: Vector,
    },
    /// A particle's position became NaN or infinite.
    #[error("step {step}: particle id {id} has a non-finite position {pos:?} (NaN or infinite forces; is the time step too large?)")]
    NonFinite {
        /// The step being computed (one more than the steps done).
        step: u64,
        /// Stable id of the particle.
        id: u64,
        /// Its position, with a NaN or infinite coordinate.
        pos: Vector,
    },
    /// A saved state (checkpoint) that cannot be restored.
    #[error("saved state, section {section}: {msg}")]
    State {
        /// The section (the name of the array or record) at fault.
        section: String,
        /// What is wrong with it.
        msg: String,
    },
    /// A set-up the engine refuses (input, configuration, resources), with the reason.
    #[error("invalid setup: {0}")]
    Setup(String),
    /// A phase panicked on a worker thread.
    #[error("a worker thread panicked in the {phase} phase: {msg}")]
    Worker {
        /// Name of the phase ([`crate::pool::Phase::name`]).
        phase: &'static str,
        /// The panic's message.
        msg: String,
    },
}

/// The engine's `Result`, with [`EngineError`] by default.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;
