//! `attest doctor`: is this machine set up to answer? One line per thing checked, each
//! `ok`, `warn` (works, but not as well as it could) or `FAIL` (something will not
//! work), and every line that is not `ok` says how to fix it. Exit 1 when any line
//! fails.
//!
//! It reads and never writes: the database is opened as every command opens it, the
//! agent configurations are compared as `attest setup --check` compares them, and an
//! optional service is "reachable" when a TCP connection to its address opens within
//! two seconds (nothing is sent).

use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use attest_core::{Config, SURFACES};

use crate::emit::Found;
use crate::setup;

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Ok,
    Warn,
    Fail,
}

struct Line {
    level: Level,
    what: &'static str,
    text: String,
}

fn line(level: Level, what: &'static str, text: impl Into<String>) -> Line {
    Line { level, what, text: text.into() }
}

/// Run every check and print one line each.
pub async fn run(config: &Config, bin_dir: &Path, found: &[Found], json: bool) -> anyhow::Result<ExitCode> {
    let mut lines = Vec::new();
    binaries(bin_dir, found, &mut lines);
    database(config, &mut lines).await;
    research_root(config, &mut lines);
    agents(config, found, &mut lines);
    services(&mut lines);
    let fails = lines.iter().filter(|l| l.level == Level::Fail).count();
    let mut out = std::io::stdout().lock();
    if json {
        let checks: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| {
                let level = match l.level {
                    Level::Ok => "ok",
                    Level::Warn => "warn",
                    Level::Fail => "fail",
                };
                serde_json::json!({ "check": l.what, "level": level, "text": l.text })
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&serde_json::json!({ "ok": fails == 0, "checks": checks }))?)?;
        return Ok(if fails > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS });
    }
    for l in &lines {
        let tag = match l.level {
            Level::Ok => "ok  ",
            Level::Warn => "warn",
            Level::Fail => "FAIL",
        };
        writeln!(out, "{tag}  {:<16} {}", l.what, l.text)?;
    }
    let fails = lines.iter().filter(|l| l.level == Level::Fail).count();
    let warns = lines.iter().filter(|l| l.level == Level::Warn).count();
    writeln!(out, "\n{fails} failing, {warns} to look at, {} fine", lines.len() - fails - warns)?;
    Ok(if fails > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn binaries(dir: &Path, found: &[Found], lines: &mut Vec<Line>) {
    let version = env!("CARGO_PKG_VERSION");
    for s in SURFACES {
        match found.iter().find(|f| f.surface.name == s.name) {
            Some(f) => lines.push(line(Level::Ok, "binary", format!("{} {version} at {}", s.binary, f.path.display()))),
            None => lines.push(line(
                Level::Warn,
                "binary",
                format!(
                    "{} is not in {}: its surface cannot be served; install it (`just install`, or `cargo install --locked --path bins/{}`)",
                    s.binary,
                    dir.display(),
                    s.binary
                ),
            )),
        }
    }
}

async fn database(config: &Config, lines: &mut Vec<Line>) {
    let db = &config.db;
    let server = attest_store::is_server(db);
    if !server && !db.exists() {
        lines.push(line(
            Level::Warn,
            "database",
            format!("{} does not exist yet: `attest runs scan` or `attest ingest` creates it", db.display()),
        ));
        return;
    }
    let size = if server { None } else { Some(std::fs::metadata(db).map(|m| m.len()).unwrap_or(0)) };
    let store = match attest_store::Store::open(db).await {
        Ok(s) => s,
        Err(e) => {
            lines.push(line(
                Level::Fail,
                "database",
                // The store's message names the file and the fix (restore a backup, …).
                e.to_string(),
            ));
            return;
        }
    };
    let version = store.version().await.map_or_else(|_| "unknown".to_string(), |v| v.to_string());
    lines.push(line(
        Level::Ok,
        "database",
        match size {
            Some(size) => format!(
                "{} ({:.1} MB, schema {version} of {})",
                db.display(),
                size as f64 / 1e6,
                attest_store::known_version()
            ),
            None => format!(
                "{} (PostgreSQL, schema {version} of {})",
                attest_store::shown(db),
                attest_store::known_version()
            ),
        },
    ));
    let ledger = attest_runs::ledger::Ledger::new(store.clone(), attest_runs::ledger::LedgerOptions::default());
    match ledger.families(None).await {
        Ok(f) if f.is_empty() => lines.push(line(
            Level::Warn,
            "ledger",
            "no runs recorded: `attest runs scan` reads the research root into it",
        )),
        Ok(f) => {
            let runs: i64 = f.iter().map(|c| c.n).sum();
            lines.push(line(Level::Ok, "ledger", format!("{runs} runs in {} families", f.len())));
        }
        Err(e) => lines.push(line(Level::Fail, "ledger", format!("cannot be read: {e}"))),
    }
    match attest_feed::FeedStore::new(store).counts().await {
        Ok(c) if c.items == 0 => lines.push(line(
            Level::Warn,
            "archive",
            "no items: subscribe with `attest ingest --feeds feeds.toml` (or feed.source_add on the feed surface)",
        )),
        Ok(c) => lines.push(line(
            Level::Ok,
            "archive",
            format!("{} items from {} subscriptions, {} readers", c.items, c.feeds, c.readers),
        )),
        Err(e) => lines.push(line(Level::Fail, "archive", format!("cannot be read: {e}"))),
    }
}

fn research_root(config: &Config, lines: &mut Vec<Line>) {
    let Some(root) = &config.root else {
        lines.push(line(
            Level::Warn,
            "research root",
            "RESEARCH_ROOT is not set: the provenance tools and the claims check have nothing to read; set it to the directory holding your projects",
        ));
        return;
    };
    match std::fs::read_dir(root) {
        Ok(entries) => {
            let projects = entries.filter_map(Result::ok).filter(|e| e.path().is_dir()).count();
            let level = if projects == 0 { Level::Warn } else { Level::Ok };
            let hint = if projects == 0 { ": each project is a directory under it" } else { "" };
            lines.push(line(
                level,
                "research root",
                format!("{} ({projects} project directories){hint}", root.display()),
            ));
        }
        Err(e) => lines.push(line(
            Level::Fail,
            "research root",
            format!("{} cannot be read ({e}): fix RESEARCH_ROOT", root.display()),
        )),
    }
}

fn agents(config: &Config, found: &[Found], lines: &mut Vec<Line>) {
    for (agent, name, how) in [
        (setup::Agent::Hermes, "hermes", "attest setup hermes"),
        (setup::Agent::Claude, "claude", "attest setup claude"),
    ] {
        let Ok(path) = setup::default_path(agent) else { continue };
        let Ok(text) = std::fs::read_to_string(&path) else {
            lines.push(line(Level::Ok, "agent config", format!("{name}: no {} (not set up here)", path.display())));
            continue;
        };
        let plan = match agent {
            setup::Agent::Hermes => setup::hermes(Some(&text), found, config),
            setup::Agent::Claude => setup::claude(Some(&text), found, config),
        };
        match plan {
            Ok(p) if p.text == text => {
                lines.push(line(Level::Ok, "agent config", format!("{name}: {} is up to date", path.display())))
            }
            Ok(p) => {
                let drift: Vec<&str> =
                    p.changes.iter().filter(|c| !c.starts_with("unchanged")).map(String::as_str).collect();
                lines.push(line(
                    Level::Warn,
                    "agent config",
                    format!("{name}: {} would change ({}): run `{how}`", path.display(), drift.join(", ")),
                ));
            }
            Err(e) => lines.push(line(Level::Fail, "agent config", format!("{name}: {}: {e:#}", path.display()))),
        }
    }
}

fn services(lines: &mut Vec<Line>) {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    for (key, what, off) in [
        (
            "EMBED_BASE_URL",
            "embeddings",
            "off: ranking by words (set EMBED_BASE_URL to an OpenAI-compatible /embeddings server)",
        ),
        ("LLM_BASE_URL", "chat tagger", "off: keyphrase tags (set LLM_BASE_URL and LLM_MODEL for `attest tag --chat`)"),
    ] {
        match var(key) {
            None => lines.push(line(Level::Ok, what, off)),
            Some(url) => match reachable(&url) {
                Ok(()) => lines.push(line(Level::Ok, what, format!("{url} answers"))),
                Err(why) => lines.push(line(
                    Level::Warn,
                    what,
                    format!("{url} is not reachable ({why}): start the server or unset {key}"),
                )),
            },
        }
    }
    for (key, what) in [("ATTEST_RESEARCH_WEB", "research web"), ("ATTEST_CITATION_WEB", "citation web")] {
        let on =
            var(key).is_some_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"));
        lines.push(line(
            Level::Ok,
            what,
            if on { format!("on ({key})") } else { format!("off (set {key}=1 to allow)") },
        ));
    }
}

/// Whether a TCP connection to the address's host and port opens within two seconds.
fn reachable(url: &str) -> Result<(), String> {
    let u = url::Url::parse(url.trim()).map_err(|e| format!("not an address: {e}"))?;
    let host = u.host_str().ok_or("no host")?;
    let port = u.port_or_known_default().ok_or("no port")?;
    let addr = (host, port).to_socket_addrs().map_err(|e| e.to_string())?.next().ok_or("no address")?;
    TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map(drop).map_err(|e| e.to_string())
}
