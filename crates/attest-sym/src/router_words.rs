//! Mathematics said in words: "x squared times sine x", "one over x squared plus one",
//! "e to the minus x times sine of x", "sin x over x". [`spoken`] finds the longest
//! stretch of a question that reads as an expression in words and writes it in the
//! parser's notation (`x^2 sin(x)`, `1/(x^2 + 1)`, `e^(-x) sin(x)`, `sin(x)/x`). A
//! stretch counts only when it says an operation in words (plus, times, over, squared,
//! "to the", a function's name spelled out…) and its notation parses: a question with
//! no mathematics in words gets nothing, and nothing is invented.
//!
//! Grammar, over lower-cased words (sentence punctuation dropped):
//! `sum := product (("plus"|"+"|"minus"|"-") product)*`;
//! `product := power (("times"|"multiplied by"|"*") power | power)* ("over"|"divided by"|"/") sum`;
//! `power := unary ("squared"|"cubed"|"to the" ["power" ["of"]] exponent)*`;
//! `unary := ("minus"|"negative") unary | atom`;
//! `atom := number | letter | Greek name | written token | function ["of"] ["the"] power`.
//! "over" takes the rest of the stretch as its denominator, as it is said
//! ("one over x squared plus one" is `1/(x^2 + 1)`).

/// Number words.
const NUMBERS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("eleven", "11"),
    ("twelve", "12"),
    ("twenty", "20"),
    ("hundred", "100"),
    ("half", "1/2"),
];

/// Ordinal exponents ("x to the fourth").
const POWERS: &[(&str, &str)] = &[
    ("second", "2"),
    ("third", "3"),
    ("fourth", "4"),
    ("fifth", "5"),
    ("sixth", "6"),
    ("seventh", "7"),
    ("eighth", "8"),
    ("ninth", "9"),
    ("tenth", "10"),
];

/// Functions by their spoken names (one or two words) and the parser's name.
const FUNCTIONS: &[(&[&str], &str)] = &[
    (&["square", "root"], "sqrt"),
    (&["natural", "log"], "ln"),
    (&["natural", "logarithm"], "ln"),
    (&["hyperbolic", "sine"], "sinh"),
    (&["hyperbolic", "cosine"], "cosh"),
    (&["hyperbolic", "tangent"], "tanh"),
    (&["arc", "tangent"], "atan"),
    (&["sine"], "sin"),
    (&["sin"], "sin"),
    (&["cosine"], "cos"),
    (&["cos"], "cos"),
    (&["tangent"], "tan"),
    (&["tan"], "tan"),
    (&["sinh"], "sinh"),
    (&["cosh"], "cosh"),
    (&["tanh"], "tanh"),
    (&["arctan"], "atan"),
    (&["secant"], "sec"),
    (&["sec"], "sec"),
    (&["log"], "log"),
    (&["logarithm"], "log"),
    (&["ln"], "ln"),
    (&["exp"], "exp"),
    (&["exponential"], "exp"),
    (&["sqrt"], "sqrt"),
    (&["root"], "sqrt"),
];

/// Greek letters' names, which name variables.
const GREEK: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "epsilon", "theta", "kappa", "lambda", "mu", "nu", "rho", "sigma", "tau", "phi",
    "omega",
];

/// A term built while reading, with how it binds: `Atom` needs no brackets anywhere,
/// `Product` needs them under a power or a division, `Sum` also inside a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Bind {
    Atom,
    Product,
    Sum,
}

#[derive(Debug, Clone)]
struct Term {
    text: String,
    bind: Bind,
}

impl Term {
    fn atom(t: impl Into<String>) -> Term {
        Term { text: t.into(), bind: Bind::Atom }
    }
    /// Bracketed when it binds more loosely than `at`.
    fn within(&self, at: Bind) -> String {
        if self.bind > at { format!("({})", self.text) } else { self.text.clone() }
    }
}

struct Reader<'a> {
    words: &'a [String],
    at: usize,
    /// An operation was said in words (not only written notation).
    spoken: bool,
}

