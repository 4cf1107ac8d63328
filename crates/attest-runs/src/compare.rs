//! Ranking the arms of a family, with every reason not to trust the ranking.
//!
//! [`compare`] is pure: the ledger fetches a family's runs and metric rows and hands
//! them over as [`ArmRun`]s. It picks the metric (or takes the one asked for), refuses
//! any metric whose direction is undeclared, ranks the arms, and lists caveats. A
//! healthy comparison (every arm replicated over at least three seeds, n ≥ 30, same
//! split, step and corpus, a clear gap) carries none.

use std::collections::{BTreeMap, BTreeSet};

use attest_core::text::{fmt_g, fmt_sig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::direction::{Direction, Directions, stem};
use crate::discover::{Adapter, Metric, RunCaveat};
use crate::family::{arm_label, seed_from, split_of_metric, varying_keys, without_seed};

/// Below this many evaluated samples, a value is provisional.
pub const SMALL_SAMPLE: i64 = 30;
/// Top two arms closer than this fraction are too close to call.
pub const CLOSE_CALL: f64 = 0.05;
/// Arms replicated over fewer seeds than this get a caveat.
pub const MIN_SEEDS: usize = 3;

/// One run of a family as the ledger holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmRun {
    /// Ledger id.
    pub id: i64,
    /// Project.
    pub project: String,
    /// Run name.
    pub name: String,
    /// `recorded` or `spec`.
    pub status: String,
    /// Reader that produced it.
    pub adapter: Adapter,
    /// Evidence path.
    pub source_path: String,
    /// Corpus name, if recorded.
    pub corpus: Option<String>,
    /// What sources disagree on about that corpus, if anything.
    pub corpus_contested: Option<String>,
    /// Caveats recorded at scan time.
    pub caveats: Vec<RunCaveat>,
    /// Its configuration, when recorded (arms are labelled by what varies in it).
    pub config: Option<serde_json::Value>,
    /// All its metric rows.
    pub metrics: Vec<Metric>,
}

/// What a comparison knows beyond the runs: a declared grouping (`attest.toml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompareOptions {
    /// Arm labels by run name, declared; they replace labels read from configs.
    pub labels: BTreeMap<String, String>,
    /// The metric to rank by when none is asked for, declared.
    pub metric: Option<String>,
}

/// How the runs of a family differ, read from their configs: the varying keys, and
/// each run's label (`lr=3e-5`). `None` unless every run has a config and one to
/// [`crate::family::MAX_VARYING`] keys (other than seeds) differ.
pub fn config_labels(runs: &[ArmRun]) -> Option<(Vec<String>, bool, BTreeMap<String, String>)> {
    let configs: Vec<Option<&serde_json::Value>> = runs.iter().map(|r| r.config.as_ref()).collect();
    let (keys, seed) = varying_keys(&configs)?;
    let labels = runs.iter().filter_map(|r| Some((r.name.clone(), arm_label(r.config.as_ref()?, &keys)))).collect();
    Some((keys, seed, labels))
}

/// One replicate inside a seed-collapsed arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SeedRun {
    /// Ledger id.
    pub run_id: i64,
    /// Run name.
    pub name: String,
    /// Its value of the metric.
    pub value: Option<f64>,
    /// Evidence path.
    pub source_path: String,
}

/// One ranked arm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Arm {
    /// Arm name: the run name, `<run>[<split>]` for a split inside one file, or the
    /// run name without its seed token (or the label) for arms collapsed over seeds.
    pub name: String,
    /// What the arm is, when the family's configs say (`lr=3e-5, dropout=0.3`: the
    /// keys that vary across the family) or `attest.toml` declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Ledger id of the run (the first replicate for a collapsed arm).
    pub run_id: i64,
    /// `recorded` or `spec`.
    pub status: String,
    /// The value ranked (the mean over seeds for a collapsed arm); `None` when the
    /// run does not report the metric.
    pub value: Option<f64>,
    /// Sample standard deviation over seeds, for a collapsed arm of two or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sd: Option<f64>,
    /// How many runs (seeds) the value rests on.
    pub n_seeds: usize,
    /// Training step of the value.
    pub step: Option<i64>,
    /// Split of the value.
    pub split: Option<String>,
    /// Sample size (`n_records`), the smallest over seeds.
    pub n: Option<i64>,
    /// Evidence path (the first replicate's, for a collapsed arm).
    pub source_path: String,
    /// The replicates of a collapsed arm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seeds: Vec<SeedRun>,
}

