//! The `sym.ask` router: which sym tool a question (with an optional expression) is
//! for, on the one `<ns>.ask` pipeline of attest-core ([`ROUTER`]).
//!
//! `Facts::read` reads a question once: its words (`∫` read as "integral"), the
//! expression in it (or the ask's `expr`), a units conversion, a stated calculus
//! result, and the variable, order and bounds it names. The rules ([`RULES`], first
//! match wins) are data over those facts, matched on whole words. There is no
//! catch-all: a bare expression is asked back what to do with it; a question of another
//! surface is declined by name unless it carries an expression.

use attest_core::Decision;
use attest_core::ask::{Args, Asked, Router, Rule};
use attest_core::route::Question;
use attest_core::score::{Cue, Scoring, Write, cue};
use serde_json::{Map, Value, json};

use crate::parse::KNOWN;

use crate::router_words as words;

/// The routing table, in order: the first rule whose phrase occurs (or that needs none)
/// and whose condition holds decides; a phrase rule with no expression to work on asks
/// back for one.
pub static RULES: &[Rule<Facts>] = &[
    // "3.2 eV in joules", "how many J is 1 eV".
    Rule::new("sym.evaluate", &[]).when(converts_units).args(units).because("a quantity with units to convert"),
    // Limits, series, sums, matrices and systems are read whole (their notation carries
    // the point, the order, the bounds), before any phrase rule.
    Rule::new("sym.verify", &[])
        .when(has_matrix_claim)
        .args(matrix_args)
        .because("an identity between matrices written out"),
    Rule::new("sym.matrix", &[]).when(has_matrix).args(matrix_args).because("a matrix written out"),
    Rule::new("sym.limit", &[])
        .when(has_limit)
        .args(limit_args)
        .because("a limit: the expression, the variable and the point"),
    Rule::new("sym.series", &[])
        .when(has_series)
        .args(series_args)
        .because("a Taylor series: the expression, the point and the order"),
    Rule::new("sym.sum", &[]).when(has_sum).args(sum_args).because("a sum or series: the summand and its bounds"),
    Rule::new("sym.solve", &[]).when(has_system).args(system_args).because("a system of equations"),
    Rule::new("sym.integrate", &[])
        .when(has_integral)
        .args(integral_args)
        .because("an integral written out (∫, \\int): the integrand, its differential and the bounds"),
    // "the limit of f" with no point: ask for it rather than guess one.
    Rule::new("sym.limit", &["limit", "limits", "lim"]).args(limit_point),
    // A stated result of calculus is a claim, with the operation kept in it (verifying
    // the two bare sides would check the wrong claim); see `calculus_claim`.
    Rule::new("sym.evaluate", &[])
        .when(claims)
        .args(claimed)
        .because("a derivative at a point: taken, then evaluated there"),
    Rule::new("sym.integrate", &[])
        .when(claims)
        .args(claimed)
        .because("a definite integral with a stated value: computed, to compare with the value stated"),
    Rule::new("sym.verify", &[])
        .when(claims)
        .args(claimed)
        .because("a stated derivative or antiderivative: verified as stated (an antiderivative by differentiating it)"),
    Rule::new(
        "sym.check",
        &[
            "check each step",
            "check every step",
            "check my steps",
            "check the steps",
            "check my derivation",
            "check this derivation",
            "check the derivation",
            "each step",
            "every step",
            "line by line",
            "each line",
            "every line",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.derivation",
        &[
            "show the steps",
            "show me the steps",
            "show steps",
            "show the work",
            "show your work",
            "show the working",
            "step by step",
            "steps",
            "how do you get",
            "how do i get",
            "walk me through",
            "work through",
            "show me how",
            "rule by rule",
            "how you'd",
            "how would you",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.verify",
        &[
            "equal to",
            "equals",
            "equal",
            "the same as",
            "same as",
            "same thing as",
            "exactly",
            "check that",
            "check whether",
            "check if",
            "identity",
            "identical",
            "equivalent",
            "verify",
            "prove",
            "disprove",
            "is it true",
            "is this true",
            "true that",
            "does it hold",
            "hold",
            "holds",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.integrate",
        &[
            "antiderivative",
            "antiderivatives",
            "anti derivative",
            "integrate",
            "integral",
            "integrals",
            "integrating",
            "primitive of",
            "area under",
        ],
    )
    .args(operands),
    // `d/dx f = g` states a result: the derivative notation is part of the claim.
    Rule::new("sym.verify", &["d dx", "d dt", "d dy"]).when(states_result).args(operands),
    Rule::new(
        "sym.differentiate",
        &[
            "differentiate",
            "d dx",
            "d dt",
            "d dy",
            "derivative",
            "derivatives",
            "differentiating",
            "derive",
            "rate of change",
            "slope of",
            "gradient of",
            "gradient wrt",
            "gradient with respect to",
            "partial",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.solve",
        &[
            "solve",
            "solving",
            "roots",
            "root of",
            "zeros of",
            "zeroes of",
            "solutions",
            "solution of",
            "solution to",
            "for which",
            "find x",
            "when is",
            "for what value",
            "for what values",
            "what values of",
            "which values of",
            "find all",
            "vanish",
            "vanishes",
            "cross zero",
            "crosses zero",
            "equal zero",
            "equals zero",
            "satisfy",
            "satisfies",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.evaluate",
        &[
            "evaluate",
            "compute",
            "calculate",
            "value of",
            "how much",
            "numerically",
            "numeric value",
            "numerical value",
            "decimal places",
            "decimals",
            "digits",
            "approximately",
            "approximate value",
            "convert",
            "plug in",
            "plug",
            "what do i get",
            "substitute",
        ],
    )
    .args(operands),
    Rule::new(
        "sym.simplify",
        &[
            "simplify",
            "simplified",
            "simplest form",
            "reduce",
            "cancel",
            "expand",
            "expanded",
            "multiply out",
            "factor",
            "factored",
            "factorise",
            "factorize",
            "tidy",
            "canonical",
            "normal form",
            "more compactly",
            "more compact",
            "neater",
            "clean up",
        ],
    )
    .args(operands),
    Rule::new("sym.verify", &["correct", "right", "true", "valid", "wrong", "mistake", "check"]).args(operands),
    // A constant has one thing to do with it: its value ("what is 2^10").
    Rule::new("sym.evaluate", &[]).when(constant).args(operands).because("a constant expression: its value"),
];

/// Every tool the router may choose, for asking back.
pub const TOOLS: &[&str] = &[
    "sym.simplify",
    "sym.solve",
    "sym.differentiate",
    "sym.integrate",
    "sym.derivation",
    "sym.verify",
    "sym.evaluate",
    "sym.check",
    "sym.limit",
    "sym.series",
    "sym.sum",
    "sym.matrix",
];

/// The question back for a question with neither an operation nor an expression.
pub const UNCLEAR: &str = "What should I do, and with which expression? For example: simplify (x^2-1)/(x-1), solve x^2 = 2, or is sin(x)^2 + cos(x)^2 equal to 1?";

/// The symbolic surface's router.
pub static ROUTER: Router<Facts> = Router {
    surface: "symbolic",
    rules: RULES,
    empty: UNCLEAR,
    unclear: UNCLEAR,
    options: TOOLS,
    decline_note: " If you meant exact maths here, put the expression in the question or in expr.",
    scoring: SCORING,
    learned: attest_core::ask::Learned::new(include_str!("route-model.tsv"), attest_core::learn::Policy::CHOSEN),
};

/// Route a question (with an optional expression) to a sym tool, ask back, or
/// decline naming the surface that owns it: [`ROUTER`] with `expr` given when it is
/// not empty.
pub fn route(question: &str, expr: &str) -> Decision {
    let mut given = Args::new();
    if !expr.trim().is_empty() {
        given.insert("expr".into(), Value::String(expr.to_string()));
    }
    ROUTER.decide(question, &given)
}

/// What the router reads from a question, once.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The words, with `∫` read as "integral".
    q: Question,
    /// The expression (or the two sides of an equality) in the question, or the ask's
    /// `expr`.
    found: Option<Extracted>,
    /// A quantity with units to convert (only without an `expr`).
    units: Option<String>,
    /// A stated calculus result, as the tool and arguments that check it (only without
    /// an `expr`).
    claim: Option<Claim>,
    /// The variable named ("with respect to t").
    var: Option<String>,
    /// The order of a derivative named ("second derivative").
    order: Option<u32>,
    /// Bounds named ("from 0 to 1").
    bounds: Option<[String; 2]>,
    /// The arguments of a limit, series, sum, matrix or system question, when the
    /// question is one (by its notation or words).
    special: Option<(&'static str, Args)>,
}

/// A stated calculus result: the tool that checks it, with its arguments.
#[derive(Debug, Clone)]
struct Claim {
    tool: &'static str,
    args: Args,
}

impl attest_core::ask::Facts for Facts {
    fn read(question: &str, given: &Args) -> Facts {
        // `∫ f dx` reads as "integral of f dx" (the sign is not a word); an operation's
        // name misspelt ("smplfy", "intgrate") is read as the name.
        let q = Question::new(&spelled(&question.replace('∫', " integral ")));
        let expr = given.get("expr").and_then(Value::as_str).map(str::trim).filter(|e| !e.is_empty());
        let (found, units, claim) = match expr {
            // The points stated in the question still count ("value at x=1.5").
            Some(e) => {
                let mut f = Extracted::from_expr(e);
                f.subs = stated_values(question);
                (Some(f), None, None)
            }
            None => (extract(question), units_fragment(question), calculus_claim(&q)),
        };
        let special = crate::router_more::special(question, &q, expr);
        let var = variable(&q).or_else(|| found.as_ref().and_then(|f| named_in(&q, &f.whole())));
        Facts { var, order: order(&q), bounds: bounds(question), q, found, units, claim, special }
    }

    fn words(&self) -> &Question {
        &self.q
    }

    /// A bare expression is something to ask about.
    fn is_empty(&self) -> bool {
        self.q.is_empty() && self.found.is_none()
    }

    /// Another surface's markers are looked for in the whole question.
    fn frame(&self, _own: Option<&Decision>) -> Question {
        self.q.clone()
    }

    /// A question with an expression in it (or given) is never declined: it is maths.
    fn keeps(&self, _own: Option<&Decision>) -> bool {
        self.found.is_some()
    }

    /// An expression with no operation is asked back what to do with it.
    fn unclear(&self) -> Option<Decision> {
        self.found.as_ref().map(ask_what)
    }
}

/// The names of operations a question is routed by, which a misspelling would hide
/// from the rules, the scoring and the learned model alike.
const OPERATIONS: &[&str] = &[
    "simplify",
    "integrate",
    "integral",
    "differentiate",
    "derivative",
    "antiderivative",
    "factorise",
    "factorize",
    "evaluate",
    "calculate",
    "compute",
    "expand",
    "solve",
];

/// Real words an edit or two from an operation's name, never corrected.
const NOT_MISSPELT: &[&str] = &[
    "simply",
    "simple",
    "simpler",
    "simplest",
    "amplify",
    "integer",
    "integers",
    "integrand",
    "integrands",
    "interval",
    "intervals",
    "internal",
    "derivation",
    "derivations",
    "derivate",
    "differential",
    "differentials",
    "factorial",
    "factorials",
    "factors",
    "intimate",
    "compete",
    "commute",
    "expend",
];

/// The question with each word that is an operation's name misspelt by one edit (two
/// for names of eight letters or more: "smplfy", "simplyfy", "intgrate",
/// "diferentiate") written as the name. Inflections ("simplified", "integrating") and
/// real words near a name ([`NOT_MISSPELT`]) stay as written; so do words under five
/// letters.
pub(crate) fn spelled(question: &str) -> String {
    let mut out = String::with_capacity(question.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&correct(word).unwrap_or_else(|| word.clone()));
        word.clear();
    };
    for c in question.chars() {
        if c.is_ascii_alphabetic() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The operation's name a misspelt word stands for, if it is one.
fn correct(word: &str) -> Option<String> {
    let w = word.to_ascii_lowercase();
    if w.len() < 5 || OPERATIONS.contains(&w.as_str()) || NOT_MISSPELT.contains(&w.as_str()) {
        return None;
    }
    OPERATIONS
        .iter()
        .filter(|op| !w.starts_with(&op[..op.len() - 1]))
        .map(|op| (edits(&w, op), *op))
        .filter(|(d, op)| *d <= if op.len() >= 8 && w.len() >= 6 { 2 } else { 1 })
        .min_by_key(|(d, _)| *d)
        .map(|(_, op)| op.to_string())
}

/// Edits (insertions, deletions, substitutions, swaps of neighbours) between two
/// ASCII words.
fn edits(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

fn special_is(a: &Asked<'_, Facts>, tool: &str) -> bool {
    a.facts.special.as_ref().is_some_and(|(t, _)| *t == tool)
}

fn special_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(a.facts.special.as_ref().map(|(_, args)| args.clone()).unwrap_or_default())
}

fn has_matrix(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.matrix")
}
fn has_matrix_claim(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.verify")
}
fn has_limit(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.limit")
}
fn has_series(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.series")
}
fn has_sum(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.sum")
}
fn has_system(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.solve")
}
fn has_integral(a: &Asked<'_, Facts>) -> bool {
    special_is(a, "sym.integrate")
}
fn integral_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}
fn matrix_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}
fn limit_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}
fn series_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}
fn sum_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}
fn system_args(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    special_args(a)
}

fn limit_point(_: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(Decision::ask_back(
        "A limit as the variable goes where? Say the point, e.g. 'limit of sin(x)/x as x approaches 0' or \\lim_{x \\to 0} \\frac{\\sin x}{x}; for a one-sided limit add 'from the left' or 'from the right'.",
        &["sym.limit", "sym.tools"],
    ))
}

fn converts_units(a: &Asked<'_, Facts>) -> bool {
    a.facts.units.is_some()
}

fn units(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(a.facts.units.iter().map(|u| ("units".to_string(), json!(u))).collect())
}

/// A stated calculus result that the rule's tool checks.
fn claims(a: &Asked<'_, Facts>) -> bool {
    a.facts.claim.as_ref().is_some_and(|c| c.tool == a.tool)
}

fn claimed(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(a.facts.claim.as_ref().map(|c| c.args.clone()).unwrap_or_default())
}

/// The expression states a result (`… = …`).
fn states_result(a: &Asked<'_, Facts>) -> bool {
    a.facts.found.as_ref().is_some_and(|f| f.rhs.is_some() || f.lhs.contains('='))
}

/// An expression with no variables (and no equation), which parses.
fn constant(a: &Asked<'_, Facts>) -> bool {
    a.facts.found.as_ref().is_some_and(|f| {
        f.rhs.is_none()
            && !f.lhs.contains('=')
            && crate::parse_expr(&f.lhs, &crate::Limits::default()).is_ok_and(|e| e.free_symbols().is_empty())
    })
}

/// The arguments the rule's tool takes from the expression found; without one, the
/// question back for it.
fn operands(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    match &a.facts.found {
        Some(f) => Ok(arguments(a.tool, a.facts, f)),
        None => Err(Decision::ask_back(
            format!(
                "Which expression? '{}' points to {}; give the expression, e.g. as expr.",
                a.phrase.unwrap_or("the question"),
                a.tool
            ),
            &[a.tool, "sym.tools"],
        )),
    }
}

fn ask_what(f: &Extracted) -> Decision {
    let text = f.whole();
    if f.rhs.is_some() || text.contains('=') {
        Decision::ask_back(
            format!("What should I do with {text}: verify that it holds, or solve it?"),
            &["sym.verify", "sym.solve", "sym.check"],
        )
    } else {
        Decision::ask_back(
            format!("What should I do with {text}: simplify, differentiate, integrate, solve (= 0) or evaluate it?"),
            &["sym.simplify", "sym.differentiate", "sym.integrate", "sym.solve", "sym.evaluate"],
        )
    }
}

fn arguments(tool: &str, facts: &Facts, f: &Extracted) -> Args {
    let mut args = Map::new();
    match tool {
        // One claim is the tool's `equation` (`expr` is only its alias).
        "sym.verify" => match f.rhs.clone().map(|r| (f.lhs.clone(), r)).or_else(|| {
            // Two expressions named apart ("A and B", "lhs: A, rhs: B") are its sides.
            (!f.lhs.contains('=')).then(|| two_sides(&facts.q.raw)).flatten()
        }) {
            Some((l, r)) => {
                args.insert("lhs".into(), json!(l));
                args.insert("rhs".into(), json!(r));
            }
            None => {
                args.insert("equation".into(), json!(f.lhs));
            }
        },
        "sym.check" => {
            args.insert("lines".into(), json!(f.whole()));
        }
        "sym.derivation" => {
            args.insert("expr".into(), json!(f.whole()));
            let q = &facts.q;
            let op = if q.any(&["integrate", "integral", "antiderivative", "integrating"]).is_some() {
                "integrate"
            } else if q.any(&["differentiate", "derivative", "derive", "differentiating"]).is_some() {
                "differentiate"
            } else {
                "simplify"
            };
            args.insert("operation".into(), json!(op));
        }
        "sym.evaluate" => {
            args.insert("expr".into(), json!(f.lhs));
            if !f.subs.is_empty() {
                args.insert("subs".into(), json!(f.subs));
            }
        }
        "sym.differentiate" => {
            let e = f.whole();
            args.insert("expr".into(), json!(operand(&e)));
        }
        _ => {
            args.insert("expr".into(), json!(f.whole()));
        }
    }
    if matches!(tool, "sym.differentiate" | "sym.integrate" | "sym.solve" | "sym.derivation")
        && let Some(v) = &facts.var
    {
        args.insert("var".into(), json!(v));
    }
    if tool == "sym.differentiate"
        && let Some(n) = facts.order
    {
        args.insert("order".into(), json!(n));
    }
    if tool == "sym.integrate"
        && let Some(b) = &facts.bounds
    {
        args.insert("bounds".into(), json!([scalar(&b[0]), scalar(&b[1])]));
    }
    if tool == "sym.solve"
        && let Some(r) = facts.bounds.clone().or_else(|| solve_range(&facts.q.raw))
        && !f.whole().contains(';')
    {
        args.insert("range".into(), json!([scalar(&r[0]), scalar(&r[1])]));
    }
    // "∫ f dt": the differential names the variable.
    if matches!(tool, "sym.integrate" | "sym.derivation")
        && let Some(v) = &f.differential
    {
        args.entry("var").or_insert_with(|| json!(v));
    }
    args
}

/// The two sides of a comparison named apart: labelled ("lhs: A, rhs: B", "left side A,
/// right side B") or two expressions joined by "and" ("are A and B the same?"), at
/// least one of them written as notation. `None` otherwise.
fn two_sides(raw: &str) -> Option<(String, String)> {
    let toks = tokens(raw);
    let low: Vec<String> = toks.iter().map(|t| t.text.to_lowercase()).collect();
    let side = |text: &str| -> Option<String> {
        let t = text.trim().trim_matches([',', ';', '.', ':', '=']).trim();
        expression_in(t).or_else(|| {
            (!t.is_empty() && crate::parse_expr(t, &crate::Limits::default()).is_ok()).then(|| t.to_string())
        })
    };
    // Labelled sides: where each label ends, and where the next label starts.
    let label = |names: &[&[&str]]| -> Option<(usize, usize)> {
        (0..toks.len()).find_map(|i| {
            names.iter().find_map(|n| {
                let hit = low.get(i..i + n.len()).is_some_and(|ws| {
                    ws.iter()
                        .zip(n.iter())
                        .all(|(w, p)| w == p || w.strip_prefix(p).is_some_and(|r| r.starts_with('=')))
                });
                hit.then(|| {
                    let last = &toks[i + n.len() - 1];
                    let eq = last.text.find('=').map_or(last.end, |e| last.start + e + 1);
                    (toks[i].start, eq)
                })
            })
        })
    };
    if let (Some((_, l_end)), Some((r_start, r_end))) = (
        label(&[&["lhs"], &["left", "side"], &["left", "hand", "side"]]),
        label(&[&["rhs"], &["right", "side"], &["right", "hand", "side"]]),
    ) && l_end <= r_start
    {
        let rest = &raw[r_end..];
        // The right side runs to the end of its sentence.
        let stop = tokens(rest).iter().find(|t| t.colon).map_or(rest.len(), |t| t.end);
        if let (Some(l), Some(r)) = (side(&raw[l_end..r_start]), side(&rest[..stop])) {
            return Some((l, r));
        }
    }
    // "A and B", one of them notation.
    let names = symbols(&toks);
    let mathy = |k: usize| is_mathy(&toks[k].text) || names.iter().any(|n| *n == toks[k].text);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if mathy(i) {
            let s = i;
            while i + 1 < toks.len() && !toks[i].colon && mathy(i + 1) {
                i += 1;
            }
            runs.push((s, i));
        }
        i += 1;
    }
    let strong = |(a, b): (usize, usize)| (a..=b).any(|k| is_strong(&toks[k].text));
    runs.windows(2).find_map(|w| {
        let (l, r) = (w[0], w[1]);
        let joined = r.0 == l.1 + 2 && low[l.1 + 1] == "and" && !toks[l.1].colon;
        let text = |(a, b): (usize, usize)| raw[toks[a].start..toks[b].end].to_string();
        (joined && (strong(l) || strong(r)) && !text(l).contains('=') && !text(r).contains('='))
            .then(|| (text(l), text(r)))
    })
}

