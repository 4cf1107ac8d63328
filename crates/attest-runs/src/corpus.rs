//! Which data a run saw.
//!
//! Two arms evaluated on different data are not comparable, so the ledger links each
//! run to a named corpus when its artifact says which one (`"corpus": "librispeech-100h"`,
//! `"dataset": …`), or when the research root's `corpora.toml` assigns one:
//!
//! ```toml
//! [corpus.librispeech-100h]
//! source = "openslr-12"
//! tokenizer = "char"
//! seq_len = 1024
//!
//! [assign.family]
//! kdsweep = "librispeech-100h"
//!
//! [assign.run]
//! kdsweep_t4 = "librispeech-100h"
//! ```
//!
//! When two sources in one scan define the same corpus differently (the manifest says
//! one source, an artifact another), the definition is kept but marked *contested*,
//! and every comparison over it says so.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::LedgerError;

/// The manifest's file name, looked for in the research root.
pub const MANIFEST: &str = "corpora.toml";

/// Keys naming a corpus, in order of preference.
pub const NAME_KEYS: &[&str] = &["dataset", "corpus", "dataset_name", "data", "corpus_name"];
/// Keys naming where a corpus came from.
pub const SOURCE_KEYS: &[&str] = &["dataset_source", "hf_dataset", "data_source"];
/// Keys naming a corpus configuration or subset.
pub const CONFIG_KEYS: &[&str] = &["dataset_config", "subset"];
/// Keys naming a tokenizer.
pub const TOKENIZER_KEYS: &[&str] = &["tokenizer", "tokenizer_name", "encoding"];
/// Keys giving a vocabulary size.
pub const VOCAB_KEYS: &[&str] = &["vocab_size", "n_vocab"];
/// Keys giving a sequence length.
pub const SEQ_LEN_KEYS: &[&str] = &["seq_len", "max_seq_len", "block_size", "context_length"];

/// Every key that describes data rather than a result; never read as a metric.
pub fn is_corpus_key(key: &str) -> bool {
    [NAME_KEYS, SOURCE_KEYS, CONFIG_KEYS, TOKENIZER_KEYS, VOCAB_KEYS, SEQ_LEN_KEYS].iter().any(|ks| ks.contains(&key))
}

/// What is known about a corpus.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CorpusInfo {
    /// Its name, the key runs are linked by.
    pub name: String,
    /// Where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A configuration or subset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The tokenizer used on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<String>,
    /// Vocabulary size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocab_size: Option<i64>,
    /// Sequence length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq_len: Option<i64>,
}

fn first_str(obj: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| {
        obj.iter()
            .find(|(key, _)| key.to_ascii_lowercase() == *k)
            .and_then(|(_, v)| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    })
}

fn first_int(obj: &Map<String, Value>, keys: &[&str]) -> Option<i64> {
    keys.iter().find_map(|k| {
        obj.iter().find(|(key, _)| key.to_ascii_lowercase() == *k).and_then(|(_, v)| match v {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.is_finite()).map(|f| f as i64)),
            _ => None,
        })
    })
}

/// The corpus an artifact's top-level fields describe, if any. The name falls back
/// to the source, then the config, when no name key is present.
pub fn from_payload(obj: &Map<String, Value>) -> Option<CorpusInfo> {
    let source = first_str(obj, SOURCE_KEYS);
    let config = first_str(obj, CONFIG_KEYS);
    let name = first_str(obj, NAME_KEYS).or_else(|| source.clone()).or_else(|| config.clone())?;
    Some(CorpusInfo {
        name,
        source,
        config,
        tokenizer: first_str(obj, TOKENIZER_KEYS),
        vocab_size: first_int(obj, VOCAB_KEYS),
        seq_len: first_int(obj, SEQ_LEN_KEYS),
    })
}

/// The research root's `corpora.toml`: definitions and assignments.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    /// Corpus definitions by name.
    pub corpora: BTreeMap<String, CorpusInfo>,
    /// Run name → corpus name.
    pub by_run: BTreeMap<String, String>,
    /// Family → corpus name.
    pub by_family: BTreeMap<String, String>,
    /// The file read, for messages.
    pub path: Option<std::path::PathBuf>,
}

