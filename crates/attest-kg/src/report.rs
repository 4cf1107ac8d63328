//! `kg-report` content: the graph's health and clusters as text, and an SVG picture of
//! the largest component with the hubs labelled. Returned as strings; the CLI writes
//! them.
//!
//! Layout: the component's communities are laid side by side on a circle (members of a
//! community are adjacent, in name order), then a fixed number of spring iterations
//! pull neighbours together. Everything is plain arithmetic in a fixed order, so the
//! picture is the same every time.

use std::fmt::Write;

use crate::graph::Graph;

/// Most concepts drawn; a larger component is cut to its highest-degree concepts.
pub const MAX_DRAWN: usize = 400;
/// How many hubs get a label.
pub const LABELLED_HUBS: usize = 12;

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

/// An SVG of the largest component (at most [`MAX_DRAWN`] concepts), coloured by
/// community, the [`LABELLED_HUBS`] highest-degree concepts labelled.
pub fn svg(graph: &Graph) -> String {
    const W: f64 = 1000.0;
    const H: f64 = 1000.0;
    let mut comp = graph.components().into_iter().next().unwrap_or_default();
    if comp.len() > MAX_DRAWN {
        comp.sort_by(|&a, &b| graph.adj[b as usize].len().cmp(&graph.adj[a as usize].len()).then(a.cmp(&b)));
        comp.truncate(MAX_DRAWN);
        comp.sort_unstable();
    }
    let (member, _) = graph.louvain();
    // Order: by community, then by name (node index).
    let mut order = comp.clone();
    order.sort_by_key(|&i| (member[i as usize], i));
    let n = order.len();
    let mut pos_of = vec![usize::MAX; graph.node_count()];
    for (k, &i) in order.iter().enumerate() {
        pos_of[i as usize] = k;
    }
    let r0 = 0.4 * W;
    let mut xy: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a = std::f64::consts::TAU * k as f64 / n.max(1) as f64;
            (W / 2.0 + r0 * a.cos(), H / 2.0 + r0 * a.sin())
        })
        .collect();
    let edges: Vec<(usize, usize)> = order
        .iter()
        .flat_map(|&i| graph.adj[i as usize].iter().map(move |&(j, _)| (i, j)))
        .filter(|&(i, j)| i < j && pos_of[j as usize] != usize::MAX)
        .map(|(i, j)| (pos_of[i as usize], pos_of[j as usize]))
        .collect();
    // A few spring steps: neighbours attract, everyone repels weakly; bounded moves.
    let kk = (W * H / n.max(1) as f64).sqrt() * 0.5;
    for step in 0..60 {
        let temp = 20.0 * (1.0 - step as f64 / 60.0) + 1.0;
        let mut disp = vec![(0.0f64, 0.0f64); n];
        if n <= MAX_DRAWN {
            for a in 0..n {
                for b in a + 1..n {
                    let (dx, dy) = (xy[a].0 - xy[b].0, xy[a].1 - xy[b].1);
                    let d2 = (dx * dx + dy * dy).max(1.0);
                    let f = kk * kk / d2;
                    disp[a].0 += dx * f / d2.sqrt();
                    disp[a].1 += dy * f / d2.sqrt();
                    disp[b].0 -= dx * f / d2.sqrt();
                    disp[b].1 -= dy * f / d2.sqrt();
                }
            }
        }
        for &(a, b) in &edges {
            let (dx, dy) = (xy[a].0 - xy[b].0, xy[a].1 - xy[b].1);
            let d = (dx * dx + dy * dy).sqrt().max(1.0);
            let f = d * d / kk;
            disp[a].0 -= dx / d * f;
            disp[a].1 -= dy / d * f;
            disp[b].0 += dx / d * f;
            disp[b].1 += dy / d * f;
        }
        for k in 0..n {
            let (dx, dy) = disp[k];
            let d = (dx * dx + dy * dy).sqrt().max(1e-9);
            let m = d.min(temp);
            xy[k].0 = (xy[k].0 + dx / d * m).clamp(30.0, W - 30.0);
            xy[k].1 = (xy[k].1 + dy / d * m).clamp(30.0, H - 30.0);
        }
    }
    let mut hubs = order.clone();
    hubs.sort_by(|&a, &b| graph.adj[b as usize].len().cmp(&graph.adj[a as usize].len()).then(a.cmp(&b)));
    hubs.truncate(LABELLED_HUBS);
    let max_deg = hubs.first().map_or(1, |&h| graph.adj[h as usize].len()).max(1) as f64;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif">"#
    );
    let _ = writeln!(
        s,
        r#"<title>Concept graph: largest component, {n} concepts, {} edges</title><rect width="100%" height="100%" fill="white"/>"#,
        edges.len()
    );
    s.push_str(r##"<g stroke="#999" stroke-opacity="0.35">"##);
    s.push('\n');
    for &(a, b) in &edges {
        let _ =
            writeln!(s, r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#, xy[a].0, xy[a].1, xy[b].0, xy[b].1);
    }
    s.push_str("</g>\n<g>\n");
    for (k, &i) in order.iter().enumerate() {
        let deg = graph.adj[i as usize].len() as f64;
        let r = 3.0 + 9.0 * (deg / max_deg).sqrt();
        let colour = PALETTE[member[i as usize] as usize % PALETTE.len()];
        let name = esc(&graph.graph[petgraph::graph::NodeIndex::new(i as usize)]);
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="{colour}"><title>{name} ({deg} neighbours)</title></circle>"#,
            xy[k].0, xy[k].1
        );
    }
    s.push_str("</g>\n<g font-size=\"14\" font-weight=\"bold\" fill=\"#111\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\n");
    for &h in &hubs {
        let k = pos_of[h as usize];
        let name = esc(&graph.graph[petgraph::graph::NodeIndex::new(h as usize)]);
        let _ = writeln!(s, r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{name}</text>"#, xy[k].0, xy[k].1 - 12.0);
    }
    s.push_str("</g>\n</svg>\n");
    s
}