impl Reader<'_> {
    fn peek(&self, k: usize) -> Option<&str> {
        self.words.get(self.at + k).map(String::as_str)
    }
    fn says(&self, phrase: &[&str]) -> bool {
        phrase.iter().enumerate().all(|(k, w)| self.peek(k) == Some(w))
    }
    fn eat(&mut self, phrase: &[&str]) -> bool {
        let yes = self.says(phrase);
        if yes {
            self.at += phrase.len();
        }
        yes
    }

    fn sum(&mut self) -> Option<Term> {
        let mut out = self.product()?;
        loop {
            let save = self.at;
            let op = if self.eat(&["plus"]) {
                self.spoken = true;
                "+"
            } else if self.eat(&["minus"]) {
                self.spoken = true;
                "-"
            } else if self.eat(&["+"]) {
                "+"
            } else if self.eat(&["-"]) {
                "-"
            } else {
                return Some(out);
            };
            match self.product() {
                Some(t) => {
                    out = Term { text: format!("{} {op} {}", out.text, t.within(Bind::Product)), bind: Bind::Sum };
                }
                None => {
                    self.at = save;
                    return Some(out);
                }
            }
        }
    }

    fn product(&mut self) -> Option<Term> {
        let mut out = self.power()?;
        loop {
            let save = self.at;
            if self.eat(&["over"]) || self.eat(&["divided", "by"]) || self.eat(&["/"]) {
                self.spoken = true;
                // The denominator is the rest of what is said.
                match self.sum() {
                    Some(d) => {
                        let text = format!("{}/{}", out.within(Bind::Atom), d.within(Bind::Atom));
                        return Some(Term { text, bind: Bind::Product });
                    }
                    None => {
                        self.at = save;
                        return Some(out);
                    }
                }
            }
            let said = self.eat(&["times"]) || self.eat(&["multiplied", "by"]) || self.eat(&["*"]);
            if said {
                self.spoken = true;
            } else if matches!(self.peek(0), Some("minus" | "negative" | "-"))
                || self.peek(0).is_some_and(|w| NUMBERS.iter().any(|(n, _)| *n == w) || w.parse::<f64>().is_ok())
            {
                // "t cubed minus two t" is a difference, not a product with -2; a number
                // after an expression ("cos(2x) three times", "… + 6 zero") is prose.
                return Some(out);
            }
            match self.power() {
                Some(t) => {
                    out = Term {
                        text: format!("{} {}", out.within(Bind::Product), t.within(Bind::Product)),
                        bind: Bind::Product,
                    };
                }
                None => {
                    self.at = save;
                    return Some(out);
                }
            }
        }
    }

    fn power(&mut self) -> Option<Term> {
        let mut out = self.unary()?;
        loop {
            let exponent = if self.eat(&["squared"]) {
                Some(Term::atom("2"))
            } else if self.eat(&["cubed"]) {
                Some(Term::atom("3"))
            } else if self.says(&["to", "the"]) {
                let save = self.at;
                self.at += 2;
                self.eat(&["power"]);
                self.eat(&["of"]);
                let ordinal = self.peek(0).and_then(|w| POWERS.iter().find(|(n, _)| *n == w)).map(|(_, d)| *d);
                let e = match ordinal {
                    Some(d) => {
                        self.at += 1;
                        self.eat(&["power"]);
                        Some(Term::atom(d))
                    }
                    None => self.unary(),
                };
                if e.is_none() {
                    self.at = save;
                }
                e
            } else {
                None
            };
            let Some(e) = exponent else { return Some(out) };
            self.spoken = true;
            out = Term { text: format!("{}^{}", out.within(Bind::Atom), e.within(Bind::Atom)), bind: Bind::Atom };
        }
    }

    fn unary(&mut self) -> Option<Term> {
        let save = self.at;
        if self.eat(&["minus"]) || self.eat(&["negative"]) {
            self.spoken = true;
            match self.unary() {
                Some(t) => return Some(Term { text: format!("-{}", t.within(Bind::Atom)), bind: Bind::Product }),
                None => {
                    self.at = save;
                    return None;
                }
            }
        }
        self.atom()
    }

    fn atom(&mut self) -> Option<Term> {
        let save = self.at;
        self.eat(&["the"]);
        for (name, f) in FUNCTIONS {
            if self.eat(name) {
                if name.iter().any(|w| w.chars().count() > 4 || *w == "root") {
                    self.spoken = true;
                }
                self.eat(&["of"]);
                self.eat(&["the"]);
                // "sine of x squared" is sin(x)^2 here: the function takes an atom.
                if let Some(arg) = self.unary() {
                    self.spoken = true;
                    let inner = arg.text.trim_start_matches('(').trim_end_matches(')');
                    let inner = if arg.text.starts_with('(') && balanced(inner) { inner } else { &arg.text };
                    return Some(Term::atom(format!("{f}({inner})")));
                }
                self.at = save;
                return None;
            }
        }
        let w = self.peek(0)?.to_string();
        let term = if let Some((_, d)) = NUMBERS.iter().find(|(n, _)| *n == w) {
            Some(if d.contains('/') { Term { text: (*d).into(), bind: Bind::Product } } else { Term::atom(*d) })
        } else if (w.chars().count() == 1 && w.chars().all(|c| c.is_ascii_alphabetic()) && w != "a" && w != "i")
            || GREEK.contains(&w.as_str())
            || w == "pi"
        {
            Some(Term::atom(w.clone()))
        } else if written(&w) {
            let bind = if w.contains(['+', '-', ' ']) && !(w.starts_with('(') && w.ends_with(')')) {
                Bind::Sum
            } else {
                Bind::Atom
            };
            Some(Term { text: w.clone(), bind })
        } else {
            None
        };
        match term {
            Some(t) => {
                self.at += 1;
                Some(t)
            }
            None => {
                self.at = save;
                None
            }
        }
    }
}