impl Manifest {
    /// Read `<root>/corpora.toml` if it exists. A malformed manifest is refused (the
    /// original ignored it, silently unlinking every run it assigned).
    pub fn load(root: &Path) -> Result<Manifest, LedgerError> {
        let path = root.join(MANIFEST);
        if !path.is_file() {
            return Ok(Manifest::default());
        }
        let text = std::fs::read_to_string(&path).map_err(|source| LedgerError::Io { path: path.clone(), source })?;
        let mut m = Manifest::parse(&text, &path)?;
        m.path = Some(path);
        Ok(m)
    }

    /// Parse a manifest's text (`path` is only used in messages).
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, LedgerError> {
        let shown = path.display();
        let bad = |what: String| {
            LedgerError::refused(format!(
                "the corpus manifest {shown} {what}; fix it or move it aside, then scan again"
            ))
        };
        let doc: toml::Table =
            text.parse().map_err(|e: toml::de::Error| bad(format!("is not valid TOML ({})", e.message().trim())))?;
        let mut m = Manifest::default();
        for (key, value) in &doc {
            let table = value.as_table().ok_or_else(|| {
                bad(format!("has '{key}' as a value; expected [corpus.<name>] or [assign.run]/[assign.family] tables"))
            })?;
            match key.as_str() {
                "corpus" => {
                    for (name, def) in table {
                        let def = def.as_table().ok_or_else(|| {
                            bad(format!("has corpus.{name} as a value; write it as a [corpus.{name}] table"))
                        })?;
                        let s = |k: &str| {
                            def.get(k).and_then(|v| v.as_str()).map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
                        };
                        let i = |k: &str| def.get(k).and_then(|v| v.as_integer());
                        m.corpora.insert(
                            name.clone(),
                            CorpusInfo {
                                name: name.clone(),
                                source: s("source"),
                                config: s("config"),
                                tokenizer: s("tokenizer"),
                                vocab_size: i("vocab_size"),
                                seq_len: i("seq_len"),
                            },
                        );
                    }
                }
                "assign" => {
                    for (kind, map) in table {
                        let target = match kind.as_str() {
                            "run" => &mut m.by_run,
                            "family" => &mut m.by_family,
                            other => {
                                return Err(bad(format!(
                                    "has [assign.{other}]; only [assign.run] and [assign.family] are read"
                                )));
                            }
                        };
                        let map = map
                            .as_table()
                            .ok_or_else(|| bad(format!("has assign.{kind} as a value; write it as a table")))?;
                        for (name, corpus) in map {
                            let corpus = corpus.as_str().ok_or_else(|| {
                                bad(format!("assigns {name} = {corpus}; the corpus must be a quoted name"))
                            })?;
                            target.insert(name.clone(), corpus.to_string());
                        }
                    }
                }
                other => {
                    return Err(bad(format!("has a [{other}] table; only [corpus.<name>] and [assign.*] are read")));
                }
            }
        }
        Ok(m)
    }

    /// The corpus assigned to a run: by run name, then by family.
    pub fn assigned(&self, run: &str, family: Option<&str>) -> Option<&str> {
        self.by_run.get(run).or_else(|| family.and_then(|f| self.by_family.get(f))).map(String::as_str)
    }
}

/// Definitions of corpora gathered during one scan, with disagreements kept.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    defs: BTreeMap<String, (CorpusInfo, Vec<String>)>,
}

