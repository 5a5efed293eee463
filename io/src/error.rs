//! The one error type of the io crate. Every variant names the file and, where it
//! applies, the line (and column) of the problem, so the command line can print one
//! clear message.
use std::path::PathBuf;

/// An error of reading or writing a talus input or output file.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// The operating system refused a read or write.
    #[error("{}: {source}", path.display())]
    Os {
        /// The file (or folder) read or written.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A text file (LAMMPS data file, scenario file) is malformed at a given line.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// A scenario file has an unknown key, a wrong type or an impossible value.
    #[error("{}:{line}:{col}: {msg}", path.display())]
    Scenario {
        /// The scenario file.
        path: PathBuf,
        /// 1-based line of the offending key or value.
        line: usize,
        /// 1-based column (in characters) of the offending key or value.
        col: usize,
        /// What is wrong.
        msg: String,
    },
    /// A checkpoint file that cannot be used: which file, which section (if one), what.
    #[error("{}: checkpoint{}: {msg}", path.display(), section.as_ref().map(|s| format!(", section {s}")).unwrap_or_default())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// The section of the file the problem is in, if one.
        section: Option<String>,
        /// What is wrong.
        msg: String,
    },
    /// Anything else that is wrong with a whole input (e.g. a particle source that is empty).
    #[error("{}: {msg}", path.display())]
    Invalid {
        /// The input.
        path: PathBuf,
        /// What is wrong.
        msg: String,
    },
}

impl IoError {
    /// An [`IoError::Os`] of `path`.
    pub fn os(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        IoError::Os {
            path: path.into(),
            source,
        }
    }
}

/// The result of the io crate's functions.
pub type Result<T, E = IoError> = std::result::Result<T, E>;
