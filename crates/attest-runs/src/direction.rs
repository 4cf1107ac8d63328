//! Which way is better for a metric.
//!
//! A ranking is only as good as the direction it sorts by, so attest never guesses
//! one: a metric is ranked only when the built-in [`BUILTIN`] table or the user's
//! override file says which way is better. The override file is TOML:
//!
//! ```toml
//! [metric_direction]
//! judge_score = "higher_is_better"
//! latency_ms  = "lower_is_better"
//! ```
//!
//! It is looked for, in order, at the explicit path (`ATTEST_METRIC_DIRECTIONS`), then
//! at `<research root>/metric_directions.toml`. A file that exists but cannot be read
//! as that shape is refused with a message naming the problem; it is never silently
//! ignored (the original ignored a malformed file, which quietly dropped every
//! declaration in it).

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::LedgerError;

/// The file name looked for in the research root.
pub const FILE_NAME: &str = "metric_directions.toml";

/// The TOML table the override file declares directions in.
pub const TABLE: &str = "metric_direction";

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Smaller values are better (error rates, losses).
    LowerIsBetter,
    /// Larger values are better (accuracies, scores).
    HigherIsBetter,
}

impl Direction {
    /// The spelling used in the override file and in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::LowerIsBetter => "lower_is_better",
            Direction::HigherIsBetter => "higher_is_better",
        }
    }

    /// Parse the override file's spelling.
    pub fn parse(s: &str) -> Option<Direction> {
        match s.trim() {
            "lower_is_better" => Some(Direction::LowerIsBetter),
            "higher_is_better" => Some(Direction::HigherIsBetter),
            _ => None,
        }
    }

    /// Whether `a` is strictly better than `b` in this direction.
    pub fn better(self, a: f64, b: f64) -> bool {
        match self {
            Direction::LowerIsBetter => a < b,
            Direction::HigherIsBetter => a > b,
        }
    }
}

impl std::fmt::Display for Direction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

use Direction::{HigherIsBetter as Hi, LowerIsBetter as Lo};

/// The built-in directions, in the order questions are searched for them.
pub const BUILTIN: &[(&str, Direction)] = &[
    ("wer", Lo),
    ("cer", Lo),
    ("loss", Lo),
    ("val_loss", Lo),
    ("ppl", Lo),
    ("perplexity", Lo),
    ("nll", Lo),
    ("mae", Lo),
    ("rmse", Lo),
    ("error", Lo),
    ("accuracy", Hi),
    ("r_squared", Hi),
    ("f1", Hi),
    ("auc", Hi),
    ("roc_auc", Hi),
    ("precision", Hi),
    ("recall", Hi),
    ("ndcg", Hi),
    ("map", Hi),
    ("mrr", Hi),
    ("bleu", Hi),
    ("rouge", Hi),
    ("iou", Hi),
    ("dice", Hi),
    ("psnr", Hi),
    ("ssim", Hi),
    ("mse", Lo),
    ("mape", Lo),
    ("fid", Lo),
    ("eer", Lo),
    // The spellings frameworks log accuracy under (Keras's `acc` and its metric
    // classes, torchmetrics' and timm's top-k), one entry per name.
    ("acc", Hi),
    ("sparse_categorical_accuracy", Hi),
    ("categorical_accuracy", Hi),
    ("binary_accuracy", Hi),
    ("top_k_categorical_accuracy", Hi),
    ("top1", Hi),
    ("top5", Hi),
];

const PREFIXES: &[&str] = &["train_", "val_", "valid_", "test_", "eval_", "top1_", "best_", "final_"];
const SUFFIXES: &[&str] = &["_macro", "_micro"];

/// The part of a metric name that carries its direction: a trailing `_at_<k>` and
/// leading split/selection prefixes are removed until nothing changes, then one
/// `_macro`/`_micro` suffix. `best_val_loss` → `loss`, `ndcg_at_10` → `ndcg`,
/// `test_accuracy` → `accuracy`, `f1_macro` → `f1`.
pub fn stem(metric: &str) -> String {
    let mut s = metric.to_ascii_lowercase();
    loop {
        let before = s.clone();
        if let Some(i) = s.rfind("_at_") {
            let tail = &s[i + 4..];
            if i > 0 && !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
                s.truncate(i);
            }
        }
        if let Some(p) = PREFIXES.iter().find(|p| s.len() > p.len() && s.starts_with(*p)) {
            s = s[p.len()..].to_string();
        }
        if s == before {
            break;
        }
    }
    if let Some(x) = SUFFIXES.iter().find(|x| s.len() > x.len() && s.ends_with(*x)) {
        s.truncate(s.len() - x.len());
    }
    s
}

