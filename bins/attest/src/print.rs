//! Text rendering of answers for people at a terminal.
//!
//! The substance first: a claims check prints every claim grouped by verdict
//! (contradicted first) with both numbers, the run and its evidence file; `runs list`
//! prints the runs under their project and family; `runs show` the whole run. Other
//! answers print their line, then every list of rows in the detail as aligned columns
//! (paths and messages never clipped, so a person can open them), then each caveat on
//! its own line. Tool names and next steps are worded as commands ([`crate::audience`]).
//! Colour goes through anstream: only on a terminal, never with `NO_COLOR`. `--json`
//! prints everything.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use attest_core::Answer;
use attest_core::text::{fmt_g, plural};
use serde_json::Value;

use crate::audience;

const MAX_COL: usize = 48;

/// Columns a person reads whole or opens: never clipped.
const WHOLE: &[&str] =
    &["message", "problem", "reason", "diagnostic", "source_path", "path", "file", "caveat", "url", "context", "title"];

const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

/// `s` in `style` (anstream drops the codes when colour is off).
pub fn paint(s: &str, style: Style) -> String {
    format!("{style}{s}{style:#}")
}

/// How a verdict is coloured: problems red or yellow, good news green.
fn verdict_style(v: &str) -> Style {
    let c = match v {
        "contradicted" | "malformed" | "refuted" => AnsiColor::Red,
        "stale" | "ambiguous" | "unsupported" | "uncited" | "unknown" => AnsiColor::Yellow,
        "supported" | "proved" => AnsiColor::Green,
        _ => return BOLD,
    };
    Style::new().fg_color(Some(c.into())).bold()
}

fn caveat_label() -> String {
    paint("caveat:", Style::new().fg_color(Some(AnsiColor::Yellow.into())))
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => fmt_g(f),
            _ => n.to_string(),
        }),
        Value::String(s) => Some(attest_core::text::clip(s, MAX_COL)),
        _ => None,
    }
}

/// Lists that are an answer's substance, shown before any other list.
const MAIN_LISTS: &[&str] = &["rows", "arms", "runs", "items", "claims", "hits", "families", "projects", "references"];

/// Verdicts a person must see first, in that order; others follow.
const VERDICT_ORDER: &[&str] =
    &["contradicted", "malformed", "stale", "ambiguous", "unsupported", "uncited", "refuted", "unknown", "supported"];

/// Every non-empty array of objects in the detail, with its key, the main ones first.
fn tables(data: &Value) -> Vec<(&str, &Vec<Value>)> {
    let mut t: Vec<(&str, &Vec<Value>)> = data
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| match v {
            Value::Array(rows) if rows.first().is_some_and(Value::is_object) => Some((k.as_str(), rows)),
            _ => None,
        })
        .collect();
    t.sort_by_key(|(k, _)| MAIN_LISTS.iter().position(|m| m == k).unwrap_or(MAIN_LISTS.len()));
    t
}

fn verdict_rank(v: &str) -> usize {
    VERDICT_ORDER.iter().position(|x| *x == v).unwrap_or(VERDICT_ORDER.len())
}

/// Rows with a `verdict`, worst first (stable: the tool's order within a verdict).
fn by_verdict(rows: &[Value]) -> Vec<Value> {
    let mut out = rows.to_vec();
    out.sort_by_key(|r| verdict_rank(r.get("verdict").and_then(Value::as_str).unwrap_or("")));
    out
}