/// Cues naming an operation on the expression that follows ("the derivative of x^3").
const DERIVATIVE_OF: &[&str] = &["derivative of", "derivatives of", "slope of", "rate of change of"];
const INTEGRAL_OF: &[&str] = &["antiderivative of", "anti derivative of", "integral of", "primitive of"];

/// A stated result of calculus — "the derivative of A is B", "is the integral of A
/// equal to B?" — is a claim to verify, not a computation to run (and verifying `A = B`
/// would check the wrong claim). The derivative claim becomes `d/dv (A) = B`; an
/// indefinite integral claim `d/dv (B) = A` (an antiderivative is checked by
/// differentiating it); a definite one goes to `sym.integrate` with its bounds, so the
/// value can be compared; a derivative at a point goes to `sym.evaluate`. `None` when
/// the question states no result.
fn calculus_claim(q: &Question) -> Option<Claim> {
    let (integral, cue) = DERIVATIVE_OF
        .iter()
        .map(|c| (false, *c))
        .chain(INTEGRAL_OF.iter().map(|c| (true, *c)))
        .find(|(_, c)| q.has(c))?;
    let last = q.find(cue)? + cue.split_whitespace().count() - 1;
    let rest = q.rest_after(last);
    if !integral {
        // "the derivative of x^2 at x = 3": a value at a point (compare it with any
        // value the question states).
        if let Some(e) = extract(rest).filter(|e| !e.subs.is_empty() && e.rhs.is_none()) {
            let v = variable(q).or_else(|| only_variable(&e.lhs, &e.lhs))?;
            let n = order(q).unwrap_or(1);
            let d = if n == 1 { format!("d/d{v}") } else { format!("d^{n}/d{v}^{n}") };
            let mut args = Map::new();
            args.insert("expr".into(), json!(format!("{d} ({})", e.lhs)));
            args.insert("subs".into(), json!(e.subs));
            return Some(Claim { tool: "sym.evaluate", args });
        }
    }
    let (a_text, b_text) = split_claim(rest)?;
    let bounds = if integral { bounds(&q.raw) } else { None };
    let a_text = match bounds {
        Some(_) => cut_before_any(a_text, &[" from ", " between "]),
        None => a_text,
    };
    let (a, b) = (claim_side(a_text)?, claim_side(b_text)?);
    let v = variable(q).or_else(|| only_variable(&a, &b))?;
    let mut args = Map::new();
    if let Some(bounds) = bounds {
        args.insert("expr".into(), json!(a));
        args.insert("var".into(), json!(v));
        args.insert("bounds".into(), json!(bounds));
        return Some(Claim { tool: "sym.integrate", args });
    }
    let n = if integral { 1 } else { order(q).unwrap_or(1) };
    let d = if n == 1 { format!("d/d{v}") } else { format!("d^{n}/d{v}^{n}") };
    let (lhs, rhs) = if integral { (format!("{d} ({b})"), a) } else { (format!("{d} ({a})"), b) };
    args.insert("lhs".into(), json!(lhs));
    args.insert("rhs".into(), json!(rhs));
    Some(Claim { tool: "sym.verify", args })
}

