//! The four agent surfaces, as data.
//!
//! A surface is one MCP server, chosen by a person when they wire up their agent. Its
//! binary compiles in only the domains it serves; this table says which tools of
//! those domains it exposes, and the emitters and tests read it from here.

/// One agent surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surface {
    /// Its name, as given to `attest serve --surface`.
    pub name: &'static str,
    /// The binary that serves it alone.
    pub binary: &'static str,
    /// The namespace of its entry tools `<ns>.ask` and `<ns>.tools`.
    pub namespace: &'static str,
    /// What it serves: whole namespaces (`runs`) or single tools (`cite.check`).
    pub serves: &'static [&'static str],
    /// One line on what it is for, in users' words.
    pub summary: &'static str,
    /// The questions it answers, for agent instructions.
    pub goal: &'static str,
    /// The environment variables its server reads.
    pub env: &'static [&'static str],
}

impl Surface {
    /// Whether this surface serves a tool.
    pub fn allows(&self, tool: &str) -> bool {
        let ns = tool.split_once('.').map_or(tool, |(ns, _)| ns);
        self.serves.iter().any(|s| *s == tool || *s == ns)
    }

    /// Whether a tool is one of this surface's two entry tools.
    pub fn is_entry(&self, tool: &str) -> bool {
        tool.strip_prefix(self.namespace)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|leaf| leaf == "ask" || leaf == "tools")
    }

    /// `<ns>.ask`.
    pub fn ask_tool(&self) -> String {
        format!("{}.ask", self.namespace)
    }

    /// `<ns>.tools`.
    pub fn tools_tool(&self) -> String {
        format!("{}.tools", self.namespace)
    }

    /// Look a surface up by name or by its namespace (`provenance` or `runs`).
    pub fn find(name: &str) -> Option<&'static Surface> {
        SURFACES.iter().find(|s| s.name == name || s.namespace == name)
    }

    /// The surface that owns a tool's namespace, for "ask that elsewhere" answers.
    pub fn owner_of(tool: &str) -> Option<&'static Surface> {
        let ns = tool.split_once('.').map_or(tool, |(ns, _)| ns);
        SURFACES.iter().find(|s| s.namespace == ns)
    }
}

/// Every surface, in the order the emitters write them.
pub const SURFACES: &[Surface] = &[
    Surface {
        name: "feed",
        binary: "attest-feed",
        namespace: "feed",
        serves: &["feed"],
        summary: "Your reading feed: what to read today, search, ratings and subscriptions.",
        goal: "Answers \"what should I read today?\", \"anything new on X?\", \"why is this ranked so high?\" from the reader's own subscribed feeds, locally.",
        env: &[
            "ATTEST_DB",
            "ATTEST_FEED_LOCAL",
            "ATTEST_FEED_TIMEOUT",
            "EMBED_BASE_URL",
            "EMBED_MODEL",
            "EMBED_API_KEY",
            "EMBED_DIMS",
            "EMBED_TIMEOUT",
            "ATTEST_RESEARCH_WEB",
            "ATTEST_RESEARCH_TIMEOUT",
            "ATTEST_ARXIV_URL",
            "ATTEST_PUBMED_URL",
            "ATTEST_CROSSREF_URL",
        ],
    },
    Surface {
        name: "provenance",
        binary: "attest-provenance",
        namespace: "runs",
        serves: &["runs", "cite.check"],
        summary: "Your experiment runs and your drafts: which arm won, on what evidence, and whether the numbers you wrote are still true.",
        goal: "Answers \"which arm of my sweep won?\" and \"are the numbers in my draft right?\" from the artifacts on disk. Caveats are the product: relay them whole. A refusal is the right answer; never work around one by picking a metric.",
        env: &["ATTEST_DB", "RESEARCH_ROOT", "ATTEST_METRIC_DIRECTIONS", "ATTEST_BIB", "ATTEST_ZOTERO"],
    },
    Surface {
        name: "knowledge",
        binary: "attest-knowledge",
        namespace: "kg",
        serves: &["kg", "feed.search", "cite"],
        summary: "The concept graph of what you have read, the items behind it and the references they cite.",
        goal: "Answers \"how does X connect to Y in what I read?\" and \"what are my main research areas?\" from the reader's own archive, never from the web.",
        env: &[
            "ATTEST_DB",
            "RESEARCH_ROOT",
            "ATTEST_BIB",
            "ATTEST_ZOTERO",
            "ATTEST_CITATION_WEB",
            "ATTEST_CITATION_CACHE",
            // `feed.search` on this surface ranks like the feed surface's (the embedding
            // client is attest-openai, the one web client this binary links besides
            // CrossRef).
            "EMBED_BASE_URL",
            "EMBED_MODEL",
            "EMBED_API_KEY",
            "EMBED_DIMS",
            "EMBED_TIMEOUT",
        ],
    },
    Surface {
        name: "symbolic",
        binary: "attest-symbolic",
        namespace: "sym",
        serves: &["sym"],
        summary: "Exact algebra and calculus: is this derivation right, simplify, solve, differentiate, integrate, evaluate with units.",
        goal: "Answers \"is this derivation right?\" exactly, in a sandboxed worker that touches no database. An unproven identity is reported as unknown, never as false.",
        env: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_whole_namespaces_and_single_tools() {
        let p = Surface::find("provenance").unwrap();
        assert!(p.allows("runs.compare"));
        assert!(p.allows("cite.check"));
        assert!(!p.allows("cite.lookup"));
        assert!(!p.allows("feed.search"));
        assert!(!p.allows("runsx.compare"));
        let k = Surface::find("kg").unwrap();
        assert!(k.allows("feed.search") && !k.allows("feed.list"));
    }

    #[test]
    fn entry_tools_are_the_surface_namespace_only() {
        let p = Surface::find("runs").unwrap();
        assert!(p.is_entry("runs.ask") && p.is_entry("runs.tools"));
        assert!(!p.is_entry("runs.compare") && !p.is_entry("feed.ask"));
    }

    #[test]
    fn names_namespaces_and_binaries_are_unique() {
        for (i, a) in SURFACES.iter().enumerate() {
            for b in &SURFACES[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.namespace, b.namespace);
                assert_ne!(a.binary, b.binary);
            }
        }
    }
}
