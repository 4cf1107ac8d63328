//! The learned step of the `<ns>.ask` pipeline: a small multinomial logistic regression
//! whose weights are committed data.
//!
//! Each surface keeps one model file next to its router (`route-model.tsv`, read with
//! `include_str!` and parsed once). It is trained, deterministically, from labelled
//! questions written by people who never saw the rules (`tests/routing/tuning/` and
//! `tests/routing/train/`), never from the held-out set. A test in each surface crate
//! retrains it from those files and fails when the committed file differs
//! (`ATTEST_BLESS=1` rewrites it).
//!
//! **Features** ([`features`]) are read from the words the surface's rules match,
//! normalised like the scored step's ([`crate::score::Lemmas`]: synonyms, British
//! spellings, Snowball stems): each lemma, each word as written, each pair of
//! consecutive lemmas, the first lemma and the first two, the first lemma after a polite opening ("can you …"), and a
//! few structural facts of the raw question (a path, a number, a maths expression, a
//! quoted string, an identifier with `_`, a DOI or arXiv id, a url, the length).
//!
//! **Classes** are the surface's own tools, the tools of other surfaces (a question
//! that belongs elsewhere is declined naming that tool) and [`ASK_BACK`] (a question
//! too unclear to route). A surface's model learns from its own file's questions and,
//! at a lower weight, from the other surfaces' routable questions (what a question for
//! another surface looks like).
//!
//! **Training** is plain stochastic gradient descent on the log loss with an L2 penalty,
//! a fixed number of epochs and a fixed, seeded order: the same files always give the
//! same weights. Weights are rounded to two decimals and tiny ones dropped when
//! written.
//!
//! How the model's answer combines with the rules is a [`Policy`], chosen by
//! cross-validation over the training files (folds by writer): see
//! `specs/routing.md`.

use std::collections::HashMap;

use crate::ask::{Args, Facts, Parts, Router};
use crate::route::{Decision, Question};
use crate::routing_eval::{Labelled, Report, Tally, parse_given};
use crate::score::{Lemmas, POLITE, lemma};
use crate::surface::Surface;

/// The class of a question that must be asked back.
pub const ASK_BACK: &str = "?";

/// How the learned model and the rules combine in [`crate::ask::Router::decide`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combine {
    /// The rules, then the scored cues; the model is not consulted.
    Rules,
    /// The rules; then the model when it is confident; then the scored cues.
    RulesThenModel,
    /// The rules; then the model when it is confident; the scored cues are not used.
    RulesThenModelOnly,
    /// The model when it is confident; then the rules; then the scored cues.
    ModelThenRules,
    /// The model when it is confident; then the rules; the scored cues are not used.
    ModelThenRulesOnly,
    /// The model alone, when confident; otherwise asked back.
    Model,
    /// The model when it is confident; otherwise the rules (then the scored cues) only
    /// where they choose the model's most probable tool, or ask back themselves.
    ModelOrAgreement,
    /// As [`Combine::ModelOrAgreement`], but a confident model routing to a tool (or
    /// declining to another surface's) comes before a rule's question back: the rule
    /// that asked back was for another tool ("which run?" for a question about a
    /// reference). The model's own question back still yields to the rule's.
    ModelFirstOrAgreement,
}

impl Combine {
    /// Every combination, for cross-validation.
    pub const ALL: [Combine; 8] = [
        Combine::Rules,
        Combine::RulesThenModel,
        Combine::RulesThenModelOnly,
        Combine::ModelThenRules,
        Combine::ModelThenRulesOnly,
        Combine::Model,
        Combine::ModelOrAgreement,
        Combine::ModelFirstOrAgreement,
    ];
}

/// When the model's answer counts: the top class's probability reaches `min` and leads
/// the runner-up by `margin`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// How model and rules combine.
    pub combine: Combine,
    /// The least probability of the top class.
    pub min: f64,
    /// How far the top class's probability must lead the runner-up's.
    pub margin: f64,
    /// Whether the model also reads a question asked beside other arguments (a reply
    /// about a given item, sym's `expr`, feed's `user`); when `false` such a question
    /// is the rules' alone.
    pub beside: bool,
}

