//! How a tool stops before its answer, and argument ranges written once.
//!
//! A handler returns `Result<Answer<T>, Stop>`, so every routine refusal ("no such
//! item", "limit must be from 1 to 25") and every internal fault leaves through `?`:
//! no nested `Result<Result<_, Answer>, Fault>`, no macro that hides a `return`. The
//! catalogue turns [`Stop::Refused`] into the `ok: false` answer it carries and keeps
//! [`Stop::Fault`] a fault (logged by the server, never shown).
//!
//! [`Bounded`] is an integer argument with its range and default in its type:
//! `limit: Bounded<1, 25, 10>` deserialises (out of range is a refusal naming the
//! argument and the range), publishes `minimum`/`maximum`/`default` in the JSON
//! Schema agents read, and is written nowhere else.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::answer::Answer;
use crate::catalogue::Fault;

/// Why a tool stopped without its answer.
#[derive(Debug)]
pub enum Stop {
    /// A routine refusal or a question back, sent as it is (`ok: false`).
    Refused(Box<Answer<Value>>),
    /// Something that should never happen for any input: logged, never shown.
    Fault(Fault),
}

/// What a tool handler returns.
pub type Outcome<T = Value> = Result<Answer<T>, Stop>;

impl Stop {
    /// A refusal whose line says what to do next.
    pub fn refuse(answer: impl Into<String>) -> Stop {
        Stop::Refused(Box::new(Answer::refuse(answer)))
    }

    /// A question back, with the tools to choose between.
    pub fn ask_back<I, S>(question: impl Into<String>, options: I) -> Stop
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Stop::Refused(Box::new(Answer::ask_back(question, options.into_iter().map(Into::into).collect())))
    }

    /// Offer tools to go on with (a refusal only; a fault is left as it is).
    pub fn with_options<I, S>(mut self, options: I) -> Stop
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        if let Stop::Refused(a) = &mut self {
            a.options = options.into_iter().map(Into::into).collect();
        }
        self
    }

    /// Keep the step the refusal's line offers as data (see [`crate::next`]).
    pub fn with_next(mut self, next: crate::next::Next) -> Stop {
        if let Stop::Refused(a) = &mut self {
            a.next = Some(next);
        }
        self
    }

    /// The answer a refusal carries; `None` for a fault.
    pub fn refusal(&self) -> Option<&Answer<Value>> {
        match self {
            Stop::Refused(a) => Some(a),
            Stop::Fault(_) => None,
        }
    }
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Stop {
        Stop::Fault(f)
    }
}

impl<T: Serialize> From<Answer<T>> for Stop {
    /// An answer given up early: its `data` is dropped, as every refusal's is.
    fn from(a: Answer<T>) -> Stop {
        let mut a = a.into_value();
        a.ok = false;
        a.data = None;
        Stop::Refused(Box::new(a))
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Refused(a) => f.write_str(&a.answer),
            Stop::Fault(e) => write!(f, "internal fault: {e}"),
        }
    }
}

/// An integer argument between `MIN` and `MAX` (inclusive), `DEFAULT` when absent or
/// null. Its range lives in its type, so the check, the schema and the message agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bounded<const MIN: i64, const MAX: i64, const DEFAULT: i64>(i64);

impl<const MIN: i64, const MAX: i64, const DEFAULT: i64> Bounded<MIN, MAX, DEFAULT> {
    /// The smallest value accepted.
    pub const MIN: i64 = MIN;
    /// The largest value accepted.
    pub const MAX: i64 = MAX;
    /// The value when none is given.
    pub const DEFAULT: Self = Bounded(DEFAULT);

    /// A value, checked: out of range is the message every tool gives.
    pub fn new(v: i64) -> Result<Self, String> {
        if (MIN..=MAX).contains(&v) { Ok(Bounded(v)) } else { Err(Self::out_of_range(v)) }
    }

