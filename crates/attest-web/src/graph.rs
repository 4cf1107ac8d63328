//! `/graph` (`?concept=`): the concept graph's picture and areas; a concept's
//! neighbours with the items behind each link.

use std::collections::HashMap;

use attest_kg::Params;
use attest_kg::graph::{Neighbors, Refusal};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;

use crate::AppState;
use crate::layout::{self, Section, enc};

/// Neighbours shown for a concept.
const NEIGHBOURS: usize = 12;
/// Items shown behind each link.
const ITEMS_PER_LINK: usize = 3;
/// Areas listed, and members shown per area.
const AREAS: usize = 12;
const MEMBERS: usize = 14;

/// The query.
#[derive(Deserialize, Default)]
pub struct GraphQuery {
    concept: Option<String>,
}

fn concept_link(name: &str) -> Markup {
    html! { a href={ "/graph?concept=" (enc(name)) } { (name) } }
}

/// `/graph`.
pub async fn page(State(app): State<AppState>, Query(q): Query<GraphQuery>) -> Response {
    let loaded = match attest_kg::tools::load(&app.feed.store, Params::default()).await {
        Ok(l) => l,
        Err(e) => return layout::failed(e),
    };
    let graph = &loaded.graph;
    if graph.is_empty() {
        return layout::respond(
            StatusCode::OK,
            "Concept graph",
            Some(Section::Graph),
            html! { h1 { "Concept graph" } div.note { (loaded.empty_message()) } },
        );
    }
    let concept = q.concept.as_deref().map(str::trim).filter(|c| !c.is_empty());
    let chosen = match concept.map(|c| graph.neighbors(c, NEIGHBOURS)) {
        None => None,
        Some(Ok(n)) => Some(n),
        Some(Err(r)) => return unknown_concept(concept.unwrap_or_default(), &r, graph),
    };
    let evidence = match &chosen {
        Some(n) => {
            let ids: Vec<i64> =
                n.rows.iter().flat_map(|r| r.items.iter().take(ITEMS_PER_LINK).copied()).collect::<Vec<_>>();
            match app.feed.store.items(&ids).await {
                Ok(items) => items.into_iter().map(|i| (i.id, (i.title, i.url))).collect(),
                Err(e) => return layout::failed(e),
            }
        }
        None => HashMap::new(),
    };
    let areas = graph.communities(3);
    let health = graph.health();
    let svg = crate::areamap::svg(graph, &areas.rows, chosen.as_ref().map(|n| n.concept.name.as_str()));
    let body = html! {
        h1 { "Concept graph" }
        p.muted {
            (health.concepts) " concepts linked when they tag the same items (at least "
            (graph.params().min_edge_weight) " in common). Click a concept to see its neighbours and the items behind each link."
        }
        @if let Some(c) = loaded.caveat() { section.caveat { h2 { "What the graph leaves out" } p style="margin:0" { (c) } } }
        div.graphpic id="graph" { (PreEscaped(svg)) }
        p.small.muted {
            "Each area is a group of concepts that tag the same items, named by its best-connected concept (in the middle). "
            "Lines join concepts that share items: darker inside an area, faint between areas. Click a concept to open it."
            @if areas.rows.len() > crate::areamap::MAX_AREAS { " The " (crate::areamap::MAX_AREAS) " largest areas are drawn." }
        }
        div.cols {
            div {
                @if let Some(n) = &chosen { (neighbours(n, &evidence)) }
                @else { div.card { p style="margin:0" { "Click a concept, in the picture or in the list of areas, to see its neighbours and the items behind each link." } } }
            }
            aside {
                div.card {
                    h2 style="margin-top:0" { "Areas" }
                    p.small.muted { "Groups of concepts that tag the same items, named by their best-connected member (modularity " (format!("{:.2}", areas.modularity)) ")." }
                    @for a in areas.rows.iter().take(AREAS) {
                        p.small {
                            strong { (concept_link(&a.label)) } " (" (a.members.len()) "): "
                            @for (i, m) in a.members.iter().filter(|m| **m != a.label).take(MEMBERS).enumerate() {
                                @if i > 0 { ", " } (concept_link(m))
                            }
                            @if a.members.len() > MEMBERS + 1 { ", …" }
                        }
                    }
                    @if areas.rows.len() > AREAS { p.small.muted { (areas.rows.len() - AREAS) " smaller areas not listed." } }
                }
            }
        }
    };
    layout::respond(StatusCode::OK, "Concept graph", Some(Section::Graph), body)
}

type Evidence = HashMap<i64, (String, Option<String>)>;

fn neighbours(n: &Neighbors, evidence: &Evidence) -> Markup {
    html! {
        div.card id="concept" {
            h2 style="margin-top:0" { "Neighbours of " (n.concept.name) }
            @if n.concept.name.to_lowercase() != n.concept.query.to_lowercase() {
                p.small.muted { "You asked for '" (n.concept.query) "'." }
            }
            @if n.rows.is_empty() { p.muted { "No neighbours: it shares too few items with any other concept." } }
            @else {
                p.small.muted { (n.rows.len()) " of " (n.total) " neighbours, the strongest first." }
                table {
                    thead { tr { th { "Neighbour" } th.num { "Shared items" } th { "Items behind the link" } } }
                    tbody {
                        @for r in &n.rows {
                            tr {
                                td { (concept_link(&r.name)) }
                                td.num { (r.weight) }
                                td.small {
                                    @for id in r.items.iter().take(ITEMS_PER_LINK) {
                                        @if let Some((title, url)) = evidence.get(id) {
                                            @match url.as_deref().filter(|u| u.starts_with("http://") || u.starts_with("https://")) {
                                                Some(u) => { a href=(u) rel="noopener noreferrer" target="_blank" { (title) } },
                                                None => { (title) },
                                            }
                                            br;
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            p.small { a href="/graph" { "Close" } }
        }
    }
}

fn unknown_concept(asked: &str, r: &Refusal, graph: &attest_kg::Graph) -> Response {
    let suggestions: Vec<String> = match r {
        Refusal::Unknown { suggestions, .. } => suggestions.clone(),
        Refusal::Ambiguous { .. } => graph.concepts(Some(asked), 12).names,
        _ => Vec::new(),
    };
    let suggestions = if suggestions.is_empty() {
        graph.central(attest_kg::graph::Metric::Degree, 12).rows.into_iter().map(|s| s.name).collect()
    } else {
        suggestions
    };
    layout::not_found(
        Some(Section::Graph),
        &r.to_string(),
        html! {
            p { "Concepts you may mean:" }
            (layout::links(suggestions.iter().map(|s| (format!("/graph?concept={}", enc(s)), s.clone())), ""))
            p { a href="/graph" { "The whole graph" } }
        },
    )
}