fn table(out: &mut impl Write, rows: &[Value]) -> std::io::Result<()> {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        for (k, v) in r.as_object().into_iter().flatten() {
            if scalar(v).is_some() && !cols.contains(k) {
                cols.push(k.clone());
            }
        }
    }
    let cell = |r: &Value, c: &str| match &r[c] {
        Value::String(s) if WHOLE.contains(&c) => s.clone(),
        v => scalar(v).unwrap_or_default(),
    };
    // The long, whole columns go last, so the short ones stay aligned at the left.
    cols.sort_by_key(|c| WHOLE.contains(&c.as_str()));
    let cells: Vec<Vec<String>> = rows.iter().map(|r| cols.iter().map(|c| cell(r, c)).collect()).collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| cells.iter().map(|r| r[i].chars().count()).chain([c.len()]).max().unwrap_or(0))
        .collect();
    let line = |vals: Vec<&str>| {
        vals.iter().zip(&widths).map(|(v, w)| format!("{v:<w$}")).collect::<Vec<_>>().join("  ").trim_end().to_string()
    };
    writeln!(out, "  {}", paint(&line(cols.iter().map(String::as_str).collect()), DIM))?;
    for r in &cells {
        writeln!(out, "  {}", line(r.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

/// The caveats and options of an answer, worded for a person.
fn tail(out: &mut impl Write, a: &Answer<Value>) -> std::io::Result<()> {
    // A scan's caveats repeat, for an agent, the projects that yielded nothing and the
    // files skipped, which the tables above already list.
    let a = &match a.tool_used.as_deref() {
        Some("runs.scan") if a.data.is_some() => Answer { caveat: None, ..a.clone() },
        _ => a.clone(),
    };
    let listed = a.data.as_ref().and_then(|d| d.get("caveats")).and_then(Value::as_array).filter(|c| !c.is_empty());
    match (listed, &a.caveat) {
        (Some(list), _) => {
            for c in list.iter().filter_map(Value::as_str) {
                writeln!(out, "{} {}", caveat_label(), audience::text(c))?;
            }
        }
        (None, Some(c)) => writeln!(out, "{} {}", caveat_label(), audience::text(c))?,
        (None, None) => {}
    }
    for r in a.refs.iter().filter(|r| r.url.as_deref().is_some_and(|u| !u.starts_with("file://"))) {
        writeln!(out, "  {}  {}", paint(&r.id, DIM), r.url.as_deref().unwrap_or(""))?;
    }
    let options = audience::options(a);
    if !options.is_empty() {
        writeln!(out, "try: {}", options.join("  |  "))?;
    }
    Ok(())
}

/// Print an answer for a person.
pub fn answer(out: &mut impl Write, a: &Answer<Value>) -> std::io::Result<()> {
    if a.ok
        && let Some(data) = &a.data
    {
        match a.tool_used.as_deref() {
            Some("runs.claims_check") => return claims(out, a, data),
            Some("runs.list") => return runs_list(out, a, data),
            Some("runs.detail") => return run_detail(out, a, data),
            Some("runs.compare") => return compare(out, a, data),
            _ => {}
        }
    }
    let line = audience::line(a);
    if a.ok {
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{}", paint(&line, BOLD))?;
    }
    let lists = a.data.as_ref().map(tables).unwrap_or_default();
    let several = lists.len() > 1;
    for (key, rows) in lists {
        if several {
            writeln!(out, "{}:", paint(&key.replace('_', " "), BOLD))?;
        }
        table(out, &by_verdict(rows))?;
    }
    tail(out, a)
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn num(v: &Value, k: &str) -> Option<f64> {
    v.get(k).and_then(Value::as_f64)
}

/// `file:line`, with the notebook cell when there is one.
fn place(r: &Value) -> String {
    let at = format!("{}:{}", s(r, "file"), r.get("line").and_then(Value::as_u64).unwrap_or(0));
    match r.get("cell").filter(|c| c.is_object()) {
        Some(c) => format!(
            "{at} (cell {}, line {})",
            c.get("index").and_then(Value::as_u64).unwrap_or(0),
            c.get("line").and_then(Value::as_u64).unwrap_or(0)
        ),
        None => at,
    }
}

/// `runs.claims_check`: every claim, grouped by verdict, the worst first.
fn claims(out: &mut impl Write, a: &Answer<Value>, data: &Value) -> std::io::Result<()> {
    // The tool's line lists the first problems after " -- " for an agent; the groups
    // below show them all.
    let summary = a.answer.split(" -- ").next().unwrap_or(&a.answer);
    writeln!(out, "{}", paint(summary, BOLD))?;
    let empty = Vec::new();
    let rows = data.get("rows").and_then(Value::as_array).unwrap_or(&empty);
    let mut verdicts: Vec<&str> = rows.iter().map(|r| s(r, "verdict")).collect();
    verdicts.sort_by_key(|v| verdict_rank(v));
    verdicts.dedup();
    for v in verdicts {
        let group: Vec<&Value> = rows.iter().filter(|r| s(r, "verdict") == v).collect();
        writeln!(out, "\n{} ({})", paint(v, verdict_style(v)), group.len())?;
        for r in group {
            let claimed = num(r, "claimed").map(fmt_g).unwrap_or_default();
            let values = match num(r, "actual") {
                Some(x) => format!("draft {claimed}, recorded {}", fmt_g(x)),
                None if v == "ambiguous" => format!("draft {claimed}, no single recorded value"),
                None => format!("draft {claimed}, nothing recorded"),
            };
            let cite = r.get("cite").and_then(Value::as_str).map(|c| format!("  cite={c}")).unwrap_or_default();
            writeln!(out, "  {}  {}  {}: {values}{cite}", paint(&place(r), BOLD), s(r, "run"), s(r, "metric"))?;
            let exact = num(r, "actual").is_some_and(|x| Some(x) == num(r, "claimed"));
            if v != "supported" || !exact {
                writeln!(out, "    {}", audience::text(s(r, "message")))?;
            }
            if let Some(src) = r.get("source_path").and_then(Value::as_str) {
                writeln!(out, "    {} {src}", paint("evidence:", DIM))?;
            }
        }
    }
    let malformed = data.get("malformed").and_then(Value::as_array).unwrap_or(&empty);
    if !malformed.is_empty() {
        writeln!(
            out,
            "\n{} ({}, not checked until fixed)",
            paint("malformed", verdict_style("malformed")),
            malformed.len()
        )?;
        for m in malformed {
            writeln!(out, "  {}  {}", paint(&place(m), BOLD), s(m, "problem"))?;
        }
    }
    let skipped = data.get("skipped").and_then(Value::as_array).unwrap_or(&empty);
    if !skipped.is_empty() {
        writeln!(out, "\n{} ({})", paint("drafts not read", BOLD), skipped.len())?;
        for f in skipped {
            let what = f.as_object().map(|o| o.values().filter_map(Value::as_str).collect::<Vec<_>>().join(": "));
            writeln!(out, "  {}", what.unwrap_or_default())?;
        }
    }
    tail(out, a)
}

/// `runs.list`: runs under their project and family, each family saying how it was
/// grouped.
fn runs_list(out: &mut impl Write, a: &Answer<Value>, data: &Value) -> std::io::Result<()> {
    let empty = Vec::new();
    let runs = data.get("runs").and_then(Value::as_array).unwrap_or(&empty);
    let families = data.get("families").and_then(Value::as_array).unwrap_or(&empty);
    let total = data.get("total").and_then(Value::as_u64).unwrap_or(runs.len() as u64) as usize;
    let mut projects: Vec<&str> = runs.iter().map(|r| s(r, "project")).collect();
    projects.sort_unstable();
    projects.dedup();
    let head = if runs.len() < total {
        format!(
            "{} of {} in {}; --limit N shows more, --project or --family narrows",
            runs.len(),
            plural(total, "run", "runs"),
            plural(projects.len(), "project", "projects")
        )
    } else {
        format!("{} in {}", plural(total, "run", "runs"), plural(projects.len(), "project", "projects"))
    };
    writeln!(out, "{}", paint(&head, BOLD))?;
    let width = runs.iter().map(|r| s(r, "name").chars().count()).max().unwrap_or(0);
    for p in projects {
        writeln!(out, "\n{}", paint(p, BOLD))?;
        let mut fams: Vec<Option<&str>> =
            runs.iter().filter(|r| s(r, "project") == p).map(|r| r.get("family").and_then(Value::as_str)).collect();
        // Families first (by name), runs of no family last.
        fams.sort_by_key(|f| (f.is_none(), *f));
        fams.dedup();
        for f in fams {
            let members: Vec<&Value> =
                runs.iter().filter(|r| s(r, "project") == p && r.get("family").and_then(Value::as_str) == f).collect();
            match f {
                Some(f) => {
                    let info = families.iter().find(|x| s(x, "project") == p && s(x, "family") == f);
                    let n = info.and_then(|x| x.get("n")).and_then(Value::as_u64).map_or(members.len(), |n| n as usize);
                    let how = info.map(|x| s(x, "grouped_by")).filter(|g| !g.is_empty());
                    let how = how.map(|g| format!(", grouped {g}")).unwrap_or_default();
                    writeln!(out, "  family {} ({}{how})", paint(f, BOLD), plural(n, "run", "runs"))?;
                }
                None => writeln!(out, "  {}", paint("in no family", DIM))?,
            }
            for r in members {
                match s(r, "status") {
                    "recorded" => writeln!(out, "    {}", s(r, "name"))?,
                    "spec" => writeln!(out, "    {:<width$}  (a spec: configured, no results yet)", s(r, "name"))?,
                    other => writeln!(out, "    {:<width$}  ({other})", s(r, "name"))?,
                }
            }
        }
    }
    tail(out, a)
}

/// `runs.compare`: the ranking, each arm with its value, sample size, seeds and
/// evidence file, then every caveat.
fn compare(out: &mut impl Write, a: &Answer<Value>, d: &Value) -> std::io::Result<()> {
    writeln!(out, "{}", audience::line(a))?;
    let empty = Vec::new();
    let arms = d.get("arms").and_then(Value::as_array).unwrap_or(&empty);
    let metric = s(d, "metric");
    let with_split = arms.iter().any(|x| x.get("split").is_some_and(|v| !v.is_null()));
    let with_step = arms.iter().any(|x| x.get("step").is_some_and(|v| !v.is_null()));
    let with_sd = arms.iter().any(|x| x.get("sd").is_some_and(|v| !v.is_null()));
    let mut head =
        vec!["rank".to_string(), "arm".into(), if metric.is_empty() { "value".into() } else { metric.to_string() }];
    if with_sd {
        head.push("sd".into());
    }
    head.extend(["n".to_string(), "seeds".into()]);
    if with_split {
        head.push("split".into());
    }
    if with_step {
        head.push("step".into());
    }
    head.push("evidence".into());
    let rows: Vec<Vec<String>> = arms
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let name = s(x, "name");
            let arm = match x.get("label").and_then(Value::as_str) {
                Some(l) if l != name => format!("{l} ({name})"),
                _ => name.to_string(),
            };
            let value = num(x, "value").map(fmt_g);
            let rank = if value.is_some() { (i + 1).to_string() } else { "-".into() };
            let mut row = vec![rank, arm, value.unwrap_or_else(|| "not reported".into())];
            if with_sd {
                row.push(num(x, "sd").map(fmt_g).unwrap_or_default());
            }
            row.push(x.get("n").and_then(Value::as_i64).map(|n| n.to_string()).unwrap_or_default());
            row.push(x.get("n_seeds").and_then(Value::as_u64).map(|n| n.to_string()).unwrap_or_default());
            if with_split {
                row.push(s(x, "split").to_string());
            }
            if with_step {
                row.push(x.get("step").and_then(Value::as_i64).map(|n| n.to_string()).unwrap_or_default());
            }
            row.push(s(x, "source_path").to_string());
            row
        })
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([head[i].len()]).max().unwrap_or(0))
        .collect();
    let line = |vals: &[String]| {
        vals.iter().zip(&widths).map(|(v, w)| format!("{v:<w$}")).collect::<Vec<_>>().join("  ").trim_end().to_string()
    };
    writeln!(out, "  {}", paint(&line(&head), DIM))?;
    for r in &rows {
        writeln!(out, "  {}", line(r))?;
    }
    tail(out, a)
}

/// A JSON config as `key = value` lines, nested keys dotted.
fn config_lines(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                config_lines(&key, x, out);
            }
        }
        Value::String(s) => out.push((prefix.to_string(), s.clone())),
        Value::Number(n) => out.push((prefix.to_string(), scalar(&Value::Number(n.clone())).unwrap_or_default())),
        v => out.push((prefix.to_string(), v.to_string())),
    }
}