/// One side of a stated result: the expression in it (a lone variable counts here,
/// where the words around it are already cut away); `None` when it holds an equation
/// or substitutions.
fn claim_side(text: &str) -> Option<String> {
    if let Some(e) = extract(text) {
        return (e.rhs.is_none() && e.subs.is_empty() && !e.lhs.contains('=')).then_some(e.lhs);
    }
    let t = text.trim().trim_end_matches(['?', ',', '.', ';', '!']).trim();
    (t.chars().count() == 1 && t.chars().all(char::is_alphabetic)).then(|| t.to_string())
}

/// Split "A is B", "A = B", "A equals B", "A is equal to B", "A is the same as B" at
/// the first joiner.
fn split_claim(rest: &str) -> Option<(&str, &str)> {
    // Longest first, so "is equal to" is taken whole rather than as "is".
    const JOIN: &[&[&str]] = &[
        &["is", "equal", "to"],
        &["is", "the", "same", "as"],
        &["the", "same", "as"],
        &["same", "as"],
        &["equal", "to"],
        &["equals"],
        &["equal"],
        &["gives"],
        &["is"],
    ];
    let toks = tokens(rest);
    let lower: Vec<String> = toks.iter().map(|t| t.text.to_lowercase()).collect();
    // "… at x = 3" is a point to evaluate at, not a stated result.
    if lower
        .iter()
        .enumerate()
        .any(|(i, w)| SUB_LEADS.contains(&w.as_str()) && toks[i + 1..].iter().take(2).any(|t| t.text.contains('=')))
    {
        return None;
    }
    for (i, t) in toks.iter().enumerate() {
        if let Some(eq) = rest[t.start..t.end].find('=') {
            let at = t.start + eq;
            return Some((&rest[..at], rest[at..].trim_start_matches('=')));
        }
        if let Some(j) = JOIN.iter().find(|j| lower[i..].iter().map(String::as_str).take(j.len()).eq(j.iter().copied()))
        {
            return Some((&rest[..t.start], &rest[toks[i + j.len() - 1].end..]));
        }
    }
    None
}

