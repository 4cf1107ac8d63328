//! The run ledger: `/ledger`, `/ledger/{family}` and `/runs/{id}`.

use std::collections::BTreeMap;

use attest_runs::LedgerError;
use attest_runs::compare::Comparison;
use attest_runs::ledger::{FamilyCount, RunDetail, RunSummary};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

use crate::layout::{self, Section, enc, num};
use crate::{AppState, plot};

/// Most runs `/runs/{id}` looks through, and a 404 lists.
const MAX_RUNS: usize = 1000;

fn ledger_fault(e: LedgerError) -> Response {
    match e {
        LedgerError::Refused(msg) => layout::refused(StatusCode::BAD_REQUEST, Some(Section::Ledger), &msg),
        other => layout::failed(other),
    }
}

async fn families(app: &AppState) -> Result<Vec<FamilyCount>, Response> {
    let mut fams = app.ledger.families(None).await.map_err(ledger_fault)?;
    for f in fams.iter_mut().filter(|f| f.grouped_by.is_empty()) {
        f.grouped_by = app.ledger.grouping(&f.project, &f.family).await.unwrap_or_default();
    }
    fams.sort_by(|a, b| a.project.cmp(&b.project).then(a.family.cmp(&b.family)));
    Ok(fams)
}

fn family_href(f: &FamilyCount) -> String {
    format!("/ledger/{}?project={}", enc(&f.family), enc(&f.project))
}

fn families_table(fams: &[FamilyCount]) -> Markup {
    let mut by_project: BTreeMap<&str, Vec<&FamilyCount>> = BTreeMap::new();
    for f in fams {
        by_project.entry(f.project.as_str()).or_default().push(f);
    }
    html! {
        @for (project, fs) in &by_project {
            h2 { "Project " code { (project) } }
            table {
                thead { tr { th { "Family" } th.num { "Runs" } th { "How its runs were grouped" } } }
                tbody {
                    @for f in fs {
                        tr {
                            td { a href=(family_href(f)) { (f.family) } }
                            td.num { (f.n) }
                            td { (f.grouped_by) }
                        }
                    }
                }
            }
        }
    }
}

/// `/ledger`: projects and their families.
pub async fn index(State(app): State<AppState>) -> Response {
    let fams = match families(&app).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let runs = app.ledger.list(None, None, 1).await.map(|l| l.total).unwrap_or(0);
    layout::respond(
        StatusCode::OK,
        "Ledger",
        Some(Section::Ledger),
        html! {
            h1 { "The run ledger" }
            @if fams.is_empty() {
                div.note {
                    @if runs == 0 { "The ledger is empty. Read your results into it at a terminal: " code { "attest runs scan --root ~/research" } }
                    @else { (runs) " runs are recorded, but none belongs to a family (arms of one sweep named alike, or declared in attest.toml)." }
                }
            } @else {
                p.muted { (runs) " runs recorded, in " (fams.len()) " families. Open a family to compare its arms." }
                (families_table(&fams))
            }
        },
    )
}

/// The query of `/ledger/{family}`.
#[derive(Deserialize, Default)]
pub struct FamilyQuery {
    project: Option<String>,
    metric: Option<String>,
}

