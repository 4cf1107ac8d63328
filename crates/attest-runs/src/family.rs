//! Families, steps and variant tokens, derived from file names.
//!
//! A *family* is a set of sibling runs that can be ranked against each other as arms.
//! attest never asks the user to declare one: it reads it off the names researchers
//! already give their files (`kdsweep_t4.json`, `kdsweep_t8.json` → family `kdsweep`).
//!
//! Three kinds of token are recognised inside a stem:
//! - **step tokens** (`step_2000`, `ckpt3`, `epoch-12`, `10k_steps`) name a checkpoint;
//! - **variant tokens** (recorded in a run's config, never as a metric's split) (`cfg2.0`, `lr_1e-4`, `fold3`, `temp0.7`, `scale_2`, `split_a`)
//!   name the configuration being swept;
//! - **seed tokens** (`seed3`, `seed_17`) name a replicate of one configuration.
//!
//! Every token must sit on a `-`/`_` boundary on both sides, so `audit_100` is not an
//! `it` step and `temperature` is not a `temp` variant (the original matched inside
//! words).

use std::sync::LazyLock;

use regex::Regex;

/// The variant-token names, in the order they are tried.
pub const VARIANT_TOKENS: &[&str] = &["cfg", "seed", "fold", "split", "lr", "temp", "scale"];

static STEP_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|[-_])(step|epoch|iter|it|ckpt)[-_]?(\d+)(k?)").unwrap());
static STEP_SUFFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|[-_])(\d+)(k?)[-_]?(steps?|epochs?)").unwrap());
static VARIANT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[-_])(cfg|seed|fold|split|lr|temp|scale)(?:[-_=]([0-9][0-9.]*(?:e-?[0-9]+)?|[a-z0-9.]+)|([0-9.][0-9.]*(?:e-?[0-9]+)?))",
    )
    .unwrap()
});

/// True when `end` is the end of `s` or sits before a `-`/`_` separator.
fn ends_on_boundary(s: &str, end: usize) -> bool {
    matches!(s.as_bytes().get(end), None | Some(b'-') | Some(b'_'))
}

/// Byte ranges of boundary-checked matches of `re` in `s`.
fn token_ranges(re: &Regex, s: &str) -> Vec<(usize, usize)> {
    re.find_iter(s).filter(|m| ends_on_boundary(s, m.end())).map(|m| (m.start(), m.end())).collect()
}

/// A variant token found in a stem: its name (lower-cased) and value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Variant {
    start: usize,
    end: usize,
    name: String,
    value: String,
}

fn variants(stem: &str) -> Vec<Variant> {
    VARIANT
        .captures_iter(stem)
        .filter_map(|c| {
            let m = c.get(0)?;
            if !ends_on_boundary(stem, m.end()) {
                return None;
            }
            let value = c.get(2).or_else(|| c.get(3))?.as_str();
            Some(Variant {
                start: m.start(),
                end: m.end(),
                name: c[1].to_ascii_lowercase(),
                value: value.to_ascii_lowercase(),
            })
        })
        .collect()
}

/// The checkpoint step a file name states, if any: `eval_step_2000` → 2000,
/// `ckpt3` → 3, `model_10k_steps` → 10000 (`k` multiplies by a thousand).
pub fn step_from(stem: &str) -> Option<i64> {
    let from = |digits: &str, k: &str| -> Option<i64> {
        let n: i64 = digits.parse().ok()?;
        if k.is_empty() { Some(n) } else { n.checked_mul(1000) }
    };
    if let Some(c) = STEP_PREFIX.captures_iter(stem).find(|c| ends_on_boundary(stem, c.get(0).unwrap().end())) {
        return from(&c[2], &c[3]);
    }
    let c = STEP_SUFFIX.captures_iter(stem).find(|c| ends_on_boundary(stem, c.get(0).unwrap().end()))?;
    from(&c[1], &c[2])
}

/// The variant a file name states, as `<token><value>`: `kdsweep_cfg2.0` → `cfg2.0`,
/// `model_seed_3` → `seed3`, `opt_lr1e-4` → `lr1e-4`. The first token wins.
///
/// A variant names the configuration, not the data: it is never a metric's split
/// (`dev`/`test`/`eval`). The readers put each token in the run's config instead
/// ([`variant_config`]), where comparisons label arms by it (`lr=1e-4`).
pub fn variant_from(stem: &str) -> Option<String> {
    variants(stem).into_iter().next().map(|v| format!("{}{}", v.name, v.value))
}

