//! Errors of the executor: run-time failures worded as Futhark words them, and failures of
//! the machinery (unsupported constructs, backend errors, bad arguments).

/// Why running a program failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// A run-time error of the program itself (bounds, assertion, division by zero); the
    /// text follows the reference interpreter's wording, which tests match by regex.
    #[error("Error: {0}")]
    Runtime(String),
    /// A construct the executor cannot run.
    #[error("unsupported by the executor: {0}")]
    Unsupported(String),
    /// The program is not well formed (an unbound name, a type mismatch): a compiler bug.
    #[error("malformed program: {0}")]
    Malformed(String),
    /// Arguments that do not fit the entry point.
    #[error("{0}")]
    Args(String),
    /// The run took longer than its deadline.
    #[error("timed out")]
    Timeout,
    /// The caller's interrupt flag was set.
    #[error("interrupted")]
    Interrupted,
    /// The device failed (out of memory, NVRTC, launch errors).
    #[error("backend error: {0}")]
    Backend(String),
}

impl ExecError {
    pub fn runtime(msg: impl Into<String>) -> ExecError {
        ExecError::Runtime(msg.into())
    }

    pub fn malformed(msg: impl Into<String>) -> ExecError {
        ExecError::Malformed(msg.into())
    }
}

pub type Result<T> = std::result::Result<T, ExecError>;
