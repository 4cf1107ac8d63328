//! The one `<ns>.ask` pipeline every surface uses.
//!
//! A surface's router is data: a [`Router`] holding an ordered table of [`Rule`]s plus
//! the texts it asks back with. Each rule carries its phrases (matched on word
//! boundaries), an optional condition and its argument extraction, all over the
//! surface's [`Facts`] (what its router reads from a question once, before any rule is
//! tried). Routing is then the same everywhere:
//!
//! 1. read the facts; a question with nothing in it is asked back ([`Router::empty`]);
//! 2. the first rule whose phrase occurs (or that needs none) and whose condition holds
//!    decides: its extraction gives the arguments, or a question back when the question
//!    lacks one the tool needs; what the rules, the scored cues and the learned model
//!    ([`crate::learn`]) find is combined by the router's policy (the model decides when
//!    confident, otherwise a rule only where the model agrees);
//! 3. a marker of another surface ([`crate::route::ELSEWHERE`]) outside the arguments
//!    just extracted declines the question to that surface, unless the surface's facts
//!    say the question stays ([`Facts::keeps`]);
//! 4. a question no rule claims is asked back: there is no catch-all.
//!
//! The catalogue then calls the chosen tool by name (`Catalogue::call`); nothing decides
//! again after routing.

use serde_json::{Map, Value};

use std::sync::OnceLock;

use crate::learn::{self, Combine, Model, Policy, Prediction};
use crate::route::{Decision, Question, elsewhere};
use crate::score::{Scored, Scoring, score, writes_allowed};
use crate::surface::Surface;

/// A JSON object of arguments.
pub type Args = Map<String, Value>;

/// What a surface's router reads from a question once, before any rule is tried: the
/// words to match and whatever its rules' conditions and extractions need.
pub trait Facts: Sized + 'static {
    /// Read a question. `given` holds the ask's other arguments (e.g. sym's `expr`).
    fn read(question: &str, given: &Args) -> Self;

    /// The words rules match (possibly with names and paths blanked out).
    fn words(&self) -> &Question;

    /// Whether there is nothing to route.
    fn is_empty(&self) -> bool {
        self.words().is_empty()
    }

    /// The words another surface's markers are looked for in: by default the words
    /// without the string arguments the decision extracted, so a concept or a search
    /// subject never makes another surface claim the question.
    fn frame(&self, own: Option<&Decision>) -> Question {
        let mut text = self.words().raw.clone();
        if let Some(d) = own {
            for v in d.args.values().filter_map(Value::as_str).filter(|v| !v.trim().is_empty()) {
                text = text.replacen(v, " ", 1);
            }
        }
        Question::new(&text)
    }

    /// Whether a question that also carries another surface's marker stays here.
    fn keeps(&self, _own: Option<&Decision>) -> bool {
        false
    }

    /// The question back when no rule claims the question; `None` uses the router's.
    fn unclear(&self) -> Option<Decision> {
        None
    }
}

/// What a rule's condition and extraction see.
#[derive(Debug)]
pub struct Asked<'a, F> {
    /// The surface's facts.
    pub facts: &'a F,
    /// The words matched.
    pub q: &'a Question,
    /// The phrase that matched, if the rule has phrases.
    pub phrase: Option<&'static str>,
    /// The rule's tool.
    pub tool: &'static str,
}

/// A rule's condition.
pub type Condition<F> = fn(&Asked<'_, F>) -> bool;
/// A rule's argument extraction: the arguments, or a question back when the question
/// lacks something the tool cannot do without.
pub type Extract<F> = fn(&Asked<'_, F>) -> Result<Args, Decision>;

/// One routing rule: if a phrase occurs (or the rule has none) and the condition holds,
/// the question goes to `tool` with the extracted arguments.
pub struct Rule<F: 'static> {
    /// The tool it routes to.
    pub tool: &'static str,
    /// Phrases on word boundaries, any of which claims the question; a word ending in
    /// `*` matches the words it begins. Empty: the condition alone decides.
    pub phrases: &'static [&'static str],
    /// A further condition.
    pub when: Option<Condition<F>>,
    /// The arguments the question states.
    pub args: Option<Extract<F>>,
    /// Why it routes, for a rule without phrases (a phrase says so itself).
    pub reason: &'static str,
}

