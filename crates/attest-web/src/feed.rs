//! The reading desk: `/`, `/feed/{user}`, its digest, and the two writes (a rating,
//! the interests).

use std::collections::HashMap;

use attest_archive::model::Reader;
use attest_archive::tools::{LIST_DAYS, MAX_LIMIT, Row, window_for};
use attest_core::Answer;
use attest_core::catalogue::JsonObject;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::layout::{self, Section, enc};
use crate::security::{self, READER_COOKIE, Session};

/// Characters of a summary shown under an item.
const SUMMARY_CHARS: usize = 420;

async fn call(app: &AppState, tool: &str, args: Value) -> Result<Answer<Value>, Response> {
    let args: JsonObject = args.as_object().cloned().unwrap_or_default();
    app.feed_tools.call(tool, args).await.map_err(layout::failed)
}

async fn readers(app: &AppState) -> Result<Vec<Reader>, Response> {
    let mut rs = app.feed.store.readers().await.map_err(layout::failed)?;
    rs.sort_by_key(|r| r.name.to_lowercase());
    Ok(rs)
}

/// The reader a path names, or the 404 page listing the readers there are.
async fn reader(app: &AppState, name: &str) -> Result<Reader, Response> {
    if let Some(r) = app.feed.store.reader(name).await.map_err(layout::failed)? {
        return Ok(r);
    }
    let rs = readers(app).await?;
    Err(layout::not_found(
        Some(Section::Feed),
        &format!(
            "There is no reader named '{name}'. Readers are never created from an address, so a typo cannot make a new one."
        ),
        html! {
            @if rs.is_empty() {
                p { "There are no readers yet. Create one at a terminal:" }
                pre { code { "attest feed personas create NAME \"the topics you read about\"" } }
            } @else {
                p { "The readers are:" }
                (layout::links(rs.iter().map(|r| (format!("/feed/{}", enc(&r.name)), r.name.clone())), ""))
            }
        },
    ))
}

/// The reader a form that writes names: the refusal page (403) when this request may
/// not write, else as [`reader`].
async fn writer(
    app: &AppState,
    user: &str,
    headers: &HeaderMap,
    session: &Session,
    csrf: Option<&str>,
) -> Result<Reader, Response> {
    if let Some(why) = security::refuse_write(&app.gate, headers, session, csrf) {
        return Err(layout::refused(StatusCode::FORBIDDEN, Some(Section::Feed), why));
    }
    reader(app, user).await
}

fn no_readers_page() -> Response {
    layout::respond(
        StatusCode::OK,
        "Reading",
        Some(Section::Feed),
        html! {
            h1 { "No readers yet" }
            p { "The reading list ranks the archive for one reader (a persona with the topics they read about). Create one at a terminal, then reload:" }
            pre { code { "attest ingest --feeds feeds.toml\nattest feed personas create NAME \"the topics you read about\"" } }
        },
    )
}

/// `/`: the reader this browser used last, else the first reader.
pub async fn home(State(app): State<AppState>, headers: HeaderMap) -> Response {
    let rs = match readers(&app).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let last = security::cookie(&headers, READER_COOKIE)
        .map(|c| url::form_urlencoded::parse(format!("n={c}").as_bytes()).map(|(_, v)| v.into_owned()).collect())
        .and_then(|n: String| rs.iter().find(|r| r.name.eq_ignore_ascii_case(&n)).cloned());
    match last.or_else(|| rs.first().cloned()) {
        Some(r) => Redirect::to(&format!("/feed/{}", enc(&r.name))).into_response(),
        None => no_readers_page(),
    }
}

/// `?user=` of the persona switch (works without JavaScript).
#[derive(Deserialize)]
pub struct Pick {
    user: Option<String>,
}

/// `/feed?user=NAME`: to that reader's page.
pub async fn pick(Query(p): Query<Pick>) -> Response {
    match p.user.filter(|u| !u.trim().is_empty()) {
        Some(u) => Redirect::to(&format!("/feed/{}", enc(u.trim()))).into_response(),
        None => Redirect::to("/").into_response(),
    }
}

