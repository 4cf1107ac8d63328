//! What the built binary must not contain, read from its bytes (the `strings` check
//! ARCHITECTURE.md states, made a test). A debug build keeps more dead code than a
//! release one, so passing here is the stricter check.

#[test]
fn the_binary_carries_nothing_of_what_this_surface_must_not_link() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_attest-symbolic")).unwrap();
    for (needle, what) in [
        ("api.crossref.org", "the CrossRef client"),
        ("ureq", "an HTTP client"),
        ("Subscribe to a feed (RSS, Atom or JSON Feed)", "the feed catalogue"),
    ] {
        let found = memchr::memmem::find(&bytes, needle.as_bytes()).is_some();
        assert!(!found, "attest-symbolic contains '{needle}': {what} is linked in");
    }
}
