//! `/claims?path=REL`: a draft's claims with their verdicts, and its text with the
//! decimals no claim covers highlighted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use attest_runs::LedgerError;
use attest_runs::claims::{self, CiteResolver, Row, Verdict};
use attest_runs::coverage::{self, Uncovered};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, html};
use serde::Deserialize;

use crate::AppState;
use crate::layout::{self, Section, enc, num};

/// The query.
#[derive(Deserialize, Default)]
pub struct ClaimsQuery {
    path: Option<String>,
}

/// The order rows are shown in: what needs fixing first.
fn severity(v: Verdict) -> u8 {
    match v {
        Verdict::Contradicted => 0,
        Verdict::Stale => 1,
        Verdict::Unsupported => 2,
        Verdict::Ambiguous => 3,
        Verdict::Uncited => 4,
        Verdict::Supported => 5,
    }
}

/// The drafts under the root, relative to it.
fn drafts_offer(root: &Path) -> Markup {
    let files: Vec<String> = claims::drafts(root).iter().map(|f| claims::label(f, root)).collect();
    html! {
        @if files.is_empty() { p.muted { "No drafts (Markdown, Quarto, R Markdown, LaTeX, Jupyter) under the research root." } }
        @else {
            p { "Drafts under the research root:" }
            (layout::links(files.iter().map(|f| (format!("/claims?path={}", enc(f)), f.clone())), ""))
        }
    }
}

/// `/claims`.
pub async fn page(State(app): State<AppState>, Query(q): Query<ClaimsQuery>) -> Response {
    let Some(root) = app.root.clone() else {
        return respond(html! {
            h1 { "Claims" }
            div.note { "No research root is set, so there are no drafts to read. Restart with " code { "attest web --root ~/research" } " (or set RESEARCH_ROOT)." }
        });
    };
    let rel = q.path.as_deref().map(str::trim).filter(|p| !p.is_empty()).map(PathBuf::from);
    let Some(rel) = rel else {
        return respond(html! {
            h1 { "Claims" }
            p { "Pick a draft to check its numbers against the ledger." }
            (drafts_offer(&root))
        });
    };
    if !root.join(&rel).exists() {
        return layout::not_found(
            Some(Section::Claims),
            &format!("There is no draft or folder '{}' under the research root.", rel.display()),
            drafts_offer(&root),
        );
    }
    let resolver = match &app.citations {
        Some(c) => Some(c.resolver().await),
        None => None,
    };
    let lint = resolver.as_deref().map(|r| r as &dyn CiteResolver);
    let report = match claims::check(app.ledger.store().pool(), &root, Some(&rel), lint).await {
        Ok(r) => r,
        Err(LedgerError::Refused(msg)) => return layout::refused(StatusCode::BAD_REQUEST, Some(Section::Claims), &msg),
        Err(e) => return layout::failed(e),
    };
    let cover = coverage::coverage(&root, Some(&rel)).ok();
    let mut rows = report.rows.clone();
    rows.sort_by_key(|r| (severity(r.verdict), r.file.clone(), r.line));
    // The text of a single draft, to show with its uncovered decimals marked.
    // (A notebook is JSON: its uncovered decimals are listed instead.)
    let notebook = rel.extension().is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
    let text = (root.join(&rel).is_file() && !notebook).then(|| claims::read_draft(&root.join(&rel)).ok()).flatten();
    let body = html! {
        h1 { "Claims in " code { (rel.display()) } }
        p.muted { (report.summary()) }
        @if let Some(c) = &cover { p.muted { "Coverage: " (c.summary()) "." } }
        (badges(&report.counts, report.malformed.len()))
        @if !report.malformed.is_empty() {
            h2 { "Claim comments that could not be read" }
            table id="malformed" {
                thead { tr { th { "Where" } th { "What is wrong" } } }
                tbody { @for m in &report.malformed { tr { td.path { (m.file) ":" (m.line) } td { (m.problem) } } } }
            }
        }
        h2 { "Verdicts" }
        @if rows.is_empty() { p.muted { "No claims found. Write one next to a number: " code { "<!-- claim: project/run metric=wer value=0.0704 -->" } } }
        @else { (rows_table(&rows, text.is_some())) }
        @if let Some(c) = &cover {
            @if !c.uncovered.is_empty() && text.is_none() {
                h2 { "Decimals no claim covers" }
                table id="uncovered" {
                    thead { tr { th { "Where" } th.num { "Number" } th { "Line" } } }
                    tbody { @for u in &c.uncovered { tr { td.path { (u.file) ":" (u.line) } td.num { mark.uncovered { (u.written) } } td { (u.context) } } } }
                }
            }
        }
        @if let Some(t) = &text {
            h2 { "The draft" }
            p.small.muted { mark.uncovered { "highlighted" } " decimals are numbers no claim covers; shaded lines are claim comments, red ones contradicted." }
            (draft(t, &rows, cover.as_ref().map(|c| c.uncovered.as_slice()).unwrap_or(&[])))
        }
    };
    respond(body)
}

