//! The crate's one error type. Every message names the field (or line and column) at fault and what
//! was expected, because it is shown to a person next to the control they just touched.

use thiserror::Error;

/// Everything that can go wrong between a user's input and a release.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    /// A configuration value is out of its allowed range or of the wrong kind.
    #[error("{field}: expected {expected}, got {got}")]
    InvalidParameter {
        field: String,
        expected: String,
        got: String,
    },
    /// Two sizes that must agree do not.
    #[error("{what}: dimension mismatch, expected {expected}, got {got}")]
    DimensionMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A computation produced NaN or ±∞ where a finite number is required.
    #[error("{what}: value is not finite")]
    NonFinite { what: &'static str },
    /// A text input (CSV, JSON config, URL hash) could not be read.
    #[error("line {line}, column {col}: {message}")]
    Parse {
        line: usize,
        col: usize,
        message: String,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(
        field: impl Into<String>,
        expected: impl Into<String>,
        got: impl ToString,
    ) -> Self {
        Error::InvalidParameter {
            field: field.into(),
            expected: expected.into(),
            got: got.to_string(),
        }
    }

    /// This error, raised by a compared algorithm, restated at the `compare` field (where the
    /// page shows it) with the algorithm's name.
    pub fn in_compare(self, algorithm: impl std::fmt::Debug) -> Self {
        Error::invalid(
            "compare",
            format!("settings that {algorithm:?} accepts ({self})"),
            format!("{algorithm:?}"),
        )
    }

    /// The configuration field this error is about, if any, so the page can show it next to that control.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::InvalidParameter { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
