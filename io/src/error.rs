//! The one error type of the io crate. Every variant names the file and, where it
//! applies, the line (and column) of the problem, so the command line can print one
//! clear message.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The operating system refused a read or write.
    #[error("{}: {source}", path.display())]
    Os {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A text file (LAMMPS data file, scenario file) is malformed at a given line.
    #[error("{}:{line}: {msg}", path.display())]
    Parse { path: PathBuf, line: usize, msg: String },
    /// A scenario file has an unknown key, a wrong type or an impossible value.
    #[error("{}:{line}:{col}: {msg}", path.display())]
    Scenario {
        path: PathBuf,
        line: usize,
        col: usize,
        msg: String,
    },
    /// A checkpoint file that cannot be used: which file, which section (if one), what.
    #[error("{}: checkpoint{}: {msg}", path.display(), section.as_ref().map(|s| format!(", section {s}")).unwrap_or_default())]
    Checkpoint {
        path: PathBuf,
        section: Option<String>,
        msg: String,
    },
    /// Anything else that is wrong with a whole input (e.g. a particle source that is empty).
    #[error("{}: {msg}", path.display())]
    Invalid { path: PathBuf, msg: String },
}

impl IoError {
    pub fn os(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        IoError::Os {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = IoError> = std::result::Result<T, E>;