/// `text` up to the first of `marks` (lower-case ASCII), matched case-insensitively.
/// Searched in `text` itself: an offset found in `text.to_lowercase()` can point
/// elsewhere, since lower-casing can change byte lengths (`İ`, the Kelvin sign).
fn cut_before_any<'a>(text: &'a str, marks: &[&str]) -> &'a str {
    let at = text
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| marks.iter().any(|m| text[i..].get(..m.len()).is_some_and(|h| h.eq_ignore_ascii_case(m))));
    &text[..at.unwrap_or(text.len())]
}

/// The one variable of `a` and `b` together, or `x` when it is among several.
fn only_variable(a: &str, b: &str) -> Option<String> {
    let limits = crate::Limits::default();
    let mut vars = std::collections::BTreeSet::new();
    for t in [a, b] {
        vars.extend(crate::parse_expr(t, &limits).ok()?.free_symbols());
    }
    match vars.len() {
        1 => vars.into_iter().next(),
        _ if vars.contains("x") => Some("x".into()),
        _ => None,
    }
}

/// "with respect to t", "wrt t", "for y", "in terms of y": the variable named.
fn variable(q: &Question) -> Option<String> {
    named_after(q, &["with respect to", "respect to", "wrt", "w r t", "in terms of", "variable"], true)
        .or_else(|| leibniz(&q.raw))
        .or_else(|| named_after(q, &["for which", "for", "values of", "value of"], false))
        .or_else(|| asked_for(q))
}

/// A letter asked for at the end of a clause: "what is x?", "find p", "…, solve for a)".
fn asked_for(q: &Question) -> Option<String> {
    let w = |i: usize| q.words.get(i).map(|w| w.text.as_str());
    (0..q.words.len()).find_map(|i| {
        let at = match (w(i), w(i + 1)) {
            (Some("what"), Some("is")) => i + 2,
            (Some("what's" | "find"), _) => i + 1,
            _ => return None,
        };
        let v = q.words.get(at)?;
        let name = &q.raw[v.start..v.end];
        let ends =
            q.raw[v.end..].trim_start().chars().next().is_none_or(|c| matches!(c, '?' | '.' | ',' | '!' | ')' | ';'));
        (name.chars().count() == 1 && name.chars().all(char::is_alphabetic) && name != "a" && ends)
            .then(|| name.to_string())
    })
}

/// A variable named right after one of `phrases`, at any place it occurs ("simplify
/// this for me, then solve for t"): one letter (with an index: `c_out`), or, when
/// `greek`, a Greek letter's name ("wrt theta").
fn named_after(q: &Question, phrases: &[&str], greek: bool) -> Option<String> {
    for p in phrases {
        let pat: Vec<&str> = p.split_whitespace().collect();
        let len = pat.len();
        let places = (0..q.words.len())
            .filter(|&i| q.words.get(i..i + len).is_some_and(|ws| ws.iter().zip(&pat).all(|(w, p)| w.text == *p)));
        for i in places {
            let Some(next) = q.words.get(i + len) else { break };
            let one_letter = next.text.chars().count() == 1 && next.text.chars().all(char::is_alphabetic);
            // "for a quick check": the article before a word, not the variable a.
            let article = *p == "for"
                && next.text == "a"
                && q.words
                    .get(i + len + 1)
                    .is_some_and(|w| w.text.chars().count() >= 3 && !KNOWN.contains(&w.text.as_str()));
            // A name of several letters the expression uses ("with respect to Km").
            let symbol = greek && symbols(&tokens(&q.raw)).iter().any(|n| *n == q.raw[next.start..next.end]);
            if (one_letter && !article) || (greek && GREEK.contains(&next.text.as_str())) || symbol {
                // An index written with an underscore belongs to the name: `c_out`, `x_1`.
                let tail: String = q.raw[next.end..]
                    .strip_prefix('_')
                    .map(|t| t.chars().take_while(|c| c.is_alphanumeric()).collect())
                    .unwrap_or_default();
                let name = &q.raw[next.start..next.end];
                return Some(if tail.is_empty() { name.to_string() } else { format!("{name}_{tail}") });
            }
        }
    }
    None
}

/// The variable Leibniz notation names: `\frac{d}{dt}`, `\frac{\partial}{\partial y}`,
/// `d/dt`, `d^2/dt^2`, `∂/∂k`, `dy/dx`.
fn leibniz(raw: &str) -> Option<String> {
    for lead in ["\\partial ", "\\partial_", "{d}{d", "{d^2}{d"] {
        if let Some(at) = raw.rfind(lead) {
            let v: String = raw[at + lead.len()..].chars().take_while(|c| c.is_alphabetic()).collect();
            if v.chars().count() == 1 || GREEK.contains(&v.as_str()) {
                return Some(v);
            }
        }
    }
    raw.split_whitespace().find_map(|t| {
        let t = t.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | '?' | ':' | '.' | '[' | ']'));
        let rest = t.strip_prefix("d/d").or_else(|| t.strip_prefix("∂/∂")).or_else(|| {
            let (top, after) = t.split_once("/d")?;
            // d^2/dt^2, or dy/dx: one letter after the d on top.
            let dy =
                top.strip_prefix('d').is_some_and(|v| v.chars().count() == 1 && v.chars().all(char::is_alphabetic));
            (t.starts_with("d^") || dy).then_some(after)
        })?;
        let v: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
        (v.chars().count() == 1 || GREEK.contains(&v.as_str())).then_some(v)
    })
}

/// A variable named after "in" or "by" ("the derivative in t", "derive … by z"): a
/// letter that is a variable of the expression.
fn named_in(q: &Question, expr: &str) -> Option<String> {
    let letters: Vec<char> = expr.chars().collect();
    let stands_alone = |v: char| {
        letters.iter().enumerate().any(|(i, &c)| {
            c == v
                && !i.checked_sub(1).and_then(|j| letters.get(j)).is_some_and(|p| p.is_alphabetic())
                && !letters.get(i + 1).is_some_and(|n| n.is_alphabetic())
        })
    };
    q.words.windows(2).find_map(|w| {
        let v = w[1].text.chars().next()?;
        let name = &q.raw[w[1].start..w[1].end];
        (matches!(w[0].text.as_str(), "in" | "by")
            && name.chars().count() == 1
            && v.is_alphabetic()
            && name != "a"
            && stands_alone(name.chars().next()?))
        .then(|| name.to_string())
    })
}

/// Names of Greek letters, which name variables.
const GREEK: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi",
    "rho", "sigma", "tau", "phi", "chi", "psi", "omega",
];

/// Ordinals and counts of times that state a derivative's order.
const ORDINALS: &[(&str, u32)] = &[
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("2nd", 2),
    ("3rd", 3),
    ("4th", 4),
    ("5th", 5),
    ("6th", 6),
    ("7th", 7),
    ("8th", 8),
    ("9th", 9),
    ("10th", 10),
];
const TIMES: &[(&str, u32)] = &[
    ("twice", 2),
    ("thrice", 3),
    ("two times", 2),
    ("three times", 3),
    ("four times", 4),
    ("five times", 5),
    ("2 times", 2),
    ("3 times", 3),
    ("4 times", 4),
    ("5 times", 5),
];

/// The order of a derivative: an ordinal before "derivative" or "order" ("third
/// derivative", "2nd order"), "derivative of order 3", a count of times after
/// differentiating ("differentiate tan(x) twice", "… three times"), or Leibniz notation.
fn order(q: &Question) -> Option<u32> {
    let stated = ORDINALS
        .iter()
        .find(|(w, _)| q.has(&format!("{w} derivative")) || q.has(&format!("{w} order")))
        .map(|(_, n)| *n)
        .or_else(|| {
            let i = q.find("order")?;
            let n = q.words.get(i + 1)?.text.parse::<u32>().ok()?;
            (2..=20).contains(&n).then_some(n)
        })
        .or_else(|| {
            // "twice", "three times": only said of differentiating ("3 times t" is a product).
            q.any(&["differentiate", "differentiated", "differentiating", "derive", "diff"])?;
            TIMES.iter().find(|(w, _)| q.has(w)).map(|(_, n)| *n)
        });
    stated.or_else(|| {
        // Leibniz notation states it: d^3/dt^3.
        q.raw.split_whitespace().find_map(|t| {
            let n = t.strip_prefix("d^")?;
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<u32>().ok().filter(|n| (2..=20).contains(n))
        })
    })
}