impl Policy {
    /// The policy every surface uses, chosen by cross-validation (`specs/routing.md`).
    pub const CHOSEN: Policy = Policy { combine: Combine::ModelFirstOrAgreement, min: 0.3, margin: 0.05, beside: true };

    /// The rules and cues alone.
    pub const RULES: Policy = Policy { combine: Combine::Rules, min: 1.0, margin: 1.0, beside: false };

    /// Whether a prediction is confident enough.
    pub fn confident(&self, p: &Prediction) -> bool {
        p.top >= self.min && p.top - p.second >= self.margin
    }
}

/// What the model says about a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The most probable class: a tool name or [`ASK_BACK`].
    pub class: String,
    /// Its probability.
    pub top: f64,
    /// The runner-up's probability.
    pub second: f64,
    /// Classes other than [`ASK_BACK`] by probability, best first (at most three).
    pub candidates: Vec<String>,
}

/// The features of a question: `words` are the words the surface's rules match,
/// `raw` the question as asked, `given` the ask's other arguments (only which are
/// given counts). Sorted, without repeats.
pub fn features(words: &Question, raw: &str, given: &Args) -> Vec<String> {
    let lemmas = Lemmas::of(words).0;
    let mut out: Vec<String> = Vec::with_capacity(lemmas.len() * 2 + 12);
    out.push("x:bias".into());
    for (k, v) in given {
        if !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()) {
            out.push(format!("g:{k}"));
        }
    }
    for l in &lemmas {
        out.push(format!("w:{l}"));
    }
    // The words as written too: the lemmas join what the synonyms and the stemmer
    // merge, the words keep what they lose ("list" and "listing", "check" and "verify").
    for w in &words.words {
        out.push(format!("u:{}", w.text));
    }
    for pair in lemmas.windows(2) {
        out.push(format!("b:{} {}", pair[0], pair[1]));
    }
    if let Some(first) = lemmas.first() {
        out.push(format!("f:{first}"));
        if let Some(second) = lemmas.get(1) {
            out.push(format!("f2:{first} {second}"));
        }
    }
    if let Some(verb) = words.words.iter().map(|w| w.text.as_str()).find(|w| !POLITE.contains(w)) {
        out.push(format!("v:{}", lemma(verb)));
    }
    out.push(
        match lemmas.len() {
            0..=3 => "x:len3",
            4..=6 => "x:len6",
            7..=12 => "x:len12",
            _ => "x:len+",
        }
        .into(),
    );
    for (fact, present) in structure(raw) {
        if present {
            out.push(format!("x:{fact}"));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Cheap structural facts of the raw question.
fn structure(raw: &str) -> [(&'static str, bool); 10] {
    let tokens: Vec<&str> = raw
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '?' | '!' | '(' | ')' | '"' | '\'' | '`')))
        .collect();
    let token = |f: &dyn Fn(&str) -> bool| tokens.iter().any(|t| f(t));
    let ext = [".md", ".tex", ".bib", ".pdf", ".py", ".json", ".csv", ".txt", ".yaml", ".toml", ".ipynb"];
    let path = token(&|t| {
        let t = t.trim_end_matches('.');
        ext.iter().any(|e| t.len() > e.len() && t.to_lowercase().ends_with(e))
            || (t.contains('/') && !t.contains("://") && t.chars().filter(|c| c.is_alphabetic()).count() >= 2)
    });
    let number = token(&|t| !t.is_empty() && t.trim_end_matches('.').chars().all(|c| c.is_ascii_digit() || c == '.'));
    let maths = raw.chars().any(|c| matches!(c, '^' | '=' | '∫' | '∂' | '√' | '∑' | '\\' | '²' | '³' | '·' | '×'));
    let operator = raw.contains(['+', '*']) || token(&|t| t.contains('(') && t.contains(')'));
    let call = tokens.iter().any(|t| t.contains('(')) || raw.contains('(');
    let quote = raw.contains(['"', '“', '”', '`', '«']);
    let ident = token(&|t| t.contains('_'));
    let doi = token(&|t| t.starts_with("10.") && t.contains('/'));
    let arxiv = token(&|t| {
        let t = t.trim_start_matches("arXiv:").trim_start_matches("arxiv:");
        let (a, b) = t.split_once('.').unwrap_or(("", ""));
        a.len() == 4
            && a.chars().all(|c| c.is_ascii_digit())
            && b.len() >= 4
            && b.chars().take(4).all(|c| c.is_ascii_digit())
    });
    let url = raw.contains("http") || raw.contains("www.");
    [
        ("path", path),
        ("number", number),
        ("maths", maths),
        ("operator", operator),
        ("paren", call),
        ("quote", quote),
        ("ident", ident),
        ("doi", doi),
        ("arxiv", arxiv),
        ("url", url),
    ]
}

