//! The concept graph as a map of areas a person can read: each area (a community of
//! concepts) in its own cell, its hub in the middle and its best-connected members on
//! a ring around it, labels outside the ring so none overlap; links inside an area
//! drawn darker than links between areas. Every concept is a link to its page.

use std::collections::HashMap;
use std::f64::consts::TAU;
use std::fmt::Write as _;

use attest_kg::Graph;
use attest_kg::graph::Community;

use crate::layout::enc;

/// Areas drawn, and members per area (hub included).
pub const MAX_AREAS: usize = 9;
const MAX_MEMBERS: usize = 12;
const COLS: usize = 3;
const CELL_W: f64 = 400.0;
const CELL_H: f64 = 330.0;
const RING: f64 = 96.0;
const PALETTE: &[&str] =
    &["#1f77b4", "#d95f02", "#2ca02c", "#7570b3", "#c51b7d", "#8c564b", "#17becf", "#bcbd22", "#636363"];

fn esc(s: &str) -> String {
    maud::html! { (s) }.into_string()
}

/// The picture: `areas` (largest first), `selected` highlighted with its neighbours.
pub fn svg(graph: &Graph, areas: &[Community], selected: Option<&str>) -> String {
    let areas: Vec<&Community> = areas.iter().take(MAX_AREAS).collect();
    let rows = areas.len().div_ceil(COLS).max(1);
    let cols = areas.len().clamp(1, COLS);
    let (w, h) = (CELL_W * cols as f64, CELL_H * rows as f64);
    // Place every drawn concept.
    let mut pos: HashMap<&str, (f64, f64, usize)> = HashMap::new();
    let mut drawn: Vec<Vec<&str>> = Vec::new();
    for (k, a) in areas.iter().enumerate() {
        let (cx, cy) = (CELL_W * ((k % COLS) as f64 + 0.5), CELL_H * ((k / COLS) as f64 + 0.5) + 20.0);
        let mut members: Vec<&str> = a.members.iter().map(String::as_str).filter(|m| *m != a.label).collect();
        members.sort_by(|x, y| graph.degree(y).cmp(&graph.degree(x)).then(x.cmp(y)));
        members.truncate(MAX_MEMBERS - 1);
        members.sort_unstable();
        pos.insert(a.label.as_str(), (cx, cy, k));
        let n = members.len().max(1) as f64;
        for (i, m) in members.iter().enumerate() {
            let t = TAU * i as f64 / n - TAU / 4.0;
            pos.insert(m, (cx + RING * t.cos(), cy + RING * t.sin(), k));
        }
        let mut all = vec![a.label.as_str()];
        all.extend(members);
        drawn.push(all);
    }
    let near: Vec<&str> = selected
        .and_then(|s| graph.neighbors(s, 200).ok())
        .map(|n| n.rows.into_iter().filter_map(|r| pos.get_key_value(r.name.as_str()).map(|(k, _)| *k)).collect())
        .unwrap_or_default();
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="-70 0 {} {h}" font-family="system-ui, sans-serif" role="img" aria-label="Concept graph by area"><title>Concept graph: {} areas</title>"#,
        w + 140.0,
        areas.len()
    );
    // Links: between areas faint, inside an area darker.
    let names: Vec<&str> = pos.keys().copied().collect();
    let mut lines = String::new();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let Some(wt) = graph.weight(a, b) else { continue };
            let (pa, pb) = (pos[a], pos[b]);
            let hot = selected.is_some_and(|s| s == *a || s == *b);
            let (stroke, op) = match (hot, pa.2 == pb.2) {
                (true, _) => ("#111", 0.7),
                (false, true) => ("#8a94a3", 0.55),
                (false, false) => ("#b9c0ca", 0.35),
            };
            let width = (1.0 + (wt as f64).ln()).min(4.0);
            let _ = write!(
                lines,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-opacity="{op}" stroke-width="{width:.1}"/>"#,
                pa.0, pa.1, pb.0, pb.1
            );
        }
    }
    s.push_str(&lines);
    for (k, (a, members)) in areas.iter().zip(&drawn).enumerate() {
        let colour = PALETTE[k % PALETTE.len()];
        let (x0, y0) = (CELL_W * (k % COLS) as f64, CELL_H * (k / COLS) as f64);
        let more = a.members.len().saturating_sub(members.len());
        let _ = write!(
            s,
            r##"<text x="{:.1}" y="{:.1}" font-size="18" font-weight="700" fill="{colour}">{}</text><text x="{:.1}" y="{:.1}" font-size="14" fill="#5b6472">{} concepts{}</text>"##,
            x0 + 14.0,
            y0 + 22.0,
            esc(&a.label),
            x0 + 14.0,
            y0 + 40.0,
            a.members.len(),
            if more > 0 { format!(", {more} not drawn") } else { String::new() }
        );
        for (i, m) in members.iter().enumerate() {
            let (x, y, _) = pos[m];
            let hub = i == 0;
            let is_sel = selected == Some(*m);
            let dim = selected.is_some() && !is_sel && !near.contains(m);
            let r = if hub { 9.0 } else { 5.5 + (graph.degree(m).unwrap_or(0) as f64).sqrt().min(4.0) };
            let (anchor, lx, ly) = if hub {
                ("middle", x, y - r - 7.0)
            } else {
                let (dx, dy) = (x - (x0 + CELL_W / 2.0), y - (y0 + CELL_H / 2.0 + 20.0));
                let d = (dx * dx + dy * dy).sqrt().max(1.0);
                let (ux, uy) = (dx / d, dy / d);
                let anchor = if ux > 0.25 {
                    "start"
                } else if ux < -0.25 {
                    "end"
                } else {
                    "middle"
                };
                (anchor, x + ux * (r + 6.0), y + uy * (r + 6.0) + 4.0 + if uy > 0.5 { 6.0 } else { 0.0 })
            };
            let _ = write!(
                s,
                r##"<a href="/graph?concept={}"><g opacity="{}"><circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{colour}" stroke="{}" stroke-width="{}"><title>{} ({} neighbours)</title></circle><text x="{lx:.1}" y="{ly:.1}" text-anchor="{anchor}" font-size="{}" font-weight="{}" fill="#1d2430" stroke="white" stroke-width="3" paint-order="stroke">{}</text></g></a>"##,
                enc(m),
                if dim { "0.45" } else { "1" },
                if is_sel { "#111" } else { "white" },
                if is_sel { 3 } else { 1 },
                esc(m),
                graph.degree(m).unwrap_or(0),
                if hub { 17 } else { 14 },
                if hub || is_sel { 700 } else { 400 },
                esc(m)
            );
        }
    }
    s.push_str("</svg>");
    s
}