/// "from a to b" or "between a and b".
fn bounds(raw: &str) -> Option<[String; 2]> {
    let toks = tokens(raw);
    for (i, t) in toks.iter().enumerate() {
        let (joiner, w) = match t.text.to_lowercase().as_str() {
            "from" => ("to", i),
            "between" => ("and", i),
            _ => continue,
        };
        let a = toks.get(w + 1)?;
        let j = toks.get(w + 2)?;
        let b = toks.get(w + 3)?;
        let inf = |t: &str| match t.to_lowercase().as_str() {
            "infinity" | "∞" | "oo" | "+infinity" => Some("oo".to_string()),
            "-infinity" | "-∞" | "-oo" => Some("-oo".to_string()),
            _ => None,
        };
        let end = |t: &Tok| inf(&t.text).or_else(|| is_mathy(&t.text).then(|| t.text.clone()));
        if j.text.eq_ignore_ascii_case(joiner)
            && let (Some(a), Some(b)) = (end(a), end(b))
        {
            return Some([a, b]);
        }
    }
    None
}

/// The range a solution is asked in, besides "from a to b" / "between a and b"
/// ([`bounds`]): an interval after a word that places it ("in [-1, 4]", "on the
/// interval (0, 2pi)", "x ∈ [0, 1]"), or a chain of inequalities ("0 < x < 3",
/// "0 ≤ t ≤ 2π"). The ends must read as numbers or constants.
fn solve_range(raw: &str) -> Option<[String; 2]> {
    let end = |t: &str| {
        let t = t.trim();
        // Letters only as a constant's name (pi, e, oo, \infty), never a variable.
        let letters: String = t.chars().filter(char::is_ascii_alphabetic).collect();
        let constants_only =
            letters.replace("infty", "").replace("pi", "").replace("oo", "").replace('e', "").is_empty();
        let ok = !t.is_empty()
            && t.len() <= 16
            && constants_only
            && t.chars().all(|c| c.is_ascii_alphanumeric() || "+-−*/. π\\".contains(c))
            && t.chars().any(|c| c.is_ascii_digit() || c.is_ascii_alphabetic() || c == 'π');
        ok.then(|| t.replace('−', "-"))
    };
    // An interval after a placing word.
    for (i, open) in raw.char_indices().filter(|(_, c)| matches!(c, '[' | '(')) {
        let lower = raw[..i].to_lowercase();
        let before = lower.trim_end();
        let before = ["the interval", "the range", "the domain", "interval", "range"]
            .iter()
            .find_map(|w| before.strip_suffix(w))
            .unwrap_or(before)
            .trim_end();
        let placed = ["in", "on", "over", "within", "inside", "∈", "\\in"].iter().any(|w| {
            before.strip_suffix(w).is_some_and(|b| b.is_empty() || !b.ends_with(|c: char| c.is_alphanumeric()))
        });
        if !placed {
            continue;
        }
        let rest = &raw[i + open.len_utf8()..];
        let Some(close) = rest.find([']', ')']) else { continue };
        let inner = &rest[..close];
        if inner.contains(['[', '(']) {
            continue;
        }
        if let Some((a, b)) = inner.split_once(',')
            && !b.contains(',')
            && let (Some(a), Some(b)) = (end(a), end(b))
        {
            return Some([a, b]);
        }
    }
    // A chain "a < x < b" (or ≤ / <=).
    let norm = raw.replace("<=", "≤").replace('<', "≤");
    let parts: Vec<&str> = norm.split('≤').collect();
    for w in parts.windows(3) {
        let a = w[0].trim_end().rsplit(|c: char| c.is_whitespace() || c == '(' || c == ',').next().unwrap_or("");
        let v = w[1].trim();
        let b = w[2]
            .split(|c: char| c.is_whitespace() || c == ')' || c == ',' || c == '?')
            .find(|t| !t.is_empty())
            .unwrap_or("");
        let is_var = v.chars().count() == 1 && v.chars().all(char::is_alphabetic);
        if is_var && let (Some(a), Some(b)) = (end(a), end(b)) {
            return Some([a, b]);
        }
    }
    None
}

/// What was found in the question: an expression, or two sides, and substitutions.
#[derive(Debug, Clone, PartialEq)]
struct Extracted {
    lhs: String,
    rhs: Option<String>,
    subs: Map<String, Value>,
    /// The variable of a differential right after the expression ("… dt").
    differential: Option<String>,
}

impl Extracted {
    fn from_expr(e: &str) -> Extracted {
        Extracted { lhs: e.to_string(), rhs: None, subs: Map::new(), differential: None }
    }

    fn whole(&self) -> String {
        match &self.rhs {
            Some(r) => format!("{} = {}", self.lhs, r),
            None => self.lhs.clone(),
        }
    }
}

#[derive(Debug, Clone)]
struct Tok {
    text: String,
    start: usize,
    end: usize,
    /// The piece ended with a colon ("solve for x: x^2 = 4") or a sentence: no expression runs on
    /// past it.
    colon: bool,
}

/// Whitespace-separated pieces with surrounding quotes and sentence punctuation
/// stripped.
fn tokens(raw: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in raw.char_indices().chain(std::iter::once((raw.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                start = None;
                let piece = &raw[s..i];
                let lead = piece.len() - piece.trim_start_matches(['`', '"', '\'', '“', '‘']).len();
                let body = piece.trim_start_matches(['`', '"', '\'', '“', '‘']);
                let body = body.trim_end_matches(['?', ',', ';', '!', '`', '"', '\'', '”', '’']);
                // A sentence's full stop is never part of a number or an expression ("… = 0.",
                // "(2a - 3b)^3."); an ellipsis stays.
                let stripped = body.strip_suffix('.').filter(|b| !b.ends_with('.'));
                // A question mark, an exclamation mark or a full stop ends the sentence,
                // and with it the expression ("= sin a cos b? I typed …").
                let sentence_end =
                    stripped.is_some() || piece.trim_end_matches(['`', '"', '\'', '”', '’']).ends_with(['?', '!']);
                let body = stripped.unwrap_or(body);
                let colon = body.ends_with(':') || sentence_end;
                let body = body.strip_suffix(':').unwrap_or(body);
                if !body.is_empty() {
                    out.push(Tok { text: body.to_string(), start: s + lead, end: s + lead + body.len(), colon });
                }
            }
            _ => {}
        }
    }
    out
}

fn is_mathy(t: &str) -> bool {
    // A hyphenated word ("taylor-expand", "co-author", "closed-form") is prose.
    // ("log-likelihood" too: a function's name before a word is still a word.)
    if t.contains('-')
        && t.split('-').all(|p| p.chars().count() >= 2 && p.chars().all(char::is_alphabetic))
        && t.split('-').any(|p| p.chars().count() >= 3 && !KNOWN.contains(&p.to_lowercase().as_str()))
    {
        return false;
    }
    // A word in brackets ("(solve for a)") is prose.
    let bare = t.trim_start_matches('(').trim_end_matches(')');
    if bare.len() != t.len()
        && bare.chars().count() >= 3
        && bare.chars().all(char::is_alphabetic)
        && !KNOWN.contains(&bare.to_lowercase().as_str())
    {
        return false;
    }
    if t.chars().any(|c| c.is_ascii_digit() || "+-*/^()=|\\_[]{}<>".contains(c) || UNICODE_MATH.contains(c)) {
        return true;
    }
    let lower = t.to_lowercase();
    (t.chars().count() == 1 && t.chars().all(char::is_alphabetic)) || KNOWN.contains(&lower.as_str()) || lower == "ln"
}

/// Mathematics typed with Unicode: the minus sign, products, powers, roots, partials.
const UNICODE_MATH: &str = "−×·÷²³⁴⁵⁶⁷⁸⁹⁰¹ⁿˣ√∂≤≥≠";

fn is_strong(t: &str) -> bool {
    t.chars().any(|c| c.is_ascii_digit() || "+-*/^()=|\\".contains(c) || UNICODE_MATH.contains(c))
        || KNOWN.contains(&t.to_lowercase().trim_end_matches(['(', ')']))
}

const JOINERS: &[&[&str]] = &[
    &["is", "equal", "to"],
    &["equal", "to"],
    &["equals"],
    &["equal"],
    &["is", "the", "same", "as"],
    &["the", "same", "as"],
    &["same", "as"],
    &["is", "the", "same", "thing", "as"],
    &["the", "same", "thing", "as"],
    &["same", "thing", "as"],
    &["is", "exactly"],
    &["exactly", "equal", "to"],
    &["exactly"],
    &["is", "really", "the", "same", "as"],
    &["really", "the", "same", "as"],
    &["vs"],
    &["versus"],
];

const SUB_LEADS: &[&str] =
    &["at", "when", "with", "where", "for", "if", "plug", "put", "setting", "substitute", "substituting"];