/// One training question: its features, its class and how much it counts.
#[derive(Debug, Clone)]
pub struct Example {
    /// From [`features`].
    pub features: Vec<String>,
    /// A tool name or [`ASK_BACK`].
    pub class: String,
    /// Its weight in the loss.
    pub weight: f64,
}

/// Training settings.
#[derive(Debug, Clone, Copy)]
pub struct Training {
    /// Passes over the examples.
    pub epochs: usize,
    /// The first epoch's step size.
    pub rate: f64,
    /// The L2 penalty.
    pub l2: f64,
    /// Weights smaller than this are dropped from the written model.
    pub prune: f64,
    /// Features seen in fewer examples than this are not learned.
    pub min_count: usize,
    /// The weight of another surface's routable question in a surface's training (what
    /// a question for elsewhere looks like), against 1 for the surface's own questions.
    pub other: f64,
}

impl Training {
    /// The settings the committed models are trained with.
    pub const DEFAULT: Training = Training { epochs: 30, rate: 0.5, l2: 0.01, prune: 0.05, min_count: 2, other: 0.3 };
}

/// A trained model: for each feature, the weight it adds to each class.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The classes, sorted ([`ASK_BACK`] first).
    pub classes: Vec<String>,
    rows: HashMap<String, Vec<(u16, f32)>>,
}

impl Model {
    /// Train on examples, in the order given (shuffled each epoch by a fixed seed).
    pub fn train(examples: &[Example], t: &Training) -> Model {
        let mut classes: Vec<String> = examples.iter().map(|e| e.class.clone()).collect();
        classes.push(ASK_BACK.into());
        classes.sort();
        classes.dedup();
        let nc = classes.len();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for f in examples.iter().flat_map(|e| &e.features) {
            *seen.entry(f.as_str()).or_default() += 1;
        }
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut names: Vec<&str> = Vec::new();
        let coded: Vec<(Vec<usize>, usize, f64)> = examples
            .iter()
            .map(|e| {
                let fs = e
                    .features
                    .iter()
                    .filter(|f| seen[f.as_str()] >= t.min_count || f.as_str() == "x:bias")
                    .map(|f| {
                        *index.entry(f.as_str()).or_insert_with(|| {
                            names.push(f.as_str());
                            names.len() - 1
                        })
                    })
                    .collect();
                let c = classes.binary_search(&e.class).expect("every class is listed");
                (fs, c, e.weight)
            })
            .collect();
        let mut w = vec![0.0f64; names.len() * nc];
        let mut order: Vec<usize> = (0..coded.len()).collect();
        let mut seed: u64 = 0x5eed_1234_abcd_0001;
        let mut p = vec![0.0f64; nc];
        for epoch in 0..t.epochs {
            // Fisher–Yates with a fixed linear congruential generator.
            for i in (1..order.len()).rev() {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let j = ((seed >> 33) % (i as u64 + 1)) as usize;
                order.swap(i, j);
            }
            let eta = t.rate / (1.0 + epoch as f64).sqrt();
            for &k in &order {
                let (fs, c, weight) = &coded[k];
                p.iter_mut().for_each(|x| *x = 0.0);
                for &f in fs {
                    for (x, wv) in p.iter_mut().zip(&w[f * nc..(f + 1) * nc]) {
                        *x += wv;
                    }
                }
                softmax(&mut p);
                // Only the classes with a real gradient move (the rest would barely):
                // this keeps training a test's work.
                let moving: Vec<(usize, f64)> = (0..nc)
                    .map(|j| (j, p[j] - if j == *c { 1.0 } else { 0.0 }))
                    .filter(|(_, g)| g.abs() >= 1e-3)
                    .collect();
                for &f in fs {
                    for &(j, g) in &moving {
                        let wv = &mut w[f * nc + j];
                        *wv -= eta * (weight * g + t.l2 * *wv);
                    }
                }
            }
        }
        let mut rows = HashMap::new();
        for (f, name) in names.iter().enumerate() {
            let row: Vec<(u16, f32)> = w[f * nc..(f + 1) * nc]
                .iter()
                .enumerate()
                .filter(|(_, v)| v.abs() >= t.prune)
                .map(|(j, v)| (j as u16, ((v * 100.0).round() / 100.0) as f32))
                .filter(|(_, v)| *v != 0.0)
                .collect();
            if !row.is_empty() {
                rows.insert((*name).to_string(), row);
            }
        }
        Model { classes, rows }
    }