/// `/ledger/{family}`: the comparison, its caveats and the plot.
pub async fn family(State(app): State<AppState>, Path(family): Path<String>, Query(q): Query<FamilyQuery>) -> Response {
    let fams = match families(&app).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let project = q.project.as_deref().map(str::trim).filter(|p| !p.is_empty());
    let matching: Vec<&FamilyCount> =
        fams.iter().filter(|f| f.family == family && project.is_none_or(|p| p == f.project)).collect();
    if matching.is_empty() {
        let what = match project {
            Some(p) => format!("There is no family '{family}' in project '{p}'."),
            None => format!("There is no family '{family}' in the ledger."),
        };
        return layout::not_found(
            Some(Section::Ledger),
            &what,
            html! {
                @if fams.is_empty() { p { "The ledger has no families yet: run " code { "attest runs scan" } " first." } }
                @else { p { "The families are:" } (families_table(&fams)) }
            },
        );
    }
    if project.is_none() && matching.len() > 1 {
        return layout::respond(
            StatusCode::OK,
            &family,
            Some(Section::Ledger),
            html! {
                h1 { "Which " code { (family) } "?" }
                p { "Several projects have a family of this name; their arms are not comparable with each other. Pick one:" }
                (layout::links(matching.iter().map(|f| (family_href(f), format!("{} in {} ({} runs)", f.family, f.project, f.n))), ""))
            },
        );
    }
    let project = project.map(str::to_string).or_else(|| matching.first().map(|f| f.project.clone()));
    let metric = q.metric.as_deref().map(str::trim).filter(|m| !m.is_empty());
    let grouped = matching.first().map(|f| f.grouped_by.clone()).unwrap_or_default();
    match app.ledger.compare(&family, metric, project.as_deref()).await {
        Ok(c) => {
            let metrics = metric_names(&app, &c).await;
            comparison_page(&c, &grouped, &metrics)
        }
        Err(LedgerError::Refused(msg)) => layout::respond(
            StatusCode::OK,
            &family,
            Some(Section::Ledger),
            html! {
                h1 { "Family " code { (family) } }
                div.refusal { (msg) }
                p { a href="/ledger" { "← All families" } }
            },
        ),
        Err(e) => layout::failed(e),
    }
}