impl Registry {
    /// Add a definition from `origin` (a file path or `corpora.toml`): missing fields
    /// are filled; a field that disagrees with an earlier value marks the corpus
    /// contested.
    pub fn add(&mut self, info: &CorpusInfo, origin: &str) {
        let (cur, disputes) = self
            .defs
            .entry(info.name.clone())
            .or_insert_with(|| (CorpusInfo { name: info.name.clone(), ..Default::default() }, Vec::new()));
        fn merge<T: PartialEq + Clone + std::fmt::Display>(
            field: &str,
            cur: &mut Option<T>,
            new: &Option<T>,
            origin: &str,
            disputes: &mut Vec<String>,
        ) {
            match (cur.as_ref(), new) {
                (None, Some(v)) => *cur = Some(v.clone()),
                (Some(a), Some(b)) if a != b => {
                    let d = format!("{field} '{a}' vs '{b}' ({origin})");
                    if !disputes.contains(&d) {
                        disputes.push(d);
                    }
                }
                _ => {}
            }
        }
        merge("source", &mut cur.source, &info.source, origin, disputes);
        merge("config", &mut cur.config, &info.config, origin, disputes);
        merge("tokenizer", &mut cur.tokenizer, &info.tokenizer, origin, disputes);
        merge("vocab_size", &mut cur.vocab_size, &info.vocab_size, origin, disputes);
        merge("seq_len", &mut cur.seq_len, &info.seq_len, origin, disputes);
    }

    /// Every corpus with its merged definition and, when disputed, what is disputed.
    pub fn into_entries(self) -> Vec<(CorpusInfo, Option<String>)> {
        self.defs
            .into_values()
            .map(|(info, disputes)| (info, (!disputes.is_empty()).then(|| disputes.join("; "))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn payload_fields() {
        let v = json!({"Dataset": "librispeech", "hf_dataset": "openslr/12", "seq_len": 1024.0, "tokenizer": "  "});
        let c = from_payload(v.as_object().unwrap()).unwrap();
        assert_eq!(c.name, "librispeech");
        assert_eq!(c.source.as_deref(), Some("openslr/12"));
        assert_eq!(c.seq_len, Some(1024));
        assert_eq!(c.tokenizer, None);
        let only_source = json!({"data_source": "s3://x"});
        assert_eq!(from_payload(only_source.as_object().unwrap()).unwrap().name, "s3://x");
        assert!(from_payload(json!({"wer": 0.1}).as_object().unwrap()).is_none());
        assert!(is_corpus_key("block_size") && !is_corpus_key("wer"));
    }

    #[test]
    fn manifest_parse_and_refusals() {
        let p = Path::new("/r/corpora.toml");
        let m = Manifest::parse(
            "[corpus.ls]\nsource = \"openslr-12\"\nseq_len = 1024\n[assign.family]\nkdsweep = \"ls\"\n[assign.run]\nx_1 = \"other\"\n",
            p,
        )
        .unwrap();
        assert_eq!(m.corpora["ls"].seq_len, Some(1024));
        assert_eq!(m.assigned("kdsweep_t4", Some("kdsweep")), Some("ls"));
        assert_eq!(m.assigned("x_1", Some("kdsweep")), Some("other"));
        for bad in ["[corpus", "x = 1", "[assign.project]\na = \"b\"", "[assign.run]\na = 3"] {
            let e = Manifest::parse(bad, p).unwrap_err().to_string();
            assert!(e.contains("/r/corpora.toml"), "{e}");
        }
    }

    #[test]
    fn registry_marks_disagreement() {
        let mut r = Registry::default();
        r.add(&CorpusInfo { name: "a".into(), source: Some("x".into()), ..Default::default() }, "corpora.toml");
        r.add(&CorpusInfo { name: "a".into(), tokenizer: Some("bpe".into()), ..Default::default() }, "r1.json");
        r.add(&CorpusInfo { name: "b".into(), ..Default::default() }, "r1.json");
        let e = r.clone().into_entries();
        assert_eq!(e[0].0.tokenizer.as_deref(), Some("bpe"));
        assert!(e.iter().all(|(_, c)| c.is_none()));
        r.add(&CorpusInfo { name: "a".into(), source: Some("y".into()), ..Default::default() }, "r2.json");
        let e = r.into_entries();
        assert_eq!(e[0].1.as_deref(), Some("source 'x' vs 'y' (r2.json)"));
    }
}
