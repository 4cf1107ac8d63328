//! Budgets that keep every operation small and quick, whatever the input.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Input and computation limits. Every operation checks them and refuses with a
/// message naming the limit, rather than running long or exhausting memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Limits {
    /// Longest accepted input, in bytes.
    pub max_len: usize,
    /// Deepest accepted nesting (parentheses, powers, unary signs, function calls).
    pub max_depth: usize,
    /// Most digits in one number written in the input.
    pub max_input_digits: usize,
    /// Most digits in any exact number produced while computing.
    pub max_digits: usize,
    /// Most nodes in a parsed expression.
    pub max_nodes: usize,
    /// Most terms in any polynomial produced while computing.
    pub max_terms: usize,
    /// Largest integer power expanded (of anything but a single term).
    pub max_expand_power: u64,
    /// Largest exponent kept on a single atom (`x^n`).
    pub max_exponent: u64,
    /// Most elementary steps (term multiplications, divisions) in one operation.
    pub max_work: u64,
    /// Most derivative orders in one request.
    pub max_order: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_len: 10_000,
            max_depth: 100,
            max_input_digits: 300,
            max_digits: 1_000,
            max_nodes: 20_000,
            max_terms: 5_000,
            max_expand_power: 1_000,
            max_exponent: 100_000,
            max_work: 4_000_000,
            max_order: 20,
        }
    }
}
