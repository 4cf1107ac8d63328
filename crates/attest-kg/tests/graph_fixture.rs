//! Every graph operation against the planted archive (`fixtures/archive.toml`), whose
//! structure is known: the answers are asserted, not just produced.

use std::collections::BTreeMap;

use attest_kg::graph::{How, Metric, Refusal, Resolution, build};
use attest_kg::{Graph, Params};
use serde::Deserialize;

#[derive(Deserialize)]
struct Archive {
    item: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    id: i64,
    tags: Vec<String>,
}

fn assignments() -> Vec<(i64, String)> {
    let a: Archive = toml::from_str(include_str!("fixtures/archive.toml")).unwrap();
    a.item.into_iter().flat_map(|i| i.tags.into_iter().map(move |t| (i.id, t))).collect()
}

fn graph() -> Graph {
    build(&assignments(), Params::default())
}

#[test]
fn concepts_merge_variants_and_drop_singletons() {
    let g = graph();
    let names: Vec<&str> = g.concept_names().collect();
    assert_eq!(
        names,
        [
            "climate-models",
            "computer-vision",
            "diffusion-models",
            "distillation",
            "drug-discovery",
            "graph-neural-networks",
            "graph-theory",
            "image-segmentation",
            "large-language-models",
            "machine-learning",
            "molecular-dynamics",
            "object-detection",
            "protein-structure",
            "quantization",
            "retrieval",
            "sea-ice",
            "tokenization",
        ]
    );
    let s = g.stats();
    assert_eq!(s.dropped_below_min_uses, 3, "quantum-chemistry, graph-rewriting, llm-as-judge");
    // llm, LLMs, "large language models", Large_Language_Models, "Computer Vision",
    // computervision, machinelearning, Machine_Learning, "machine learning", GNNs, "graph theory".
    assert_eq!(s.alias_merges, 11);
    assert_eq!(g.items_of("large-language-models").unwrap(), [1, 2, 3, 4, 5, 6, 30, 31]);
    assert_eq!(g.items_of("machine-learning").unwrap(), [50, 51, 52]);
    assert_eq!(g.weight("sea-ice", "quantization"), None, "co-occurs once only");
    assert_eq!(g.weight("large-language-models", "quantization"), Some(3));
}