/// The metrics an arm reports, for the "rank by" choice.
async fn metric_names(app: &AppState, c: &Comparison) -> Vec<String> {
    let Some(arm) = c.arms.first() else { return Vec::new() };
    let Some(name) = arm.seeds.first().map(|s| s.name.clone()).or_else(|| Some(arm.name.clone())) else {
        return Vec::new();
    };
    let mut names: Vec<String> = match app.ledger.detail(&c.project, &name).await {
        Ok(d) => d.metrics.into_iter().map(|m| m.metric).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names.dedup();
    names
}

fn comparison_page(c: &Comparison, grouped: &str, metrics: &[String]) -> Response {
    // A winner is earned only when nothing casts doubt on the order; otherwise the
    // first arm is shown as ranked first, not as the winner.
    let earned = c.winner.is_some() && c.caveats.is_empty();
    let svg = plot::sweep(c, earned);
    let seeded = c.arms.iter().any(|a| a.n_seeds > 1);
    let base = format!("/ledger/{}?project={}", enc(&c.family), enc(&c.project));
    let body = html! {
        p { a href="/ledger" { "← All families" } }
        h1 { "Family " code { (c.family) } span.muted.small { " in project " code { (c.project) } } }
        p.muted {
            "Ranked by " strong { (c.metric) } " (" (c.direction.to_string().replace('_', " ")) "). Grouped " (grouped) "."
            @if !c.varying.is_empty() { " Arms differ in " (c.varying.join(", ")) "." }
            @if let Some(corpus) = &c.corpus { " Every ranked arm was evaluated on " code { (corpus) } "." }
        }
        section.caveat id="caveats" aria-label="Caveats" {
            h2 { @if earned { "Caveats" } @else { "Why no winner is declared" } }
            @if c.caveats.is_empty() {
                p style="margin:0" { "No caveat: the arms share their data and the margin is clear." }
            } @else {
                ul { @for cv in &c.caveats { li { (cv) } } }
            }
        }
        div.card id="verdict" {
            @match (&c.winner, earned) {
                (Some(w), true) => { "Winner on " (c.metric) ": " strong { (w) } },
                (Some(w), false) => {
                    strong { "No winner is declared." } " " (w) " ranks first on " (c.metric)
                    ", but the caveats above say why that order may not hold."
                },
                (None, _) => { strong { "No winner is declared." } " The evidence above does not earn one." },
            }
        }
        div.plot id="plot" {
            h2 { "The sweep" }
            (PreEscaped(svg))
            p.small.muted {
                @if seeded { "Each point is the mean over seeds; bars span ±1 standard deviation; small dots are single seeds." }
                @else { "One run per arm: no seeds, so no error bars." }
            }
        }
        h2 { "Arms" }
        table id="arms" {
            thead { tr {
                th { "#" } th { "Arm" } th.num { (c.metric) } th.num { "sd" } th.num { "seeds" } th.num { "n" } th { "split / step" } th { "Run and evidence" }
            } }
            tbody {
                @for (i, a) in c.arms.iter().enumerate() {
                    tr class=@if earned && c.winner.as_deref() == Some(a.name.as_str()) { "winner" } {
                        td { (i + 1) }
                        td { strong { (a.label.as_deref().unwrap_or(&a.name)) } @if a.label.is_some() { br; span.small.muted { (a.name) } } }
                        td.num { (a.value.map(num).unwrap_or_else(|| "—".into())) }
                        td.num { (a.sd.map(num).unwrap_or_default()) }
                        td.num { @if a.n_seeds > 1 { (a.n_seeds) } }
                        td.num { (a.n.map(|n| n.to_string()).unwrap_or_default()) }
                        td.small { (a.split.as_deref().unwrap_or("")) @if let Some(s) = a.step { " @" (s) } }
                        td {
                            @if a.seeds.len() > 1 {
                                @for s in &a.seeds {
                                    a href={ "/runs/" (s.run_id) } { (s.name) } " "
                                    span.small.muted { (s.value.map(num).unwrap_or_default()) } br;
                                    span.path.muted { (s.source_path) } br;
                                }
                            } @else {
                                a href={ "/runs/" (a.run_id) } { "run " (a.run_id) } br;
                                span.path.muted { (a.source_path) }
                            }
                        }
                    }
                }
            }
        }
        @if !c.without_metric.is_empty() {
            p.muted { "Not ranked (no " (c.metric) "): " (c.without_metric.join(", ")) }
        }
        @if metrics.len() > 1 {
            form.toolbar method="get" action=(format!("/ledger/{}", enc(&c.family))) style="margin-top:16px" {
                input type="hidden" name="project" value=(c.project);
                label for="metric" { "Rank by another metric" }
                select id="metric" name="metric" {
                    @for m in metrics { option value=(m) selected[*m == c.metric] { (m) } }
                }
                button type="submit" { "Compare" }
                a href=(base) { "default" }
            }
        }
    };
    layout::respond(StatusCode::OK, &format!("{} · ledger", c.family), Some(Section::Ledger), body)
}

/// `/runs/{id}`: one run.
pub async fn run(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    let list = match app.ledger.list(None, None, MAX_RUNS).await {
        Ok(l) => l,
        Err(e) => return ledger_fault(e),
    };
    let found = id.trim().parse::<i64>().ok().and_then(|n| list.runs.iter().find(|r| r.id == n));
    let Some(summary) = found else {
        return layout::not_found(
            Some(Section::Ledger),
            &format!("There is no run with id '{id}' in the ledger."),
            runs_offer(&list.runs),
        );
    };
    match app.ledger.detail(&summary.project, &summary.name).await {
        Ok(d) => run_page(&d),
        Err(e) => ledger_fault(e),
    }
}

fn runs_offer(runs: &[RunSummary]) -> Markup {
    html! {
        @if runs.is_empty() { p { "The ledger has no runs: run " code { "attest runs scan" } " first." } }
        @else {
            p { "Runs recorded (" (runs.len().min(40)) " of " (runs.len()) " shown; families on " a href="/ledger" { "the ledger page" } "):" }
            (layout::links(runs.iter().take(40).map(|r| (format!("/runs/{}", r.id), format!("{} · {}/{}", r.id, r.project, r.name))), ""))
        }
    }
}

fn run_page(d: &RunDetail) -> Response {
    // The last value of each metric (and split) is the run's result; a metric with
    // several steps is also drawn as a curve.
    let mut series: BTreeMap<(String, String), Vec<(i64, f64)>> = BTreeMap::new();
    let mut last: BTreeMap<(String, String), (Option<i64>, f64)> = BTreeMap::new();
    for m in &d.metrics {
        let key = (m.metric.clone(), m.split.clone().unwrap_or_default());
        if let Some(s) = m.step {
            series.entry(key.clone()).or_default().push((s, m.value));
        }
        last.insert(key, (m.step, m.value));
    }
    let curves: Vec<(String, String)> = series
        .iter()
        .filter(|(_, pts)| pts.len() > 1)
        .map(|((metric, split), pts)| {
            let name = if split.is_empty() { metric.clone() } else { format!("{metric} [{split}]") };
            (name.clone(), plot::curve(&name, pts))
        })
        .collect();
    let config = d.config.as_ref().map(flatten_config).unwrap_or_default();
    let body = html! {
        p {
            @if let Some(f) = &d.family { a href={ "/ledger/" (enc(f)) "?project=" (enc(&d.project)) } { "← Family " (f) } }
            @else { a href="/ledger" { "← Ledger" } }
        }
        h1 { code { (d.name) } span.muted.small { " in project " code { (d.project) } } }
        @if !d.caveats.is_empty() {
            section.caveat aria-label="Caveats" { h2 { "What to know about these numbers" } ul { @for c in &d.caveats { li { (c) } } } }
        }
        div.card {
            dl.kv {
                dt { "Evidence file" } dd.path { (d.source_path) }
                dt { "Content hash" } dd.path { @if let Some(h) = &d.source_hash { "blake3 " (h) } @else { "none recorded" } }
                dt { "Status" } dd { (d.status) " · read by " (d.adapter) }
                @if let Some(s) = &d.started { dt { "Started" } dd { (s) } }
                @if let Some(c) = &d.corpus { dt { "Corpus" } dd { code { (c) } } }
                dt { "Scanned" } dd { (d.scanned_at) }
                dt { "Ledger id" } dd { (d.id) }
            }
        }
        @if let Some(n) = &d.notes { h2 { "Notes" } div.card { (n) } }
        h2 { "Metrics" }
        @if last.is_empty() { p.muted { @if d.status == "spec" { "A spec with no results yet." } @else { "No metrics recorded." } } }
        @else {
            table id="metrics" {
                thead { tr { th { "Metric" } th { "Split" } th.num { "Value" } th.num { "Step" } } }
                tbody {
                    @for ((metric, split), (step, value)) in &last {
                        tr { td { (metric) } td { (split) } td.num { (num(*value)) } td.num { (step.map(|s| s.to_string()).unwrap_or_default()) } }
                    }
                }
            }
            @if last.len() < d.metrics.len() { p.small.muted { "The last value of each metric; " (d.metrics.len()) " rows in all." } }
        }
        @if !curves.is_empty() {
            h2 { "Curves" }
            div.plot.curves { @for (_, svg) in &curves { div { (PreEscaped(svg)) } } }
        }
        h2 { "Config" }
        @if config.is_empty() { p.muted { "No configuration recorded." } }
        @else {
            table id="config" {
                tbody { @for (k, v) in &config { tr { td.mono { (k) } td.mono { (v) } } } }
            }
        }
    };
    layout::respond(StatusCode::OK, &format!("{} · run", d.name), Some(Section::Ledger), body)
}

/// A config as `key.sub = value` rows.
fn flatten_config(v: &serde_json::Value) -> Vec<(String, String)> {
    attest_runs::family::flatten(v)
        .into_iter()
        .map(|(k, v)| {
            let shown = match &v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k, shown)
        })
        .collect()
}
