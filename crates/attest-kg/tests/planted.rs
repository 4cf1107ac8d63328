//! Communities on a planted-partition graph: 4 blocks of 10 concepts, every pair inside
//! a block co-occurring on 3 items, a few pairs across blocks on 2. Each block must come
//! back as exactly one community, the same way every time.

use attest_kg::Params;
use attest_kg::graph::build;

fn planted() -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut id = 0i64;
    let mut pair = |a: String, b: String, times: usize, out: &mut Vec<(i64, String)>| {
        for _ in 0..times {
            id += 1;
            out.push((id, a.clone()));
            out.push((id, b.clone()));
        }
    };
    for b in 0..4 {
        for i in 0..10 {
            for j in i + 1..10 {
                pair(format!("b{b}-c{i}"), format!("b{b}-c{j}"), 3, &mut out);
            }
        }
    }
    for (x, y) in [("b0-c0", "b1-c0"), ("b1-c5", "b2-c5"), ("b2-c9", "b3-c9"), ("b3-c3", "b0-c3"), ("b0-c7", "b2-c2")] {
        pair(x.into(), y.into(), 2, &mut out);
    }
    out
}

#[test]
fn each_block_is_one_community() {
    let g = build(&planted(), Params::default());
    assert_eq!(g.node_count(), 40);
    let c = g.communities(3);
    assert_eq!(c.rows.len(), 4, "{:?}", c.rows);
    for row in &c.rows {
        assert_eq!(row.members.len(), 10);
        let block = &row.members[0][..2];
        assert!(row.members.iter().all(|m| m.starts_with(block)), "{row:?}");
    }
    assert!(c.modularity > 0.7, "{}", c.modularity);
    assert_eq!(c, build(&planted(), Params::default()).communities(3));
}
