//! Who an answer is for, and so how much of it to send.
//!
//! An agent pays for every character in its model's context, so tools cut their lists
//! (a claims check shows the first rows, `runs.list` at most 25 runs) and the catalogue
//! holds every answer to [`MAX_RESPONSE_CHARS`](crate::MAX_RESPONSE_CHARS). A person at
//! a terminal, or a script exporting an audit, wants every row. That is one setting,
//! [`Budget`], chosen where a catalogue is built ([`Catalogue::with_budget`]): the MCP
//! servers keep the default ([`Budget::Agent`]); the command line asks for
//! [`Budget::Whole`].
//!
//! A tool reads the budget of the call it is answering through [`rows`] (a list's cap)
//! and [`RowLimit`] (a `limit` argument whose maximum binds agents only). The catalogue
//! sets it for the duration of each call, whichever thread polls the call.
//!
//! [`Catalogue::with_budget`]: crate::Catalogue::with_budget

use std::borrow::Cow;
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

/// How much of an answer to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Budget {
    /// An agent's: lists cut to the tools' caps, the whole answer held to
    /// [`MAX_RESPONSE_CHARS`](crate::MAX_RESPONSE_CHARS). The default.
    #[default]
    Agent,
    /// Everything: every row, no character ceiling (a terminal, an export, a CI gate).
    Whole,
}

thread_local! {
    static CURRENT: Cell<Budget> = const { Cell::new(Budget::Agent) };
}

/// The budget of the call being answered ([`Budget::Agent`] outside any call).
pub fn current() -> Budget {
    CURRENT.with(Cell::get)
}

/// How many rows of a list to keep: `cap` for an agent, all of them otherwise.
pub fn rows(cap: usize) -> usize {
    match current() {
        Budget::Agent => cap,
        Budget::Whole => usize::MAX,
    }
}

/// Run `fut` with `budget` as the current budget: set around every poll, so it holds
/// on whichever thread the future runs (work the future spawns elsewhere does not see
/// it).
pub fn scope<F: Future>(budget: Budget, fut: F) -> Scoped<F> {
    Scoped { budget, fut: Box::pin(fut) }
}

/// A future run under a budget; see [`scope`].
pub struct Scoped<F> {
    budget: Budget,
    fut: Pin<Box<F>>,
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        /// Puts the previous budget back, also when the poll panics.
        struct Restore(Budget);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(self.budget)));
        self.fut.as_mut().poll(cx)
    }
}

/// A `limit` argument: a whole number from 1 to `MAX` for an agent ([`DEFAULT`] when
/// absent), any whole number from 1 under [`Budget::Whole`]. Its schema states the
/// agent's range; the command line accepts any number.
///
/// [`DEFAULT`]: RowLimit::DEFAULT
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowLimit<const MAX: i64, const DEFAULT: i64>(i64);

impl<const MAX: i64, const DEFAULT: i64> RowLimit<MAX, DEFAULT> {
    /// The largest value an agent may ask for.
    pub const MAX: i64 = MAX;
    /// The value when none is given.
    pub const DEFAULT: Self = RowLimit(DEFAULT);

    /// A value, checked against the current budget.
    pub fn new(v: i64) -> Result<Self, String> {
        let max = match current() {
            Budget::Agent => MAX,
            Budget::Whole => i64::MAX,
        };
        if (1..=max).contains(&v) { Ok(RowLimit(v)) } else { Err(Self::out_of_range(v)) }
    }

    /// The message for a value outside the range.
    pub fn out_of_range(v: impl std::fmt::Display) -> String {
        match current() {
            Budget::Agent => format!("must be a whole number from 1 to {MAX} (got {v})"),
            Budget::Whole => format!("must be a whole number from 1 up (got {v})"),
        }
    }

    /// The value.
    pub fn get(self) -> i64 {
        self.0
    }

    /// The value as a count.
    pub fn count(self) -> usize {
        usize::try_from(self.0).unwrap_or(0)
    }
}

impl<const MAX: i64, const DEFAULT: i64> Default for RowLimit<MAX, DEFAULT> {
    fn default() -> Self {
        RowLimit(DEFAULT)
    }
}

impl<'de, const MAX: i64, const DEFAULT: i64> Deserialize<'de> for RowLimit<MAX, DEFAULT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match crate::stop::whole_number(d)? {
            Ok(None) => Ok(RowLimit(DEFAULT)),
            Ok(Some(n)) => Self::new(n).map_err(serde::de::Error::custom),
            Err(shown) => Err(serde::de::Error::custom(Self::out_of_range(shown))),
        }
    }
}

impl<const MAX: i64, const DEFAULT: i64> Serialize for RowLimit<MAX, DEFAULT> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

impl<const MAX: i64, const DEFAULT: i64> JsonSchema for RowLimit<MAX, DEFAULT> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("RowLimit_{MAX}_{DEFAULT}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": 1, "maximum": MAX, "default": DEFAULT })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    type Limit = RowLimit<25, 10>;

    fn block_on<F: Future>(f: F) -> F::Output {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut f = Box::pin(f);
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn rows_and_limits_follow_the_budget_of_the_call() {
        let read = |v: Value| serde_json::from_value::<Limit>(v).map(Limit::get).map_err(|e| e.to_string());
        assert_eq!(rows(15), 15);
        assert_eq!(read(Value::Null), Ok(10));
        assert_eq!(read(serde_json::json!(26)), Err("must be a whole number from 1 to 25 (got 26)".into()));
        let whole = block_on(scope(Budget::Whole, async move { (rows(15), read(serde_json::json!(500))) }));
        assert_eq!(whole, (usize::MAX, Ok(500)));
        assert_eq!(
            block_on(scope(Budget::Whole, async { read(serde_json::json!(0)) })),
            Err("must be a whole number from 1 up (got 0)".into())
        );
        // Back to the agent's budget after the call.
        assert_eq!(current(), Budget::Agent);
    }

    #[test]
    fn the_schema_states_the_agents_range() {
        let s = serde_json::to_value(schemars::schema_for!(Limit)).unwrap();
        assert_eq!(
            (s["minimum"].clone(), s["maximum"].clone(), s["default"].clone()),
            (1.into(), 25.into(), 10.into())
        );
    }
}