#[test]
fn resolve_finds_concepts_however_they_are_written() {
    let g = graph();
    let found = |t: &str| match g.resolve(t) {
        Resolution::Found(r) => (r.name, r.how),
        other => panic!("{t}: {other:?}"),
    };
    assert_eq!(found("quantization"), ("quantization".into(), How::Exact));
    assert_eq!(found("Large Language Models"), ("large-language-models".into(), How::Canonical));
    assert_eq!(found("LLM"), ("large-language-models".into(), How::Canonical));
    assert_eq!(found("GNN"), ("graph-neural-networks".into(), How::Canonical));
    assert_eq!(found("Graph Neural Networks"), ("graph-neural-networks".into(), How::Canonical));
    assert_eq!(found("object detections"), ("object-detection".into(), How::Folded));
    assert_eq!(found("diffusion model"), ("diffusion-models".into(), How::Canonical));
    assert_eq!(found("image segmentations"), ("image-segmentation".into(), How::Folded));
    assert_eq!(found("protein"), ("protein-structure".into(), How::Prefix));
    assert_eq!(found("quantisation"), ("quantization".into(), How::Fuzzy));
    assert_eq!(found("obejct detection"), ("object-detection".into(), How::Fuzzy));
    match g.resolve("graph") {
        Resolution::Ambiguous { candidates, .. } => {
            let c: Vec<&str> = candidates.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(c, ["graph-theory", "graph-neural-networks"]);
        }
        other => panic!("{other:?}"),
    }
    match g.resolve("learning") {
        Resolution::Unknown { suggestions, .. } => assert_eq!(suggestions[0].name, "machine-learning"),
        other => panic!("{other:?}"),
    }
    match g.resolve("medieval cooking") {
        Resolution::Unknown { suggestions, .. } => assert!(suggestions.is_empty(), "{suggestions:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn neighbors_by_weight_then_name_with_evidence() {
    let g = graph();
    let n = g.neighbors("LLMs", 3).unwrap();
    assert_eq!(n.concept.name, "large-language-models");
    assert_eq!(n.total, 5);
    let rows: Vec<(&str, u32)> = n.rows.iter().map(|r| (r.name.as_str(), r.weight)).collect();
    assert_eq!(rows, [("distillation", 3), ("quantization", 3), ("tokenization", 3)]);
    assert_eq!(n.rows[1].items, [1, 2, 4]);
    let err = g.neighbors("medieval cooking", 5).unwrap_err();
    assert!(matches!(err, Refusal::Unknown { .. }));
    insta::assert_snapshot!("unknown_concept", err.to_string());
}

#[test]
fn path_is_the_known_chain_with_items_per_hop() {
    let g = graph();
    let p = g.path("quantization", "Molecular Dynamics").unwrap();
    assert_eq!(
        p.nodes,
        ["quantization", "large-language-models", "diffusion-models", "protein-structure", "molecular-dynamics"]
    );
    let hops = p.hops.unwrap();
    let items: Vec<Vec<i64>> = hops.iter().map(|h| h.items.clone()).collect();
    assert_eq!(items, [vec![1, 2, 4], vec![30, 31], vec![32, 33], vec![20, 21, 22]]);
    // A different component: a legitimate "no path", not a refusal.
    let none = g.path("quantization", "sea ice").unwrap();
    assert_eq!(none.hops, None);
    assert!(none.nodes.is_empty());
    // The same concept twice, however spelled, is refused.
    assert_eq!(
        g.path("llm", "Large Language Models").unwrap_err(),
        Refusal::SameConcept { name: "large-language-models".into() }
    );
    // A typo is a refusal naming the concept meant, never "no path".
    assert!(matches!(g.path("quantization", "molecular").unwrap(), p if p.hops.is_some()));
    assert!(matches!(g.path("xylophones", "quantization").unwrap_err(), Refusal::Unknown { .. }));
}

#[test]
fn central_names_the_hub() {
    let g = graph();
    let d = g.central(Metric::Degree, 2);
    assert_eq!(d.rows[0].name, "large-language-models");
    assert_eq!(d.rows[0].score, 5.0);
    assert_eq!(d.rows[1].name, "computer-vision");
    let b = g.central(Metric::Betweenness, 1);
    assert_eq!(b.rows[0].name, "diffusion-models", "the bridge between three clusters");
    let reads: BTreeMap<i64, f64> = [(20, 5.0), (21, 3.0), (22, 2.0), (1, 1.0)].into_iter().collect();
    let r = g.central(Metric::MostRead(&reads), 3);
    assert_eq!(r.rows[0].name, "molecular-dynamics");
    assert_eq!(r.rows[0].score, 10.0);
    assert_eq!(r.rows[1].name, "protein-structure");
    assert_eq!(r.rows[2].name, "drug-discovery");
}

#[test]
fn communities_recover_the_planted_clusters() {
    let g = graph();
    let c = g.communities(3);
    let find = |x: &str| c.rows.iter().position(|r| r.members.iter().any(|m| m == x)).unwrap_or(usize::MAX);
    let lang = find("quantization");
    let vision = find("object-detection");
    let bio = find("molecular-dynamics");
    for x in ["large-language-models", "distillation", "tokenization", "retrieval"] {
        assert_eq!(find(x), lang, "{x}");
    }
    for x in ["computer-vision", "image-segmentation", "machine-learning"] {
        assert_eq!(find(x), vision, "{x}");
    }
    for x in ["protein-structure", "drug-discovery"] {
        assert_eq!(find(x), bio, "{x}");
    }
    assert!(lang != vision && vision != bio && lang != bio && lang != usize::MAX);
    assert_eq!(c.rows[lang].label, "large-language-models");
    assert_eq!(c.rows[vision].label, "computer-vision");
    assert_eq!(find("sea-ice"), usize::MAX, "two concepts: below min_size");
    assert!(c.dropped >= 1);
    assert!(c.modularity > 0.3, "{}", c.modularity);
}

#[test]
fn concepts_by_prefix_and_word() {
    let g = graph();
    let c = g.concepts(Some("Graph"), 10);
    assert_eq!(c.names, ["graph-neural-networks", "graph-theory"]);
    let c = g.concepts(Some("learning"), 10);
    assert_eq!(c.names, ["machine-learning"]);
    assert!(!c.fuzzy);
    let c = g.concepts(None, 3);
    assert_eq!(c.total, 17);
    assert_eq!(c.names.len(), 3);
    let c = g.concepts(Some("quantisation"), 5);
    assert!(c.fuzzy);
    assert_eq!(c.names, ["quantization"]);
}

#[test]
fn health_reports_the_known_shape() {
    let h = graph().health();
    assert_eq!(h.concepts, 17);
    assert_eq!(h.components, 2);
    assert_eq!(h.largest_component, 15);
    assert_eq!(h.hub.as_deref(), Some("large-language-models"));
    assert_eq!(h.max_degree, 5);
    assert_eq!(h.build.dropped_below_min_uses, 3);
    assert_eq!(h.build.alias_merges, 11);
    assert!(h.communities >= 3);
}

#[test]
fn empty_archive_refuses_every_concept_operation() {
    let g = build(&[], Params::default());
    assert!(g.is_empty());
    assert_eq!(g.neighbors("x", 5).unwrap_err(), Refusal::EmptyGraph);
    assert_eq!(g.path("x", "y").unwrap_err(), Refusal::EmptyGraph);
    assert!(g.central(Metric::Betweenness, 5).rows.is_empty());
    assert!(g.communities(3).rows.is_empty());
    assert_eq!(g.health().concepts, 0);
}

#[test]
fn thresholds_are_parameters() {
    let loose = build(&assignments(), Params { min_tag_uses: 1, min_edge_weight: 1, max_evidence: 2 });
    assert!(loose.contains("quantum-chemistry"));
    assert_eq!(loose.weight("sea-ice", "quantization"), Some(1));
    assert!(loose.neighbors("quantization", 10).unwrap().rows.iter().all(|r| r.items.len() <= 2));
}

#[test]
fn answers_are_the_same_every_time() {
    let (a, b) = (graph(), graph());
    let mut shuffled = assignments();
    shuffled.reverse();
    let c = build(&shuffled, Params::default());
    for g in [&b, &c] {
        assert_eq!(a.communities(2), g.communities(2));
        assert_eq!(a.betweenness(), g.betweenness());
        assert_eq!(a.path("retrieval", "graph theory").unwrap(), g.path("retrieval", "graph theory").unwrap());
        assert_eq!(a.health(), g.health());
    }
}

#[test]
fn report_text_and_picture() {
    let g = graph();
    let t = attest_kg::report::text(&g, 3);
    // The whole report a person reads (17 concepts, 11 alias merges, the areas named).
    insta::assert_snapshot!("report_text", t);
    let svg = attest_kg::report::svg(&g);
    std::fs::write(std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kg-planted.svg"), &svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("</title></circle>").count(), g.node_count(), "every concept is drawn");
    assert!(svg.contains(">large-language-models</text>"));
    assert!(svg.contains(">Clusters</text>"), "a legend names the clusters");
    assert_eq!(svg, attest_kg::report::svg(&graph()), "the same picture every time");
}