/// A ranked family.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// The project the arms are in.
    pub project: String,
    /// The family compared.
    pub family: String,
    /// How its arms were told apart: `config` (labelled by the keys that vary),
    /// `declared` (`attest.toml`) or `name`.
    pub grouped_by: String,
    /// The config keys that vary across the arms, when labelled by config.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub varying: Vec<String>,
    /// The metric ranked by.
    pub metric: String,
    /// Which way is better for it.
    pub direction: Direction,
    /// Arms, best first; arms without the metric last.
    pub arms: Vec<Arm>,
    /// The best arm's name, when any arm has a value.
    pub winner: Option<String>,
    /// Arms that do not report the metric.
    pub without_metric: Vec<String>,
    /// The corpus every ranked arm shares, when they share one.
    pub corpus: Option<String>,
    /// Every reason not to trust the ranking. Relay them whole.
    pub caveats: Vec<String>,
}

/// How much a split counts as held-out evidence: lower is better; 7 is "unlabelled or
/// unknown", 8 is training data.
pub fn split_rank(split: Option<&str>) -> u8 {
    let Some(s) = split else { return 7 };
    let s = s.to_ascii_lowercase();
    const HELD_OUT: &[&str] = &["test", "eval", "val", "valid", "validation", "dev", "holdout"];
    if let Some(i) = HELD_OUT.iter().position(|p| s.starts_with(p)) {
        return i as u8;
    }
    if ["train", "training", "fit"].iter().any(|p| s.starts_with(p)) {
        return 8;
    }
    7
}

fn is_training_metric(metric: &str) -> bool {
    let m = metric.to_ascii_lowercase();
    m.starts_with("train_") || m.starts_with("training_")
}

/// The metric a comparison ranks by when none is named: the directed metric reported
/// by the most runs; ties go to a metric not measured on training data, then
/// alphabetical order.
pub fn pick_metric(runs: &[ArmRun], directions: &Directions) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in runs {
        let names: BTreeSet<&str> = r.metrics.iter().map(|m| m.metric.as_str()).collect();
        for n in names {
            *counts.entry(n).or_default() += 1;
        }
    }
    // A metric is training data when its name says so or every row of it is on a
    // training split (Keras's unprefixed `accuracy`).
    let training = |m: &str| {
        is_training_metric(m)
            || runs
                .iter()
                .flat_map(|r| &r.metrics)
                .filter(|x| x.metric == m)
                .all(|x| split_rank(x.split.as_deref()) == 8)
    };
    counts
        .into_iter()
        .filter(|(m, _)| directions.get(m).is_some())
        .min_by(|(a, ca), (b, cb)| cb.cmp(ca).then(training(a).cmp(&training(b))).then(a.cmp(b)))
        .map(|(m, _)| m.to_string())
}

fn all_metric_names(runs: &[ArmRun]) -> Vec<String> {
    let s: BTreeSet<&str> = runs.iter().flat_map(|r| r.metrics.iter().map(|m| m.metric.as_str())).collect();
    s.into_iter().map(str::to_string).collect()
}

fn declare_hint(directions: &Directions, metric: &str) -> String {
    format!(
        "declare it under [metric_direction] in {}: `{metric} = \"higher_is_better\"` or `{metric} = \"lower_is_better\"`",
        directions.where_to_declare()
    )
}

/// The refusal for a family none of whose metrics has a known direction.
pub fn no_direction_message(family: &str, runs: &[ArmRun], directions: &Directions) -> String {
    let names = all_metric_names(runs);
    if names.is_empty() {
        return format!(
            "family '{family}' has no recorded metrics, so there is nothing to rank: its runs were found but carry no numbers (plans recorded as specs, or artifacts with no numeric result); runs.detail on one of them shows what was read"
        );
    }
    let example = names.iter().find(|n| *n != "n_records" && !n.ends_with("_std")).unwrap_or(&names[0]);
    format!(
        "no metric in family '{family}' has a known direction (found {}), so nothing was ranked; attest does not guess, because a wrong guess ranks the arms backwards. Name the metric you rank by and {}",
        names.join(", "),
        declare_hint(directions, example)
    )
}

#[derive(Debug, Clone)]
struct Scored {
    arm: Arm,
    nested: bool,
    seed_key: Option<String>,
}