/// The query of `/feed/{user}`.
#[derive(Deserialize, Default)]
pub struct FeedQuery {
    /// Search the archive instead of listing today's items.
    q: Option<String>,
    /// The item just rated, and how (after a rating).
    rated: Option<i64>,
    verdict: Option<String>,
    /// The interests were just saved.
    saved: Option<String>,
}

/// One row as the page shows it.
struct Shown {
    row: Row,
    url: Option<String>,
    summary: String,
    why: Option<String>,
}

/// `/feed/{user}`: the ranked list (or search hits), the caveat, and the forms.
pub async fn page(
    State(app): State<AppState>,
    Path(user): Path<String>,
    Query(q): Query<FeedQuery>,
    axum::Extension(session): axum::Extension<Session>,
) -> Response {
    match page_inner(&app, &user, q, &session).await {
        Ok(r) | Err(r) => r,
    }
}

async fn page_inner(app: &AppState, user: &str, q: FeedQuery, session: &Session) -> Result<Response, Response> {
    let reader = reader(app, user).await?;
    let all = readers(app).await?;
    let query = q.q.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
    let answer = match &query {
        Some(text) => {
            call(app, "feed.search", json!({ "user": reader.name, "query": text, "limit": MAX_LIMIT })).await?
        }
        None => call(app, "feed.list", json!({ "user": reader.name, "limit": MAX_LIMIT })).await?,
    };
    let data = answer.data.clone().unwrap_or(Value::Null);
    let rows: Vec<Row> = serde_json::from_value(data["items"].clone()).unwrap_or_default();
    let shown = details(app, &reader, rows).await?;
    let csrf = app.gate.csrf(&session.0);
    let flash = match (q.rated, q.verdict.as_deref()) {
        (Some(id), Some(v)) => {
            let title = app.feed.store.item(id).await.ok().flatten().map(|i| i.title).unwrap_or_default();
            let verdict = if v == "useful" { "useful" } else { "not useful" };
            Some(format!(
                "Recorded: '{title}' is {verdict} to {}. The list below is ranked again with it.",
                reader.name
            ))
        }
        _ => {
            q.saved.as_ref().map(|_| format!("Saved {}'s interests. The list below is ranked with them.", reader.name))
        }
    };
    let quality = &data["quality"];
    let caveats: Vec<String> = answer.caveat.iter().cloned().collect();
    let body = html! {
        (switcher(&reader, &all, query.as_deref()))
        @if let Some(f) = &flash { div.flash role="status" { (f) } }
        div.cols {
            div {
                h1 {
                    @if let Some(t) = &query { "Search: " (t) } @else { "Today for " (reader.name) }
                }
                (caveat_box(&caveats, quality))
                @if !answer.ok {
                    div.refusal { (answer.answer) }
                } @else if shown.is_empty() {
                    p.note { (answer.answer) }
                } @else {
                    p.muted.small {
                        @if query.is_some() {
                            (data["hits"].as_u64().unwrap_or(0)) " matches in the archive, best for " (reader.name) " first."
                        } @else {
                            (shown.len()) " of " (data["candidates"].as_u64().unwrap_or(0)) " unrated items since "
                            (data["since"].as_str().unwrap_or("").get(..10).unwrap_or("")) ", best first. Rated items leave the list."
                        }
                    }
                    ol.items id="items" {
                        @for (i, s) in shown.iter().enumerate() { (item(&reader, i + 1, s, &csrf, query.as_deref())) }
                    }
                }
            }
            aside {
                (interests_box(&reader, &csrf))
                div.card {
                    h2 style="margin-top:0" { "The week by topic" }
                    p.small { a href={ "/feed/" (enc(&reader.name)) "/digest" } { "Open " (reader.name) "'s digest" } }
                }
                (quality_box(quality))
            }
        }
        (PreEscaped(RATE_JS))
    };
    let mut resp = layout::respond(StatusCode::OK, &format!("Reading for {}", reader.name), Some(Section::Feed), body);
    if let Ok(v) = HeaderValue::from_str(&format!(
        "{READER_COOKIE}={}; SameSite=Strict; Path=/; Max-Age=31536000",
        enc(&reader.name)
    )) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}