/// The directions in effect: the built-in table with the user's declarations merged
/// over it, and where those came from.
#[derive(Debug, Clone)]
pub struct Directions {
    table: Vec<(String, Direction)>,
    file: Option<PathBuf>,
    declare_in: Option<PathBuf>,
}

impl Default for Directions {
    fn default() -> Self {
        Directions::builtin()
    }
}

impl Directions {
    /// Only the built-in table.
    pub fn builtin() -> Directions {
        Directions { table: BUILTIN.iter().map(|(n, d)| (n.to_string(), *d)).collect(), file: None, declare_in: None }
    }

    /// The override file that applies: `explicit` if given (it must then exist), else
    /// `<root>/metric_directions.toml` if that exists. Returns the path declarations
    /// should go to as well, which exists only when one could be named.
    pub fn locate(
        explicit: Option<&Path>,
        root: Option<&Path>,
    ) -> Result<(Option<PathBuf>, Option<PathBuf>), LedgerError> {
        if let Some(p) = explicit {
            if !p.is_file() {
                return Err(LedgerError::refused(format!(
                    "the metric-direction file {} (from ATTEST_METRIC_DIRECTIONS) does not exist; create it with a [{TABLE}] table, or unset the variable to use {FILE_NAME} in the research root",
                    p.display()
                )));
            }
            return Ok((Some(p.to_path_buf()), Some(p.to_path_buf())));
        }
        let at_root = root.map(|r| r.join(FILE_NAME));
        let found = at_root.clone().filter(|p| p.is_file());
        Ok((found, at_root))
    }

    /// Load the directions that apply (see [`Directions::locate`]); a malformed file is
    /// refused with a message saying what is wrong and how to fix it.
    pub fn load(explicit: Option<&Path>, root: Option<&Path>) -> Result<Directions, LedgerError> {
        let (file, declare_in) = Directions::locate(explicit, root)?;
        let mut d = Directions::builtin();
        d.declare_in = declare_in;
        if let Some(path) = file {
            let text =
                std::fs::read_to_string(&path).map_err(|source| LedgerError::Io { path: path.clone(), source })?;
            d.merge_toml(&text, &path)?;
            d.file = Some(path);
        }
        Ok(d)
    }

    /// Merge the declarations in `text` (the override file's content, read from `path`)
    /// over this table.
    pub fn merge_toml(&mut self, text: &str, path: &Path) -> Result<(), LedgerError> {
        for (name, dir) in parse_overrides(text, path)? {
            self.set(&name, dir);
        }
        Ok(())
    }

    /// Declare one metric's direction, replacing any earlier one.
    pub fn set(&mut self, metric: &str, dir: Direction) {
        let metric = metric.trim().to_ascii_lowercase();
        match self.table.iter_mut().find(|(n, _)| *n == metric) {
            Some(slot) => slot.1 = dir,
            None => self.table.push((metric, dir)),
        }
    }

    /// The direction of `metric`: its exact (lower-cased) name, else its [`stem`].
    pub fn get(&self, metric: &str) -> Option<Direction> {
        let m = metric.trim().to_ascii_lowercase();
        let exact = |name: &str| self.table.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
        exact(&m).or_else(|| exact(&stem(&m)))
    }

