//! Tidy: the dependency rules ARCHITECTURE.md states as absences, checked against
//! `cargo metadata` (as rust-analyzer's tidy tests do), so a new `use` or a feature
//! that leaks across the workspace fails here instead of in a `strings` run on a
//! release binary.
//!
//! The dependency graph is the one `cargo metadata` resolves for the whole workspace,
//! with features unified across every member: the worst case, and exactly what a
//! `cargo build --workspace` links. Only normal dependencies are followed (not dev or
//! build ones). Every check collects all its violations and the test fails once,
//! listing them.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The domain crates: libraries of one domain each, which know nothing of MCP.
const DOMAINS: &[&str] = &[
    "attest-runs",
    "attest-feed",
    "attest-archive",
    "attest-openai",
    "attest-claims",
    "attest-kg",
    "attest-cite",
    "attest-crossref",
    "attest-sym",
    "attest-tags",
    "attest-store",
    "attest-core",
    "attest-sandbox",
];

/// What only attest-mcp (and the dev-only attest-testkit) may depend on.
const PROTOCOL: &[&str] = &["rmcp", "axum"];

/// Crates that must stay pure: no database, no HTTP.
const PURE: &[&str] = &["attest-sym", "attest-tags", "attest-core", "attest-claims"];
const DATABASE: &[&str] = &["sqlx", "rusqlite", "postgres", "tokio-postgres"];
const HTTP: &[&str] = &["ureq", "reqwest", "hyper", "axum", "attest-crossref", "attest-openai"];

/// Crates that hold data but never reach the network: a database is fine, an HTTP
/// client at any depth is not.
const OFFLINE: &[&str] = &["attest-archive", "attest-kg", "attest-cite", "attest-runs", "attest-store"];

/// HTTP *client* crates. (rmcp's Streamable HTTP server pulls hyper for the server
/// side, so hyper is not in this list; the clients are forbidden by name.)
const HTTP_CLIENTS: &[&str] = &["ureq", "reqwest"];

/// What a surface binary may link.
struct Surface {
    /// The binary's package.
    package: &'static str,
    /// Packages it must not link, at any depth.
    forbidden: &'static [&'static str],
    /// An HTTP client ([`HTTP_CLIENTS`]) may be linked only through these packages.
    http_only_via: &'static [&'static str],
}

const SURFACES: &[Surface] = &[
    Surface {
        package: "attest-provenance",
        forbidden: &[
            "attest-sym",
            "attest-feed",
            "attest-kg",
            "attest-crossref",
            "attest-openai",
            "attest-sandbox",
            "attest-web",
            "ureq",
            "reqwest",
        ],
        http_only_via: &[],
    },
    Surface {
        package: "attest-symbolic",
        forbidden: &[
            "attest-runs",
            "attest-feed",
            "attest-kg",
            "attest-cite",
            "attest-store",
            "attest-crossref",
            "attest-openai",
            "sqlx",
            "attest-web",
            "ureq",
            "reqwest",
        ],
        http_only_via: &[],
    },
    Surface {
        package: "attest-knowledge",
        forbidden: &[
            "attest-runs",
            "attest-sym",
            "attest-sandbox",
            // The feed catalogue (fetching, ingest, feed.source_add, feed.research):
            // knowledge serves `feed.search` from attest-archive alone.
            "attest-feed",
            "attest-web",
        ],
        http_only_via: &["attest-crossref", "attest-openai"],
    },
    Surface {
        package: "attest-feed-bin",
        forbidden: &[
            "attest-runs",
            "attest-sym",
            // attest-kg is linked for its pure concept graph: feed.digest groups the
            // window's items by graph community (no kg tool is served here).
            "attest-cite",
            "attest-crossref",
            "attest-sandbox",
            "attest-web",
        ],
        http_only_via: &["attest-feed"],
    },
];

/// Normal dependencies a crate declares but never names in `src/` as `dep::`,
/// `use dep` or `extern crate dep`, and why that is fine: (package, dependency as
/// declared, reason). Keep this short; a dependency used only by tests belongs in
/// `[dev-dependencies]`.
const UNUSED_OK: &[(&str, &str, &str)] = &[];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = workspace_root().join("Cargo.toml");
    // The graph for this machine's platform: it is what links here, and it needs only
    // the crates a build on this platform has already downloaded.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc).arg("-vV").output().expect("cannot run rustc -vV");
    let version = String::from_utf8_lossy(&version.stdout).into_owned();
    let host = version.lines().find_map(|l| l.strip_prefix("host: ")).expect("rustc -vV names the host").trim();
    let run = |offline: bool| {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--filter-platform", host, "--manifest-path"]).arg(&manifest);
        if offline {
            // The lockfile and the registry index are on disk after any build.
            cmd.arg("--offline");
        }
        cmd.output().expect("cannot run cargo metadata")
    };
    let mut out = run(true);
    if !out.status.success() {
        // Only when the lockfile needs something not yet downloaded.
        out = run(false);
    }
    assert!(out.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata printed JSON")
}

