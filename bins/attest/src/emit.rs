//! `attest emit hermes|claude`: agent configuration for the surface binaries.
//!
//! Hermes Agent passes its MCP servers no working directory and only a handful of
//! environment variables, so every entry carries absolute paths and the `env` its
//! server reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use attest_core::{Config, SURFACES, Surface};
use serde_json::{Value, json};

/// A surface binary found beside this executable.
pub struct Found {
    pub surface: &'static Surface,
    pub path: PathBuf,
}

/// Surface binaries installed beside `attest` (or in `dir`).
pub fn find_binaries(dir: &Path) -> (Vec<Found>, Vec<&'static Surface>) {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for s in SURFACES {
        let p = dir.join(format!("{}{}", s.binary, std::env::consts::EXE_SUFFIX));
        if p.is_file() { found.push(Found { surface: s, path: p }) } else { missing.push(s) }
    }
    (found, missing)
}

fn env_for(s: &Surface, config: &Config) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for var in s.env {
        match *var {
            "ATTEST_DB" => {
                // A server's address goes as given (the agent needs all of it).
                let db = if attest_store::is_server(&config.db) { config.db.clone() } else { absolute(&config.db) };
                env.insert(var.to_string(), db.display().to_string());
            }
            "RESEARCH_ROOT" => {
                if let Some(r) = &config.root {
                    env.insert(var.to_string(), absolute(r).display().to_string());
                }
            }
            "ATTEST_METRIC_DIRECTIONS" => {
                if let Some(d) = &config.metric_directions {
                    env.insert(var.to_string(), absolute(d).display().to_string());
                }
            }
            // Anything else the server reads is passed through when it is set here.
            other => {
                if let Some(v) = std::env::var(other).ok().filter(|v| !v.is_empty()) {
                    env.insert(other.to_string(), v);
                }
            }
        }
    }
    env
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn yaml_str(s: &str) -> String {
    // JSON strings are valid YAML flow scalars, and quote everything that needs it.
    Value::String(s.to_string()).to_string()
}

/// The `mcp_servers` YAML for Hermes Agent, one entry per surface binary found.
pub fn hermes(found: &[Found], config: &Config) -> String {
    let mut out = String::from("mcp_servers:\n");
    for f in found {
        out.push_str(&hermes_entry(f, config, 2));
    }
    out
}

/// One server's entry under `mcp_servers`, its name at `indent` spaces and each level
/// below it `indent` more.
pub fn hermes_entry(f: &Found, config: &Config, indent: usize) -> String {
    let (i1, i2, i3) = (" ".repeat(indent), " ".repeat(indent * 2), " ".repeat(indent * 3));
    let mut out = format!("{i1}{}:\n", f.surface.binary);
    out.push_str(&format!("{i2}command: {}\n", yaml_str(&f.path.display().to_string())));
    out.push_str(&format!("{i2}args: []\n"));
    let env = env_for(f.surface, config);
    if env.is_empty() {
        out.push_str(&format!("{i2}env: {{}}\n"));
    } else {
        out.push_str(&format!("{i2}env:\n"));
        for (k, v) in env {
            out.push_str(&format!("{i3}{k}: {}\n", yaml_str(&v)));
        }
    }
    out.push_str(&format!("{i2}timeout: 120\n"));
    // attest advertises neither resources nor prompts; say so, so Hermes adds no
    // utility tools for them either.
    out.push_str(&format!("{i2}tools: {{resources: false, prompts: false}}\n"));
    out
}

/// Claude Code's `.mcp.json`, one entry per surface binary found.
pub fn claude(found: &[Found], config: &Config) -> String {
    let servers: serde_json::Map<String, Value> = found
        .iter()
        .map(|f| {
            (
                f.surface.binary.to_string(),
                json!({
                    "command": f.path.display().to_string(),
                    "args": [],
                    "env": env_for(f.surface, config),
                }),
            )
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap_or_default() + "\n"
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A configuration for tests that print commands and client files.
    pub(crate) fn config() -> Config {
        Config {
            db: "/data/attest.db".into(),
            root: Some("/work/ws".into()),
            tool_names: Default::default(),
            expand: false,
            http_token: None,
            metric_directions: None,
        }
    }

    #[test]
    fn hermes_yaml_carries_absolute_paths_and_env() {
        let found =
            vec![Found { surface: Surface::find("provenance").unwrap(), path: "/bin/attest-provenance".into() }];
        let y = hermes(&found, &config());
        let v: serde_norway::Value = serde_norway::from_str(&y).unwrap();
        let e = &v["mcp_servers"]["attest-provenance"];
        assert_eq!(e["command"].as_str(), Some("/bin/attest-provenance"));
        assert_eq!(e["env"]["ATTEST_DB"].as_str(), Some("/data/attest.db"));
        assert_eq!(e["env"]["RESEARCH_ROOT"].as_str(), Some("/work/ws"));
        assert_eq!(e["tools"]["resources"].as_bool(), Some(false));
    }

    #[test]
    fn claude_json_has_one_server_per_binary() {
        let found = vec![
            Found { surface: Surface::find("provenance").unwrap(), path: "/bin/attest-provenance".into() },
            Found { surface: Surface::find("symbolic").unwrap(), path: "/bin/attest-symbolic".into() },
        ];
        let v: Value = serde_json::from_str(&claude(&found, &config())).unwrap();
        assert_eq!(v["mcpServers"].as_object().unwrap().len(), 2);
        assert_eq!(v["mcpServers"]["attest-symbolic"]["env"], json!({}));
    }
}
