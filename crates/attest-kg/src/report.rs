//! `kg-report` content: the graph's health and clusters as text, and an SVG picture of
//! the concepts. Returned as strings; the CLI writes them.
//!
//! Layout: stress majorisation over shortest-path distances (no maintained Rust crate
//! does it on petgraph; the ones that exist are force-directed and unmaintained or
//! AGPL), then labels placed greedily where they overlap nothing. Everything is plain
//! arithmetic in a fixed order, so the picture is the same every time.

use std::fmt::Write;

use crate::graph::Graph;

/// Most concepts drawn; a larger component is cut to its highest-degree concepts.
pub const MAX_DRAWN: usize = 400;

/// The health lines, then each community with its members.
pub fn text(graph: &Graph, min_size: usize) -> String {
    let h = graph.health();
    let mut out = String::new();
    let rows: Vec<(&str, String)> = vec![
        ("concepts", h.concepts.to_string()),
        ("edges", h.edges.to_string()),
        ("components", h.components.to_string()),
        ("largest component", h.largest_component.to_string()),
        ("items tagged", h.build.items.to_string()),
        ("distinct tags", h.build.distinct_tags.to_string()),
        ("dropped (used < min)", h.build.dropped_below_min_uses.to_string()),
        ("tags without edges", h.build.tags_without_edges.to_string()),
        ("alias merges", h.build.alias_merges.to_string()),
        ("median degree", format!("{}", h.median_degree)),
        ("max degree", h.max_degree.to_string()),
        ("hub", h.hub.clone().unwrap_or_else(|| "-".into())),
        ("hub dominance", format!("{}%", h.hub_dominance_pct)),
        ("communities (>= 3)", h.communities.to_string()),
        ("largest community", format!("{}%", h.largest_community_pct)),
        ("thresholds", format!("min_tag_uses {}, min_edge_weight {}", h.params.min_tag_uses, h.params.min_edge_weight)),
    ];
    for (k, v) in rows {
        let _ = writeln!(out, "{k:<22}{v}");
    }
    let c = graph.communities(min_size);
    let _ = writeln!(out, "\nclusters (modularity {}):", c.modularity);
    for (i, row) in c.rows.iter().enumerate() {
        let _ = writeln!(out, "{}. [{}] {} concepts", i + 1, row.label, row.members.len());
        let _ = writeln!(out, "   {}", row.members.join(", "));
    }
    if c.dropped > 0 {
        let _ = writeln!(
            out,
            "({} not shown)",
            attest_core::text::plural(c.dropped, "smaller cluster", "smaller clusters")
        );
    }
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const PALETTE: &[&str] =
    &["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/// Positions for the nodes `order` (indices into the graph) by stress majorisation:
/// every pair of concepts is pulled towards a distance proportional to its
/// shortest-path length (pairs in different components towards one more than the
/// longest path), each pair weighted by 1/d², starting from a circle in community
/// order and moving each node to its weighted best position (Gansner, Koren and
/// North's localized SMACOF update), a fixed number of rounds in node order. Plain
/// arithmetic in a fixed order: the same graph always gives the same picture.
fn stress_layout(graph: &Graph, order: &[u32]) -> Vec<(f64, f64)> {
    let n = order.len();
    let mut pos_of = vec![usize::MAX; graph.node_count()];
    for (k, &i) in order.iter().enumerate() {
        pos_of[i as usize] = k;
    }
    // All-pairs shortest paths by BFS over the drawn nodes.
    let mut d = vec![u32::MAX; n * n];
    let mut queue = std::collections::VecDeque::new();
    for s in 0..n {
        d[s * n + s] = 0;
        queue.push_back(s);
        while let Some(u) = queue.pop_front() {
            for &(j, _) in &graph.adj[order[u] as usize] {
                let v = pos_of[j as usize];
                if v != usize::MAX && d[s * n + v] == u32::MAX {
                    d[s * n + v] = d[s * n + u] + 1;
                    queue.push_back(v);
                }
            }
        }
    }
    let longest = d.iter().filter(|&&x| x != u32::MAX).max().copied().unwrap_or(1).max(1);
    let far = (longest as f64 / 2.0).max(1.0) + 1.0;
    let dist = |a: usize, b: usize| match d[a * n + b] {
        u32::MAX => far,
        x => x as f64,
    };
    let mut xy: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / n.max(1) as f64;
            (far * a.cos(), far * a.sin())
        })
        .collect();
    for _round in 0..300 {
        for i in 0..n {
            let (mut sx, mut sy, mut sw) = (0.0, 0.0, 0.0);
            for j in 0..n {
                if i == j {
                    continue;
                }
                let dij = dist(i, j);
                let w = 1.0 / (dij * dij);
                let (dx, dy) = (xy[i].0 - xy[j].0, xy[i].1 - xy[j].1);
                let len = (dx * dx + dy * dy).sqrt().max(1e-9);
                sx += w * (xy[j].0 + dij * dx / len);
                sy += w * (xy[j].1 + dij * dy / len);
                sw += w;
            }
            if sw > 0.0 {
                xy[i] = (sx / sw, sy / sw);
            }
        }
    }
    xy
}