    /// The class probabilities of a question's features, in the order of `classes`.
    pub fn probabilities(&self, features: &[String]) -> Vec<f64> {
        let mut p = vec![0.0f64; self.classes.len()];
        for f in features {
            if let Some(row) = self.rows.get(f) {
                for &(j, v) in row {
                    p[j as usize] += f64::from(v);
                }
            }
        }
        softmax(&mut p);
        p
    }

    /// What the model says about a question's features.
    pub fn predict(&self, features: &[String]) -> Prediction {
        let p = self.probabilities(features);
        let mut ranked: Vec<usize> = (0..p.len()).collect();
        ranked.sort_by(|&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b)));
        let top = ranked.first().copied().unwrap_or(0);
        Prediction {
            class: self.classes.get(top).cloned().unwrap_or_else(|| ASK_BACK.into()),
            top: p.get(top).copied().unwrap_or(0.0),
            second: ranked.get(1).map_or(0.0, |&j| p[j]),
            candidates: ranked
                .iter()
                .filter(|&&j| self.classes[j] != ASK_BACK && p[j] >= 0.05)
                .take(3)
                .map(|&j| self.classes[j].clone())
                .collect(),
        }
    }

    /// The model as text: a `classes` line, then one line per feature with its
    /// non-zero weights as `class-index:weight`, features sorted.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("classes");
        for c in &self.classes {
            out.push('\t');
            out.push_str(c);
        }
        out.push('\n');
        let mut names: Vec<&String> = self.rows.keys().collect();
        names.sort();
        for name in names {
            out.push_str(name);
            for (j, v) in &self.rows[name] {
                out.push_str(&format!("\t{j}:{v:.2}"));
            }
            out.push('\n');
        }
        out
    }

    /// Read a model written by [`Model::to_text`].
    pub fn parse(text: &str) -> Result<Model, String> {
        let mut classes = None;
        let mut rows = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cells = line.split('\t');
            let name = cells.next().unwrap_or_default();
            if name == "classes" && classes.is_none() {
                classes = Some(cells.map(str::to_string).collect::<Vec<_>>());
                continue;
            }
            let n = classes.as_ref().ok_or_else(|| format!("line {}: weights before the classes line", i + 1))?.len();
            let row = cells
                .map(|c| {
                    let (j, v) = c.split_once(':').ok_or_else(|| format!("line {}: bad cell {c:?}", i + 1))?;
                    let j: u16 = j.parse().map_err(|_| format!("line {}: bad class index {j:?}", i + 1))?;
                    let v: f32 = v.parse().map_err(|_| format!("line {}: bad weight {v:?}", i + 1))?;
                    if usize::from(j) >= n {
                        return Err(format!("line {}: class index {j} out of range", i + 1));
                    }
                    Ok((j, v))
                })
                .collect::<Result<Vec<_>, String>>()?;
            rows.insert(name.to_string(), row);
        }
        Ok(Model { classes: classes.ok_or("no classes line")?, rows })
    }

    /// How many features carry weights.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no feature carries a weight.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

fn softmax(p: &mut [f64]) {
    let max = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for x in p.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    if sum > 0.0 {
        p.iter_mut().for_each(|x| *x /= sum);
    }
}

