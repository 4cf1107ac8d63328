//! `attest setup hermes|claude`: add or update attest's servers in an agent's own
//! configuration file, keeping everything else.
//!
//! Hermes Agent (`~/.hermes/config.yaml`, or `$HERMES_HOME/config.yaml`): the file is
//! parsed first (one that does not parse is refused and left alone); the `mcp_servers`
//! block is found as text and only the entries named like attest's binaries are
//! replaced or appended, so the rest of the file (other servers, comments, order,
//! quoting) stays byte for byte. The result is parsed again and compared with the
//! original, key by key, before anything is written: every other key and every other
//! server must be unchanged and attest's entries must be exactly what `attest emit`
//! prints, or nothing is written.
//!
//! Claude Code (`.mcp.json` in the current directory): JSON has no comments to keep;
//! the file is parsed, attest's entries under `mcpServers` set, and it is written back
//! pretty-printed (other servers and keys kept, in key order).
//!
//! Either way: a copy of the old file is written first (`<file>.attest-backup-<unix
//! seconds>`), what changed is printed, running it again changes nothing, and
//! `--check` writes nothing and exits 1 when the file differs from what setup would
//! write.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use attest_core::Config;
use serde_json::Value;

use crate::emit::{self, Found};

/// Which agent to set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Hermes Agent's `config.yaml`.
    Hermes,
    /// Claude Code's `.mcp.json`.
    Claude,
}

/// What setup would do to one file.
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    /// The file's text after setup.
    pub text: String,
    /// One line per attest server: added, updated or unchanged.
    pub changes: Vec<String>,
}

impl Plan {
    fn changed(&self) -> bool {
        self.changes.iter().any(|c| !c.starts_with("unchanged"))
    }
}

/// The agent's configuration file when none is given.
pub fn default_path(agent: Agent) -> anyhow::Result<PathBuf> {
    Ok(match agent {
        Agent::Hermes => match std::env::var_os("HERMES_HOME").filter(|v| !v.is_empty()) {
            Some(h) => PathBuf::from(h).join("config.yaml"),
            None => {
                let home = std::env::var_os("HOME").context("HOME is not set: pass --config <file>")?;
                PathBuf::from(home).join(".hermes").join("config.yaml")
            }
        },
        Agent::Claude => PathBuf::from(".mcp.json"),
    })
}