    /// Every declared name, built-ins first, in table order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.table.iter().map(|(n, _)| n.as_str())
    }

    /// The override file that was read, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Where a new declaration belongs: the explicit file, or the research root's
    /// `metric_directions.toml` (which may not exist yet). `None` when neither is known.
    pub fn declare_in(&self) -> Option<&Path> {
        self.declare_in.as_deref()
    }

    /// A phrase naming where to declare a direction, for refusals.
    pub fn where_to_declare(&self) -> String {
        match &self.declare_in {
            Some(p) => p.display().to_string(),
            None => format!("{FILE_NAME} in your research root (or the file ATTEST_METRIC_DIRECTIONS names)"),
        }
    }

    /// The first declared metric named as a whole word in `text` (table order).
    pub fn metric_in(&self, text: &str) -> Option<&str> {
        let lower = text.to_ascii_lowercase();
        self.names().find(|name| contains_word(&lower, name))
    }
}

/// Whether `word` occurs in `text` with no word character (or `-`) touching it.
pub(crate) fn contains_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let start = from + i;
        let end = start + word.len();
        let before_ok = text[..start].chars().next_back().is_none_or(|c| !is_word(c));
        let after_ok = text[end..].chars().next().is_none_or(|c| !is_word(c));
        if before_ok && after_ok {
            return true;
        }
        from = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Parse an override file into `(metric, direction)` pairs, in file order.
pub fn parse_overrides(text: &str, path: &Path) -> Result<Vec<(String, Direction)>, LedgerError> {
    let shown = path.display();
    let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        LedgerError::refused(format!(
            "the metric-direction file {shown} is not valid TOML ({}); fix it, or move it aside to use the built-in directions only",
            e.message().trim()
        ))
    })?;
    let mut out = Vec::new();
    for (key, value) in &doc {
        if key != TABLE {
            return Err(LedgerError::refused(format!(
                "the metric-direction file {shown} has '{key}', but only a [{TABLE}] table is read; put declarations like `my_metric = \"higher_is_better\"` under [{TABLE}]"
            )));
        }
        let Some(table) = value.as_table() else {
            return Err(LedgerError::refused(format!(
                "in the metric-direction file {shown}, '{TABLE}' must be a table: write [{TABLE}] on its own line, then one `name = \"lower_is_better\"` or `name = \"higher_is_better\"` per line"
            )));
        };
        for (name, v) in table {
            let dir = v.as_str().and_then(Direction::parse).ok_or_else(|| {
                LedgerError::refused(format!(
                    "in the metric-direction file {shown}, [{TABLE}] {name} = {v} is not a direction; write {name} = \"lower_is_better\" or {name} = \"higher_is_better\""
                ))
            })?;
            out.push((name.trim().to_ascii_lowercase(), dir));
        }
    }
    Ok(out)
}