/// One writer's labelled questions: a fold of the cross-validation.
#[derive(Debug, Clone)]
pub struct Source {
    /// The writer (the fold's name).
    pub name: String,
    /// Their questions, every surface's.
    pub lines: Vec<Labelled>,
    /// The ask's other arguments for each line (sym's `expr`, feed's `item_id`), when
    /// given; missing entries are none.
    pub given: Vec<Args>,
    /// Whether it is a fold of the cross-validation; `false` (a surface's own case
    /// table) is always trained on and never scored.
    pub fold: bool,
}

/// Group labelled files into writers: `(path, text)` in a fixed order. A file under
/// `train/<writer>/` is that writer's; the tuning files (`tuning/<surface>.jsonl`) hold
/// two writers, lines 1–45 and 46–90 of each file (`tests/routing/README.md`).
pub fn sources(files: &[(String, String)]) -> Result<Vec<Source>, String> {
    let mut out: Vec<Source> = Vec::new();
    let mut add = |name: String, (l, given): (Labelled, Args)| match out.iter_mut().find(|s| s.name == name) {
        Some(s) => {
            s.given.push(given);
            s.lines.push(l);
        }
        None => out.push(Source { name, given: vec![given], lines: vec![l], fold: true }),
    };
    for (path, text) in files {
        let parts: Vec<&str> = path.split('/').collect();
        let writer = match parts.iter().rposition(|p| *p == "train") {
            Some(i) if i + 2 < parts.len() => Some(format!("train/{}", parts[i + 1])),
            _ => None,
        };
        for (i, l) in parse_given(text).map_err(|e| format!("{path}: {e}"))?.into_iter().enumerate() {
            let name = writer.clone().unwrap_or_else(|| format!("tuning/{}", if i < 45 { 1 } else { 2 }));
            add(name, l);
        }
    }
    Ok(out)
}

/// The surface a labelled question was asked on, by name.
fn same_surface(a: &str, b: &str) -> bool {
    matches!((Surface::find(a), Surface::find(b)), (Some(x), Some(y)) if x.name == y.name)
}

impl<F: Facts> Router<F> {
    /// Training examples for this surface: its own questions (class: the labelled tool,
    /// or [`ASK_BACK`]) and, at weight `other`, the other surfaces' routable ones.
    pub fn examples(&self, sources: &[Source], other: f64) -> Vec<Example> {
        let none = Args::new();
        sources
            .iter()
            .flat_map(|s| s.lines.iter().enumerate().map(move |(i, l)| (l, s.given.get(i))))
            .filter_map(|(l, given)| {
                let own = same_surface(&l.s, self.surface);
                let class = match (&l.t, own) {
                    (Some(t), _) => t.clone(),
                    (None, true) => ASK_BACK.to_string(),
                    (None, false) => return None,
                };
                let weight = if own { 1.0 } else { other };
                Some(Example { features: self.features(&l.q, given.unwrap_or(&none)), class, weight })
            })
            .collect()
    }

    /// Train this surface's model on every writer's questions.
    pub fn train(&self, sources: &[Source], t: &Training) -> Model {
        Model::train(&self.examples(sources, t.other), t)
    }

    /// The committed text of this surface's model, trained on `sources`.
    pub fn model_text(&self, sources: &[Source]) -> String {
        let model = self.train(sources, &Training::DEFAULT);
        let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
        let n: usize = sources.iter().map(|s| s.lines.len()).sum();
        model.to_text(&format!(
            "The learned routing model of the {} surface (attest_core::learn): generated, do not edit.\n\
             Trained on {n} labelled questions of the writers {}; {} features, {} classes.\n\
             ATTEST_BLESS=1 and this crate's routing test retrain it from tests/routing/.",
            self.surface,
            names.join(", "),
            model.len(),
            model.classes.len()
        ))
    }

    /// Cross-validation by writer: for each source, a model trained on the others
    /// decides that source's questions of this surface under every policy of `grid`.
    /// Returns each policy's tally over all folds, in `grid` order.
    pub fn cross_validate(&self, sources: &[Source], grid: &[Policy], t: &Training) -> Vec<(Policy, Tally)> {
        let mut totals: Vec<(Policy, Tally)> = grid.iter().map(|p| (*p, Tally::default())).collect();
        for (_, _, reports) in self.folds(sources, grid, t) {
            for ((_, total), report) in totals.iter_mut().zip(&reports) {
                total.add(&report.overall);
            }
        }
        totals
    }

