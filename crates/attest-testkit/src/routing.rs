//! A router's case table (TOML `[[case]] q = "…", tool = "…", args = {…}, options =
//! […]`; no `tool` means the question must be asked back) checked against the router:
//! each case's tool and exact arguments, at least two options and a question back on
//! every decline, the same decision every time, and no catch-all.

use attest_core::Decision;
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

/// One routing case.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// The question.
    pub q: String,
    /// The tool it must reach; `None`: it must be asked back.
    #[serde(default)]
    pub tool: Option<String>,
    /// The exact arguments the router must extract.
    #[serde(default)]
    pub args: Map<String, Value>,
    /// Options a decline must include.
    #[serde(default)]
    pub options: Vec<String>,
}

/// Parse a case table.
pub fn cases(toml_text: &str) -> Vec<Case> {
    toml::from_str::<Cases>(toml_text).expect("the routing case table parses").case
}

/// Check every case against `route`, and that there are at least `min` of them;
/// every failing case is listed in one panic.
pub fn check(cases: &[Case], min: usize, route: impl Fn(&str) -> Decision) {
    assert!(cases.len() >= min, "only {} cases, want at least {min}", cases.len());
    let mut failures = Vec::new();
    for c in cases {
        let d = route(&c.q);
        let mut problems = Vec::new();
        if d.tool != c.tool {
            problems.push(format!("tool {:?}, expected {:?}", d.tool, c.tool));
        }
        if d.args != c.args {
            problems.push(format!(
                "args {}, expected {}",
                Value::Object(d.args.clone()),
                Value::Object(c.args.clone())
            ));
        }
        if d.tool.is_none() {
            if d.options.len() < 2 {
                problems.push(format!("decline offers {:?}, fewer than two options", d.options));
            }
            for o in &c.options {
                if !d.options.contains(o) {
                    problems.push(format!("decline does not offer {o} (offers {:?})", d.options));
                }
            }
            if d.answer.trim().is_empty() {
                problems.push("decline without a question back".into());
            }
        }
        if d != route(&c.q) {
            problems.push("a second call decided differently".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{:?}: {}", c.q, problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// Questions no rule should claim (plus `extra`): each must be asked back with at least
/// two options, never routed.
pub fn no_catch_all(extra: &[&str], route: impl Fn(&str) -> Decision) {
    for q in ["", "?", "ok", "lol", "my cat", "xyzzy plugh", "12345"].iter().chain(extra) {
        let d = route(q);
        assert!(d.tool.is_none(), "{q:?} was routed to {:?}", d.tool);
        assert!(d.options.len() >= 2, "{q:?} offers {:?}", d.options);
    }
}
