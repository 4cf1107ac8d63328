//! Scoring a router on labelled questions: `attest eval routing FILE`.
//!
//! A labelled question says which surface it was asked on (`s`), the question (`q`),
//! the one tool that should run (`t`, or `null` when the question is too unclear and
//! must be asked back) and the arguments it states (`args`). A question that belongs to
//! another surface is labelled with that surface's tool: the router is right when it
//! runs nothing and names that tool among its options (an "ask it there" answer).
//!
//! Each question lands in exactly one of three bins: **right**, **wrong** (a tool ran
//! that should not have: another tool, or any tool for a question that had to be asked
//! back or belonged elsewhere) and **declined** (nothing ran though a tool should
//! have, or a foreign question was declined without naming its tool). Arguments are
//! scored only on questions routed right: each stated key whose extracted value equals
//! the label (text compared case- and space-insensitively, numbers by value).
//!
//! Pure: the caller reads the file and supplies the routers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::route::Decision;
use crate::surface::Surface;

/// One labelled question, as a line of the file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Labelled {
    /// The surface it is asked on: feed, runs, kg or sym.
    pub s: String,
    /// The question.
    pub q: String,
    /// The tool that should run, or `None` when it must be asked back.
    #[serde(default)]
    pub t: Option<String>,
    /// The arguments the question states.
    #[serde(default)]
    pub args: Map<String, Value>,
}

/// A line of the file as written: a [`Labelled`] question and, optionally, `given`:
/// the ask's other arguments passed beside the question (feed's `user`, `item_id` or
/// `url`, sym's `expr`, kg's `user`). [`parse_given`] returns both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    s: String,
    q: String,
    #[serde(default)]
    t: Option<String>,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    given: Map<String, Value>,
}

/// Counts for one surface, or all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Routed to the labelled tool, asked back when it had to be, or sent elsewhere
    /// naming the right tool.
    pub right: usize,
    /// A tool ran that should not have.
    pub wrong: usize,
    /// Nothing ran though a tool should have.
    pub declined: usize,
    /// Questions scored.
    pub turns: usize,
    /// Stated arguments extracted with the labelled value (on right routes).
    pub args_right: usize,
    /// Stated arguments on right routes.
    pub args_total: usize,
}

impl Tally {
    /// Add another tally's counts.
    pub fn add(&mut self, o: &Tally) {
        self.right += o.right;
        self.wrong += o.wrong;
        self.declined += o.declined;
        self.turns += o.turns;
        self.args_right += o.args_right;
        self.args_total += o.args_total;
    }
}

/// What went wrong with one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Miss {
    /// The surface.
    pub s: String,
    /// The question.
    pub q: String,
    /// `wrong`, `declined` or `args`.
    pub kind: String,
    /// The labelled tool.
    pub expected: Option<String>,
    /// The tool the router chose.
    pub got: Option<String>,
    /// The labelled arguments that were not extracted as labelled, with what was.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub args: Map<String, Value>,
}

/// Stated arguments of one kind (a tool and an argument name) on right routes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgCount {
    /// Extracted with the labelled value.
    pub right: usize,
    /// Stated.
    pub total: usize,
}

/// The whole score.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Report {
    /// Every surface together.
    pub overall: Tally,
    /// Per surface.
    pub surfaces: BTreeMap<String, Tally>,
    /// Stated arguments by tool and name (`"runs.compare family"`), on right routes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub arguments: BTreeMap<String, ArgCount>,
    /// Each question not right, and each right route with an argument wrong.
    pub misses: Vec<Miss>,
}

impl Report {
    /// Add another report's counts and misses.
    pub fn add(&mut self, o: &Report) {
        self.overall.add(&o.overall);
        for (s, t) in &o.surfaces {
            self.surfaces.entry(s.clone()).or_default().add(t);
        }
        for (k, a) in &o.arguments {
            let e = self.arguments.entry(k.clone()).or_default();
            e.right += a.right;
            e.total += a.total;
        }
        self.misses.extend(o.misses.iter().cloned());
    }
}

/// Parse a labelled file: one JSON object a line; blank lines and lines starting with
/// `#` are skipped. A bad line is an error naming it. What a line gives beside its
/// question (`given`) is read and dropped: [`parse_given`] keeps it.
pub fn parse(text: &str) -> Result<Vec<Labelled>, String> {
    Ok(parse_given(text)?.into_iter().map(|(l, _)| l).collect())
}