/// Every variant token of a stem as a config entry: `sweep_lr1e-4_seed2` →
/// `{"lr": "1e-4", "seed": "2"}` (the first of a repeated token wins).
pub fn variant_config(stem: &str) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    for v in variants(stem) {
        out.entry(v.name).or_insert(serde_json::Value::String(v.value));
    }
    out
}

/// The family of a run that is a directory (a Trainer output directory): the family
/// its name gives, unless the name is only a variant token (`lr1e-5`), in which case
/// the sweep is the directory holding it (`outputs/lr1e-5` → `outputs`).
pub fn family_of_dir(name: &str, parent: Option<&str>) -> Option<String> {
    let only_token = {
        let s = without_seed(name);
        let mut cut = token_ranges(&STEP_PREFIX, &s);
        cut.extend(variants(&s).into_iter().map(|v| (v.start, v.end)));
        parts(&remove_ranges(&s, &cut)).is_empty()
    };
    if only_token {
        return parent.filter(|p| !p.is_empty()).map(str::to_string).or_else(|| family_of(name));
    }
    family_of(name).or_else(|| parent.filter(|p| !p.is_empty()).map(str::to_string))
}

/// The split a metric name's prefix states, the way training frameworks name their
/// metrics: `eval_accuracy` → `eval`, `val_loss` → `val`, `test_f1` → `test`,
/// `train_loss` → `train`; `None` for an unprefixed name.
pub fn split_of_metric(name: &str) -> Option<&'static str> {
    let n = name.to_ascii_lowercase();
    const PREFIXES: &[(&str, &str)] = &[
        ("eval_", "eval"),
        ("test_", "test"),
        ("predict_", "test"),
        ("val_", "val"),
        ("valid_", "val"),
        ("validation_", "val"),
        ("dev_", "dev"),
        ("train_", "train"),
        ("training_", "train"),
    ];
    PREFIXES.iter().find(|(p, _)| n.starts_with(p)).map(|(_, s)| *s)
}

/// Most config keys that may differ among the runs of one sweep for their values to
/// name the arms; more, and the runs are not one sweep.
pub const MAX_VARYING: usize = 4;

/// Whether a (flattened) config key names a replicate rather than an arm.
pub fn is_seed_key(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
    matches!(last.as_str(), "seed" | "random_seed" | "rng_seed")
}

/// Keys that differ between runs without being what was swept: paths, names, ids,
/// tracker tags.
fn is_bookkeeping_key(key: &str, v: &serde_json::Value) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key).to_ascii_lowercase();
    key.starts_with("tag.")
        || last.ends_with("_dir")
        || last.ends_with("_path")
        || matches!(
            last.as_str(),
            "output_dir" | "logging_dir" | "run_name" | "name" | "id" | "run_id" | "experiment_name" | "hub_model_id"
        )
        || v.as_str().is_some_and(|s| s.contains('/'))
}

/// A config flattened to `a.b.c` keys (lists kept whole).
pub fn flatten(config: &serde_json::Value) -> std::collections::BTreeMap<String, serde_json::Value> {
    fn go(prefix: &str, v: &serde_json::Value, out: &mut std::collections::BTreeMap<String, serde_json::Value>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                    go(&key, x, out);
                }
            }
            other if !prefix.is_empty() => {
                out.insert(prefix.to_string(), other.clone());
            }
            _ => {}
        }
    }
    let mut out = std::collections::BTreeMap::new();
    go("", config, &mut out);
    out
}

/// How a sweep's runs differ: the config keys (other than seeds and bookkeeping)
/// whose values are not all equal, sorted, and whether the seed differs too. `None`
/// unless every run has a config and 1 to [`MAX_VARYING`] keys differ.
pub fn varying_keys(configs: &[Option<&serde_json::Value>]) -> Option<(Vec<String>, bool)> {
    if configs.len() < 2 {
        return None;
    }
    let flat: Vec<std::collections::BTreeMap<String, serde_json::Value>> =
        configs.iter().map(|c| c.map(flatten)).collect::<Option<Vec<_>>>()?;
    let keys: std::collections::BTreeSet<&String> = flat.iter().flat_map(|m| m.keys()).collect();
    let mut varying = Vec::new();
    let mut seed = false;
    for k in keys {
        let vals: Vec<Option<&serde_json::Value>> = flat.iter().map(|m| m.get(k)).collect();
        if vals.iter().all(|v| *v == vals[0]) {
            continue;
        }
        if is_seed_key(k) {
            seed = true;
        } else if !vals.iter().flatten().any(|v| is_bookkeeping_key(k, v)) {
            varying.push(k.clone());
        }
    }
    (1..=MAX_VARYING).contains(&varying.len()).then_some((varying, seed))
}