/// Rate without leaving the page: post the form, then swap in the re-ranked list the
/// server answers with. Without JavaScript the form posts and the page reloads.
const RATE_JS: &str = r#"<script>
document.addEventListener('submit', async (e) => {
  const f = e.target;
  if (!f.matches('form.rate')) return;
  e.preventDefault();
  const r = await fetch(f.action, { method: 'POST', body: new URLSearchParams(new FormData(f, e.submitter)), credentials: 'same-origin' });
  const html = await r.text();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  document.querySelector('main').replaceWith(doc.querySelector('main'));
  if (r.redirected) history.replaceState(null, '', r.url);
});
</script>"#;

/// Summaries, links and the "why" of each row.
async fn details(app: &AppState, reader: &Reader, rows: Vec<Row>) -> Result<Vec<Shown>, Response> {
    let ids: Vec<i64> = rows.iter().map(|r| r.item_id).collect();
    let items: HashMap<i64, attest_archive::Item> =
        app.feed.store.items(&ids).await.map_err(layout::failed)?.into_iter().map(|i| (i.id, i)).collect();
    // The deterministic explanation, from the same window and model the ranking used.
    let (window, _, _, _) = window_for(&app.feed.archive, reader, LIST_DAYS).await.map_err(layout::failed)?;
    let model = window.model(&reader.interests);
    Ok(rows
        .into_iter()
        .map(|row| {
            let it = items.get(&row.item_id);
            let why = attest_archive::explain::explain(&window.data.corpus, &model, row.item_id).map(|e| e.text);
            Shown {
                url: it.and_then(|i| i.url.clone()).filter(|u| u.starts_with("http://") || u.starts_with("https://")),
                summary: it.map(|i| clean_summary(&i.summary)).unwrap_or_default(),
                why,
                row,
            }
        })
        .collect())
}

/// A third party's summary, sanitised (tags a feed may carry are cleaned by ammonia,
/// everything else escaped) and cut.
fn clean_summary(s: &str) -> String {
    let cut: String = s.chars().take(SUMMARY_CHARS).collect();
    let cut = if cut.len() < s.len() { format!("{}…", cut.trim_end()) } else { cut };
    ammonia::Builder::default()
        .tags(["b", "i", "em", "strong", "sub", "sup", "code"].into_iter().collect())
        .clean(&cut)
        .to_string()
}

fn switcher(reader: &Reader, all: &[Reader], query: Option<&str>) -> Markup {
    html! {
        div.toolbar {
            form method="get" action="/feed" {
                label for="persona" { "Reader" }
                select id="persona" name="user" onchange="this.form.submit()" {
                    @for r in all {
                        option value=(r.name) selected[r.id == reader.id] { (r.name) }
                    }
                }
                noscript { button type="submit" { "Switch" } }
            }
            form method="get" action={ "/feed/" (enc(&reader.name)) } role="search" {
                input type="search" name="q" placeholder="Search the archive" value=(query.unwrap_or("")) size="28";
                button type="submit" { "Search" }
                @if query.is_some() { a href={ "/feed/" (enc(&reader.name)) } { "Back to today's list" } }
            }
        }
    }
}

/// The ranking-quality caveat, as prominent as the list: above it, in full.
fn caveat_box(caveats: &[String], quality: &Value) -> Markup {
    let human = quality["human_clicks"].as_u64().unwrap_or(0);
    html! {
        section.caveat id="caveat" aria-label="How far to trust this order" {
            h2 { "How far to trust this order" }
            @if caveats.is_empty() {
                p style="margin:0" { "Nothing to warn about: the order is trained on " (human) " of your own ratings." }
            } @else {
                @for c in caveats { p style="margin:0" { (capitalised(c)) "." } }
            }
        }
    }
}

/// A caveat as a sentence.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect::<String>().trim_end_matches('.').to_string(),
        None => String::new(),
    }
}