/// The sample size behind a run's value of `metric` on `split`: `n_records` of that
/// split, else the split's own count as frameworks name it (`eval_samples`,
/// `n_eval`, `num_eval_samples`), else any `n_records` (the largest).
fn n_of(run: &ArmRun, metric: &str, split: Option<&str>) -> Option<i64> {
    let n = |pred: &dyn Fn(&Metric) -> bool| run.metrics.iter().filter(|m| pred(m)).map(|m| m.value as i64).max();
    let s = split
        .map(|s| s.split('.').next().unwrap_or(s).to_string())
        .or_else(|| split_of_metric(metric).map(str::to_string));
    if let Some(s) = &s {
        let names = [format!("{s}_samples"), format!("n_{s}"), format!("num_{s}_samples"), format!("{s}_n")];
        let found = n(&|m| m.metric == "n_records" && m.split.as_deref() == Some(s.as_str()))
            .or_else(|| n(&|m| names.contains(&m.metric)));
        if found.is_some() {
            return found;
        }
    }
    n(&|m| m.metric == "n_records")
}

/// The best row among `rows`: restricted to the most held-out split rank, then the
/// best value in `dir`; ties keep the first.
fn best<'a>(rows: &[&'a Metric], dir: Direction) -> Option<&'a Metric> {
    let rank = rows.iter().map(|m| split_rank(m.split.as_deref())).min()?;
    let mut out: Option<&Metric> = None;
    for m in rows.iter().filter(|m| split_rank(m.split.as_deref()) == rank) {
        if out.is_none_or(|b| dir.better(m.value, b.value)) {
            out = Some(m);
        }
    }
    out
}

fn arms_for_run(run: &ArmRun, metric: &str, dir: Direction, label: Option<&str>, seeded: bool) -> Vec<Scored> {
    let rows: Vec<&Metric> = run.metrics.iter().filter(|m| m.metric == metric).collect();
    let base = |name: String, m: Option<&Metric>| Arm {
        name,
        label: label.map(str::to_string),
        n: n_of(run, metric, m.and_then(|m| m.split.as_deref())),
        run_id: run.id,
        status: run.status.clone(),
        value: m.map(|m| m.value),
        sd: None,
        n_seeds: 1,
        step: m.and_then(|m| m.step),
        split: m.and_then(|m| m.split.clone()),
        source_path: run.source_path.clone(),
        seeds: Vec::new(),
    };
    let Some(rank) = rows.iter().map(|m| split_rank(m.split.as_deref())).min() else {
        return vec![Scored { arm: base(run.name.clone(), None), nested: false, seed_key: None }];
    };
    let at_rank: Vec<&Metric> = rows.iter().copied().filter(|m| split_rank(m.split.as_deref()) == rank).collect();
    let groups: BTreeSet<Option<&str>> = at_rank.iter().map(|m| m.split.as_deref()).collect();
    let leaf = run.name.rsplit('/').next().unwrap_or(&run.name);
    if groups.len() > 1 {
        return groups
            .into_iter()
            .map(|g| {
                let in_group: Vec<&Metric> = at_rank.iter().copied().filter(|m| m.split.as_deref() == g).collect();
                let name = match g {
                    Some(s) => format!("{}[{s}]", run.name),
                    None => run.name.clone(),
                };
                Scored { arm: base(name, best(&in_group, dir)), nested: true, seed_key: None }
            })
            .collect();
    }
    // Replicates: runs whose configs differ only by seed share a label; otherwise a
    // seed token in the name.
    let seed_key = match label {
        Some(l) if seeded => Some(l.to_string()),
        _ => seed_from(leaf).map(|_| {
            let prefix = &run.name[..run.name.len() - leaf.len()];
            format!("{prefix}{}", without_seed(leaf))
        }),
    };
    vec![Scored { arm: base(run.name.clone(), best(&rows, dir)), nested: false, seed_key }]
}

