use std::collections::BTreeSet;
fn main() {
    let title = "Asymmetric hydrogenation of enamides with a chiral rhodium catalyst";
    let abs = "We report an enantioselective hydrogenation of enamides using a chiral rhodium ligand complex. The catalyst achieves high turnover and selectivity across a broad substrate scope, and mechanistic studies reveal the role of the ligand bite angle in the rate-determining step.";
    for n in [0usize, 100, 1000, 5000] {
        let vocab =
            attest_tags::Vocabulary::new((0..n).map(|i| format!("topic-word-{i}")).collect::<BTreeSet<String>>());
        let t = std::time::Instant::now();
        let k = 2000;
        for _ in 0..k {
            std::hint::black_box(attest_tags::item_keyphrases(title, abs, &["chemistry".into()], &vocab, 4));
        }
        println!("vocab {n}: {:.1} us/item", t.elapsed().as_secs_f64() * 1e6 / k as f64);
    }
}
