//! The one error type of the library: every refusal says what went wrong and, for
//! parse errors, where.

use schemars::JsonSchema;
use serde::Serialize;

/// Why an operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SymError {
    /// The text could not be read as mathematics.
    #[error("{message} (at position {position})\n{caret}")]
    Parse {
        /// What was expected or found.
        message: String,
        /// Byte offset in the input where the problem is.
        position: usize,
        /// The input (or the part near the problem) and a caret line under the position.
        caret: String,
    },
    /// An input or computation limit was reached; the message names the limit.
    #[error("{message}")]
    Limit {
        /// What was refused and which limit applies.
        message: String,
    },
    /// The operation cannot be done by this library (honest "cannot").
    #[error("{message}")]
    Unsupported {
        /// What cannot be done.
        message: String,
    },
    /// The input is well formed but not acceptable (e.g. a variable that does not occur).
    #[error("{message}")]
    Input {
        /// What is wrong and what to do.
        message: String,
    },
}

impl SymError {
    /// A parse error at a byte position of `text`, with a caret line pointing at it.
    pub fn parse(text: &str, position: usize, message: impl Into<String>) -> Self {
        SymError::Parse { message: message.into(), position, caret: caret(text, position) }
    }

    /// A limit error.
    pub fn limit(message: impl Into<String>) -> Self {
        SymError::Limit { message: message.into() }
    }

    /// An honest "cannot do this".
    pub fn unsupported(message: impl Into<String>) -> Self {
        SymError::Unsupported { message: message.into() }
    }

    /// Unacceptable input.
    pub fn input(message: impl Into<String>) -> Self {
        SymError::Input { message: message.into() }
    }
}

/// Show up to 60 characters around `position` with a `^` under it.
fn caret(text: &str, position: usize) -> String {
    let position = position.min(text.len());
    let mut start = position.saturating_sub(40);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (position + 20).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let window: String = text[start..end].chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let pad = text[start..position].chars().count();
    let prefix = if start > 0 { "…" } else { "" };
    format!("{prefix}{window}\n{}^", " ".repeat(pad + prefix.chars().count()))
}

/// Result with [`SymError`].
pub type Result<T, E = SymError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_points_at_the_position() {
        let e = SymError::parse("x + * 2", 4, "unexpected '*'");
        let s = e.to_string();
        assert!(s.contains("x + * 2\n    ^"), "{s}");
        assert!(s.contains("position 4"));
    }
}