fn item(reader: &Reader, rank: usize, s: &Shown, csrf: &str, query: Option<&str>) -> Markup {
    let r = &s.row;
    let class = match r.rated {
        Some(true) => "item rated-useful",
        Some(false) => "item rated-not",
        None => "item",
    };
    html! {
        li class=(class) data-item=(r.item_id) {
            div.rank { (rank) }
            div {
                div.title {
                    @if let Some(u) = &s.url { a href=(u) rel="noopener noreferrer" target="_blank" { (r.title) } }
                    @else { (r.title) }
                }
                div.meta {
                    (r.source.as_deref().unwrap_or("unsubscribed feed")) " · " (r.published)
                    @for t in &r.tags { " " span.pill { (t) } }
                }
                @if !s.summary.is_empty() { div.summary { (PreEscaped(&s.summary)) } }
                @if let Some(w) = &s.why {
                    details { summary { "Why is this here?" } p style="margin:.3rem 0 0" { (w) } }
                }
            }
            div.actions {
                form.rate method="post" action={ "/feed/" (enc(&reader.name)) "/rate" } {
                    input type="hidden" name="item" value=(r.item_id);
                    input type="hidden" name="csrf" value=(csrf);
                    @if let Some(q) = query { input type="hidden" name="q" value=(q); }
                    button.yes type="submit" name="verdict" value="useful" title="Useful: rank more like this higher" { "✓ Useful" }
                    " "
                    button.no type="submit" name="verdict" value="not_useful" title="Not useful: rank more like this lower" { "✗ Not useful" }
                }
            }
        }
    }
}

fn interests_box(reader: &Reader, csrf: &str) -> Markup {
    html! {
        div.card {
            h2 style="margin-top:0" { "Interests" }
            p.small.muted { "The words the list is ranked by before your ratings train it." }
            form method="post" action={ "/feed/" (enc(&reader.name)) "/interests" } {
                input type="hidden" name="csrf" value=(csrf);
                textarea name="interests" aria-label="Interests" { (reader.interests) }
                button.primary type="submit" { "Save interests" }
            }
        }
    }
}

fn quality_box(q: &Value) -> Markup {
    let n = |k: &str| q[k].as_u64().unwrap_or(0);
    html! {
        div.card {
            h2 style="margin-top:0" { "Ratings behind the order" }
            dl.kv.small {
                dt { "Ratings" } dd { (n("clicks")) " (" (n("useful")) " useful, " (n("not_useful")) " not)" }
                dt { "A person's" } dd { (n("human_clicks")) }
                dt { "Click weight" } dd { (q["blend_weight"].as_f64().map(layout::num).unwrap_or_default()) }
                @if let Some(m) = q.get("measured").filter(|m| !m.is_null()) {
                    dt { "Held-out AUC" } dd { (m["auc"].as_f64().map(layout::num).unwrap_or_default()) }
                    dt { "Precision@5" } dd { (m["precision_at_5"].as_f64().map(layout::num).unwrap_or_default()) }
                }
            }
        }
    }
}

/// `/feed/{user}/digest`: the week by topic.
pub async fn digest(State(app): State<AppState>, Path(user): Path<String>) -> Response {
    let reader = match reader(&app, &user).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let answer = match call(&app, "feed.digest", json!({ "user": reader.name, "limit": MAX_LIMIT })).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let data = answer.data.clone().unwrap_or(Value::Null);
    let caveats: Vec<String> = answer.caveat.iter().cloned().collect();
    let groups = data["groups"].as_array().cloned().unwrap_or_default();
    layout::respond(
        StatusCode::OK,
        &format!("Digest for {}", reader.name),
        Some(Section::Feed),
        html! {
            p { a href={ "/feed/" (enc(&reader.name)) } { "← Today for " (reader.name) } }
            h1 { "The week by topic for " (reader.name) }
            (caveat_box(&caveats, &data["quality"]))
            @if !answer.ok { div.refusal { (answer.answer) } }
            @for g in &groups {
                div.card {
                    h2 style="margin-top:0" { (g["topic"].as_str().unwrap_or("")) " " span.muted.small { "(" (g["count"]) " items)" } }
                    ul {
                        @for it in g["items"].as_array().into_iter().flatten() {
                            li { (it["title"].as_str().unwrap_or("")) " " span.muted.small { (it["source"].as_str().unwrap_or("")) " · " (it["published"].as_str().unwrap_or("")) } }
                        }
                    }
                }
            }
        },
    )
}

