//! What the built binary must not contain, read from its bytes (the `strings` check
//! ARCHITECTURE.md states, made a test). The feed library links attest-kg for the
//! digest's topics (the graph and its communities), never the knowledge catalogue:
//! no kg or cite tool may reach this binary. A debug build keeps more dead code than a
//! release one, so passing here is the stricter check.

#[test]
fn the_binary_carries_no_knowledge_or_citation_tool() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_attest-feed")).unwrap();
    for (needle, what) in [
        // Tool descriptions, not names: the feed router names other surfaces' tools
        // when it declines their questions, so names alone prove nothing.
        ("Group the concepts you have read into research areas", "kg.communities"),
        ("What sits next to a concept?", "kg.neighbors"),
        ("Look up one reference by its citation key", "cite.lookup"),
        ("Library entries as BibTeX", "cite.export"),
    ] {
        let found = memchr::memmem::find(&bytes, needle.as_bytes()).is_some();
        assert!(!found, "attest-feed contains '{needle}': {what} is linked in");
    }
}
