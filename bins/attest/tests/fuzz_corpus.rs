//! The fuzz targets' code paths in `cargo test`: every target's body (`fuzz/checks/`,
//! which the cargo-fuzz targets in `fuzz/fuzz_targets/` call) is run over its committed
//! corpus (`fuzz/corpus/<target>`), a few seeds of its own, and cheap deterministic
//! variations of each corpus file (every prefix at 16 cut points, and a byte flipped at
//! 16 places), so a regression the fuzzer once found, or a target that no longer builds
//! against the crates it calls, fails here without cargo-fuzz. A failing input is named.

#[path = "../../../fuzz/checks/claims.rs"]
mod claims;
#[path = "../../../fuzz/checks/feed.rs"]
mod feed;
#[path = "../../../fuzz/checks/mcp.rs"]
mod mcp;
#[path = "../../../fuzz/checks/metrics.rs"]
mod metrics;
#[path = "../../../fuzz/checks/routers.rs"]
mod routers;
#[path = "../../../fuzz/checks/sym.rs"]
mod sym;

mod common;

type Check = fn(&[u8]);

/// Every target, with the function its fuzz target calls.
const TARGETS: &[(&str, Check)] = &[
    ("claims", claims::check),
    ("feed", feed::check),
    ("mcp", mcp::check),
    ("metrics", metrics::check),
    ("routers", routers::check),
    ("sym", sym::check),
];

/// Inputs every target gets besides its corpus.
fn seeds() -> Vec<Vec<u8>> {
    let mut s: Vec<Vec<u8>> = vec![
        Vec::new(),
        vec![0],
        vec![0xff; 3],
        b"\xed\xa0\x80".to_vec(),
        "x\u{0}y\u{202e}\u{feff}\u{301}\u{1F600}\u{10FFFF}".as_bytes().to_vec(),
        b"{".repeat(200),
        b"[".repeat(200),
        b"(".repeat(200),
        b"<".repeat(200),
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#.to_vec(),
        b"1e309".to_vec(),
        b"\\frac{1}{0}".to_vec(),
        b"x^x^x^x^x^x^x^x".to_vec(),
    ];
    for pick in 0..4u8 {
        s.push([&[pick][..], b"which arm won on wer"].concat());
    }
    s
}

/// Every prefix at 16 cut points and 16 single-byte flips of `data`.
fn variations(data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if data.is_empty() {
        return out;
    }
    for k in 1..=16 {
        out.push(data[..data.len() * k / 17].to_vec());
    }
    for k in 0..16 {
        let mut d = data.to_vec();
        let i = (d.len() * k / 16).min(d.len() - 1);
        d[i] ^= 0x5a;
        out.push(d);
    }
    out
}

#[test]
fn every_fuzz_target_passes_its_corpus_and_seeds() {
    let mut runs = 0;
    for (name, check) in TARGETS {
        let dir = common::repo().join("fuzz/corpus").join(name);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{name}: no committed corpus at {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{name}: the corpus is empty");
        let mut inputs: Vec<(String, Vec<u8>)> =
            seeds().into_iter().enumerate().map(|(i, d)| (format!("seed {i}"), d)).collect();
        for f in &files {
            let data = std::fs::read(f).unwrap();
            for (i, v) in variations(&data).into_iter().enumerate() {
                inputs.push((format!("{} variation {i}", f.display()), v));
            }
            inputs.push((f.display().to_string(), data));
        }
        for (what, data) in inputs {
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!(
                    "fuzz target {name} fails on {what} ({} bytes): {:?}",
                    data.len(),
                    String::from_utf8_lossy(&data)
                );
            }
            runs += 1;
        }
    }
    eprintln!("{runs} inputs over {} targets", TARGETS.len());
}

/// Every target in `fuzz/Cargo.toml` is replayed here (a new target must be added to
/// `TARGETS`), and every target calls its shared check.
#[test]
fn every_fuzz_target_is_replayed() {
    let manifest = std::fs::read_to_string(common::repo().join("fuzz/Cargo.toml")).unwrap();
    let declared: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.trim().strip_prefix("name = \""))
        .map(|n| n.trim_end_matches('"'))
        .filter(|n| *n != "attest-fuzz")
        .collect();
    let mut replayed: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    let mut declared_sorted = declared.clone();
    declared_sorted.sort();
    replayed.sort();
    assert_eq!(declared_sorted, replayed);
    for name in declared {
        let target = std::fs::read_to_string(common::repo().join(format!("fuzz/fuzz_targets/{name}.rs"))).unwrap();
        assert!(
            target.contains(&format!("#[path = \"../checks/{name}.rs\"]")) && target.contains("check::check(data)"),
            "fuzz/fuzz_targets/{name}.rs must call fuzz/checks/{name}.rs, which this test replays"
        );
    }
}