    /// The message for a value outside the range.
    pub fn out_of_range(v: impl std::fmt::Display) -> String {
        format!("must be a whole number from {MIN} to {MAX} (got {v})")
    }

    /// The value.
    pub fn get(self) -> i64 {
        self.0
    }

    /// The value as a count (ranges used as counts start at 0 or more).
    pub fn count(self) -> usize {
        usize::try_from(self.0).unwrap_or(0)
    }
}

impl<const MIN: i64, const MAX: i64, const DEFAULT: i64> Default for Bounded<MIN, MAX, DEFAULT> {
    fn default() -> Self {
        Bounded(DEFAULT)
    }
}

impl<'de, const MIN: i64, const MAX: i64, const DEFAULT: i64> Deserialize<'de> for Bounded<MIN, MAX, DEFAULT> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match whole_number(d)? {
            Ok(None) => Ok(Bounded(DEFAULT)),
            Ok(Some(n)) => Self::new(n).map_err(serde::de::Error::custom),
            Err(shown) => Err(serde::de::Error::custom(Self::out_of_range(shown))),
        }
    }
}

/// A whole number as agents send one: 5, 5.0 or "5". `Ok(None)` when it is absent or
/// null; `Err` with what was sent, clipped for a message, when it is not a whole number.
pub(crate) fn whole_number<'de, D: Deserializer<'de>>(d: D) -> Result<Result<Option<i64>, String>, D::Error> {
    let v = Option::<Value>::deserialize(d)?;
    let n = match &v {
        None | Some(Value::Null) => return Ok(Ok(None)),
        Some(Value::Number(n)) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        Some(_) => None,
    };
    Ok(n.map(Some).ok_or_else(|| crate::text::clip(&v.map(|v| v.to_string()).unwrap_or_default(), 40)))
}

impl<const MIN: i64, const MAX: i64, const DEFAULT: i64> Serialize for Bounded<MIN, MAX, DEFAULT> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(self.0)
    }
}

impl<const MIN: i64, const MAX: i64, const DEFAULT: i64> JsonSchema for Bounded<MIN, MAX, DEFAULT> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Bounded_{MIN}_{MAX}_{DEFAULT}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "integer", "minimum": MIN, "maximum": MAX, "default": DEFAULT })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Limit = Bounded<1, 25, 10>;

    #[test]
    fn bounded_reads_defaults_whole_numbers_and_refuses_the_rest() {
        let read = |v: Value| serde_json::from_value::<Limit>(v).map(Limit::get).map_err(|e| e.to_string());
        assert_eq!(read(Value::Null), Ok(10));
        assert_eq!(read(serde_json::json!(5)), Ok(5));
        assert_eq!(read(serde_json::json!(5.0)), Ok(5));
        assert_eq!(read(serde_json::json!("7")), Ok(7));
        assert_eq!(read(serde_json::json!(26)), Err("must be a whole number from 1 to 25 (got 26)".into()));
        assert_eq!(read(serde_json::json!(2.5)), Err("must be a whole number from 1 to 25 (got 2.5)".into()));
        assert_eq!(read(serde_json::json!([1])), Err("must be a whole number from 1 to 25 (got [1])".into()));
    }

    #[test]
    fn bounded_schema_states_the_range() {
        let s = serde_json::to_value(schemars::schema_for!(Limit)).unwrap();
        assert_eq!(s["minimum"], 1);
        assert_eq!(s["maximum"], 25);
        assert_eq!(s["default"], 10);
        assert_eq!(s["type"], "integer");
    }

    #[test]
    fn an_answer_given_up_early_is_a_refusal_without_data() {
        let Stop::Refused(a) = Stop::from(Answer::ok("half", 3)) else { panic!("a refusal") };
        assert!(!a.ok);
        assert_eq!(a.data, None);
        let s = Stop::refuse("no").with_options(["t.a", "t.b"]);
        assert_eq!(s.refusal().unwrap().options, ["t.a", "t.b"]);
    }
}