/// Approximate width of a label in pixels at `size` (sans-serif, average glyph).
fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.56
}

/// A box: left, top, right, bottom.
type Rect = (f64, f64, f64, f64);

fn overlaps(a: Rect, b: Rect) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// An SVG of the concept graph (at most [`MAX_DRAWN`] concepts, the most connected):
/// laid out by stress majorisation, each concept a circle sized by the items carrying
/// it and coloured by its cluster (community), labels placed beside their circle
/// where they overlap no other label or circle (most-used concepts first; a concept
/// whose label does not fit keeps it as a tooltip), and a legend naming each
/// cluster by its hub.
pub fn svg(graph: &Graph) -> String {
    const W: f64 = 1100.0;
    const H: f64 = 900.0;
    const LEGEND: f64 = 320.0;
    let mut drawn: Vec<u32> = (0..graph.node_count() as u32).collect();
    if drawn.len() > MAX_DRAWN {
        drawn.sort_by(|&a, &b| graph.adj[b as usize].len().cmp(&graph.adj[a as usize].len()).then(a.cmp(&b)));
        drawn.truncate(MAX_DRAWN);
        drawn.sort_unstable();
    }
    let (member, _) = graph.louvain();
    // Clusters by size (then hub name), as the text report lists them.
    let mut clusters: Vec<(u32, Vec<u32>)> = Vec::new();
    for &i in &drawn {
        match clusters.iter_mut().find(|c| c.0 == member[i as usize]) {
            Some(c) => c.1.push(i),
            None => clusters.push((member[i as usize], vec![i])),
        }
    }
    let hub = |c: &[u32]| {
        *c.iter()
            .max_by(|&&a, &&b| graph.adj[a as usize].len().cmp(&graph.adj[b as usize].len()).then(b.cmp(&a)))
            .expect("non-empty")
    };
    clusters.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| graph.name(hub(&a.1)).cmp(graph.name(hub(&b.1)))));
    let colour_of: std::collections::HashMap<u32, &str> =
        clusters.iter().enumerate().map(|(k, c)| (c.0, PALETTE[k % PALETTE.len()])).collect();
    let order: Vec<u32> = clusters.iter().flat_map(|c| c.1.iter().copied()).collect();
    let n = order.len();
    let raw = stress_layout(graph, &order);
    // Fit into the drawing area (left of the legend), keeping the aspect ratio.
    let (minx, maxx) = raw.iter().fold((f64::MAX, f64::MIN), |m, p| (m.0.min(p.0), m.1.max(p.0)));
    let (miny, maxy) = raw.iter().fold((f64::MAX, f64::MIN), |m, p| (m.0.min(p.1), m.1.max(p.1)));
    let (aw, ah) = (W - LEGEND - 160.0, H - 120.0);
    let scale = (aw / (maxx - minx).max(1e-9)).min(ah / (maxy - miny).max(1e-9));
    let xy: Vec<(f64, f64)> = raw
        .iter()
        .map(|p| {
            if n == 1 {
                return (80.0 + aw / 2.0, 60.0 + ah / 2.0);
            }
            (
                80.0 + (p.0 - minx) * scale + (aw - (maxx - minx) * scale) / 2.0,
                60.0 + (p.1 - miny) * scale + (ah - (maxy - miny) * scale) / 2.0,
            )
        })
        .collect();
    let items = |i: u32| graph.node_items[i as usize].len();
    let max_items = order.iter().map(|&i| items(i)).max().unwrap_or(1).max(1) as f64;
    let radius = |i: u32| 4.0 + 14.0 * (items(i) as f64 / max_items).sqrt();
    let mut pos_of = vec![usize::MAX; graph.node_count()];
    for (k, &i) in order.iter().enumerate() {
        pos_of[i as usize] = k;
    }
    let edges: Vec<(usize, usize)> = order
        .iter()
        .flat_map(|&i| graph.adj[i as usize].iter().map(move |&(j, _)| (i, j)))
        .filter(|&(i, j)| i < j && pos_of[j as usize] != usize::MAX)
        .map(|(i, j)| (pos_of[i as usize], pos_of[j as usize]))
        .collect();

    // Labels: most-used concepts first, beside the circle (right, left, above, below),
    // never over another label or circle.
    let mut boxes: Vec<(f64, f64, f64, f64)> = order
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let r = radius(i);
            (xy[k].0 - r, xy[k].1 - r, xy[k].0 + r, xy[k].1 + r)
        })
        .collect();
    let mut by_use: Vec<usize> = (0..n).collect();
    by_use.sort_by(|&a, &b| items(order[b]).cmp(&items(order[a])).then(order[a].cmp(&order[b])));
    let mut labels: Vec<(usize, f64, f64, &'static str)> = Vec::new();
    for k in by_use {
        let i = order[k];
        let name = graph.name(i);
        let size = if items(i) as f64 >= max_items * 0.5 { 14.0 } else { 12.0 };
        let (w, h) = (text_width(name, size), size);
        let r = radius(i);
        let (x, y) = xy[k];
        // Beside, above, below, then the diagonals; then the same a little farther out.
        let mut spots: Vec<(f64, f64, &'static str, Rect)> = Vec::new();
        for gap in [3.0, 16.0] {
            let r = r + gap;
            let (dx, dy) = (r * 0.75, r * 0.75);
            spots.extend([
                (x + r, y + h * 0.35, "start", (x + r - 1.0, y - h * 0.6, x + r + 1.0 + w, y + h * 0.5)),
                (x - r, y + h * 0.35, "end", (x - r - 1.0 - w, y - h * 0.6, x - r + 1.0, y + h * 0.5)),
                (x, y - r, "middle", (x - w / 2.0, y - r - h, x + w / 2.0, y - r + 2.0)),
                (x, y + r + h * 0.8, "middle", (x - w / 2.0, y + r - 2.0, x + w / 2.0, y + r + h)),
                (x + dx, y - dy, "start", (x + dx - 1.0, y - dy - h, x + dx + w + 1.0, y - dy + 2.0)),
                (x + dx, y + dy + h * 0.8, "start", (x + dx - 1.0, y + dy - 2.0, x + dx + w + 1.0, y + dy + h)),
                (x - dx, y - dy, "end", (x - dx - w - 1.0, y - dy - h, x - dx + 1.0, y - dy + 2.0)),
                (x - dx, y + dy + h * 0.8, "end", (x - dx - w - 1.0, y + dy - 2.0, x - dx + 1.0, y + dy + h)),
            ]);
        }
        let own = boxes[k];
        for (lx, ly, anchor, b) in spots {
            let inside = b.0 >= 2.0 && b.2 <= W - LEGEND - 2.0 && b.1 >= 2.0 && b.3 <= H - 2.0;
            if inside && !boxes.iter().any(|o| *o != own && overlaps(*o, b)) {
                boxes.push(b);
                labels.push((k, lx, ly, anchor));
                break;
            }
        }
    }

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        s,
        r#"<title>Concept graph: {n} concepts, {} edges, {} clusters</title><rect width="100%" height="100%" fill="white"/>"#,
        edges.len(),
        clusters.len()
    );
    s.push_str(r##"<g stroke="#888" stroke-opacity="0.45">"##);
    s.push('\n');
    for &(a, b) in &edges {
        let w = graph.weight(graph.name(order[a]), graph.name(order[b])).unwrap_or(1) as f64;
        let _ = writeln!(
            s,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke-width="{:.1}"/>"#,
            xy[a].0,
            xy[a].1,
            xy[b].0,
            xy[b].1,
            (0.8 + w.ln()).min(4.0)
        );
    }
    s.push_str("</g>\n<g stroke=\"white\" stroke-width=\"1.5\">\n");
    for (k, &i) in order.iter().enumerate() {
        let colour = colour_of[&member[i as usize]];
        let name = esc(graph.name(i));
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="{colour}"><title>{name}: {} items, {} neighbours</title></circle>"#,
            xy[k].0,
            xy[k].1,
            radius(i),
            items(i),
            graph.adj[i as usize].len()
        );
    }
    s.push_str("</g>\n<g fill=\"#111\">\n");
    labels.sort_by_key(|l| l.0);
    for (k, x, y, anchor) in labels {
        let i = order[k];
        let size = if items(i) as f64 >= max_items * 0.5 { 14 } else { 12 };
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            esc(graph.name(i))
        );
    }
    s.push_str("</g>\n");
    // Legend: each cluster's colour, hub and size.
    let lx = W - LEGEND + 10.0;
    let _ = writeln!(s, r##"<text x="{lx:.1}" y="40" font-size="15" font-weight="bold" fill="#111">Clusters</text>"##);
    let shown = clusters.len().min(((H - 80.0) / 22.0) as usize);
    for (k, c) in clusters.iter().take(shown).enumerate() {
        let y = 66.0 + 22.0 * k as f64;
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="7" fill="{}"/><text x="{:.1}" y="{:.1}" font-size="13" fill="#111">{} ({})</text>"##,
            lx + 7.0,
            y - 4.0,
            PALETTE[k % PALETTE.len()],
            lx + 20.0,
            y,
            esc(&attest_core::text::clip(graph.name(hub(&c.1)), 24)),
            attest_core::text::plural(c.1.len(), "concept", "concepts")
        );
    }
    if clusters.len() > shown {
        let _ = writeln!(
            s,
            r##"<text x="{lx:.1}" y="{:.1}" font-size="12" fill="#555">and {} more</text>"##,
            66.0 + 22.0 * shown as f64,
            clusters.len() - shown
        );
    }
    s.push_str("</svg>\n");
    s
}