/// The claims page with `body`.
fn respond(body: Markup) -> Response {
    layout::respond(StatusCode::OK, "Claims", Some(Section::Claims), body)
}

fn badges(counts: &BTreeMap<String, usize>, malformed: usize) -> Markup {
    html! {
        div.toolbar {
            @for (k, n) in counts { span class={ "badge b-" (k) } { (n) " " (k) } }
            @if malformed > 0 { span class="badge b-malformed" { (malformed) " malformed" } }
        }
    }
}

fn rows_table(rows: &[Row], one_file: bool) -> Markup {
    html! {
        table id="verdicts" {
            thead { tr { th { "Verdict" } th { "Where" } th { "Run · metric" } th.num { "Claimed" } th.num { "Recorded" } th { "Why" } } }
            tbody {
                @for r in rows {
                    tr class={ "v-" (r.verdict.as_str()) } {
                        td { span class={ "badge b-" (r.verdict.as_str()) } { (r.verdict.as_str()) } }
                        td style="white-space:nowrap" {
                            @if one_file { a href={ "#L" (r.line) } { "line " (r.line) } }
                            @else { span.path { (r.file) ":" (r.line) } }
                        }
                        td { code { (r.run) } br; span.small { (r.metric) } }
                        td.num { (num(r.claimed)) }
                        td.num { (r.actual.map(num).unwrap_or_else(|| "—".into())) }
                        td {
                            (r.message)
                            @if let Some(s) = &r.source_path { br; span.path.muted { (s) } }
                        }
                    }
                }
            }
        }
    }
}

/// The draft with line numbers, claim lines shaded and uncovered decimals marked.
fn draft(text: &str, rows: &[Row], uncovered: &[Uncovered]) -> Markup {
    let mut marks: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for u in uncovered.iter().filter(|u| u.cell.is_none()) {
        marks.entry(u.line).or_default().push(u.written.as_str());
    }
    let contradicted: std::collections::BTreeSet<usize> =
        rows.iter().filter(|r| r.verdict == Verdict::Contradicted).map(|r| r.line).collect();
    html! {
        div.draft id="draft" {
            @for (i, line) in text.lines().enumerate() {
                @let n = i + 1;
                @let is_claim = line.contains("claim:");
                div class={ "ln" @if is_claim { " claim" } @if contradicted.contains(&n) { " contradicted" } } id={ "L" (n) } {
                    span { (n) }
                    span { (marked(line, marks.get(&n).map(Vec::as_slice).unwrap_or(&[]))) }
                }
            }
        }
    }
}

/// A line with each of `numbers` (as written) marked once, left to right.
fn marked(line: &str, numbers: &[&str]) -> Markup {
    let mut parts: Vec<(bool, &str)> = Vec::new();
    let mut rest = line;
    for w in numbers {
        if let Some(at) = rest.find(w) {
            parts.push((false, &rest[..at]));
            parts.push((true, &rest[at..at + w.len()]));
            rest = &rest[at + w.len()..];
        }
    }
    parts.push((false, rest));
    html! {
        @for (m, s) in parts { @if m { mark.uncovered { (s) } } @else { (s) } }
    }
}
