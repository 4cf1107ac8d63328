//! The ledger's one error type.

/// Why a ledger operation did not produce its result.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// A routine refusal: nothing found, ambiguous, undeclared direction, a path
    /// outside the research root. The message says what to do; tools show it as an
    /// `ok: false` answer.
    #[error("{0}")]
    Refused(String),
    /// The database failed. Trouble a person can act on (busy, read-only, full,
    /// damaged) is shown in words with what to do (`attest_store::stop`); anything
    /// else is an internal fault, logged in full and never shown.
    #[error("{}", attest_store::words(.0, None))]
    Store(#[from] sqlx::Error),
    /// A file could not be read where reading it was not optional.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl LedgerError {
    /// A routine refusal with an actionable message.
    pub fn refused(msg: impl Into<String>) -> Self {
        LedgerError::Refused(msg.into())
    }
}