/// One package, as far as these checks need it.
struct Package {
    name: String,
    manifest: PathBuf,
    /// Declared normal dependencies: (name as declared, crate name used in code).
    normal: Vec<(String, String)>,
}

struct Graph {
    packages: HashMap<String, Package>,
    /// Workspace members by name → id.
    members: BTreeMap<String, String>,
    /// Resolved normal dependencies: id → ids.
    edges: HashMap<String, Vec<String>>,
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The graph, read once for all the checks.
fn graph() -> &'static Graph {
    static GRAPH: std::sync::OnceLock<Graph> = std::sync::OnceLock::new();
    GRAPH.get_or_init(read_graph)
}

fn read_graph() -> Graph {
    let meta = metadata();
    // The crate name code uses for a package: its library target's name.
    let mut lib_names: HashMap<String, String> = HashMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let lib =
            p["targets"].as_array().into_iter().flatten().find(|t| {
                t["kind"].as_array().into_iter().flatten().any(|k| {
                    matches!(k.as_str(), Some("lib" | "rlib" | "dylib" | "proc-macro" | "cdylib" | "staticlib"))
                })
            });
        if let Some(t) = lib {
            lib_names.insert(s(&p["name"]), s(&t["name"]).replace('-', "_"));
        }
    }
    let mut packages = HashMap::new();
    for p in meta["packages"].as_array().unwrap() {
        let normal = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].is_null())
            .map(|d| {
                let name = s(&d["name"]);
                let used_as = match d["rename"].as_str() {
                    Some(r) => r.replace('-', "_"),
                    None => lib_names.get(&name).cloned().unwrap_or_else(|| name.replace('-', "_")),
                };
                (d["rename"].as_str().map(str::to_string).unwrap_or(name), used_as)
            })
            .collect();
        packages.insert(
            s(&p["id"]),
            Package { name: s(&p["name"]), manifest: PathBuf::from(s(&p["manifest_path"])), normal },
        );
    }
    let members =
        meta["workspace_members"].as_array().unwrap().iter().map(|id| (packages[&s(id)].name.clone(), s(id))).collect();
    let mut edges = HashMap::new();
    for n in meta["resolve"]["nodes"].as_array().expect("cargo metadata resolved the graph") {
        let deps = n["deps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"].is_null()))
            .map(|d| s(&d["pkg"]))
            .collect();
        edges.insert(s(&n["id"]), deps);
    }
    Graph { packages, members, edges }
}

impl Graph {
    fn name(&self, id: &str) -> &str {
        &self.packages[id].name
    }

    fn member(&self, name: &str) -> &str {
        self.members.get(name).unwrap_or_else(|| panic!("tidy names {name}, which is not a workspace member"))
    }

    /// Direct normal dependencies of a member, by package name.
    fn direct(&self, name: &str) -> Vec<&str> {
        self.edges[self.member(name)].iter().map(|id| self.name(id)).collect()
    }

    /// Every package `name` links, with the chain that brings it in, not descending
    /// into the packages in `stop` (they are listed, their dependencies are not).
    fn closure(&self, name: &str, stop: &[&str]) -> BTreeMap<String, String> {
        let start = self.member(name).to_string();
        let mut via: HashMap<String, Option<String>> = HashMap::from([(start.clone(), None)]);
        let mut queue = VecDeque::from([start.clone()]);
        while let Some(id) = queue.pop_front() {
            if id != start && stop.contains(&self.name(&id)) {
                continue;
            }
            for d in self.edges.get(&id).into_iter().flatten() {
                if !via.contains_key(d) {
                    via.insert(d.clone(), Some(id.clone()));
                    queue.push_back(d.clone());
                }
            }
        }
        let chain = |id: &String| {
            let mut names = vec![self.name(id)];
            let mut at = id.clone();
            while let Some(Some(p)) = via.get(&at) {
                names.push(self.name(p));
                at = p.clone();
            }
            names.reverse();
            names.join(" -> ")
        };
        via.keys().filter(|id| **id != start).map(|id| (self.name(id).to_string(), chain(id))).collect()
    }
}

fn report(what: &str, violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "{what}:\n  {}\n(the rules are in ARCHITECTURE.md, \"Invariants, stated as absences\"; the tables in {})",
        violations.join("\n  "),
        file!()
    );
}

#[test]
fn domain_crates_do_not_know_the_protocol() {
    let g = graph();
    let mut bad = Vec::new();
    for d in DOMAINS {
        for dep in g.direct(d) {
            if PROTOCOL.contains(&dep) {
                bad.push(format!("{d} depends on {dep}: only attest-mcp may know MCP"));
            }
        }
    }
    report("domain crates depending on the MCP stack", bad);
}

#[test]
fn attest_mcp_depends_on_no_domain() {
    let g = graph();
    let bad: Vec<String> = g
        .closure("attest-mcp", &[])
        .into_iter()
        .filter(|(name, _)| name.starts_with("attest-") && name != "attest-core")
        .map(|(name, chain)| format!("attest-mcp links {name} ({chain}): binaries wire domains in"))
        .collect();
    report("attest-mcp depending on a domain crate", bad);
}