/// The rating form.
#[derive(Deserialize, Default)]
pub struct RateForm {
    item: Option<String>,
    verdict: Option<String>,
    csrf: Option<String>,
    /// The search the rating was made from, to return to it.
    q: Option<String>,
}

/// `POST /feed/{user}/rate`: record a rating with source `ui`, then show the list
/// ranked again.
pub async fn rate(
    State(app): State<AppState>,
    Path(user): Path<String>,
    headers: HeaderMap,
    axum::Extension(session): axum::Extension<Session>,
    form: Result<Form<RateForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let form = form.map(|f| f.0).unwrap_or_default();
    let reader = match writer(&app, &user, &headers, &session, form.csrf.as_deref()).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let useful = match form.verdict.as_deref().map(str::trim) {
        Some("useful") => true,
        Some("not_useful") => false,
        _ => {
            return layout::refused(
                StatusCode::BAD_REQUEST,
                Some(Section::Feed),
                "A rating needs verdict=useful or verdict=not_useful.",
            );
        }
    };
    let Some(id) = form.item.as_deref().and_then(|s| s.trim().parse::<i64>().ok()) else {
        return layout::refused(
            StatusCode::BAD_REQUEST,
            Some(Section::Feed),
            "A rating needs item=<the item's number>, as the list's buttons send it.",
        );
    };
    match app.feed.store.item(id).await {
        Ok(Some(_)) => {}
        Ok(None) => {
            return layout::refused(
                StatusCode::BAD_REQUEST,
                Some(Section::Feed),
                &format!(
                    "No item {id} in the archive, so there is nothing to rate. Reload the list and rate an item on it."
                ),
            );
        }
        Err(e) => return layout::failed(e),
    }
    let answer =
        match call(&app, "feed.rate", json!({ "user": reader.name, "item_id": id, "useful": useful, "source": "ui" }))
            .await
        {
            Ok(a) => a,
            Err(r) => return r,
        };
    if !answer.ok {
        return layout::refused(StatusCode::BAD_REQUEST, Some(Section::Feed), &answer.answer);
    }
    let verdict = if useful { "useful" } else { "not_useful" };
    let search = form.q.as_deref().map(str::trim).filter(|q| !q.is_empty()).map(|q| format!("&q={}", enc(q)));
    Redirect::to(&format!("/feed/{}?rated={id}&verdict={verdict}{}", enc(&reader.name), search.unwrap_or_default()))
        .into_response()
}

/// The interests form.
#[derive(Deserialize, Default)]
pub struct InterestsForm {
    interests: Option<String>,
    csrf: Option<String>,
}

/// `POST /feed/{user}/interests`: replace the reader's interests text.
pub async fn interests(
    State(app): State<AppState>,
    Path(user): Path<String>,
    headers: HeaderMap,
    axum::Extension(session): axum::Extension<Session>,
    form: Result<Form<InterestsForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let form = form.map(|f| f.0).unwrap_or_default();
    let reader = match writer(&app, &user, &headers, &session, form.csrf.as_deref()).await {
        Ok(r) => r,
        Err(r) => return r,
    };
    let text = form.interests.unwrap_or_default();
    if text.trim().is_empty() {
        return layout::refused(
            StatusCode::BAD_REQUEST,
            Some(Section::Feed),
            "Interests cannot be empty: write the topics this reader wants to read about.",
        );
    }
    let answer = match call(&app, "feed.persona_update", json!({ "user": reader.name, "interests": text })).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    if !answer.ok {
        return layout::refused(StatusCode::BAD_REQUEST, Some(Section::Feed), &answer.answer);
    }
    Redirect::to(&format!("/feed/{}?saved=1", enc(&reader.name))).into_response()
}