/// Find the expression (or the two sides of an equality) in a question. Mathematics
/// set between dollars (`$…$`, `$$…$$`) or `\(…\)` is the expression as written: one
/// such span is read alone (with any point stated outside it), several that continue
/// one another (`$a$ $= b$`) are lines of working, and otherwise the delimiters are
/// dropped and the question read as usual.
fn extract(raw: &str) -> Option<Extracted> {
    if !raw.contains('$')
        && let Some(lines) = working_lines(raw)
    {
        return Some(Extracted::from_expr(&lines));
    }
    let spans = math_spans(raw);
    match spans.as_slice() {
        [] => with_spoken(raw, extract_plain(raw)),
        [one] => {
            let mut inside = extract_plain(one)?;
            let outside = raw.replace(one, " ").replace("\\(", " ").replace("\\)", " ").replace('$', " ");
            if let Some(o) = extract_plain(&outside) {
                for (k, v) in o.subs {
                    inside.subs.entry(k).or_insert(v);
                }
            }
            Some(inside)
        }
        [_, rest @ ..] if rest.iter().all(|s| s.starts_with('=')) => {
            Some(Extracted { lhs: spans.join("\n"), rhs: None, subs: Map::new(), differential: None })
        }
        _ => extract_plain(&raw.replace("\\(", " ").replace("\\)", " ").replace('$', " ")),
    }
}

/// The one expression a piece of a question holds (no equation, no substitution), for
/// the readers of `router_more` that cut a question around its notation.
pub(crate) fn expression_in(raw: &str) -> Option<String> {
    let e = extract(raw)?;
    (e.rhs.is_none() && !e.lhs.contains('=')).then_some(e.lhs)
}

/// Mathematics said in words ("the derivative of x squared times sine x"): the stretch
/// of the question [`words::spoken`] reads, in notation, when the written reading found
/// nothing or only a piece of it ("sin x" of "sin x over x"); otherwise the written
/// reading as it is.
fn with_spoken(raw: &str, plain: Option<Extracted>) -> Option<Extracted> {
    let toks = tokens(raw);
    let words: Vec<String> = toks.iter().map(|t| t.text.to_lowercase()).collect();
    let Some((a, b, text)) = words::spoken(&words) else { return plain };
    let span = &raw[toks[a].start..toks[b - 1].end];
    match plain {
        None => {
            let differential = toks.get(b).and_then(|t| differential_var(&t.text));
            Some(Extracted { lhs: text, rhs: None, subs: Map::new(), differential })
        }
        Some(p) if p.rhs.is_none() && span.contains(p.lhs.as_str()) && span.len() > p.lhs.len() => {
            Some(Extracted { lhs: text, ..p })
        }
        Some(p) => Some(p),
    }
}

/// Lines of working: the line of mathematics above the first line that opens with "="
/// (its expression, when prose comes first on it), and the "=" lines under it.
fn working_lines(raw: &str) -> Option<String> {
    let lines: Vec<&str> = raw.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let first_eq = lines.iter().position(|l| l.starts_with('='))?;
    let head = lines[..first_eq].last()?;
    let head = if tokens(head).iter().all(|t| is_mathy(&t.text)) {
        head.trim_end_matches(['?', ',', ';']).to_string()
    } else {
        extract_plain(head)?.whole()
    };
    let rest = lines[first_eq..].iter().take_while(|l| l.starts_with('='));
    Some(std::iter::once(head.as_str()).chain(rest.copied()).collect::<Vec<_>>().join("\n"))
}

/// The mathematics set between `$…$`, `$$…$$` or `\(…\)`, trimmed, in order.
fn math_spans(raw: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = raw;
    loop {
        let (open, close) = match (rest.find('$'), rest.find("\\(")) {
            (Some(d), Some(p)) if p < d => ("\\(", "\\)"),
            (Some(_), _) if rest.contains("$$") && rest.find("$$") == rest.find('$') => ("$$", "$$"),
            (Some(_), _) => ("$", "$"),
            (None, Some(_)) => ("\\(", "\\)"),
            (None, None) => return out,
        };
        let Some(at) = rest.find(open) else { return out };
        let body = &rest[at + open.len()..];
        let Some(end) = body.find(close) else { return out };
        let span = body[..end].trim().trim_end_matches([',', ';', '.', '?']).trim();
        if !span.is_empty() {
            out.push(span);
        }
        rest = &body[end + close.len()..];
    }
}

/// Names of more than one letter the question uses as symbols ("Vmax", "Km", "eps"):
/// those written inside notation ("S/(Km+S)", "Vmax/(1+Km/S)") or given a value
/// ("Vmax = 12"). A word standing alone elsewhere with one of these names is part of
/// the expression, not prose.
fn symbols(toks: &[Tok]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let lower = name.to_lowercase();
        if name.chars().count() >= 2
            && name.chars().next().is_some_and(char::is_alphabetic)
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !KNOWN.contains(&lower.as_str())
            && !out.iter().any(|n| n == name)
        {
            out.push(name.to_string());
        }
    };
    for (i, t) in toks.iter().enumerate() {
        // Notation, not a hyphenated word ("log-likelihood", "Lennard-Jones").
        if t.text.contains(|c: char| "+-*/^()=".contains(c)) && is_mathy(&t.text) {
            // A call ("sigmoid(") names a function, not a symbol.
            for piece in t.text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !piece.is_empty() && !t.text.contains(&format!("{piece}(")) {
                    add(piece);
                }
            }
        }
        if toks.get(i + 1).is_some_and(|n| n.text == "=" || n.text.starts_with('=')) {
            add(&t.text);
        }
        if let Some((name, value)) = t.text.split_once('=')
            && !value.is_empty()
        {
            add(name);
        }
    }
    out
}

/// The values a question states for letters ("at x=1.5", "plug in D=1e-9, t=60",
/// "with r = 0.05 and n = 10"), read beside an expression given apart.
fn stated_values(raw: &str) -> Map<String, Value> {
    let toks = tokens(raw);
    let mut out = Map::new();
    let mut i = 0;
    while i < toks.len() {
        let lead = i.checked_sub(1).map(|k| toks[k].text.to_lowercase());
        let plugged = lead.as_deref() == Some("in")
            && i.checked_sub(2)
                .is_some_and(|k| matches!(toks[k].text.to_lowercase().as_str(), "plug" | "put" | "substitute"));
        if is_mathy(&toks[i].text) && (plugged || lead.as_deref().is_some_and(|l| SUB_LEADS.contains(&l))) {
            let s = i;
            while i + 1 < toks.len() && !toks[i].colon && (is_mathy(&toks[i + 1].text) || toks[i + 1].text == "and") {
                i += 1;
            }
            let text = &raw[toks[s].start..toks[i].end];
            if text.contains('=') {
                for (k, v) in parse_subs(text) {
                    out.entry(k).or_insert(v);
                }
            }
        }
        i += 1;
    }
    out
}

/// [`extract`] over a question without `$` delimiters.
fn extract_plain(raw: &str) -> Option<Extracted> {
    let toks = tokens(raw);
    let names = symbols(&toks);
    let is_mathy = |t: &str| is_mathy(t) || names.iter().any(|n| n == t);
    // runs of math-looking tokens: (first, last) token indices
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if is_mathy(&toks[i].text) {
            let s = i;
            while i + 1 < toks.len() && !toks[i].colon && is_mathy(&toks[i + 1].text) {
                i += 1;
            }
            runs.push((s, i));
        }
        i += 1;
    }
    let text = |(a, b): (usize, usize)| raw[toks[a].start..toks[b].end].to_string();
    let strong = |(a, b): (usize, usize)| (a..=b).any(|k| is_strong(&toks[k].text));
    // substitutions: a run with '=' right after "at"/"when"/…
    let mut subs = Map::new();
    let mut sub_runs = Vec::new();
    for &(a, b) in &runs {
        let lead = a.checked_sub(1).map(|k| toks[k].text.to_lowercase());
        // "plug in D=1e-9": "in" after a verb of substituting leads values too.
        let plugged = lead.as_deref() == Some("in")
            && a.checked_sub(2)
                .is_some_and(|k| matches!(toks[k].text.to_lowercase().as_str(), "plug" | "put" | "substitute"));
        // "at m=2 and c = 3": a value after "and" continues the values before it.
        let continued = lead.as_deref() == Some("and")
            && a.checked_sub(2).is_some_and(|k| sub_runs.iter().any(|r: &(usize, usize)| r.1 == k));
        if (plugged || continued || lead.as_deref().is_some_and(|l| SUB_LEADS.contains(&l)))
            && text((a, b)).contains('=')
        {
            let parsed = parse_subs(&text((a, b)));
            if !parsed.is_empty() {
                subs.extend(parsed);
                sub_runs.push((a, b));
            }
        }
    }
    // A derivative operator alone ("d^3/dt^3 of …") operates on the expression; it is
    // not one, while another run is there.
    let operator_only = |(a, b): (usize, usize)| a == b && after_operator(&toks[a].text).is_some_and(str::is_empty);
    let mut candidates: Vec<(usize, usize)> =
        runs.iter().copied().filter(|r| strong(*r) && !sub_runs.contains(r)).collect();
    if candidates.iter().any(|r| !operator_only(*r)) {
        candidates.retain(|r| !operator_only(*r));
    }
    // two sides joined by "equal to" / "equals" / "the same as" (one side may be a lone
    // letter: "… equals p")
    let sides: Vec<(usize, usize)> = runs.iter().copied().filter(|r| !sub_runs.contains(r)).collect();
    for w in sides.windows(2) {
        let (l, r) = (w[0], w[1]);
        if !strong(l) && !strong(r) {
            continue;
        }
        let between: Vec<String> = toks[l.1 + 1..r.0].iter().map(|t| t.text.to_lowercase()).collect();
        if JOINERS.iter().any(|j| between.iter().map(String::as_str).eq(j.iter().copied())) {
            return Some(Extracted { lhs: text(l), rhs: Some(text(r)), subs, differential: None });
        }
    }
    // Only values stated ("value of k T at T=300 with k = …"): the letters they are
    // given for, written apart, are the expression.
    if candidates.is_empty() && !subs.is_empty() {
        let named =
            |(a, b): (usize, usize)| (a..=b).all(|k| subs.contains_key(toks[k].text.as_str()) || toks[k].text == "*");
        if let Some(r) = sides.iter().copied().find(|r| named(*r)) {
            candidates.push(r);
        }
    }
    let best = candidates.into_iter().max_by_key(|r| (toks[r.1].end - toks[r.0].start, std::cmp::Reverse(r.0)))?;
    let mut lhs = text(best);
    // A differential (∫ … dx, "… dV") closes the expression and names its variable,
    // inside the run or right after it.
    let mut differential = None;
    let last = &toks[best.1].text;
    if best.1 > best.0
        && let Some(v) = differential_var(last)
    {
        lhs = raw[toks[best.0].start..toks[best.1 - 1].end].to_string();
        differential = Some(v);
    } else if let Some(next) = toks.get(best.1 + 1) {
        differential = differential_var(&next.text);
    }
    // "A == B": a comparison written as code, two sides.
    if let Some((l, r)) = lhs.split_once("==")
        && !r.contains('=')
        && !l.trim().is_empty()
        && !r.trim().is_empty()
    {
        return Some(Extracted { lhs: l.trim().to_string(), rhs: Some(r.trim().to_string()), subs, differential });
    }
    Some(Extracted { lhs, rhs: None, subs, differential })
}

