//! Families a person declares in `<research root>/attest.toml`, overriding the ones
//! read off names and configs:
//!
//! ```toml
//! [[family]]
//! name = "bert-lr"                # the family's name
//! runs = ["lr*", "outputs/lr*"]   # globs over run names (`*` any text, `?` one character)
//! project = "sst2"                # optional: only in this project
//! metric = "eval_accuracy"        # optional: rank by this unless another is asked for
//! [family.arms]                   # optional: labels for arms, by run name
//! "lr1e-5" = "lr=1e-5"
//! ```
//!
//! A run matched by several declarations takes the first. A malformed file stops the
//! scan with a message naming the file and the fix (like `corpora.toml`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::Record;

/// The file's name, under the research root.
pub const FILE: &str = "attest.toml";

/// One declared family.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredFamily {
    /// The family's name.
    pub name: String,
    /// Globs over run names.
    pub runs: Vec<String>,
    /// Only in this project.
    #[serde(default)]
    pub project: Option<String>,
    /// The metric to rank by when none is asked for.
    #[serde(default)]
    pub metric: Option<String>,
    /// Arm labels by run name.
    #[serde(default)]
    pub arms: BTreeMap<String, String>,
}

/// Everything `attest.toml` declares.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declared {
    /// The declared families, in file order.
    #[serde(default)]
    pub family: Vec<DeclaredFamily>,
}

/// `*` matches any text (including `/`), `?` one character; everything else itself.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

impl Declared {
    /// Read `<root>/attest.toml`; absent → nothing declared; malformed → why, naming
    /// the file.
    pub fn load(root: &Path) -> Result<Declared, String> {
        let path = root.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Declared::default()),
            Err(e) => return Err(format!("{} cannot be read: {e}", path.display())),
        };
        let d: Declared = toml::from_str(&text).map_err(|e| {
            format!(
                "{} is not a valid attest.toml ({}); it declares families as [[family]] tables with name = \"…\", runs = [\"glob\", …] and optionally project, metric and [family.arms]",
                path.display(),
                e.message().trim()
            )
        })?;
        for f in &d.family {
            if f.name.trim().is_empty() || f.runs.is_empty() {
                return Err(format!(
                    "{}: every [[family]] needs a non-empty name and at least one runs glob",
                    path.display()
                ));
            }
        }
        Ok(d)
    }

    /// The declaration that claims run `name` of `project`, if any.
    pub fn family_of(&self, project: &str, name: &str) -> Option<&DeclaredFamily> {
        self.family
            .iter()
            .filter(|f| f.project.as_deref().is_none_or(|p| p == project))
            .find(|f| f.runs.iter().any(|g| glob_match(g, name)))
    }

    /// The declaration of family `family` in `project`, if any.
    pub fn named(&self, project: &str, family: &str) -> Option<&DeclaredFamily> {
        self.family.iter().find(|f| f.name == family && f.project.as_deref().is_none_or(|p| p == project))
    }

    /// Put declared runs in their declared family.
    pub fn apply(&self, project: &str, records: &mut [Record]) {
        for r in records {
            if let Some(f) = self.family_of(project, &r.name) {
                r.family = Some(f.name.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (p, t, want) in [
            ("lr*", "lr1e-5", true),
            ("*/version_?", "mnist/version_3", true),
            ("*/version_?", "mnist/version_12", false),
            ("outputs/*", "lr1e-5", false),
            ("a*b*c", "axxbyyc", true),
            ("", "", true),
        ] {
            assert_eq!(glob_match(p, t), want, "{p} vs {t}");
        }
    }

    #[test]
    fn parses_and_refuses() {
        let d: Declared = toml::from_str(
            "[[family]]\nname = \"x\"\nruns = [\"a*\"]\nmetric = \"wer\"\n[family.arms]\na1 = \"lr=1\"\n",
        )
        .unwrap();
        assert_eq!(d.family_of("p", "a1").unwrap().arms["a1"], "lr=1");
        assert!(d.family_of("p", "b").is_none());
        assert!(toml::from_str::<Declared>("[[families]]\nname = \"x\"\n").is_err());
    }
}