/// A labelled question with the ask's other arguments its line gives.
pub type WithGiven = (Labelled, Map<String, Value>);

/// Parse a labelled file, keeping each line's `given` object (empty when absent).
pub fn parse_given(text: &str) -> Result<Vec<WithGiven>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let l: Line = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        if Surface::find(&l.s).is_none() {
            return Err(format!("line {}: unknown surface '{}' (use feed, runs, kg or sym)", i + 1, l.s));
        }
        out.push((Labelled { s: l.s, q: l.q, t: l.t, args: l.args }, l.given));
    }
    Ok(out)
}

/// Score `cases` with `route(surface, question)`, ignoring what was given beside the
/// questions.
pub fn score(cases: &[Labelled], route: impl Fn(&str, &str) -> Decision) -> Report {
    score_given(cases, &[], |s, q, _| route(s, q))
}

/// Score `cases` with `route(surface, question, given)`: each question is decided with
/// the ask's other arguments its line gives (`given[i]` for `cases[i]`, as
/// [`parse_given`] reads them; none when missing).
pub fn score_given(
    cases: &[Labelled],
    given: &[Map<String, Value>],
    route: impl Fn(&str, &str, &Map<String, Value>) -> Decision,
) -> Report {
    let mut report = Report::default();
    let none = Map::new();
    for (i, c) in cases.iter().enumerate() {
        let d = route(&c.s, &c.q, given.get(i).unwrap_or(&none));
        let mut t = Tally { turns: 1, ..Tally::default() };
        let surface = Surface::find(&c.s);
        let foreign = c.t.as_deref().is_some_and(|tool| surface.is_some_and(|s| !s.allows(tool)));
        let miss = |kind: &str, args: Map<String, Value>| Miss {
            s: c.s.clone(),
            q: c.q.clone(),
            kind: kind.into(),
            expected: c.t.clone(),
            got: d.tool.clone(),
            args,
        };
        match (&c.t, &d.tool) {
            (Some(want), None) if foreign && d.options.iter().any(|o| o == want) => t.right = 1,
            (Some(_), None) => {
                t.declined = 1;
                report.misses.push(miss("declined", Map::new()));
            }
            (None, None) => t.right = 1,
            (Some(want), Some(got)) if want == got && !foreign => {
                t.right = 1;
                let mut bad = Map::new();
                for (k, v) in &c.args {
                    t.args_total += 1;
                    let count = report.arguments.entry(format!("{want} {k}")).or_default();
                    count.total += 1;
                    match d.args.get(k) {
                        Some(g) if same(v, g) => {
                            t.args_right += 1;
                            count.right += 1;
                        }
                        g => {
                            bad.insert(k.clone(), g.cloned().unwrap_or(Value::Null));
                        }
                    }
                }
                if !bad.is_empty() {
                    report.misses.push(miss("args", bad));
                }
            }
            (_, Some(_)) => {
                t.wrong = 1;
                report.misses.push(miss("wrong", Map::new()));
            }
        }
        report.overall.add(&t);
        report.surfaces.entry(c.s.clone()).or_default().add(&t);
    }
    report
}

/// Whether an extracted value is the labelled one.
fn same(want: &Value, got: &Value) -> bool {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
    match (want, got) {
        (Value::String(a), Value::String(b)) => norm(a) == norm(b),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Number(a), Value::String(b)) | (Value::String(b), Value::Number(a)) => {
            b.trim().parse::<f64>().ok() == a.as_f64()
        }
        (a, b) => a == b,
    }
}