impl<F> Rule<F> {
    /// A rule routing to `tool` when one of `phrases` occurs.
    pub const fn new(tool: &'static str, phrases: &'static [&'static str]) -> Self {
        Rule { tool, phrases, when: None, args: None, reason: "" }
    }

    /// Only when `condition` holds as well.
    pub const fn when(self, condition: Condition<F>) -> Self {
        Rule { when: Some(condition), ..self }
    }

    /// With the arguments `extract` reads.
    pub const fn args(self, extract: Extract<F>) -> Self {
        Rule { args: Some(extract), ..self }
    }

    /// Why it routes, for a rule decided by its condition alone.
    pub const fn because(self, reason: &'static str) -> Self {
        Rule { reason, ..self }
    }
}

impl<F> std::fmt::Debug for Rule<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("tool", &self.tool).field("phrases", &self.phrases).finish_non_exhaustive()
    }
}

/// A surface's router: its rules in order and what it asks back with.
pub struct Router<F: 'static> {
    /// The surface it routes for (its name in [`crate::SURFACES`]): tools that surface
    /// serves are never declined to another.
    pub surface: &'static str,
    /// The rules, in order: the first that claims a question decides.
    pub rules: &'static [Rule<F>],
    /// The question back for an empty question.
    pub empty: &'static str,
    /// The question back for a question no rule claims.
    pub unclear: &'static str,
    /// The tools offered on a question back, and after a decline to another surface.
    pub options: &'static [&'static str],
    /// Appended to a decline, e.g. " If you meant your runs, say which: …".
    pub decline_note: &'static str,
    /// The evidence that decides what no rule claims ([`crate::score`]).
    pub scoring: Scoring,
    /// The learned model and how it combines with the rules ([`crate::learn`]).
    pub learned: Learned,
}

/// A surface's learned model (its committed text, parsed once on first use) and the
/// policy that combines it with the rules.
pub struct Learned {
    text: &'static str,
    /// How the model's answer combines with the rules.
    pub policy: Policy,
    model: OnceLock<Option<Model>>,
}

impl Learned {
    /// No model: the rules and cues alone.
    pub const fn none() -> Learned {
        Learned { text: "", policy: Policy::RULES, model: OnceLock::new() }
    }

    /// A model written by [`Model::to_text`], combined by `policy`.
    pub const fn new(text: &'static str, policy: Policy) -> Learned {
        Learned { text, policy, model: OnceLock::new() }
    }

    /// The model, parsed on first use; `None` when there is none or its text does not
    /// parse (each surface's test parses its committed model).
    pub fn model(&self) -> Option<&Model> {
        self.model.get_or_init(|| if self.text.is_empty() { None } else { Model::parse(self.text).ok() }).as_ref()
    }
}

impl std::fmt::Debug for Learned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Learned").field("policy", &self.policy).finish_non_exhaustive()
    }
}

/// What each step of the pipeline found for a question, before a [`Policy`] combines
/// them.
#[derive(Debug, Clone)]
pub struct Parts {
    /// The first rule's decision.
    pub rule: Option<Decision>,
    /// The scored cues' decision.
    pub cue: Option<Decision>,
    /// The model's prediction and what it means here (`None`: a write not asked for).
    pub learned: Option<(Prediction, Option<Decision>)>,
    /// The tools the cues point to, best first, for a question back.
    pub candidates: Vec<String>,
    /// The question was asked beside other arguments (a reply about a given item,
    /// sym's `expr`, feed's `user`): the model's reading counts only under a policy
    /// that reads such questions ([`Policy::beside`]).
    pub beside: bool,
}

/// Any router, as the catalogue holds it.
pub trait Route: Send + Sync {
    /// Decide a question; `given` holds the ask's other arguments.
    fn route(&self, question: &str, given: &Args) -> Decision;
    /// The tools its rules can reach, in table order, without repeats.
    fn tools(&self) -> Vec<&'static str>;
}

impl<F: Facts> Router<F> {
    /// Decide a question; `given` holds the ask's other arguments.
    pub fn decide(&self, question: &str, given: &Args) -> Decision {
        self.decide_with(question, given, self.learned.model(), &self.learned.policy)
    }