/// Brackets that close where they open.
fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// A token written in notation ("x^2", "2x", "(x+1)", "3"): digits or operators, and
/// nothing but letters, digits and operators.
fn written(w: &str) -> bool {
    w.chars().any(|c| c.is_ascii_digit() || "^()".contains(c))
        && w.chars().all(|c| c.is_ascii_alphanumeric() || "^()+-*/._".contains(c))
        && balanced(w)
}

/// The longest stretch of `words` that reads as an expression said in words, as
/// `(first word, word after the last, notation)`; `None` when no stretch says an
/// operation in words or none parses.
pub(crate) fn spoken(words: &[String]) -> Option<(usize, usize, String)> {
    let mut best: Option<(usize, usize, String)> = None;
    for start in 0..words.len() {
        // A stretch opens on a word that can begin an expression, never on "the"/"of".
        if matches!(words[start].as_str(), "the" | "of" | "a" | "times" | "over" | "plus" | "squared" | "cubed") {
            continue;
        }
        let mut r = Reader { words: &words[start..], at: 0, spoken: false };
        let Some(t) = r.sum() else { continue };
        if !r.spoken || r.at < 2 {
            continue;
        }
        if crate::parse_expr(&t.text, &crate::Limits::default()).is_err() {
            continue;
        }
        if best.as_ref().is_none_or(|(a, b, _)| r.at > b - a) {
            best = Some((start, start + r.at, t.text));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(s: &str) -> Option<String> {
        let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        spoken(&words).map(|(_, _, t)| t)
    }

    #[test]
    fn reads_expressions_said_in_words() {
        assert_eq!(said("x squared times sine x").as_deref(), Some("x^2 sin(x)"));
        assert_eq!(said("derivative of x times e to the x").as_deref(), Some("x e^x"));
        assert_eq!(said("antiderivative of one over x squared plus one").as_deref(), Some("1/(x^2 + 1)"));
        assert_eq!(said("limit of sin x over x when").as_deref(), Some("sin(x)/x"));
        assert_eq!(said("integral of e to the minus x times sine of x").as_deref(), Some("e^(-x) sin(x)"));
        assert_eq!(said("the square root of x plus one").as_deref(), Some("sqrt(x) + 1"));
        assert_eq!(said("t cubed minus two t").as_deref(), Some("t^3 - 2 t"));
        assert_eq!(said("x to the fourth minus x").as_deref(), Some("x^4 - x"));
        assert_eq!(said("natural log of x divided by x").as_deref(), Some("ln(x)/x"));
        assert_eq!(said("cosine of theta squared").as_deref(), Some("cos(theta)^2"));
    }

    #[test]
    fn words_without_a_spoken_operation_are_no_expression() {
        for s in [
            "what is x",
            "search for it",
            "the value of the limit",
            "x",
            "a b c",
            "one of them",
            "tell me more",
            "differentiate cos(2x) three times",
            "for which m is m^2 - 5m + 6 zero",
            "give me two x",
        ] {
            assert_eq!(said(s), None, "{s}");
        }
    }
}