/// `runs.detail`: the whole run.
fn run_detail(out: &mut impl Write, a: &Answer<Value>, d: &Value) -> std::io::Result<()> {
    let family = d.get("family").and_then(Value::as_str).map(|f| format!(", family {f}")).unwrap_or_default();
    writeln!(out, "{} ({}{family}, {})", paint(s(d, "name"), BOLD), s(d, "project"), s(d, "status"))?;
    let mut facts: Vec<(&str, String)> = vec![("source", s(d, "source_path").to_string())];
    if let Some(h) = d.get("source_hash").and_then(Value::as_str) {
        facts.push(("blake3", h.to_string()));
    }
    for (label, key) in
        [("corpus", "corpus"), ("read by", "adapter"), ("started", "started"), ("scanned", "scanned_at")]
    {
        if let Some(v) = d.get(key).and_then(Value::as_str).filter(|v| !v.is_empty()) {
            facts.push((label, v.to_string()));
        }
    }
    for (label, v) in &facts {
        writeln!(out, "  {} {v}", paint(&format!("{label:<8}"), DIM))?;
    }
    let empty = Vec::new();
    let metrics = d.get("metrics").and_then(Value::as_array).unwrap_or(&empty);
    if metrics.is_empty() {
        writeln!(out, "\n{} none recorded", paint("metrics", BOLD))?;
    } else {
        writeln!(out, "\n{} ({})", paint("metrics", BOLD), metrics.len())?;
        let rows: Vec<(String, String)> = metrics
            .iter()
            .map(|m| {
                let split = m.get("split").and_then(Value::as_str).map(|x| format!(" [{x}]")).unwrap_or_default();
                let step = m.get("step").and_then(Value::as_i64).map(|x| format!(" @ step {x}")).unwrap_or_default();
                (format!("{}{split}{step}", s(m, "metric")), num(m, "value").map(fmt_g).unwrap_or_default())
            })
            .collect();
        let w = rows.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
        for (k, v) in rows {
            writeln!(out, "  {k:<w$}  {v}")?;
        }
    }
    match d.get("config").filter(|c| !c.is_null()) {
        Some(c) => {
            let mut lines = Vec::new();
            config_lines("", c, &mut lines);
            writeln!(out, "\n{} ({})", paint("config", BOLD), lines.len())?;
            let w = lines.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0);
            for (k, v) in lines {
                writeln!(out, "  {k:<w$} = {v}")?;
            }
        }
        None => writeln!(out, "\n{} none recorded", paint("config", BOLD))?,
    }
    match d.get("notes").and_then(Value::as_str).filter(|n| !n.trim().is_empty()) {
        Some(n) => {
            writeln!(out, "\n{}", paint("notes", BOLD))?;
            for l in n.lines() {
                writeln!(out, "  {l}")?;
            }
        }
        None => writeln!(out, "\n{} none", paint("notes", BOLD))?,
    }
    tail(out, a)
}