    /// Cross-validation by writer under one policy: each fold's name and its full
    /// report (arguments by tool and every miss), decided by a model trained on the
    /// other writers.
    pub fn cross_validate_report(&self, sources: &[Source], policy: &Policy, t: &Training) -> Vec<(String, Report)> {
        self.folds(sources, std::slice::from_ref(policy), t)
            .into_iter()
            .map(|(name, _, mut reports)| (name, reports.pop().unwrap_or_default()))
            .collect()
    }

    /// Each fold's questions of this surface decided, under every policy of `grid`, by
    /// a model trained on the other folds' writers: `(fold, questions, one report per
    /// policy)`.
    fn folds(&self, sources: &[Source], grid: &[Policy], t: &Training) -> Vec<(String, usize, Vec<Report>)> {
        let mut out = Vec::new();
        for (k, fold) in sources.iter().enumerate().filter(|(_, s)| s.fold) {
            let rest: Vec<Source> =
                sources.iter().enumerate().filter(|(j, _)| *j != k).map(|(_, s)| s.clone()).collect();
            let model = self.train(&rest, t);
            let none = Args::new();
            let (cases, given): (Vec<Labelled>, Vec<Args>) = fold
                .lines
                .iter()
                .enumerate()
                .filter(|(_, l)| same_surface(&l.s, self.surface))
                .map(|(i, l)| (l.clone(), fold.given.get(i).unwrap_or(&none).clone()))
                .unzip();
            let read: Vec<Option<(F, Parts)>> =
                cases.iter().zip(&given).map(|(c, g)| self.read(&c.q, g, Some(&model))).collect();
            let reports = grid
                .iter()
                .map(|policy| {
                    let next = std::cell::Cell::new(0);
                    crate::routing_eval::score(&cases, |_, _| {
                        let i = next.get();
                        next.set(i + 1);
                        match &read[i] {
                            None => Decision::ask_back(self.empty, self.options),
                            Some((facts, parts)) => self.combine(facts, parts, policy),
                        }
                    })
                })
                .collect();
            out.push((fold.name.clone(), cases.len(), reports));
        }
        out
    }
}

/// The policies cross-validation tries: every combination with a range of thresholds.
pub fn grid() -> Vec<Policy> {
    let mut out = vec![Policy::RULES];
    for beside in [false, true] {
        for combine in Combine::ALL.into_iter().filter(|c| *c != Combine::Rules) {
            for min in [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9] {
                for margin in [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5] {
                    out.push(Policy { combine, min, margin, beside });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(q: &str, class: &str) -> Example {
        Example { features: features(&Question::new(q), q, &Args::new()), class: class.into(), weight: 1.0 }
    }

    #[test]
    fn features_are_lemmas_pairs_openings_and_structure() {
        let f = features(
            &Question::new("Please simplify x^2 in notes/a.md"),
            "Please simplify x^2 in notes/a.md",
            &Args::new(),
        );
        for want in ["w:simplifi", "b:simplifi x", "f:pleas", "v:simplifi", "x:maths", "x:path", "x:bias"] {
            assert!(f.iter().any(|x| x == want), "{want} not in {f:?}");
        }
    }

    #[test]
    fn training_is_deterministic_and_the_text_round_trips() {
        let data = [
            ex("simplify this", "t.simplify"),
            ex("make it simpler", "t.simplify"),
            ex("solve for x", "t.solve"),
            ex("find the roots", "t.solve"),
            ex("hmm", ASK_BACK),
        ];
        let a = Model::train(&data, &Training::DEFAULT);
        let b = Model::train(&data, &Training::DEFAULT);
        assert_eq!(a.to_text("h"), b.to_text("h"));
        let parsed = Model::parse(&a.to_text("h")).unwrap();
        assert_eq!(parsed.to_text("h"), a.to_text("h"));
        let q = "please simplify";
        let p = parsed.predict(&features(&Question::new(q), q, &Args::new()));
        assert_eq!(p.class, "t.simplify");
        assert!(p.top > p.second);
        assert!(Model::parse("x\t0:1").is_err());
        assert!(Model::parse("classes\ta\nx\t3:1").is_err());
    }
}