/// What follows a derivative operator written before it (`d/dx`, `d^2/dx^2`, `∂/∂y`,
/// `\frac{d}{dx}`, `\frac{\partial}{\partial y}`, `dy/dx`), with an "of" and the
/// brackets around it dropped: `d/dx [x^3 ln x]` → `x^3 ln x`. Without an operator,
/// the text as it is.
fn operand(e: &str) -> &str {
    let Some(rest) = after_operator(e) else { return e.trim() };
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("of ").unwrap_or(rest).trim();
    for (open, close) in [("\\left(", "\\right)"), ("\\left[", "\\right]"), ("[", "]")] {
        if let Some(inner) = rest.strip_prefix(open).and_then(|r| r.strip_suffix(close)) {
            return inner.trim();
        }
    }
    if rest.is_empty() { e.trim() } else { rest }
}

/// The text after a leading derivative operator, if `t` opens with one.
fn after_operator(t: &str) -> Option<&str> {
    let t = t.trim_start();
    for open in ["\\frac{d}{d", "\\frac{\\partial}{\\partial ", "\\frac{\\partial}{\\partial_"] {
        if let Some(r) = t.strip_prefix(open) {
            let v = r.chars().take_while(|c| c.is_alphabetic()).map(char::len_utf8).sum::<usize>();
            return r[v..].strip_prefix('}').filter(|_| v > 0);
        }
    }
    if let Some(r) = t.strip_prefix("\\frac{d^") {
        let after = &r[r.find("}{d")? + 3..];
        return after.find('}').map(|c| &after[c + 1..]);
    }
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    let head = &t[..end];
    // d/dx, ∂/∂y, d^2/dx^2, dy/dx: the whole first token is the operator.
    let dy = head.split_once("/d").is_some_and(|(top, _)| top.chars().count() == 2 && top.starts_with('d'));
    let shaped = head.starts_with("d/d") || head.starts_with("∂/∂") || head.starts_with("d^") || dy;
    (shaped && leibniz(head).is_some() && !head.contains(['(', '['])).then(|| &t[end..])
}

/// The variable of a differential: `dx`, `dt`, `dV`, `dθ`, `\,dx`.
fn differential_var(t: &str) -> Option<String> {
    let v = t.trim_start_matches("\\,").strip_prefix('d')?;
    let one = v.chars().count() == 1 && v.chars().all(char::is_alphabetic) && t != "do";
    (one || GREEK.contains(&v)).then(|| v.to_string())
}

fn parse_subs(text: &str) -> Map<String, Value> {
    let mut out = Map::new();
    for part in text.split([',', ';']).flat_map(|p| p.split(" and ")) {
        if let Some((k, v)) = part.split_once('=') {
            let (k, v) = (k.trim(), v.trim());
            if !k.is_empty() && !v.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_') {
                out.insert(k.to_string(), scalar(v));
            }
        }
    }
    out
}

/// A value as the tools take it (`Scalar`): a number when the text is one ("2", "-1",
/// "0.05", "8.617e-5"), otherwise the text with LaTeX's constants and infinity in the
/// parser's words (`\pi` → `pi`, `∞`/`\infty`/"infinity" → `oo`) and a sentence's
/// full stop dropped.
pub(crate) fn scalar(text: &str) -> Value {
    let t = text.trim().trim_end_matches(['?', ',', ';', '!', '$']);
    let t = t.strip_suffix('.').filter(|b| !b.ends_with('.')).unwrap_or(t).trim();
    let t = t.replace("\\infty", "oo").replace('∞', "oo").replace("\\pi", "pi").replace('π', "pi");
    let t = match t.to_lowercase().as_str() {
        "infinity" | "+infinity" | "+oo" | "inf" => "oo".to_string(),
        "-infinity" | "-inf" | "−oo" => "-oo".to_string(),
        _ => t,
    };
    if let Ok(n) = t.parse::<i64>() {
        return Value::from(n);
    }
    match t.parse::<f64>() {
        Ok(f) if f.is_finite() && t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')) => {
            serde_json::Number::from_f64(f).map_or(Value::String(t), Value::Number)
        }
        _ => Value::String(t),
    }
}

/// Unit words that mark a conversion question.
const UNITS: &[&str] = &[
    "mph",
    "km/h",
    "kph",
    "ev",
    "kev",
    "mev",
    "joule",
    "joules",
    "j",
    "kj",
    "cal",
    "kcal",
    "calories",
    "m",
    "km",
    "cm",
    "mm",
    "nm",
    "meter",
    "meters",
    "metre",
    "metres",
    "mile",
    "miles",
    "ft",
    "feet",
    "foot",
    "inch",
    "inches",
    "s",
    "ms",
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "year",
    "years",
    "kg",
    "g",
    "gram",
    "grams",
    "lb",
    "lbs",
    "pound",
    "pounds",
    "oz",
    "w",
    "kw",
    "watt",
    "watts",
    "kwh",
    "wh",
    "n",
    "newton",
    "newtons",
    "pa",
    "kpa",
    "bar",
    "atm",
    "psi",
    "k",
    "kelvin",
    "celsius",
    "fahrenheit",
    "°c",
    "°f",
    "l",
    "liter",
    "liters",
    "litre",
    "litres",
    "ml",
    "gallon",
    "gallons",
    "hz",
    "khz",
    "mhz",
    "ghz",
    "v",
    "volt",
    "volts",
    "a",
    "amp",
    "amps",
    "b",
    "kb",
    "mb",
    "gb",
    "tb",
    "bytes",
    "bits",
    "flops",
    "m/s",
    "km/s",
    "ly",
    "au",
    "parsec",
    "kj/mol",
    "kcal/mol",
    "j/mol",
    "ev/particle",
    "pascal",
    "pascals",
    "hpa",
    "mpa",
    "gpa",
    "torr",
    "mmhg",
    "angstrom",
    "angstroms",
    "å",
];

