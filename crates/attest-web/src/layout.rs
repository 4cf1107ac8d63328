//! The page shell (navigation, styles) and the pages every route shares: not found,
//! refused, failed.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// Which section a page belongs to, for the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// `/feed/…`
    Feed,
    /// `/ledger…`, `/runs/…`
    Ledger,
    /// `/claims`
    Claims,
    /// `/graph`
    Graph,
}

const CSS: &str = r#"
:root { --ink:#1d2430; --muted:#5b6472; --line:#d8dde5; --bg:#f6f7f9; --card:#fff;
  --accent:#1f5fae; --good:#1b7a3d; --good-bg:#e3f4e8; --bad:#b3261e; --bad-bg:#fbe4e2;
  --warn:#7a5200; --warn-bg:#fff4d6; --warn-line:#e0b64a; --info-bg:#eaf1fb; }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--ink); background:var(--bg); }
header.top { background:#1d2430; color:#fff; padding:0 24px; display:flex; gap:28px; align-items:center; height:52px; }
header.top .brand { font-weight:700; letter-spacing:.02em; color:#fff; text-decoration:none; }
header.top nav a { color:#c9d3e1; text-decoration:none; margin-right:18px; padding:14px 0; border-bottom:3px solid transparent; }
header.top nav a.on { color:#fff; border-bottom-color:#6aa5ff; }
main { max-width:1100px; margin:0 auto; padding:24px; }
h1 { font-size:1.6rem; margin:.2rem 0 1rem; }
h2 { font-size:1.2rem; margin:1.6rem 0 .6rem; }
a { color:var(--accent); }
.muted { color:var(--muted); }
.small { font-size:.875rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:.9em; }
.path { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:.85em; overflow-wrap:anywhere; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:16px 18px; margin:0 0 16px; }
.caveat { background:var(--warn-bg); border:1px solid var(--warn-line); border-left:6px solid var(--warn-line); border-radius:8px;
  padding:14px 18px; margin:0 0 18px; font-size:1.05rem; }
.caveat h2 { margin:0 0 6px; font-size:1.05rem; color:var(--warn); }
.caveat ul { margin:.3rem 0 0 1.1rem; padding:0; }
.note { background:var(--info-bg); border-radius:8px; padding:10px 14px; margin:0 0 16px; }
.flash { background:var(--good-bg); border:1px solid #9fd3ae; border-radius:8px; padding:10px 14px; margin:0 0 16px; }
.refusal { background:var(--bad-bg); border:1px solid #f0b4ae; border-radius:8px; padding:12px 16px; margin:0 0 16px; }
table { border-collapse:collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:8px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:.8rem; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); background:#fafbfc; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; white-space:nowrap; }
tr.winner td { background:var(--good-bg); }
.badge { display:inline-block; padding:2px 9px; border-radius:999px; font-size:.8rem; font-weight:600; white-space:nowrap; }
.b-supported { background:var(--good-bg); color:var(--good); }
.b-contradicted { background:var(--bad-bg); color:var(--bad); }
.b-unsupported, .b-ambiguous, .b-stale, .b-uncited, .b-malformed { background:var(--warn-bg); color:var(--warn); }
.items { list-style:none; margin:0; padding:0; }
.item { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:14px 16px; margin:0 0 12px;
  display:grid; grid-template-columns: 2.2rem 1fr auto; gap:4px 14px; }
.item .rank { font-weight:700; color:var(--muted); font-size:1.1rem; }
.item .title { font-weight:600; font-size:1.05rem; }
.item .meta { font-size:.85rem; color:var(--muted); }
.item .summary { font-size:.92rem; margin-top:4px; color:#333c48; }
.item details { margin-top:6px; font-size:.9rem; }
.item details summary { cursor:pointer; color:var(--accent); }
.item .actions { display:flex; flex-direction:column; gap:6px; }
.item.rated-useful { border-left:5px solid var(--good); }
.item.rated-not { border-left:5px solid var(--bad); }
button, .button { font:inherit; border-radius:6px; border:1px solid var(--line); background:#fff; padding:6px 12px; cursor:pointer; }
button.yes { border-color:#9fd3ae; color:var(--good); background:var(--good-bg); font-weight:600; }
button.no { border-color:#f0b4ae; color:var(--bad); background:var(--bad-bg); font-weight:600; }
button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
input[type=text], input[type=search], select, textarea { font:inherit; padding:6px 8px; border:1px solid var(--line); border-radius:6px; background:#fff; }
textarea { width:100%; min-height:4.5rem; }
.toolbar { display:flex; flex-wrap:wrap; gap:12px; align-items:center; margin:0 0 16px; }
.toolbar form { display:flex; gap:6px; align-items:center; margin:0; }
.cols { display:grid; grid-template-columns: minmax(0,1fr) 300px; gap:20px; }
@media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
.plot svg, .graphpic svg { width:100%; height:auto; background:#fff; border:1px solid var(--line); border-radius:8px; }
.curves { display:grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap:12px; }
.draft { background:#fff; border:1px solid var(--line); border-radius:8px; padding:8px 0; overflow-x:auto; }
.draft .ln { display:grid; grid-template-columns: 3.5rem 1fr; }
.draft .ln > span:first-child { color:#9aa3af; text-align:right; padding-right:12px; user-select:none; font-family:ui-monospace, monospace; font-size:.8rem; }
.draft .ln > span:last-child { white-space:pre-wrap; font-family:ui-monospace, monospace; font-size:.85rem; }
.draft .ln.claim { background:#f3f6fa; color:#4a5565; }
.draft .ln.contradicted { background:var(--bad-bg); }
mark.uncovered { background:#ffe08a; border-bottom:2px solid #d49b00; padding:0 1px; }
dl.kv { display:grid; grid-template-columns: max-content 1fr; gap:4px 16px; margin:0; }
dl.kv dt { color:var(--muted); }
dl.kv dd { margin:0; overflow-wrap:anywhere; }
.pill { display:inline-block; background:#eef1f5; border-radius:4px; padding:0 6px; margin:0 4px 4px 0; font-size:.85rem; }
"#;

/// A whole page.
pub fn page(title: &str, section: Option<Section>, body: Markup) -> Markup {
    let nav = |s: Section, href: &str, label: &str| {
        html! { a href=(href) class=@if section == Some(s) { "on" } { (label) } }
    };
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · attest" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header.top {
                    a.brand href="/" { "attest" }
                    nav {
                        (nav(Section::Feed, "/", "Reading"))
                        (nav(Section::Ledger, "/ledger", "Ledger"))
                        (nav(Section::Claims, "/claims", "Claims"))
                        (nav(Section::Graph, "/graph", "Concept graph"))
                    }
                }
                main { (body) }
            }
        }
    }
}

/// A page with a status.
pub fn respond(status: StatusCode, title: &str, section: Option<Section>, body: Markup) -> Response {
    (status, Html(page(title, section, body).into_string())).into_response()
}

/// 404: what was asked for does not exist; `offer` lists what does.
pub fn not_found(section: Option<Section>, what: &str, offer: Markup) -> Response {
    respond(
        StatusCode::NOT_FOUND,
        "Not found",
        section,
        html! {
            h1 { "Not found" }
            div.refusal { (what) }
            (offer)
        },
    )
}

/// 400 or 403: a request refused, with why.
pub fn refused(status: StatusCode, section: Option<Section>, why: &str) -> Response {
    respond(
        status,
        if status == StatusCode::FORBIDDEN { "Refused" } else { "Cannot do that" },
        section,
        html! {
            h1 { @if status == StatusCode::FORBIDDEN { "Refused" } @else { "Cannot do that" } }
            div.refusal { (why) }
            p.muted { "Nothing was written." }
        },
    )
}

/// 500: an internal fault, logged; the page says only that it happened.
pub fn failed(e: impl std::fmt::Display) -> Response {
    tracing::error!("attest web: {e}");
    respond(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Something failed",
        None,
        html! {
            h1 { "Something failed" }
            div.refusal { "The server could not read what this page needs. The details are in the server's log (its standard error)." }
        },
    )
}

/// A list of links.
pub fn links(items: impl IntoIterator<Item = (String, String)>, empty: &str) -> Markup {
    let items: Vec<(String, String)> = items.into_iter().collect();
    html! {
        @if items.is_empty() { p.muted { (empty) } }
        @else { ul { @for (href, label) in &items { li { a href=(href) { (label) } } } } }
    }
}

/// Percent-encode a path segment or query value (a space is `%20`, so it reads the
/// same in both).
pub fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>().replace('+', "%20")
}

/// A number as a person writes it: up to four significant decimals, no trailing zeros.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-4) {
        return format!("{x:.3e}");
    }
    let digits = if x.abs() >= 100.0 { 2 } else { 4 };
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" { "0".into() } else { s }
}
