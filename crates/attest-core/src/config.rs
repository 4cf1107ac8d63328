//! Configuration resolution, as a pure function of what the edges read.
//!
//! Order for every setting: the command-line flag, then the environment variable, then
//! a default. The binaries read flags and the environment and pass them in; nothing
//! here touches the file system.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How tool names are spelled on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolNames {
    /// `runs.compare` (the default).
    #[default]
    Dotted,
    /// `runs_compare`, for clients that reject dots.
    Underscore,
}

impl ToolNames {
    /// Spell a dotted name the chosen way.
    pub fn spell(self, name: &str) -> String {
        match self {
            ToolNames::Dotted => name.to_string(),
            ToolNames::Underscore => name.replacen('.', "_", 1),
        }
    }
}

/// What the edges read: flags, environment and the platform's directories.
#[derive(Debug, Clone, Default)]
pub struct ConfigInputs {
    /// `--db`.
    pub db: Option<PathBuf>,
    /// `--root`.
    pub root: Option<PathBuf>,
    /// `--tool-names`.
    pub tool_names: Option<String>,
    /// The environment variables that matter (see [`ENV_VARS`]).
    pub env: BTreeMap<String, String>,
    /// The user's data directory (e.g. `~/.local/share`).
    pub data_dir: Option<PathBuf>,
    /// The user's home directory, for `~` expansion.
    pub home: Option<PathBuf>,
}

/// Every environment variable attest reads.
pub const ENV_VARS: &[&str] = &[
    "ATTEST_DB",
    "RESEARCH_ROOT",
    "ATTEST_TOOL_NAMES",
    "ATTEST_EXPAND",
    "ATTEST_HTTP_TOKEN",
    "ATTEST_METRIC_DIRECTIONS",
];

/// Resolved configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The SQLite file.
    pub db: PathBuf,
    /// The research root: the directory holding the projects, if set.
    pub root: Option<PathBuf>,
    /// How tool names are spelled.
    pub tool_names: ToolNames,
    /// Whether every tool is listed from the start (`ATTEST_EXPAND=1`).
    pub expand: bool,
    /// The bearer token that Streamable HTTP requires on non-loopback addresses.
    pub http_token: Option<String>,
    /// An explicit metric-direction override file.
    pub metric_directions: Option<PathBuf>,
}

/// A setting that cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// No `--db`, no `ATTEST_DB` and no data directory to put a default in.
    #[error("no database path: pass --db PATH or set ATTEST_DB (no user data directory was found for a default)")]
    NoDatabase,
    /// `--tool-names` / `ATTEST_TOOL_NAMES` is not a known spelling.
    #[error("unknown tool-name style '{0}': use 'dotted' (runs.compare) or 'underscore' (runs_compare)")]
    ToolNames(String),
}

fn truthy(v: &str) -> bool {
    !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off")
}

/// Expand a leading `~` with the home directory.
pub fn expand_tilde(p: &Path, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix("~"), home) {
        (Ok(rest), Some(h)) => h.join(rest),
        _ => p.to_path_buf(),
    }
}

impl Config {
    /// Resolve every setting from flags, then environment, then defaults.
    pub fn resolve(i: &ConfigInputs) -> Result<Config, ConfigError> {
        let env = |k: &str| i.env.get(k).map(|s| s.trim()).filter(|s| !s.is_empty());
        let home = i.home.as_deref();
        let db = match (&i.db, env("ATTEST_DB"), &i.data_dir) {
            (Some(p), _, _) => expand_tilde(p, home),
            (None, Some(p), _) => expand_tilde(Path::new(p), home),
            (None, None, Some(d)) => d.join("attest").join("attest.db"),
            (None, None, None) => return Err(ConfigError::NoDatabase),
        };
        let root = match (&i.root, env("RESEARCH_ROOT")) {
            (Some(p), _) => Some(expand_tilde(p, home)),
            (None, Some(p)) => Some(expand_tilde(Path::new(p), home)),
            (None, None) => None,
        };
        let tool_names = match i.tool_names.as_deref().or(env("ATTEST_TOOL_NAMES")) {
            None | Some("dotted") | Some("dot") => ToolNames::Dotted,
            Some("underscore") | Some("underscores") => ToolNames::Underscore,
            Some(other) => return Err(ConfigError::ToolNames(other.to_string())),
        };
        Ok(Config {
            db,
            root,
            tool_names,
            expand: env("ATTEST_EXPAND").is_some_and(truthy),
            http_token: env("ATTEST_HTTP_TOKEN").map(str::to_string),
            metric_directions: env("ATTEST_METRIC_DIRECTIONS").map(|p| expand_tilde(Path::new(p), home)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(env: &[(&str, &str)]) -> ConfigInputs {
        ConfigInputs {
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            data_dir: Some("/data".into()),
            home: Some("/home/u".into()),
            ..Default::default()
        }
    }

    #[test]
    fn flag_then_env_then_default() {
        let mut i = inputs(&[("ATTEST_DB", "~/x.db")]);
        assert_eq!(Config::resolve(&i).unwrap().db, PathBuf::from("/home/u/x.db"));
        i.db = Some("/flag.db".into());
        assert_eq!(Config::resolve(&i).unwrap().db, PathBuf::from("/flag.db"));
        let d = Config::resolve(&inputs(&[])).unwrap();
        assert_eq!(d.db, PathBuf::from("/data/attest/attest.db"));
        assert_eq!(d.root, None);
        assert!(!d.expand);
    }

    #[test]
    fn expand_and_names() {
        let c = Config::resolve(&inputs(&[("ATTEST_EXPAND", "1"), ("ATTEST_TOOL_NAMES", "underscore")])).unwrap();
        assert!(c.expand);
        assert_eq!(c.tool_names.spell("runs.compare"), "runs_compare");
        assert!(!Config::resolve(&inputs(&[("ATTEST_EXPAND", "0")])).unwrap().expand);
        assert!(Config::resolve(&inputs(&[("ATTEST_TOOL_NAMES", "snake")])).is_err());
    }

    #[test]
    fn no_data_dir_is_an_actionable_error() {
        let i = ConfigInputs::default();
        assert!(Config::resolve(&i).unwrap_err().to_string().contains("--db"));
    }
}