    /// Decide a question with a given model and policy (cross-validation trains models
    /// on part of the data and tries policies).
    pub fn decide_with(&self, question: &str, given: &Args, model: Option<&Model>, policy: &Policy) -> Decision {
        match self.read(question, given, model) {
            None => Decision::ask_back(self.empty, self.options),
            Some((facts, parts)) => self.combine(&facts, &parts, policy),
        }
    }

    /// The features the learned model sees for a question.
    pub fn features(&self, question: &str, given: &Args) -> Vec<String> {
        let facts = F::read(question, given);
        learn::features(facts.words(), question, given)
    }

    /// Read a question and find what each step would decide, before any policy
    /// combines them; `None` for an empty question.
    pub fn read(&self, question: &str, given: &Args, model: Option<&Model>) -> Option<(F, Parts)> {
        let facts = F::read(question, given);
        if facts.is_empty() {
            return None;
        }
        let rule = self.first(&facts);
        let scored = score(facts.words(), &self.scoring);
        let cue = self.scored(&facts, &scored);
        // A question without words (a bare path or run name) is the rules' alone; one
        // asked beside other arguments is read too, and the policy says whether that
        // reading counts.
        let beside = given.values().any(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()));
        let learned = model.filter(|_| !facts.words().is_empty()).map(|m| {
            let p = m.predict(&learn::features(facts.words(), question, given));
            let d = self.learned_decision(&facts, &p);
            (p, d)
        });
        let candidates = scored.candidates().take(3).map(str::to_string).collect();
        Some((facts, Parts { rule, cue, learned, candidates, beside }))
    }

    /// Combine what the steps found, by `policy`.
    pub fn combine(&self, facts: &F, parts: &Parts, policy: &Policy) -> Decision {
        if parts.beside && !policy.beside && parts.learned.is_some() {
            let cold = Parts { learned: None, ..parts.clone() };
            return self.combine(facts, &cold, policy);
        }
        let model = || {
            let (_, d) = parts.learned.as_ref().filter(|(p, _)| policy.confident(p))?;
            let d = d.clone()?;
            // The model's tool, with the arguments of the rule that claimed the question
            // for that tool, when one did (its phrase places them).
            match &parts.rule {
                Some(r) if r.tool.is_some() && r.tool == d.tool => Some((r.clone(), true)),
                _ => Some((d, true)),
            }
        };
        let rule = || parts.rule.clone().map(|d| (d, false));
        let cue = || parts.cue.clone().map(|d| (d, false));
        let own = match policy.combine {
            Combine::Rules => rule().or_else(cue),
            Combine::RulesThenModel => rule().or_else(model).or_else(cue),
            Combine::RulesThenModelOnly => rule().or_else(model),
            Combine::ModelThenRules => model().or_else(rule).or_else(cue),
            Combine::ModelThenRulesOnly => model().or_else(rule),
            Combine::Model => model(),
            Combine::ModelOrAgreement | Combine::ModelFirstOrAgreement => {
                // Without a model's reading (no model, or no words) the rules decide.
                let top = parts.learned.as_ref().map(|(p, _)| p.class.as_str());
                let agrees = |d: &Decision| d.tool.is_none() || top.is_none() || d.tool.as_deref() == top;
                // A confident model's tool (or decline to another surface) first, when
                // the policy says so; then a rule's question back (the question lacks
                // what its tool needs) stands.
                let first = policy.combine == Combine::ModelFirstOrAgreement && top != Some(learn::ASK_BACK);
                model()
                    .filter(|_| first)
                    .or_else(|| rule().filter(|(d, _)| d.tool.is_none()))
                    .or_else(model)
                    .or_else(|| rule().filter(|(d, _)| agrees(d)))
                    .or_else(|| if parts.rule.is_none() { cue().filter(|(d, _)| agrees(d)) } else { None })
            }
        };
        // The model's question back or decline to another surface stands; a question
        // back uses a rule's own when one asked back (it knows what is missing), and
        // offers the tool a rule chose first.
        if let Some((d, true)) = &own
            && d.tool.is_none()
        {
            let asks_back = parts.learned.as_ref().is_some_and(|(p, _)| p.class == learn::ASK_BACK);
            return match &parts.rule {
                Some(r) if asks_back && r.tool.is_none() => r.clone(),
                Some(r) if asks_back => {
                    let mut options: Vec<String> = r.tool.iter().cloned().collect();
                    options.extend(parts.candidates.iter().filter(|c| r.tool.as_ref() != Some(*c)).cloned());
                    self.unclear(facts, &options)
                }
                _ => d.clone(),
            };
        }
        let own = own.map(|(d, _)| d);
        let other = elsewhere(&facts.frame(own.as_ref()), self.surface);
        match (own, other) {
            (own, Some(decline)) if !facts.keeps(own.as_ref()) => self.decline(decline, own.as_ref()),
            (Some(d), _) => d,
            (None, _) => self.unclear(facts, &parts.candidates),
        }
    }

    /// The question back when nothing claims a question: the facts' own or the
    /// router's, with the tools the words point to first among the options.
    fn unclear(&self, facts: &F, candidates: &[String]) -> Decision {
        let mut d = facts.unclear().unwrap_or_else(|| Decision::ask_back(self.unclear, self.options));
        let mut options: Vec<String> = candidates.to_vec();
        for o in d.options.drain(..) {
            if !options.contains(&o) {
                options.push(o);
            }
        }
        d.options = options;
        d
    }

    /// What the model's top class means here: one of this surface's tools (with that
    /// tool's arguments), a decline to another surface's tool, or a question back.
    /// `None` when the top class is a tool that writes and the question does not ask
    /// for the write (the write guard), or a tool no surface serves.
    fn learned_decision(&self, facts: &F, p: &Prediction) -> Option<Decision> {
        if p.class == learn::ASK_BACK {
            let candidates: Vec<String> = p.candidates.iter().filter(|c| self.serves(c)).cloned().collect();
            return Some(self.unclear(facts, &candidates));
        }
        if !self.serves(&p.class) {
            Surface::owner_of(&p.class)?;
            return Some(self.decline(Decision::elsewhere(&p.class), None));
        }
        if !writes_allowed(facts.words(), &p.class, &self.scoring) {
            return None;
        }
        let why = format!("the learned model points to it (p = {:.2})", p.top);
        // The surface's own list of tools ("what can you do?") takes no arguments.
        if Surface::find(self.surface).is_some_and(|s| s.tools_tool() == p.class) {
            return Some(Decision::to(&p.class, Args::new(), why));
        }
        let tool = self.rules.iter().map(|r| r.tool).chain(self.options.iter().copied()).find(|t| *t == p.class)?;
        Some(self.routed(facts, tool, why))
    }

    /// Whether this surface serves a tool.
    fn serves(&self, tool: &str) -> bool {
        Surface::find(self.surface).is_some_and(|s| s.allows(tool)) || tool.starts_with(&format!("{}.", self.surface))
    }

    /// What no rule claims, decided by the weight of evidence ([`crate::score`]): the
    /// best tool when it reaches the minimum and leads by the margin, with the
    /// arguments of the first rule of that tool whose condition holds.
    fn scored(&self, facts: &F, scored: &Scored) -> Option<Decision> {
        let (tool, points, why) = scored.winner(self.scoring.min, self.scoring.margin).map(|w| (w.0, w.1, &w.2))?;
        let words = why.iter().map(|w| format!("'{}'", w.replace('*', ""))).collect::<Vec<_>>().join(", ");
        Some(self.routed(facts, tool, format!("the question's words point to it ({words}; score {points})")))
    }

    /// A route to `tool` with the arguments of the first rule of that tool whose
    /// condition holds (or that rule's question back).
    fn routed(&self, facts: &F, tool: &'static str, why: String) -> Decision {
        let q = facts.words();
        let rule = self
            .rules
            .iter()
            .filter(|r| r.tool == tool)
            .find(|r| r.when.is_none_or(|c| c(&Asked { facts, q, phrase: None, tool: r.tool })));
        let asked = Asked { facts, q, phrase: None, tool };
        let args = match rule.and_then(|r| r.args) {
            Some(extract) => match extract(&asked) {
                Ok(a) => a,
                Err(ask_back) => return ask_back,
            },
            None => Args::new(),
        };
        Decision::to(tool, args, why)
    }

    /// The first rule that claims the question, decided.
    fn first(&self, facts: &F) -> Option<Decision> {
        let q = facts.words();
        for rule in self.rules {
            let phrase = match rule.phrases {
                [] => None,
                phrases => match q.any(phrases) {
                    Some(p) => Some(p),
                    None => continue,
                },
            };
            let asked = Asked { facts, q, phrase, tool: rule.tool };
            if rule.when.is_some_and(|c| !c(&asked)) {
                continue;
            }
            let args = match rule.args {
                Some(extract) => match extract(&asked) {
                    Ok(a) => a,
                    Err(ask_back) => return Some(ask_back),
                },
                None => Args::new(),
            };
            let why = match phrase {
                Some(p) => format!("the question says '{}'", p.replace('*', "")),
                None => rule.reason.to_string(),
            };
            return Some(Decision::to(rule.tool, args, why));
        }
        None
    }

    /// A decline to another surface, offering what this one would have done and its
    /// usual options too, so the agent can still choose here.
    fn decline(&self, mut d: Decision, own: Option<&Decision>) -> Decision {
        d.answer.push_str(self.decline_note);
        let ours = own.and_then(|o| o.tool.as_deref()).into_iter().chain(self.options.iter().copied());
        for t in ours {
            if !d.options.iter().any(|o| o == t) {
                d.options.push(t.to_string());
            }
        }
        d
    }
}