/// The report as lines for a terminal: one line per surface and overall, then the
/// misses.
pub fn render(r: &Report) -> String {
    let pct =
        |n: usize, d: usize| if d == 0 { "-".to_string() } else { format!("{:.1}%", 100.0 * n as f64 / d as f64) };
    let line = |name: &str, t: &Tally| {
        format!(
            "{name:<8} right {:>3}/{:<3} ({:>6})  wrong {:>3} ({:>6})  declined {:>3}  args {}/{}\n",
            t.right,
            t.turns,
            pct(t.right, t.turns),
            t.wrong,
            pct(t.wrong, t.turns),
            t.declined,
            t.args_right,
            t.args_total
        )
    };
    let mut out = String::new();
    for (s, t) in &r.surfaces {
        out.push_str(&line(s, t));
    }
    out.push_str(&line("overall", &r.overall));
    if !r.arguments.is_empty() {
        out.push_str("\narguments (right routes):\n");
        for (k, a) in &r.arguments {
            out.push_str(&format!("  {k:<36} {:>4}/{:<4} ({:>6})\n", a.right, a.total, pct(a.right, a.total)));
        }
    }
    if !r.misses.is_empty() {
        out.push_str(&format!("\n{} misses:\n", r.misses.len()));
        for m in &r.misses {
            let want = m.expected.as_deref().unwrap_or("(ask back)");
            let got = m.got.as_deref().unwrap_or("(asked back)");
            let args =
                if m.args.is_empty() { String::new() } else { format!(" args got {}", Value::Object(m.args.clone())) };
            out.push_str(&format!("  [{}] {} {:?}: want {want}, got {got}{args}\n", m.s, m.kind, m.q));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(tool: Option<&str>, args: Value, options: &[&str]) -> Decision {
        Decision {
            tool: tool.map(str::to_string),
            args: args.as_object().cloned().unwrap_or_default(),
            options: options.iter().map(|s| s.to_string()).collect(),
            answer: String::new(),
        }
    }

    #[test]
    fn each_question_lands_in_one_bin() {
        let cases = parse(
            r#"{"s": "runs", "q": "a", "t": "runs.compare", "args": {"family": "kdalpha", "limit": 3}}
               {"s": "runs", "q": "b", "t": "runs.compare"}
               {"s": "runs", "q": "c", "t": null}
               {"s": "runs", "q": "d", "t": "sym.simplify"}
               # a comment
               {"s": "feed", "q": "e", "t": "sym.simplify"}
               {"s": "feed", "q": "f", "t": null}"#,
        )
        .unwrap();
        let r = score(&cases, |_, q| match q {
            "a" => d(Some("runs.compare"), serde_json::json!({"family": "KDalpha ", "limit": "3"}), &[]),
            "b" => d(None, Value::Null, &["runs.compare", "runs.list"]),
            "c" => d(None, Value::Null, &["runs.list", "runs.compare"]),
            "d" => d(None, Value::Null, &["sym.simplify", "runs.list"]),
            "e" => d(None, Value::Null, &["feed.list", "feed.search"]),
            _ => d(Some("feed.list"), Value::Null, &[]),
        });
        assert_eq!(
            r.overall,
            Tally { right: 3, wrong: 1, declined: 2, turns: 6, args_right: 2, args_total: 2 },
            "{}",
            render(&r)
        );
        assert_eq!(r.surfaces["runs"].right, 3);
        let kinds: Vec<&str> = r.misses.iter().map(|m| m.kind.as_str()).collect();
        assert_eq!(kinds, ["declined", "declined", "wrong"]);
    }

    #[test]
    fn given_is_read_and_passed_to_the_router() {
        let text = r#"{"s": "feed", "q": "useful", "t": "feed.rate", "args": {"useful": true}, "given": {"item_id": 7}}
                      {"s": "feed", "q": "what's new?", "t": "feed.list"}"#;
        let lines = parse_given(text).unwrap();
        assert_eq!(lines[0].1["item_id"], 7);
        assert!(lines[1].1.is_empty());
        assert_eq!(parse(text).unwrap().len(), 2);
        let (cases, given): (Vec<Labelled>, Vec<_>) = lines.into_iter().unzip();
        let r = score_given(&cases, &given, |_, q, g| match (q, g.get("item_id")) {
            ("useful", Some(_)) => d(Some("feed.rate"), serde_json::json!({"useful": true}), &[]),
            ("useful", None) => d(None, Value::Null, &["feed.rate", "feed.read"]),
            _ => d(Some("feed.list"), Value::Null, &[]),
        });
        assert_eq!((r.overall.right, r.overall.args_right), (2, 1));
        assert_eq!(r.arguments["feed.rate useful"], ArgCount { right: 1, total: 1 });
        assert!(parse_given(r#"{"s": "feed", "q": "x", "given": 3}"#).is_err());
    }

    #[test]
    fn a_bad_line_is_named() {
        assert_eq!(parse("\n{\"s\": \"runs\"}").unwrap_err(), "line 2: missing field `q` at line 1 column 13");
        assert!(parse(r#"{"s": "x", "q": "a"}"#).unwrap_err().starts_with("line 1: unknown surface 'x'"));
    }
}
