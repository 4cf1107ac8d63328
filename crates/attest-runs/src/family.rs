//! Families, steps and variant tokens, derived from file names.
//!
//! A *family* is a set of sibling runs that can be ranked against each other as arms.
//! attest never asks the user to declare one: it reads it off the names researchers
//! already give their files (`kdsweep_t4.json`, `kdsweep_t8.json` → family `kdsweep`).
//!
//! Three kinds of token are recognised inside a stem:
//! - **step tokens** (`step_2000`, `ckpt3`, `epoch-12`, `10k_steps`) name a checkpoint;
//! - **variant tokens** (`cfg2.0`, `lr_1e-4`, `fold3`, `temp0.7`, `scale_2`, `split_a`)
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
pub fn split_from(stem: &str) -> Option<String> {
    variants(stem).into_iter().next().map(|v| format!("{}{}", v.name, v.value))
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
            assert_eq!(split_from(stem).as_deref(), *want, "split_from({stem:?})");
        }
        assert_eq!(seed_from("a_seed17_b").as_deref(), Some("17"));
        assert_eq!(seed_from("a_b"), None);
        assert_eq!(without_seed("kdsweep_t4_seed2"), "kdsweep_t4");
        assert_eq!(without_seed("seed2_kdsweep_t4"), "kdsweep_t4");
        assert_eq!(without_seed("kdsweep_t4"), "kdsweep_t4");
    }
}