/// Run setup (or, with `check`, only compare) on `path`.
pub fn run(agent: Agent, path: &Path, check: bool, found: &[Found], config: &Config) -> anyhow::Result<ExitCode> {
    let old = match std::fs::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    };
    let plan = match agent {
        Agent::Hermes => hermes(old.as_deref(), found, config),
        Agent::Claude => claude(old.as_deref(), found, config),
    }
    .with_context(|| format!("{}: nothing was written", path.display()))?;
    for c in &plan.changes {
        println!("{c}");
    }
    if check {
        return Ok(if plan.changed() {
            println!("{} differs from what `attest setup` would write", path.display());
            ExitCode::from(1)
        } else {
            println!("{} is up to date", path.display());
            ExitCode::SUCCESS
        });
    }
    if !plan.changed() {
        println!("{} is up to date; nothing written", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(old) = &old {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let backup = PathBuf::from(format!("{}.attest-backup-{secs}", path.display()));
        std::fs::write(&backup, old).with_context(|| format!("cannot write the backup {}", backup.display()))?;
        println!("backed up the old file to {}", backup.display());
    } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // Written whole under a temporary name, then renamed: never half a file.
    let tmp = PathBuf::from(format!("{}.attest-tmp", path.display()));
    std::fs::write(&tmp, &plan.text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

fn yaml(text: &str, what: &str) -> anyhow::Result<serde_norway::Value> {
    serde_norway::from_str(text)
        .map_err(|e| anyhow::anyhow!("{what} is not valid YAML ({e}); fix it or pass another --config"))
}

/// The YAML mapping key `k`.
fn key(k: &str) -> serde_norway::Value {
    serde_norway::Value::String(k.to_string())
}

/// Hermes: splice attest's entries into the `mcp_servers` block of `old`.
pub fn hermes(old: Option<&str>, found: &[Found], config: &Config) -> anyhow::Result<Plan> {
    let old_text = old.unwrap_or("");
    let before = if old_text.trim().is_empty() { serde_norway::Value::Null } else { yaml(old_text, "the file")? };
    if !matches!(before, serde_norway::Value::Null | serde_norway::Value::Mapping(_)) {
        bail!("the file is YAML but not a mapping of settings");
    }
    let servers = before.get("mcp_servers");
    let lines: Vec<&str> = old_text.split_inclusive('\n').collect();
    let header = lines.iter().position(|l| l.trim_end().starts_with("mcp_servers:"));
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let indent;
    let (start, mut end) = match header {
        None => {
            if !old_text.is_empty() && !old_text.ends_with('\n') {
                out.push("\n".into());
            }
            out.push("mcp_servers:\n".into());
            indent = 2;
            (out.len(), out.len())
        }
        Some(h) => {
            let rest = lines[h].trim_end()["mcp_servers:".len()..].trim();
            let rest = rest.split(" #").next().unwrap_or("").trim();
            if !(rest.is_empty() || rest.starts_with('#') || matches!(rest, "{}" | "null" | "~")) {
                bail!(
                    "its mcp_servers is written inline ({}); write it as a block (one server per line) and run setup again",
                    clip(rest)
                );
            }
            out[h] = "mcp_servers:\n".into();
            let mut e = h + 1;
            while e < lines.len() {
                let l = lines[e];
                if !l.trim().is_empty() && !l.starts_with([' ', '\t']) {
                    break;
                }
                e += 1;
            }
            // Trailing blank lines and comments belong after the block.
            while e > h + 1 && (lines[e - 1].trim().is_empty()) {
                e -= 1;
            }
            indent = lines[h + 1..e]
                .iter()
                .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .map_or(2, |l| l.len() - l.trim_start().len());
            (h + 1, e)
        }
    };
    let mut changes = Vec::new();
    for f in found {
        let name = f.surface.binary;
        let entry = emit::hermes_entry(f, config, indent);
        let at = (start..end).find(|&i| {
            let l = &out[i];
            let lead = l.len() - l.trim_start().len();
            let t = l.trim_start();
            lead == indent
                && [format!("{name}:"), format!("\"{name}\":"), format!("'{name}':")]
                    .iter()
                    .any(|k| t.starts_with(k.as_str()))
        });
        let wanted = yaml(&format!("mcp_servers:\n{}", emit::hermes_entry(f, config, 2)), "the new entry")?;
        let wanted = wanted.get("mcp_servers").and_then(|m| m.get(name)).cloned();
        match at {
            Some(i) => {
                let mut j = i + 1;
                while j < end {
                    let l = &out[j];
                    let lead = l.len() - l.trim_start().len();
                    if !l.trim().is_empty() && lead <= indent {
                        break;
                    }
                    j += 1;
                }
                if servers.and_then(|s| s.get(name)).cloned() == wanted {
                    changes.push(format!("unchanged {name}"));
                    continue;
                }
                out.splice(i..j, [entry]);
                end = end + 1 - (j - i);
                changes.push(format!("updated {name}"));
            }
            None => {
                out.insert(end, entry);
                end += 1;
                changes.push(format!("added {name}"));
            }
        }
    }
    let text: String = out.concat();
    // Everything but attest's entries must read exactly as before.
    let after = yaml(&text, "the result")?;
    let ours: Vec<&str> = found.iter().map(|f| f.surface.binary).collect();
    if let (serde_norway::Value::Mapping(b), serde_norway::Value::Mapping(a)) = (&before, &after) {
        for (k, v) in b {
            if k != &key("mcp_servers") && a.get(k) != Some(v) {
                bail!(
                    "updating would change the setting {k:?}; edit the file by hand (attest emit hermes prints the entries)"
                );
            }
        }
    }
    if let Some(serde_norway::Value::Mapping(b)) = servers {
        for (k, v) in b {
            let theirs = k.as_str().is_none_or(|k| !ours.contains(&k));
            if theirs && after.get("mcp_servers").and_then(|m| m.get(k)) != Some(v) {
                bail!(
                    "updating would change the server {k:?}; edit the file by hand (attest emit hermes prints the entries)"
                );
            }
        }
    }
    let text = if changes.iter().all(|c| c.starts_with("unchanged")) { old_text.to_string() } else { text };
    Ok(Plan { text, changes })
}

/// Claude Code: set attest's entries under `mcpServers` in `old`.
pub fn claude(old: Option<&str>, found: &[Found], config: &Config) -> anyhow::Result<Plan> {
    let old_text = old.unwrap_or("");
    let mut doc: Value = if old_text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(old_text)
            .map_err(|e| anyhow::anyhow!("the file is not valid JSON ({e}); fix it or pass another --config"))?
    };
    let Some(obj) = doc.as_object_mut() else { bail!("the file is JSON but not an object") };
    let wanted: Value = serde_json::from_str(&emit::claude(found, config))?;
    let servers = obj.entry("mcpServers").or_insert_with(|| Value::Object(Default::default()));
    let Some(servers) = servers.as_object_mut() else { bail!("its mcpServers is not an object") };
    let mut changes = Vec::new();
    for (name, entry) in wanted["mcpServers"].as_object().into_iter().flatten() {
        let change = match servers.get(name) {
            None => "added",
            Some(v) if v == entry => "unchanged",
            Some(_) => "updated",
        };
        changes.push(format!("{change} {name}"));
        servers.insert(name.clone(), entry.clone());
    }
    let text = if changes.iter().all(|c| c.starts_with("unchanged")) {
        old_text.to_string()
    } else {
        serde_json::to_string_pretty(&doc)? + "\n"
    };
    Ok(Plan { text, changes })
}

fn clip(s: &str) -> String {
    attest_core::text::clip(s, 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::tests::config;
    use attest_core::Surface;

    fn found() -> Vec<Found> {
        ["provenance", "symbolic"]
            .iter()
            .map(|s| {
                let surface = Surface::find(s).unwrap();
                Found { surface, path: format!("/bin/{}", surface.binary).into() }
            })
            .collect()
    }

    const MINE: &str = "# my Hermes settings\nmodel:\n  default: qwen3  # local\nmcp_servers:\n    notes:\n        url: http://127.0.0.1:8731/mcp\n        headers: {Authorization: \"Bearer ${NOTES_TOKEN}\"}\n    attest-symbolic:\n        command: /old/attest-symbolic\n\nterminal:\n  backend: local\n";

    #[test]
    fn hermes_keeps_everything_else_byte_for_byte() {
        let plan = hermes(Some(MINE), &found(), &config()).unwrap();
        assert_eq!(plan.changes, ["added attest-provenance", "updated attest-symbolic"]);
        // Every line outside attest's entries is still there, in order.
        assert!(plan.text.starts_with("# my Hermes settings\nmodel:\n  default: qwen3  # local\nmcp_servers:\n    notes:\n        url: http://127.0.0.1:8731/mcp\n        headers: {Authorization: \"Bearer ${NOTES_TOKEN}\"}\n    attest-symbolic:\n        command: \"/bin/attest-symbolic\"\n"), "{}", plan.text);
        assert!(plan.text.ends_with("\n\nterminal:\n  backend: local\n"), "{}", plan.text);
        let v: serde_norway::Value = serde_norway::from_str(&plan.text).unwrap();
        assert_eq!(v["mcp_servers"]["attest-provenance"]["env"]["RESEARCH_ROOT"].as_str(), Some("/work/ws"));
        assert_eq!(v["mcp_servers"]["notes"]["url"].as_str(), Some("http://127.0.0.1:8731/mcp"));
        // Again: nothing changes.
        let again = hermes(Some(&plan.text), &found(), &config()).unwrap();
        assert_eq!(again.changes, ["unchanged attest-provenance", "unchanged attest-symbolic"]);
        assert_eq!(again.text, plan.text);
    }

    #[test]
    fn hermes_adds_a_block_to_a_file_without_one_and_creates_one_from_nothing() {
        let plan = hermes(Some("model:\n  default: qwen3"), &found(), &config()).unwrap();
        assert!(
            plan.text.starts_with("model:\n  default: qwen3\nmcp_servers:\n  attest-provenance:\n"),
            "{}",
            plan.text
        );
        let plan = hermes(None, &found(), &config()).unwrap();
        assert!(plan.text.starts_with("mcp_servers:\n  attest-provenance:\n"), "{}", plan.text);
        let plan = hermes(Some("mcp_servers: {}\n"), &found(), &config()).unwrap();
        assert!(plan.text.starts_with("mcp_servers:\n  attest-provenance:\n"), "{}", plan.text);
    }

    #[test]
    fn hermes_refuses_what_it_cannot_edit_safely() {
        let e = hermes(Some("model: [unclosed\n"), &found(), &config()).unwrap_err().to_string();
        assert!(e.starts_with("the file is not valid YAML"), "{e}");
        let e = hermes(Some("mcp_servers: {notes: {url: x}}\n"), &found(), &config()).unwrap_err().to_string();
        assert!(e.contains("written inline"), "{e}");
        let e = hermes(Some("- a\n- b\n"), &found(), &config()).unwrap_err().to_string();
        assert!(e.contains("not a mapping"), "{e}");
    }

    #[test]
    fn claude_sets_its_entries_and_keeps_the_others() {
        let old = r#"{"mcpServers": {"notes": {"command": "notes-mcp"}}, "other": 1}"#;
        let plan = claude(Some(old), &found(), &config()).unwrap();
        assert_eq!(plan.changes, ["added attest-provenance", "added attest-symbolic"]);
        let v: Value = serde_json::from_str(&plan.text).unwrap();
        assert_eq!(v["mcpServers"]["notes"]["command"], "notes-mcp");
        assert_eq!(v["other"], 1);
        assert_eq!(v["mcpServers"]["attest-symbolic"]["command"], "/bin/attest-symbolic");
        let again = claude(Some(&plan.text), &found(), &config()).unwrap();
        assert_eq!(again.text, plan.text);
        assert!(claude(Some("{not json"), &found(), &config()).unwrap_err().to_string().contains("not valid JSON"));
    }
}