impl<F: Facts> Route for Router<F> {
    fn route(&self, question: &str, given: &Args) -> Decision {
        self.decide(question, given)
    }

    fn tools(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for r in self.rules {
            if !out.contains(&r.tool) {
                out.push(r.tool);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy surface: "greet NAME" greets, "wave" waves when nothing is named.
    struct Toy {
        q: Question,
        name: Option<String>,
    }

    impl Facts for Toy {
        fn read(question: &str, _: &Args) -> Toy {
            let q = Question::new(question);
            let name = q.find("greet").and_then(|i| q.words.get(i + 1)).map(|w| w.text.clone());
            Toy { q, name }
        }
        fn words(&self) -> &Question {
            &self.q
        }
    }

    fn named(a: &Asked<'_, Toy>) -> Result<Args, Decision> {
        match &a.facts.name {
            Some(n) => Ok([("name".to_string(), Value::String(n.clone()))].into_iter().collect()),
            None => Err(Decision::ask_back("Greet whom?", &["toy.greet", "toy.wave"])),
        }
    }

    static TOY: Router<Toy> = Router {
        surface: "symbolic",
        rules: &[
            Rule::new("toy.greet", &["greet"]).args(named),
            Rule::new("toy.wave", &[]).when(|a| a.q.has("hello")).because("a hello"),
        ],
        empty: "Say something.",
        unclear: "Greet or wave?",
        options: &["toy.greet", "toy.wave"],
        decline_note: " Or greet here.",
        scoring: Scoring::NONE,
        learned: Learned::none(),
    };

    #[test]
    fn first_rule_decides_with_its_arguments() {
        let d = TOY.decide("please greet ada", &Args::new());
        assert_eq!(d.tool.as_deref(), Some("toy.greet"));
        assert_eq!(d.args["name"], "ada");
        assert_eq!(d.answer, "the question says 'greet'");
        let w = TOY.decide("hello there", &Args::new());
        assert_eq!((w.tool.as_deref(), w.answer.as_str()), (Some("toy.wave"), "a hello"));
    }

    #[test]
    fn missing_arguments_empty_and_unclear_questions_are_asked_back() {
        for (q, back) in [("greet", "Greet whom?"), ("", "Say something."), ("what now", "Greet or wave?")] {
            let d = TOY.decide(q, &Args::new());
            assert_eq!((d.tool, d.answer.as_str()), (None, back));
            assert!(d.options.len() >= 2);
        }
    }

    #[test]
    fn another_surfaces_question_is_declined_with_this_surfaces_options() {
        let d = TOY.decide("greet ada and tell me what should I read today", &Args::new());
        assert_eq!(d.tool, None);
        assert_eq!(d.options, ["feed.list", "toy.greet", "toy.wave"]);
        assert!(d.answer.ends_with(" Or greet here."), "{}", d.answer);
        assert_eq!(TOY.tools(), ["toy.greet", "toy.wave"]);
    }
}