/// "3.2 eV in joules", "60 mph to km/h": a number, a unit, then `in`/`to`/`into`/`as`
/// and a unit. Returns the conversion text.
fn units_fragment(raw: &str) -> Option<String> {
    let toks = tokens(raw);
    let unit = |t: &Tok| UNITS.contains(&t.text.to_lowercase().as_str());
    // "how many joules is 1 eV" / "how many km are in 3 miles"
    for w in toks.windows(6) {
        if w[0].text.eq_ignore_ascii_case("how") && w[1].text.eq_ignore_ascii_case("many") && unit(&w[2]) {
            let verb = w[3].text.to_lowercase();
            let (n, u) = if matches!(verb.as_str(), "is" | "in") { (&w[4], &w[5]) } else { continue };
            if n.text.parse::<f64>().is_ok() && unit(u) {
                return Some(format!("{} {} in {}", n.text, u.text, w[2].text));
            }
        }
    }
    for w in toks.windows(7) {
        if w[0].text.eq_ignore_ascii_case("how")
            && w[1].text.eq_ignore_ascii_case("many")
            && unit(&w[2])
            && w[3].text.eq_ignore_ascii_case("are")
            && w[4].text.eq_ignore_ascii_case("in")
            && w[5].text.parse::<f64>().is_ok()
            && unit(&w[6])
        {
            return Some(format!("{} {} in {}", w[5].text, w[6].text, w[2].text));
        }
    }
    for (i, t) in toks.iter().enumerate() {
        if t.text.parse::<f64>().is_err() {
            continue;
        }
        let unit = toks.get(i + 1)?;
        if !UNITS.contains(&unit.text.to_lowercase().as_str()) {
            continue;
        }
        // "expressed in", "converted to": the participle is not part of the conversion.
        let k = if toks.get(i + 2).is_some_and(|j| matches!(j.text.to_lowercase().as_str(), "expressed" | "converted"))
        {
            i + 3
        } else {
            i + 2
        };
        let (j, target) = (toks.get(k)?, toks.get(k + 1)?);
        let joiner = j.text.to_lowercase();
        if ["in", "to", "into", "as", "->", "→"].contains(&joiner.as_str())
            && UNITS.contains(&target.text.to_lowercase().as_str())
        {
            let end = toks[(k + 1)..]
                .iter()
                .take_while(|t| UNITS.contains(&t.text.to_lowercase().as_str()) || t.text == "per")
                .last()?;
            // An arrow is read as "to"; the rest as written.
            let joiner = if matches!(joiner.as_str(), "->" | "→") { "to" } else { j.text.as_str() };
            return Some(format!("{} {} {joiner} {}", t.text, unit.text, &raw[target.start..end.end]));
        }
    }
    None
}

/// The evidence that decides what no rule claims (`attest_core::score`): weighted
/// words and phrases per tool, normalised (lemmas, synonyms) before matching.
pub static SCORING: Scoring = Scoring { cues: CUES, writes: WRITES, min: 3, margin: 2 };

/// Tools that write, and the verbs that must open a question asking for them.
const WRITES: &[Write] = &[];

/// The cues, by tool.
static CUES: &[Cue] = &[
    cue(
        "sym.simplify",
        3,
        &[
            "simpl*",
            "compact*",
            "neater",
            "tidy",
            "clean up",
            "shorter",
            "multiply out",
            "factor*",
            "reduce",
            "combine",
        ],
    ),
    cue("sym.simplify", 2, &["expand", "written"]),
    cue("sym.solve", 3, &["solv*", "root*", "zero*", "satisf*", "intercept*", "for which"]),
    cue("sym.solve", 2, &["where does", "when does", "what value*"]),
    cue(
        "sym.differentiate",
        3,
        &[
            "derivativ*",
            "d * dx",
            "d * dt",
            "d * dy",
            "d * dz",
            "gradient",
            "wrt",
            "partial",
            "slope",
            "rate of change",
            "differentiat*",
        ],
    ),
    cue("sym.integrate", 3, &["integr*", "area under", "antideriv*"]),
    cue(
        "sym.verify",
        3,
        &[
            "identity",
            "equal*",
            "true or false",
            "is that right",
            "is it right",
            "hold*",
            "same as",
            "equivalent",
            "verify",
            "sanity check",
        ],
    ),
    cue("sym.evaluate", 3, &["how many", "numeric*", "decimal*", "convert", "plug", "substitut*"]),
    cue("sym.evaluate", 2, &["value", "numbers"]),
    cue(
        "sym.check",
        3,
        &[
            "each line",
            "line by line",
            "my working",
            "where * wrong",
            "each step",
            "every step",
            "mistake",
            "go wrong",
            "breaks",
        ],
    ),
    cue(
        "sym.derivation",
        3,
        &["show me how", "steps", "step by step", "rule by rule", "walk me through", "how you'd", "how would you"],
    ),
    cue("sym.limit", 3, &["limit", "lim", "approach*", "tends to"]),
    cue("sym.series", 3, &["taylor", "maclaurin", "series expansion", "power series", "expand around", "expand about"]),
    cue("sym.sum", 3, &["sum", "converg*", "closed form"]),
    cue("sym.matrix", 3, &["matrix", "matric*", "eigen*", "determinant", "transpose", "inverse", "rank of"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_the_expression_not_the_sentence() {
        let d = route("simplify (x^2-1)/(x-1)", "");
        assert_eq!(d.tool.as_deref(), Some("sym.simplify"));
        assert_eq!(d.args["expr"], "(x^2-1)/(x-1)");
        let v = route("is sin^2 x + cos^2 x equal to 1?", "");
        assert_eq!(v.tool.as_deref(), Some("sym.verify"));
        assert_eq!(v.args["lhs"], "sin^2 x + cos^2 x");
        assert_eq!(v.args["rhs"], "1");
    }

    #[test]
    fn an_operation_misspelt_is_read_as_its_name() {
        assert_eq!(spelled("smplfy x(x+1) - x"), "simplify x(x+1) - x");
        assert_eq!(spelled("intgrate sec(x)^2, please"), "integrate sec(x)^2, please");
        assert_eq!(spelled("Simplyfy (x^4 - 1)"), "simplify (x^4 - 1)");
        assert_eq!(spelled("diferentiate t^2"), "differentiate t^2");
        // Inflections, real words near a name and short words stay as written.
        for kept in [
            "simply put, simplified and integrating",
            "on the interval [0, 1], the integrand",
            "a differential equation with factors",
            "solved, solves, sold",
        ] {
            assert_eq!(spelled(kept), kept);
        }
    }

    #[test]
    fn a_limit_is_read_in_any_order_and_asked_back_without_a_point() {
        let d = route("what does 1/x do as x approaches 0 from the left", "");
        assert_eq!(d.tool.as_deref(), Some("sym.limit"), "{d:?}");
        assert_eq!((d.args["expr"].as_str(), d.args["to"].as_i64()), (Some("1/x"), Some(0)));
        assert_eq!(d.args["direction"], "left");
        let at = route("does (x^2 - 4)/(x - 2) have a limit at x = 2", "");
        assert_eq!((at.tool.as_deref(), at.args["to"].as_i64()), (Some("sym.limit"), Some(2)), "{at:?}");
        let given = route("limit at infinity?", "(3x^2+1)/(x^2-2)");
        assert_eq!((given.tool.as_deref(), given.args["to"].as_str()), (Some("sym.limit"), Some("oo")), "{given:?}");
        // No point, or no expression: asked back, nothing invented.
        for q in ["what is the limit of sin(x)/x?", "what is the limit as x goes to 0?", "limit at 0 please"] {
            assert_eq!(route(q, "").tool, None, "{q}");
        }
        // A point without a word of limits is an evaluation's, not a limit's.
        assert_ne!(route("evaluate x^2 + 1 at x = 3", "").tool.as_deref(), Some("sym.limit"));
    }

    #[test]
    fn two_sides_are_read_when_named_apart() {
        assert_eq!(two_sides("are sqrt(x^2) and x the same?"), Some(("sqrt(x^2)".into(), "x".into())));
        assert_eq!(
            two_sides("lhs (x^3+1)/(x+1), rhs x^2 - x + 1. equal?"),
            Some(("(x^3+1)/(x+1)".into(), "x^2 - x + 1".into()))
        );
        assert_eq!(
            two_sides("left side e^(a+b), right side e^a times e^b"),
            Some(("e^(a+b)".into(), "e^a e^b".into()))
        );
        // Equations joined by "and" are a system, not two sides; words alone are none.
        assert_eq!(two_sides("x + y = 3 and x - y = 1"), None);
        assert_eq!(two_sides("are these two the same?"), None);
    }

    #[test]
    fn names_of_several_letters_are_symbols_when_used_as_symbols() {
        let names = |q: &str| symbols(&tokens(q));
        assert_eq!(names("check that Vmax S/(Km+S) equals Vmax/(1+Km/S)"), ["Km", "Vmax"]);
        assert_eq!(names("value of kcat E with kcat = 3"), ["kcat"]);
        assert!(names("the log-likelihood of sigmoid(x) for the Lennard-Jones model").is_empty());
        let d = route("value of k T at T=300 with k = 2", "");
        assert_eq!((d.tool.as_deref(), d.args["expr"].as_str()), (Some("sym.evaluate"), Some("k T")), "{d:?}");
    }

    #[test]
    fn values_stated_beside_a_given_expression_are_read() {
        let d = route("value at x=1.5", "x^3 - 2x + 1");
        assert_eq!(d.args["subs"]["x"], 1.5, "{d:?}");
    }

    #[test]
    fn declines_and_asks_back() {
        let d = route("are the numbers in my draft right?", "");
        assert_eq!(d.tool, None);
        assert_eq!(d.options[0], "runs.claims_check");
        assert!(d.options.iter().any(|o| o == "sym.simplify"), "{:?}", d.options);
        let a = route("", "x^2 + 1");
        assert_eq!(a.tool, None);
        assert!(a.options.len() >= 2);
        assert_eq!(route("find the antiderivative of x^2", "").tool.as_deref(), Some("sym.integrate"));
    }
}