/// The text of an override file after declaring `new` in it: lines are inserted under
/// the existing `[metric_direction]` header (keeping comments and layout), or a new
/// table is appended. `existing` must already be a valid override file.
pub fn with_declarations(existing: Option<&str>, new: &[(String, Direction)]) -> String {
    let lines: String = new.iter().map(|(n, d)| format!("{n} = \"{}\"\n", d.as_str())).collect();
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return format!("# Which way is better for metrics attest cannot know on its own.\n[{TABLE}]\n{lines}");
    };
    let header = format!("[{TABLE}]");
    let mut out = String::with_capacity(text.len() + lines.len());
    let mut inserted = false;
    for line in text.split_inclusive('\n') {
        out.push_str(line);
        if !inserted && line.trim() == header {
            if !line.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&lines);
            inserted = true;
        }
    }
    if !inserted {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("\n{header}\n{lines}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        let cases = [
            ("best_val_loss", "loss"),
            ("ndcg_at_10", "ndcg"),
            ("test_accuracy", "accuracy"),
            ("f1_macro", "f1"),
            ("val_ppl", "ppl"),
            ("train_loss", "loss"),
            ("final_test_wer", "wer"),
            ("val_", "val_"),
            ("_at_5", "_at_5"),
            ("judge_score", "judge_score"),
            ("recall_at_100", "recall"),
        ];
        for (m, want) in cases {
            assert_eq!(stem(m), want, "stem({m})");
        }
    }

    #[test]
    fn lookups() {
        let d = Directions::builtin();
        let cases = [
            ("wer", Some(Lo)),
            ("WER", Some(Lo)),
            ("best_val_loss", Some(Lo)),
            ("ndcg_at_10", Some(Hi)),
            ("f1_macro", Some(Hi)),
            ("val_accuracy", Some(Hi)),
            ("val_ppl", Some(Lo)),
            ("n_records", None),
            ("judge_score", None),
            ("tokens_seen", None),
            ("acc", Some(Hi)),
            ("val_acc", Some(Hi)),
            ("train_acc", Some(Hi)),
            ("val_sparse_categorical_accuracy", Some(Hi)),
            ("top1_acc", Some(Hi)),
            ("accuracy_std", None),
            ("acc_std", None),
        ];
        for (m, want) in cases {
            assert_eq!(d.get(m), want, "direction of {m}");
        }
        assert_eq!(BUILTIN.len(), 37);
        assert_eq!(BUILTIN[0].0, "wer");
        assert_eq!(BUILTIN[29].0, "eer");
        assert_eq!(BUILTIN[30].0, "acc");
    }

    #[test]
    fn overrides_merge_and_malformed_files_are_refused() {
        let p = Path::new("/x/metric_directions.toml");
        let mut d = Directions::builtin();
        d.merge_toml("# c\n[metric_direction]\njudge_score = \"higher_is_better\"\nloss = \"higher_is_better\"\n", p)
            .unwrap();
        assert_eq!(d.get("judge_score"), Some(Hi));
        assert_eq!(d.get("loss"), Some(Hi));
        assert_eq!(d.names().last(), Some("judge_score"));
        let bad = [
            ("[metric_direction\nx = 1", "not valid TOML"),
            ("[metric_directions]\nx = \"higher_is_better\"", "only a [metric_direction] table"),
            ("metric_direction = 3", "must be a table"),
            ("[metric_direction]\nx = \"up\"", "x = \"higher_is_better\""),
        ];
        for (text, want) in bad {
            let err = parse_overrides(text, p).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(err.contains("/x/metric_directions.toml"), "{err}");
        }
        assert!(parse_overrides("", p).unwrap().is_empty());
    }

    #[test]
    fn load_ladder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let d = Directions::load(None, Some(root)).unwrap();
        assert!(d.file().is_none());
        assert_eq!(d.declare_in(), Some(root.join(FILE_NAME).as_path()));
        std::fs::write(root.join(FILE_NAME), "[metric_direction]\nrtf = \"lower_is_better\"\n").unwrap();
        assert_eq!(Directions::load(None, Some(root)).unwrap().get("rtf"), Some(Lo));
        let other = root.join("elsewhere.toml");
        let err = Directions::load(Some(&other), Some(root)).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
        std::fs::write(&other, "[metric_direction]\nbeam = \"higher_is_better\"\n").unwrap();
        let d = Directions::load(Some(&other), Some(root)).unwrap();
        assert_eq!(d.get("beam"), Some(Hi));
        assert_eq!(d.get("rtf"), None, "the explicit file replaces the root's, it is not merged with it");
        std::fs::write(root.join(FILE_NAME), "[metric_direction]\nrtf = sideways\n").unwrap();
        assert!(Directions::load(None, Some(root)).is_err());
    }

    #[test]
    fn declarations_keep_the_file_valid() {
        let p = Path::new("/x.toml");
        let new = vec![("rtf".to_string(), Lo)];
        let fresh = with_declarations(None, &new);
        assert_eq!(parse_overrides(&fresh, p).unwrap(), new);
        let existing = "# mine\n[metric_direction]\njudge_score = \"higher_is_better\" # keep\n";
        let merged = with_declarations(Some(existing), &new);
        assert!(merged.contains("# keep"));
        assert_eq!(parse_overrides(&merged, p).unwrap().len(), 2);
        let no_table = "# only a comment";
        assert_eq!(parse_overrides(&with_declarations(Some(no_table), &new), p).unwrap(), new);
    }

    #[test]
    fn metric_in_question() {
        let d = Directions::builtin();
        assert_eq!(d.metric_in("which arm has the best WER?"), Some("wer"));
        assert_eq!(d.metric_in("compare kdsweep on val_loss"), Some("val_loss"));
        assert_eq!(d.metric_in("what is the answer"), None);
        assert!(contains_word("rank by f1 please", "f1"));
        assert!(!contains_word("f1_macro", "f1"));
    }
}