#[test]
fn pure_crates_have_no_database_and_no_http() {
    let g = graph();
    let mut bad = Vec::new();
    for p in PURE {
        for (name, chain) in g.closure(p, &[]) {
            if DATABASE.contains(&name.as_str()) {
                bad.push(format!("{p} links the database crate {name} ({chain})"));
            }
            if HTTP.contains(&name.as_str()) {
                bad.push(format!("{p} links the HTTP crate {name} ({chain})"));
            }
        }
    }
    report("pure crates with a database or HTTP dependency", bad);
}

#[test]
fn offline_crates_have_no_http_client() {
    let g = graph();
    let mut bad = Vec::new();
    for p in OFFLINE {
        for (name, chain) in g.closure(p, &[]) {
            if HTTP_CLIENTS.contains(&name.as_str()) || name == "attest-crossref" || name == "attest-openai" {
                bad.push(format!("{p} links {name} ({chain})"));
            }
        }
    }
    report("offline crates reaching the network", bad);
}

#[test]
fn surface_binaries_link_only_their_own_domains() {
    let g = graph();
    let mut bad = Vec::new();
    for s in SURFACES {
        let all = g.closure(s.package, &[]);
        for f in s.forbidden {
            if let Some(chain) = all.get(*f) {
                bad.push(format!("{} must not link {f}, but does: {chain}", s.package));
            }
        }
        for (name, chain) in g.closure(s.package, s.http_only_via) {
            if HTTP_CLIENTS.contains(&name.as_str()) && !s.forbidden.contains(&name.as_str()) {
                let allowed = if s.http_only_via.is_empty() {
                    "none is allowed".to_string()
                } else {
                    format!("allowed only through {}", s.http_only_via.join(", "))
                };
                bad.push(format!("{} links the HTTP client {name} ({allowed}): {chain}", s.package));
            }
        }
    }
    report("surface binaries linking what they must not", bad);
}

/// The crate's `src/**/*.rs`, line comments dropped.
fn source_text(dir: &Path, out: &mut String) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            source_text(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `text` names the crate `krate` as `krate::`, `use krate` or `extern crate
/// krate` (cargo-machete's test), on identifier boundaries.
fn names(text: &str, krate: &str) -> bool {
    text.match_indices(krate).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = &text[i + krate.len()..];
        if before.is_some_and(ident_char) || after.chars().next().is_some_and(ident_char) {
            return false;
        }
        let head = text[..i].trim_end();
        after.starts_with("::")
            || (head.ends_with("use") && !head[..head.len() - 3].ends_with(ident_char))
            || head.ends_with("extern crate")
    })
}

#[test]
fn no_crate_declares_a_dependency_it_does_not_use() {
    let g = graph();
    let mut bad = Vec::new();
    let mut ignored_but_used = Vec::new();
    for id in g.members.values() {
        let p = &g.packages[id];
        let mut text = String::new();
        source_text(&p.manifest.parent().unwrap().join("src"), &mut text);
        let declared: BTreeSet<&(String, String)> = p.normal.iter().collect();
        for (dep, krate) in declared {
            let ok = UNUSED_OK.iter().any(|(pk, d, _)| *pk == p.name && d == dep);
            match (names(&text, krate), ok) {
                (false, false) => bad.push(format!(
                    "{} declares {dep} in [dependencies] but its src/ never names `{krate}` (remove it, or move it to [dev-dependencies])",
                    p.name
                )),
                (true, true) => ignored_but_used.push(format!("{} uses {dep}: drop it from UNUSED_OK", p.name)),
                _ => {}
            }
        }
    }
    bad.extend(ignored_but_used);
    report("unused dependencies", bad);
}

#[test]
fn the_tables_name_real_packages() {
    let g = graph();
    for name in DOMAINS.iter().chain(PURE).chain(OFFLINE).chain(SURFACES.iter().map(|s| &s.package)) {
        g.member(name);
    }
    for (p, _, _) in UNUSED_OK {
        g.member(p);
    }
    assert!(g.members.contains_key("attest-mcp"));
}

/// Only the CLI turns on `attest-mcp`'s MCP client (for `attest eval agents`), and the
/// feature is not a default, so a surface binary built alone compiles no MCP client.
#[test]
fn only_the_cli_enables_the_mcp_client() {
    let meta = metadata();
    let mut violations = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        if s(&p["name"]) == "attest-mcp" {
            let default = &p["features"]["default"];
            if default.as_array().into_iter().flatten().any(|f| s(f).contains("client")) {
                violations.push("attest-mcp's default features include `client`".to_string());
            }
        }
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let client = d["features"].as_array().into_iter().flatten().any(|f| s(f) == "client");
            if s(&d["name"]) == "attest-mcp" && d["kind"].is_null() && client && s(&p["name"]) != "attest" {
                violations.push(format!("{} enables attest-mcp/client", s(&p["name"])));
            }
        }
    }
    report("the MCP client belongs to the CLI alone", violations);
}
