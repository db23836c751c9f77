//! Errors of the executor: run-time failures worded as Futhark words them, and failures of
//! the machinery (unsupported constructs, backend errors, bad arguments).

/// Why running a program failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// A run-time error of the program itself (bounds, assertion, division by zero); the
    /// text follows the reference interpreter's wording, which tests match by regex, and
    /// the location (`path:line:col-col`) is printed as the interpreter prints it.
    #[error("{}", runtime_text(.msg, .loc.as_deref()))]
    Runtime { msg: String, loc: Option<String> },
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
    /// A distributed run's rendezvous or a transfer between its processes failed (a peer
    /// that is not there, a timeout, a missing NCCL).
    #[error("distributed run: {0}")]
    Distributed(String),
}

impl ExecError {
    pub fn runtime(msg: impl Into<String>) -> ExecError {
        ExecError::Runtime {
            msg: msg.into(),
            loc: None,
        }
    }

    /// A run-time error of the program at a source location.
    pub fn runtime_at(msg: impl Into<String>, loc: Option<String>) -> ExecError {
        ExecError::Runtime {
            msg: msg.into(),
            loc,
        }
    }

    /// The error located at `loc` when it is a run-time error without a location yet.
    pub fn located(self, loc: Option<&str>) -> ExecError {
        match (self, loc) {
            (ExecError::Runtime { msg, loc: None }, Some(l)) => ExecError::Runtime {
                msg,
                loc: Some(l.to_string()),
            },
            (e, _) => e,
        }
    }

    /// A run-time error that left a call made at `site` (a location with its own frames):
    /// the call joins its backtrace.
    pub fn called_from(self, site: Option<&str>) -> ExecError {
        match (self, site) {
            (
                ExecError::Runtime {
                    msg,
                    loc: Some(loc),
                },
                Some(site),
            ) => ExecError::Runtime {
                msg,
                loc: Some(futhark_ir::loc::called_from(&loc, site)),
            },
            (e, site) => e.located(site),
        }
    }

    pub fn malformed(msg: impl Into<String>) -> ExecError {
        ExecError::Malformed(msg.into())
    }
}

fn runtime_text(msg: &str, loc: Option<&str>) -> String {
    match loc {
        Some(loc) => futhark_ir::loc::render_error(msg, loc),
        None => format!("Error: {msg}"),
    }
}

pub type Result<T> = std::result::Result<T, ExecError>;