/// The label of one arm: the varying keys' values, `lr=3e-5, dropout=0.3` (a key
/// the run lacks shows as `key=-`).
pub fn arm_label(config: &serde_json::Value, keys: &[String]) -> String {
    let flat = flatten(config);
    keys.iter()
        .map(|k| {
            let v = match flat.get(k) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => "-".into(),
            };
            format!("{k}={v}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The seed a file name states (`run_seed3` → `3`), if any.
pub fn seed_from(stem: &str) -> Option<String> {
    variants(stem).into_iter().find(|v| v.name == "seed").map(|v| v.value)
}

/// The stem with its seed token(s) removed and separators tidied: `kdsweep_t4_seed2` →
/// `kdsweep_t4`. Runs that agree on this key differ only by seed.
pub fn without_seed(stem: &str) -> String {
    let cut: Vec<(usize, usize)> =
        variants(stem).into_iter().filter(|v| v.name == "seed").map(|v| (v.start, v.end)).collect();
    remove_ranges(stem, &cut).trim_matches(['-', '_']).to_string()
}

fn remove_ranges(s: &str, ranges: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    let mut sorted = ranges.to_vec();
    sorted.sort();
    for (a, b) in sorted {
        if a >= at {
            out.push_str(&s[at..a]);
            at = b;
        } else if b > at {
            at = b;
        }
    }
    out.push_str(&s[at..]);
    out
}

fn parts(s: &str) -> Vec<&str> {
    s.split(['-', '_']).filter(|p| !p.is_empty()).collect()
}

/// The family a file stem belongs to, or `None` when the name says nothing about one.
///
/// 1. Seed tokens are removed first: a seed names a replicate, not an arm, so
///    `kdsweep_t4_seed1` belongs to `kdsweep` like `kdsweep_t4` does.
/// 2. Step and variant tokens are removed. When that changed the name, the rest is a
///    series and names the family whole (`run_a_step_100` → `run-a`,
///    `sweep_lr0.1` → `sweep`).
/// 3. Otherwise the last `-`/`_` part is the arm and the rest the family
///    (`dit_small_rope_crossattn` → `dit-small-rope`, `kdsweep_t4` → `kdsweep`).
/// 4. A name made only of one token is its token's family (`lr_0.001` → `lr`); a
///    single plain word has none, unless a seed was removed from it (`run_seed1` →
///    `run`, a family of one arm with replicates).
///
/// Families are always joined with `-`.
pub fn family_of(stem: &str) -> Option<String> {
    let unseeded = without_seed(stem);
    let had_seed = unseeded != stem.trim_matches(['-', '_']);
    if unseeded.is_empty() {
        return had_seed.then(|| "seed".to_string());
    }
    let s = unseeded.as_str();
    let mut cut = token_ranges(&STEP_PREFIX, s);
    cut.extend(token_ranges(&STEP_SUFFIX, s));
    cut.extend(variants(s).into_iter().map(|v| (v.start, v.end)));
    let rest = remove_ranges(s, &cut);
    let p = parts(&rest);
    if p.is_empty() {
        return variants(s).first().filter(|v| v.start == 0).map(|v| v.name.clone());
    }
    if !cut.is_empty() {
        return Some(p.join("-"));
    }
    if p.len() >= 2 {
        return Some(p[..p.len() - 1].join("-"));
    }
    had_seed.then(|| p[0].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        let cases: &[(&str, Option<&str>)] = &[
            ("kdsweep_t4", Some("kdsweep")),
            ("kdsweep_baseline", Some("kdsweep")),
            ("dit_small_rope_crossattn", Some("dit-small-rope")),
            ("eval_step_22000", Some("eval")),
            ("rank_method_bm25", Some("rank-method")),
            ("run_a_step_100", Some("run-a")),
            ("lr_0.001", Some("lr")),
            ("sweep_lr0.1", Some("sweep")),
            ("sweep_lr_1e-4", Some("sweep")),
            ("kdalpha_75", Some("kdalpha")),
            ("trainlog_kdalpha50", Some("trainlog")),
            ("planned_alpha90", Some("planned")),
            ("prompt_fewshot", Some("prompt")),
            ("baseline", None),
            ("", None),
            // seeds are replicates, not arms
            ("kdsweep_t4_seed1", Some("kdsweep")),
            ("kdsweep_t4_seed_2", Some("kdsweep")),
            ("sweep_lr0.1_seed3", Some("sweep")),
            ("run_seed1", Some("run")),
            ("seed_3", Some("seed")),
            // tokens need boundaries on both sides
            ("audit_100", Some("audit")),
            ("temperature_0.5", Some("temperature")),
            ("seedling_a", Some("seedling")),
            ("model_10k_steps", Some("model")),
            ("ckpt3", None),
        ];
        for (stem, want) in cases {
            assert_eq!(family_of(stem).as_deref(), *want, "family_of({stem:?})");
        }
    }

    #[test]
    fn steps() {
        let cases: &[(&str, Option<i64>)] = &[
            ("eval_step_22000", Some(22000)),
            ("ckpt3", Some(3)),
            ("run-epoch-12", Some(12)),
            ("model_10k_steps", Some(10000)),
            ("it5k", Some(5000)),
            ("audit_100", None),
            ("kdsweep_t4", None),
            ("step", None),
        ];
        for (stem, want) in cases {
            assert_eq!(step_from(stem), *want, "step_from({stem:?})");
        }
    }

    #[test]
    fn splits_and_seeds() {
        let cases: &[(&str, Option<&str>)] = &[
            ("kdsweep_cfg2.0", Some("cfg2.0")),
            ("model_seed_3", Some("seed3")),
            ("opt_lr1e-4", Some("lr1e-4")),
            ("opt_lr_1e-4_x", Some("lr1e-4")),
            ("x_fold=2", Some("fold2")),
            ("x_split_dev", Some("splitdev")),
            ("temperature_0.5", None),
            ("kdsweep_t4", None),
        ];
        for (stem, want) in cases {
            assert_eq!(variant_from(stem).as_deref(), *want, "variant_from({stem:?})");
        }
        assert_eq!(seed_from("a_seed17_b").as_deref(), Some("17"));
        assert_eq!(seed_from("a_b"), None);
        assert_eq!(without_seed("kdsweep_t4_seed2"), "kdsweep_t4");
        assert_eq!(without_seed("seed2_kdsweep_t4"), "kdsweep_t4");
        assert_eq!(without_seed("kdsweep_t4"), "kdsweep_t4");
    }

    #[test]
    fn variant_configs_dirs_and_metric_splits() {
        let c = variant_config("sweep_lr1e-4_seed2");
        assert_eq!((c["lr"].as_str(), c["seed"].as_str()), (Some("1e-4"), Some("2")));
        assert!(variant_config("kdalpha_75").is_empty());
        let cases: &[(&str, Option<&str>, Option<&str>)] = &[
            ("lr1e-5", Some("outputs"), Some("outputs")),
            ("bert_lr1e-5", Some("outputs"), Some("bert")),
            ("run", Some("sweeps"), Some("sweeps")),
            ("lr1e-5", None, Some("lr")),
        ];
        for (name, parent, want) in cases {
            assert_eq!(family_of_dir(name, *parent).as_deref(), *want, "family_of_dir({name:?}, {parent:?})");
        }
        for (m, want) in [
            ("eval_accuracy", Some("eval")),
            ("val_loss", Some("val")),
            ("test_acc", Some("test")),
            ("train_loss", Some("train")),
            ("loss", None),
            ("evaluation", None),
        ] {
            assert_eq!(split_of_metric(m), want, "{m}");
        }
    }

    #[test]
    fn what_varies_names_the_arms() {
        use serde_json::json;
        let a = json!({"lr": 0.1, "seed": 1, "model": {"width": 64}, "output_dir": "out/a"});
        let b = json!({"lr": 0.3, "seed": 2, "model": {"width": 64}, "output_dir": "out/b"});
        let (keys, seed) = varying_keys(&[Some(&a), Some(&b)]).unwrap();
        assert_eq!((keys.as_slice(), seed), (["lr".to_string()].as_slice(), true), "paths and seeds are not arms");
        assert_eq!(arm_label(&b, &keys), "lr=0.3");
        let c = json!({"lr": 0.1, "model": {"width": 128}});
        let (keys, _) = varying_keys(&[Some(&a), Some(&c)]).unwrap();
        assert_eq!(keys, ["model.width", "seed"].map(String::from)[..1]);
        assert_eq!(arm_label(&c, &["model.width".into(), "x".into()]), "model.width=128, x=-");
        assert_eq!(varying_keys(&[Some(&a), None]), None, "a run without a config");
        assert_eq!(varying_keys(&[Some(&a), Some(&a)]), None, "nothing varies");
        let wide: Vec<serde_json::Value> = (0..2).map(|i| json!({"a": i, "b": i, "c": i, "d": i, "e": i})).collect();
        assert_eq!(varying_keys(&wide.iter().map(Some).collect::<Vec<_>>()), None, "too many keys: not one sweep");
    }
}