fn mean_sd(vals: &[f64]) -> (f64, Option<f64>) {
    let n = vals.len() as f64;
    let mean = vals.iter().sum::<f64>() / n;
    let sd = (vals.len() >= 2).then(|| (vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    (mean, sd)
}

/// Collapse single-run arms that differ only by a seed token into one arm each.
fn collapse_seeds(scored: Vec<Scored>) -> Vec<Scored> {
    let names: BTreeSet<String> = scored.iter().map(|s| s.arm.name.clone()).collect();
    let mut groups: BTreeMap<String, Vec<Scored>> = BTreeMap::new();
    let mut out = Vec::new();
    for s in scored {
        match &s.seed_key {
            Some(k) if !names.contains(k) => groups.entry(k.clone()).or_default().push(s),
            _ => out.push(s),
        }
    }
    for (key, members) in groups {
        if members.len() < 2 {
            out.extend(members);
            continue;
        }
        let with: Vec<&Arm> = members.iter().map(|s| &s.arm).filter(|a| a.value.is_some()).collect();
        let vals: Vec<f64> = with.iter().filter_map(|a| a.value).collect();
        let first = &members[0].arm;
        let common = |f: &dyn Fn(&Arm) -> Option<String>| {
            let s: BTreeSet<Option<String>> = with.iter().map(|a| f(a)).collect();
            if s.len() == 1 { s.into_iter().next().flatten() } else { None }
        };
        let (value, sd) = if vals.is_empty() {
            (None, None)
        } else {
            let (m, s) = mean_sd(&vals);
            (Some(m), s)
        };
        let step = common(&|a| a.step.map(|s| s.to_string())).and_then(|s| s.parse().ok());
        let split = common(&|a| a.split.clone());
        let n = if with.iter().any(|a| a.n.is_none()) { None } else { with.iter().filter_map(|a| a.n).min() };
        let label = common(&|a| a.label.clone());
        let arm = Arm {
            name: key,
            label,
            run_id: first.run_id,
            status: first.status.clone(),
            value,
            sd,
            n_seeds: vals.len().max(1),
            step,
            split,
            n,
            source_path: first.source_path.clone(),
            seeds: members
                .iter()
                .map(|s| SeedRun {
                    run_id: s.arm.run_id,
                    name: s.arm.name.clone(),
                    value: s.arm.value,
                    source_path: s.arm.source_path.clone(),
                })
                .collect(),
        };
        out.push(Scored { arm, nested: false, seed_key: None });
    }
    out
}

fn list_names(names: &[String], max: usize) -> String {
    if names.len() <= max {
        names.join(", ")
    } else {
        format!("{} and {} more", names[..max].join(", "), names.len() - max)
    }
}

fn ranking_caveats(scored: &[&Scored], metric: &str) -> Vec<String> {
    let mut out = Vec::new();
    let judged: BTreeSet<Option<&str>> = scored.iter().filter(|s| !s.nested).map(|s| s.arm.split.as_deref()).collect();
    let ranks: BTreeSet<u8> = judged.iter().map(|s| split_rank(*s)).collect();
    if ranks.len() > 1 {
        let names: Vec<&str> = judged.iter().map(|s| s.unwrap_or("(unlabelled)")).collect();
        out.push(format!(
            "arms are measured on different splits ({}); the ranking is only as sound as those splits are comparable",
            names.join(", ")
        ));
    }
    let all_train = !scored.is_empty()
        && (is_training_metric(metric) || scored.iter().all(|s| split_rank(s.arm.split.as_deref()) == 8));
    if all_train {
        out.push(format!(
            "every arm's {metric} is measured on training data, so this ranks fit, not generalisation; rank by a held-out (test/val/eval) metric instead"
        ));
    }
    let nested: BTreeSet<&str> = scored.iter().filter(|s| s.nested).filter_map(|s| s.arm.split.as_deref()).collect();
    if nested.len() > 1 {
        out.push(format!(
            "some arms are different splits inside one result file ({}); a ranking across splits compares the data as much as the configurations",
            nested.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if scored.len() < 2 {
        return out;
    }
    let winner = &scored[0].arm;
    let sizes: Vec<i64> = scored.iter().filter_map(|s| s.arm.n).collect();
    if let Some(n) = winner.n.filter(|n| *n < SMALL_SAMPLE) {
        out.push(format!(
            "the winning arm's value rests on n={n} samples (fewer than {SMALL_SAMPLE}); treat it as provisional"
        ));
    }
    if !sizes.is_empty() && sizes.iter().all(|n| *n < SMALL_SAMPLE) {
        out.push(format!(
            "every arm has n < {SMALL_SAMPLE} (the largest is {}); differences in {metric} at this size are likely noise",
            sizes.iter().max().unwrap()
        ));
    }
    let distinct: BTreeSet<i64> = sizes.iter().copied().collect();
    if distinct.len() > 1 {
        out.push(format!(
            "arms were evaluated on different sample sizes ({}-{})",
            distinct.first().unwrap(),
            distinct.last().unwrap()
        ));
    }
    let missing: Vec<String> = scored.iter().filter(|s| s.arm.n.is_none()).map(|s| s.arm.name.clone()).collect();
    if !missing.is_empty() {
        out.push(if missing.len() == scored.len() {
            "no arm reports a sample size (n_records, or a split's count such as eval_samples), so how much each value rests on is unknown".to_string()
        } else {
            format!(
                "{} report{} no sample size (n_records), so how much {} value rests on is unknown",
                list_names(&missing, 4),
                if missing.len() == 1 { "s" } else { "" },
                if missing.len() == 1 { "its" } else { "each" }
            )
        });
    }
    let (v1, v2) = (scored[0].arm.value.unwrap_or(0.0), scored[1].arm.value.unwrap_or(0.0));
    let spread = (v2 - v1).abs();
    let scale = v1.abs().max(1e-12);
    if spread / scale < CLOSE_CALL {
        out.push(format!(
            "the top two arms differ by {} ({:.1}%), too close to call from these numbers alone",
            fmt_sig(spread, 4),
            100.0 * spread / scale
        ));
    }
    let steps: BTreeSet<i64> = scored.iter().filter_map(|s| s.arm.step).collect();
    if steps.len() > 1 {
        out.push("arms are at different training steps, so this compares checkpoints as well as configurations".into());
    }
    let single: Vec<String> = scored.iter().filter(|s| s.arm.n_seeds < 2).map(|s| s.arm.name.clone()).collect();
    let few: Vec<String> =
        scored.iter().filter(|s| (2..MIN_SEEDS).contains(&s.arm.n_seeds)).map(|s| s.arm.name.clone()).collect();
    if single.len() == scored.len() {
        out.push(
            "each arm is a single run: with no seed replication, this ranking cannot separate the configuration from run-to-run variance".into(),
        );
    } else if !single.is_empty() {
        out.push(format!(
            "{} of {} arms are single runs ({}); without seed replication their place in the ranking cannot be separated from run-to-run variance",
            single.len(),
            scored.len(),
            list_names(&single, 4)
        ));
    }
    if !few.is_empty() {
        out.push(format!(
            "{} rest{} on only two seeds, too few to estimate the spread",
            list_names(&few, 4),
            if few.len() == 1 { "s" } else { "" }
        ));
    }
    let (a, b) = (&scored[0].arm, &scored[1].arm);
    if let (Some(sa), Some(sb)) = (a.sd, b.sd)
        && spread <= sa + sb
    {
        out.push(format!(
            "the top two arms' seed spreads overlap ({} {} ± {} over {} seeds; {} {} ± {} over {}), so their order is not settled",
            a.name,
            fmt_g(v1),
            fmt_g(sa),
            a.n_seeds,
            b.name,
            fmt_g(v2),
            fmt_g(sb),
            b.n_seeds
        ));
    }
    out
}

fn corpus_caveats(runs: &[&ArmRun], metric: &str) -> (Option<String>, Vec<String>) {
    let contested: BTreeSet<String> = runs
        .iter()
        .filter_map(|r| Some(format!("{}: {}", r.corpus.as_deref()?, r.corpus_contested.as_deref()?)))
        .collect();
    if !contested.is_empty() {
        return (
            None,
            vec![format!(
                "the arms' corpus is defined differently by different sources ({}), so whether they saw the same data is unverified",
                contested.into_iter().collect::<Vec<_>>().join("; ")
            )],
        );
    }
    let mut by_corpus: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for r in runs {
        match r.corpus.as_deref() {
            Some(c) => by_corpus.entry(c).or_default().push(r.name.clone()),
            None => unknown.push(r.name.clone()),
        }
    }
    if by_corpus.len() > 1 {
        let mut groups: Vec<(&str, Vec<String>)> = by_corpus.into_iter().collect();
        groups.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then(a.0.cmp(b.0)));
        let detail: Vec<String> = groups.iter().map(|(c, names)| format!("{c}: {}", list_names(names, 4))).collect();
        let tail = if ["loss", "ppl", "perplexity", "nll"].contains(&stem(metric).as_str()) {
            format!("{metric} is not comparable across different data")
        } else {
            format!("check that {metric} is comparable across them")
        };
        return (None, vec![format!("arms did not share a corpus ({}); {tail}", detail.join("; "))]);
    }
    if let Some((name, _)) = by_corpus.iter().next() {
        if !unknown.is_empty() {
            return (
                None,
                vec![format!(
                    "corpus only partly recorded: {} {} not say which data {} used, so agreement with {name} is unverified",
                    list_names(&unknown, 4),
                    if unknown.len() == 1 { "does" } else { "do" },
                    if unknown.len() == 1 { "it" } else { "they" }
                )],
            );
        }
        return (Some(name.to_string()), Vec::new());
    }
    (None, Vec::new())
}

/// Rank `runs` (one family, one project) by `metric`, or by the picked metric.
///
/// Refuses (with the message to show) when the runs span projects, when no metric
/// has a known direction, when the named metric has none, or when no run reports it.
pub fn compare(
    family: &str,
    runs: &[ArmRun],
    metric: Option<&str>,
    directions: &Directions,
) -> Result<Comparison, String> {
    compare_with(family, runs, metric, directions, &CompareOptions::default())
}

/// The refusal for a family with one arm: nothing to compare it with.
fn one_arm_message(family: &str, metric: &str, arm: &Arm, others: usize) -> String {
    let what = arm.label.as_ref().map(|l| format!("{l}: {}", arm.name)).unwrap_or_else(|| arm.name.clone());
    let seeds = if arm.n_seeds > 1 { format!(", mean of {} seeds", arm.n_seeds) } else { String::new() };
    let at = arm.step.map(|s| format!(" at step {s}")).unwrap_or_default();
    let value = arm.value.map(attest_core::text::fmt_g).unwrap_or_default();
    let without = if others > 0 {
        format!(" ({} without it)", attest_core::text::plural(others, "other arm", "other arms"))
    } else {
        String::new()
    };
    format!(
        "only one arm of family '{family}' reports {metric} ({what}: {value}{at}{seeds}){without}, so nothing was compared and there is no winner. A family's arms are runs grouped by a shared file-name prefix, a tracker's run name, a framework's logger or experiment name, or a sweep's config; to compare runs named otherwise, declare the family in attest.toml at the research root ([[family]] name = \"…\", runs = [\"glob\", …])"
    )
}

/// [`compare`] with a declared grouping: declared arm labels and default metric.
pub fn compare_with(
    family: &str,
    runs: &[ArmRun],
    metric: Option<&str>,
    directions: &Directions,
    opts: &CompareOptions,
) -> Result<Comparison, String> {
    let projects: BTreeMap<&str, usize> = runs.iter().fold(BTreeMap::new(), |mut m, r| {
        *m.entry(r.project.as_str()).or_default() += 1;
        m
    });
    if projects.len() > 1 {
        let mut by: Vec<(&str, usize)> = projects.into_iter().collect();
        by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let list: Vec<String> = by.iter().map(|(p, n)| format!("{p} ({n})")).collect();
        return Err(format!(
            "family '{family}' exists in {} projects, by arm count: {} -- pass project= to say which; arms from different projects are not comparable",
            by.len(),
            list.join(", ")
        ));
    }
    let Some(project) = runs.first().map(|r| r.project.clone()) else {
        return Err(format!("no run in family '{family}'"));
    };
    let asked = metric.map(str::to_string).or_else(|| opts.metric.clone());
    let metric = match asked.map(|m| m.trim().to_ascii_lowercase()).filter(|m| !m.is_empty()) {
        Some(m) => m,
        None => pick_metric(runs, directions).ok_or_else(|| no_direction_message(family, runs, directions))?,
    };
    let Some(direction) = directions.get(&metric) else {
        let directed: Vec<String> =
            all_metric_names(runs).into_iter().filter(|m| directions.get(m).is_some()).collect();
        let alt = if directed.is_empty() {
            String::new()
        } else {
            format!("; or rank by one with a known direction: {}", directed.join(", "))
        };
        return Err(format!(
            "metric '{metric}' has no declared direction, so attest will not rank by it (a guess could rank the arms backwards). If it is a result, {}{alt}",
            declare_hint(directions, &metric)
        ));
    };
    let names = all_metric_names(runs);
    // Metric names from trackers keep their case; match case-insensitively.
    let metric = names.iter().find(|n| n.eq_ignore_ascii_case(&metric)).cloned().ok_or_else(|| {
        format!(
            "no run in family '{family}' records '{metric}'; its metrics are: {}",
            if names.is_empty() { "(none)".into() } else { names.join(", ") }
        )
    })?;

    let (grouped_by, varying, seeded, labels) = if !opts.labels.is_empty() {
        ("declared".to_string(), Vec::new(), false, opts.labels.clone())
    } else {
        match config_labels(runs) {
            Some((keys, seed, labels)) => ("config".to_string(), keys, seed, labels),
            None => ("name".to_string(), Vec::new(), false, BTreeMap::new()),
        }
    };
    let mut scored: Vec<Scored> = runs
        .iter()
        .flat_map(|r| arms_for_run(r, &metric, direction, labels.get(&r.name).map(String::as_str), seeded))
        .collect();
    scored = collapse_seeds(scored);
    scored.sort_by(|a, b| match (a.arm.value, b.arm.value) {
        (Some(x), Some(y)) => {
            let o = match direction {
                Direction::LowerIsBetter => x.total_cmp(&y),
                Direction::HigherIsBetter => y.total_cmp(&x),
            };
            o.then_with(|| a.arm.name.cmp(&b.arm.name))
        }
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.arm.name.cmp(&b.arm.name),
    });
    let with_value: Vec<&Scored> = scored.iter().filter(|s| s.arm.value.is_some()).collect();
    if with_value.len() == 1 {
        return Err(one_arm_message(family, &metric, &with_value[0].arm, scored.len() - 1));
    }
    let mut caveats = ranking_caveats(&with_value, &metric);

    let ranked_ids: BTreeSet<i64> = with_value
        .iter()
        .flat_map(|s| std::iter::once(s.arm.run_id).chain(s.arm.seeds.iter().map(|x| x.run_id)))
        .collect();
    let ranked_runs: Vec<&ArmRun> = runs.iter().filter(|r| ranked_ids.contains(&r.id)).collect();
    let (corpus, corpus_cav) = corpus_caveats(&ranked_runs, &metric);
    caveats.extend(corpus_cav);
    let adapters: BTreeSet<Adapter> = ranked_runs.iter().map(|r| r.adapter).collect();
    caveats.extend(adapters.into_iter().filter_map(Adapter::caveat).map(str::to_string));
    for r in runs {
        for c in &r.caveats {
            if c.metric.as_deref().is_none_or(|m| m.eq_ignore_ascii_case(&metric)) && !caveats.contains(&c.text) {
                caveats.push(c.text.clone());
            }
        }
    }
    let winner = with_value.first().map(|s| s.arm.name.clone());
    let without_metric = scored.iter().filter(|s| s.arm.value.is_none()).map(|s| s.arm.name.clone()).collect();
    Ok(Comparison {
        project,
        family: family.to_string(),
        grouped_by,
        varying,
        metric,
        direction,
        arms: scored.into_iter().map(|s| s.arm).collect(),
        winner,
        without_metric,
        corpus,
        caveats,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, name: &str, metrics: &[(&str, f64)], n: Option<f64>, corpus: Option<&str>) -> ArmRun {
        let mut m: Vec<Metric> =
            metrics.iter().map(|(k, v)| Metric { metric: k.to_string(), value: *v, step: None, split: None }).collect();
        if let Some(n) = n {
            m.push(Metric { metric: "n_records".into(), value: n, step: None, split: None });
        }
        ArmRun {
            id,
            project: "p".into(),
            name: name.into(),
            status: "recorded".into(),
            adapter: Adapter::Generic,
            source_path: format!("/r/p/results/{name}.json"),
            corpus: corpus.map(str::to_string),
            corpus_contested: None,
            caveats: Vec::new(),
            config: None,
            metrics: m,
        }
    }

    fn seeded(arm: &str, vals: &[f64], start: i64) -> Vec<ArmRun> {
        vals.iter()
            .enumerate()
            .map(|(i, v)| {
                run(start + i as i64, &format!("sweep_{arm}_seed{i}"), &[("wer", *v)], Some(500.0), Some("c"))
            })
            .collect()
    }

    #[test]
    fn split_ranks() {
        let cases = [
            (None, 7),
            (Some("test"), 0),
            (Some("test.clean"), 0),
            (Some("validation"), 2),
            (Some("dev"), 5),
            (Some("train"), 8),
            (Some("fit"), 8),
            (Some("seed3"), 7),
        ];
        for (s, want) in cases {
            assert_eq!(split_rank(s), want, "{s:?}");
        }
    }

    #[test]
    fn healthy_comparison_has_no_caveat() {
        let mut runs = seeded("a", &[0.10, 0.11, 0.105], 1);
        runs.extend(seeded("b", &[0.20, 0.21, 0.19], 10));
        let c = compare("sweep", &runs, None, &Directions::builtin()).unwrap();
        assert_eq!(c.caveats, Vec::<String>::new());
        assert_eq!(c.winner.as_deref(), Some("sweep_a"));
        assert_eq!(c.arms.len(), 2);
        assert_eq!(c.arms[0].n_seeds, 3);
        assert!((c.arms[0].value.unwrap() - 0.105).abs() < 1e-12);
        assert!(c.arms[0].sd.unwrap() > 0.0);
        assert_eq!(c.corpus.as_deref(), Some("c"));
    }

    #[test]
    fn every_ranking_caveat_fires_when_it_should() {
        let runs = vec![
            run(1, "k_a", &[("wer", 0.100)], Some(20.0), Some("x")),
            run(2, "k_b", &[("wer", 0.102)], Some(10.0), Some("y")),
            run(3, "k_c", &[("wer", 0.3)], None, None),
        ];
        let c = compare("k", &runs, Some("wer"), &Directions::builtin()).unwrap();
        let text = c.caveats.join("\n");
        for want in [
            "n=20 samples",
            "every arm has n < 30",
            "different sample sizes (10-20)",
            "k_c reports no sample size",
            "differ by 0.002 (2.0%)",
            "single run",
            "did not share a corpus",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
    }

    #[test]
    fn refusals_say_what_to_do() {
        let d = Directions::builtin();
        let runs = vec![
            run(1, "p_a", &[("judge_score", 7.0)], Some(150.0), None),
            run(2, "p_b", &[("judge_score", 6.0)], None, None),
        ];
        let e = compare("p", &runs, None, &d).unwrap_err();
        assert!(e.contains("judge_score = \"higher_is_better\"") && e.contains("[metric_direction]"), "{e}");
        let e = compare("p", &runs, Some("judge_score"), &d).unwrap_err();
        assert!(e.contains("no declared direction"), "{e}");
        let e = compare("p", &runs, Some("wer"), &d).unwrap_err();
        assert!(e.contains("records 'wer'"), "{e}");
        let mut other = runs.clone();
        other[1].project = "q".into();
        let e = compare("p", &other, None, &d).unwrap_err();
        assert!(e.contains("2 projects") && e.contains("project="), "{e}");
        let empty = vec![run(1, "s_a", &[], None, None)];
        assert!(compare("s", &empty, None, &d).unwrap_err().contains("no recorded metrics"));
    }

    #[test]
    fn single_arm_and_splits() {
        let d = Directions::builtin();
        let one = vec![run(1, "t_a", &[("wer", 0.1)], Some(100.0), None)];
        let e = compare("t", &one, None, &d).unwrap_err();
        assert!(e.contains("only one arm") && e.contains("no winner") && e.contains("attest.toml"), "{e}");
        let mut a = run(1, "m_a", &[], Some(100.0), None);
        a.metrics.push(Metric { metric: "wer".into(), value: 0.3, step: Some(1), split: Some("train".into()) });
        a.metrics.push(Metric { metric: "wer".into(), value: 0.2, step: Some(2), split: Some("test".into()) });
        a.metrics.push(Metric { metric: "wer".into(), value: 0.25, step: Some(3), split: Some("test".into()) });
        let mut b = run(2, "m_b", &[], Some(100.0), None);
        b.metrics.push(Metric { metric: "wer".into(), value: 0.1, step: Some(5), split: Some("val".into()) });
        let c = compare("m", &[a, b], None, &d).unwrap();
        assert_eq!(c.arms[0].name, "m_b");
        assert_eq!((c.arms[1].value, c.arms[1].step), (Some(0.2), Some(2)), "best step on the most held-out split");
        let t = c.caveats.join("\n");
        assert!(t.contains("different splits (test, val)") && t.contains("different training steps"), "{t}");
        let mut n = run(1, "n_a", &[], Some(100.0), None);
        for (s, v) in [("clean", 0.05), ("other", 0.12)] {
            n.metrics.push(Metric { metric: "wer".into(), value: v, step: None, split: Some(s.into()) });
        }
        let c = compare("n", &[n, run(2, "n_b", &[("wer", 0.08)], Some(100.0), None)], None, &d).unwrap();
        let names: Vec<&str> = c.arms.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["n_a[clean]", "n_b", "n_a[other]"]);
        assert!(c.caveats.iter().any(|x| x.contains("splits inside one result file")));
    }

    #[test]
    fn pick_prefers_coverage_then_held_out_then_alphabet() {
        let d = Directions::builtin();
        let runs = vec![
            run(1, "w_a", &[("train_loss", 1.0), ("val_loss", 1.1), ("val_ppl", 3.0), ("tokens", 5.0)], None, None),
            run(2, "w_b", &[("train_loss", 1.0), ("val_loss", 1.1), ("val_ppl", 3.0), ("tokens", 5.0)], None, None),
        ];
        assert_eq!(pick_metric(&runs, &d).as_deref(), Some("val_loss"));
        let runs =
            vec![run(1, "w_a", &[("acc", 1.0), ("wer", 0.1)], None, None), run(2, "w_b", &[("wer", 0.1)], None, None)];
        assert_eq!(pick_metric(&runs, &d).as_deref(), Some("wer"));
    }

    #[test]
    fn seed_spreads_and_partial_replication() {
        let d = Directions::builtin();
        let mut runs = seeded("a", &[0.10, 0.30, 0.20], 1);
        runs.extend(seeded("b", &[0.21, 0.22], 10));
        runs.push(run(20, "sweep_c", &[("wer", 0.5)], Some(500.0), Some("c")));
        let c = compare("sweep", &runs, None, &d).unwrap();
        let t = c.caveats.join("\n");
        assert!(t.contains("1 of 3 arms are single runs (sweep_c)"), "{t}");
        assert!(t.contains("sweep_b rests on only two seeds"), "{t}");
        assert!(t.contains("seed spreads overlap"), "{t}");
    }
}
