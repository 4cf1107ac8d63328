//! Reading mathematics: infix with `^`/`**`, implicit multiplication, the usual
//! functions, and the LaTeX subset found in drafts. Every limit is checked while
//! reading, so no input can overflow the stack or run long.

use num_bigint::BigInt;
use num_traits::{One, Pow, Zero};

use crate::error::{Result, SymError};
use crate::expr::{Expr, Func, Q};
use crate::limits::Limits;

/// A parsed line: an expression, or an equation `lhs = rhs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The expression, or the left-hand side of the equation.
    pub lhs: Expr,
    /// The right-hand side, when the text is an equation.
    pub rhs: Option<Expr>,
}

/// A token; numbers and words are slices of the input (no allocation while lexing).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Num(&'a str),
    Word(&'a str),
    Frac,
    Sqrt,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Open(char),
    Close(char),
    LBrace,
    RBrace,
    Bar,
    Comma,
    Underscore,
    Equals,
    Eof,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Num(s) => format!("the number {s}"),
            Tok::Word(w) => format!("'{w}'"),
            Tok::Frac => "\\frac".into(),
            Tok::Sqrt => "\\sqrt".into(),
            Tok::Plus => "'+'".into(),
            Tok::Minus => "'-'".into(),
            Tok::Star => "'*'".into(),
            Tok::Slash => "'/'".into(),
            Tok::Caret => "'^'".into(),
            Tok::Open(c) | Tok::Close(c) => format!("'{c}'"),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::Bar => "'|'".into(),
            Tok::Comma => "','".into(),
            Tok::Underscore => "'_'".into(),
            Tok::Equals => "'='".into(),
            Tok::Eof => "the end of the input".into(),
        }
    }
}

/// Names read as one piece when letters run together ("sinx" is sin x).
pub(crate) const KNOWN: &[&str] = &[
    "arcsin",
    "arccos",
    "arctan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "sin",
    "cos",
    "tan",
    "sec",
    "csc",
    "cot",
    "exp",
    "log",
    "ln",
    "sqrt",
    "abs",
    "pi",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "varepsilon",
    "zeta",
    "theta",
    "vartheta",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "rho",
    "sigma",
    "tau",
    "phi",
    "varphi",
    "chi",
    "psi",
    "omega",
];

fn is_known_word(w: &str) -> bool {
    KNOWN.contains(&w)
}

/// Split a run of letters into known names and single letters, longest name first.
fn split_letters(run: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < run.len() {
        let rest = &run[i..];
        let known = KNOWN.iter().filter(|k| rest.starts_with(**k)).max_by_key(|k| k.len());
        let piece = match known {
            Some(k) => &rest[..k.len()],
            None => &rest[..rest.chars().next().map_or(1, char::len_utf8)],
        };
        let n = piece.len();
        out.push((i, piece));
        i += n;
    }
    out
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
    out: Vec<(Tok<'a>, usize)>,
    limits: &'a Limits,
}

impl<'a> Lexer<'a> {
    fn err(&self, at: usize, msg: impl Into<String>) -> SymError {
        SymError::parse(self.text, at, msg)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn run(mut self) -> Result<Vec<(Tok<'a>, usize)>> {
        while let Some(c) = self.peek() {
            let start = self.pos;
            if c.is_whitespace() {
                self.pos += c.len_utf8();
                continue;
            }
            if c.is_ascii_digit() || (c == '.' && self.text[start + 1..].starts_with(|d: char| d.is_ascii_digit())) {
                self.number()?;
                continue;
            }
            if c.is_alphabetic() {
                self.letters()?;
                continue;
            }
            if c == '\\' {
                self.command()?;
                continue;
            }
            self.pos += c.len_utf8();
            let two = self.text[start..].get(..2);
            let tok = match c {
                '*' if two == Some("**") => {
                    self.pos += 1;
                    Tok::Caret
                }
                '=' if two == Some("==") => {
                    self.pos += 1;
                    Tok::Equals
                }
                '+' => Tok::Plus,
                '-' | '−' | '–' => Tok::Minus,
                '*' | '·' | '×' => Tok::Star,
                '/' | '÷' => Tok::Slash,
                '^' => Tok::Caret,
                '(' | '[' => Tok::Open(c),
                ')' | ']' => Tok::Close(c),
                '{' => Tok::LBrace,
                '}' => Tok::RBrace,
                '|' => Tok::Bar,
                ',' => Tok::Comma,
                '_' => Tok::Underscore,
                '=' => Tok::Equals,
                '$' => continue,
                '<' | '>' | '≤' | '≥' | '≠' | '!' => {
                    return Err(self.err(start, format!("'{c}' is not supported: give an expression or an equation")));
                }
                _ => return Err(self.err(start, format!("unexpected character '{c}'"))),
            };
            self.out.push((tok, start));
        }
        self.out.push((Tok::Eof, self.text.len()));
        Ok(self.out)
    }

    fn digits(&mut self) -> &'a str {
        let start = self.pos;
        let len = self.text[start..].find(|c: char| !c.is_ascii_digit()).unwrap_or(self.text.len() - start);
        self.pos += len;
        &self.text[start..start + len]
    }

    fn number(&mut self) -> Result<()> {
        let start = self.pos;
        self.digits();
        if self.peek() == Some('.') {
            self.pos += 1;
            self.digits();
        }
        let mantissa_end = self.pos;
        let rest = &self.text[self.pos..];
        let exp_follows = rest.starts_with(['e', 'E'])
            && rest[1..].trim_start_matches(['+', '-']).starts_with(|c: char| c.is_ascii_digit())
            && !rest[1..].starts_with("+-");
        if exp_follows {
            self.pos += 1;
            if let Some('+' | '-') = self.peek() {
                self.pos += 1;
            }
            self.digits();
        }
        let s = &self.text[start..self.pos];
        let ndigits = self.text[start..mantissa_end].bytes().filter(u8::is_ascii_digit).count();
        if ndigits > self.limits.max_input_digits {
            return Err(self.err(
                start,
                format!("a number with {ndigits} digits is over the limit of {}", self.limits.max_input_digits),
            ));
        }
        self.out.push((Tok::Num(s), start));
        Ok(())
    }

    fn letters(&mut self) -> Result<()> {
        let start = self.pos;
        let rest = &self.text[start..];
        for (phrase, len) in [("is equal to", 11), ("equals", 6)] {
            if rest.len() >= len
                && rest.as_bytes()[..len].eq_ignore_ascii_case(phrase.as_bytes())
                && !rest[len..].starts_with(|c: char| c.is_alphanumeric())
            {
                self.pos += len;
                self.out.push((Tok::Equals, start));
                return Ok(());
            }
        }
        let run_len = rest.find(|c: char| !c.is_alphabetic()).unwrap_or(rest.len());
        let run = &rest[..run_len];
        self.pos += run_len;
        let digits = self.digits();
        let pieces = split_letters(run);
        if run.chars().count() >= 4 && pieces.iter().all(|(_, p)| !is_known_word(p)) {
            return Err(self.err(
                start,
                format!(
                    "unknown name '{run}': write a product with spaces or '*' (e.g. 'a b'), or use a known function"
                ),
            ));
        }
        let last = pieces.len() - 1;
        for (i, (off, p)) in pieces.into_iter().enumerate() {
            if i == last && !digits.is_empty() && !is_known_word(p) {
                // The last piece and the digits after it are one name: `x1`.
                self.out.push((Tok::Word(&self.text[start + off..self.pos]), start + off));
                return Ok(());
            }
            self.out.push((Tok::Word(p), start + off));
        }
        if !digits.is_empty() {
            self.out.push((Tok::Num(digits), start + run_len));
        }
        Ok(())
    }

    fn command(&mut self) -> Result<()> {
        let start = self.pos;
        self.pos += 1;
        let rest = &self.text[self.pos..];
        let name_len = rest.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(rest.len());
        if name_len == 0 {
            // \, \; \! \: \  \{ \} \|
            let c = rest.chars().next().ok_or_else(|| self.err(start, "a lone backslash"))?;
            self.pos += c.len_utf8();
            match c {
                ',' | ';' | '!' | ':' | ' ' => {}
                '{' => self.out.push((Tok::Open('('), start)),
                '}' => self.out.push((Tok::Close(')'), start)),
                '|' => self.out.push((Tok::Bar, start)),
                _ => return Err(self.err(start, format!("unsupported LaTeX command \\{c}"))),
            }
            return Ok(());
        }
        let name = &rest[..name_len];
        self.pos += name_len;
        let tok = match name {
            "cdot" | "times" | "ast" => Tok::Star,
            "div" => Tok::Slash,
            "frac" | "dfrac" | "tfrac" => Tok::Frac,
            // Read only inside `\frac{\partial}{\partial x}` (see `derivative_frac`).
            "partial" => Tok::Word("∂"),
            "sqrt" => Tok::Sqrt,
            "lvert" | "rvert" | "vert" => Tok::Bar,
            "left" | "right" | "big" | "Big" | "bigg" | "Bigg" | "bigl" | "bigr" | "Bigl" | "Bigr" | "quad"
            | "qquad" | "displaystyle" => {
                if matches!(name, "left" | "right") && self.peek() == Some('.') {
                    self.pos += 1;
                }
                return Ok(());
            }
            "operatorname" | "mathrm" | "text" | "mathit" => return self.braced_name(start),
            "neq" | "ne" | "leq" | "geq" | "le" | "ge" | "lt" | "gt" | "approx" | "infty" | "int" | "sum" | "prod"
            | "lim" => {
                return Err(self.err(start, format!("\\{name} is not supported here")));
            }
            n if Func::from_name(n).is_some() || is_known_word(n) => Tok::Word(n),
            n => return Err(self.err(start, format!("unsupported LaTeX command \\{n}"))),
        };
        self.out.push((tok, start));
        Ok(())
    }

    fn braced_name(&mut self, start: usize) -> Result<()> {
        let rest = &self.text[self.pos..];
        let Some(inner) = rest.strip_prefix('{').and_then(|r| r.split_once('}')).map(|(a, _)| a) else {
            return Err(self.err(start, "expected {name} after this command"));
        };
        self.pos += inner.len() + 2;
        let name = inner.trim();
        if name.is_empty() || !name.chars().all(char::is_alphabetic) {
            return Err(self.err(start, format!("unsupported name '{inner}'")));
        }
        self.out.push((Tok::Word(name), start));
        Ok(())
    }
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<(Tok<'a>, usize)>,
    i: usize,
    depth: usize,
    nodes: usize,
    abs_open: usize,
    limits: &'a Limits,
    stack_base: usize,
}

/// Stack the parser may use, whatever the build profile: nesting is refused before
/// this much is used, so a small thread stack cannot overflow while parsing.
const PARSE_STACK_BUDGET: usize = 512 * 1024;

fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Parse one expression (no `=`).
pub fn parse_expr(text: &str, limits: &Limits) -> Result<Expr> {
    let st = parse_statement(text, limits)?;
    match st.rhs {
        None => Ok(st.lhs),
        Some(_) => {
            let at = text.find('=').unwrap_or(0);
            Err(SymError::parse(text, at, "expected an expression, found an equation"))
        }
    }
}

/// Parse an expression or an equation (`=`, `==`, "equals", "is equal to").
pub fn parse_statement(text: &str, limits: &Limits) -> Result<Statement> {
    let mut parts = parse_chain(text, limits)?;
    match parts.len() {
        1 => Ok(Statement { lhs: parts.remove(0), rhs: None }),
        2 => {
            let rhs = parts.pop();
            Ok(Statement { lhs: parts.remove(0), rhs })
        }
        _ => Err(SymError::parse(text, text.rfind('=').unwrap_or(0), "more than one '=': give one equation")),
    }
}

/// Parse `a = b = c …` into its parts (one part when there is no `=`).
pub fn parse_chain(text: &str, limits: &Limits) -> Result<Vec<Expr>> {
    if text.len() > limits.max_len {
        return Err(SymError::limit(format!(
            "the input is {} characters long, over the limit of {}",
            text.len(),
            limits.max_len
        )));
    }
    if text.trim().is_empty() {
        return Err(SymError::input("the expression is empty"));
    }
    let toks = Lexer { text, pos: 0, out: Vec::with_capacity(text.len() / 2 + 4), limits }.run()?;
    let mut p = Parser { text, toks, i: 0, depth: 0, nodes: 0, abs_open: 0, limits, stack_base: stack_address() };
    let mut parts = vec![p.sum()?];
    while p.eat(&Tok::Equals) {
        parts.push(p.sum()?);
    }
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected());
    }
    Ok(parts)
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok<'a> {
        &self.toks[self.i].0
    }

    fn peek_at(&self, k: usize) -> &Tok<'a> {
        self.toks.get(self.i + k).map_or(&Tok::Eof, |t| &t.0)
    }

    fn pos(&self) -> usize {
        self.toks[self.i].1
    }

    fn bump(&mut self) -> Tok<'a> {
        let t = self.toks[self.i].0;
        if t != Tok::Eof {
            self.i += 1;
        }
        t
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn err(&self, msg: impl Into<String>) -> SymError {
        SymError::parse(self.text, self.pos(), msg)
    }

    fn unexpected(&self) -> SymError {
        self.err(format!("unexpected {}", self.peek().describe()))
    }

    fn node(&mut self, e: Expr) -> Result<Expr> {
        self.nodes += 1;
        if self.nodes > self.limits.max_nodes {
            return Err(SymError::limit(format!(
                "the expression has more than {} parts, over the limit",
                self.limits.max_nodes
            )));
        }
        Ok(e)
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth || self.stack_base.abs_diff(stack_address()) > PARSE_STACK_BUDGET {
            return Err(SymError::limit(format!(
                "the expression is nested more than {} levels deep (at position {}), over the limit",
                self.limits.max_depth,
                self.pos()
            )));
        }
        Ok(())
    }

    fn sum(&mut self) -> Result<Expr> {
        self.enter()?;
        // A single term (the common case) allocates no vector.
        let mut first = Some(self.product()?);
        let mut terms = Vec::new();
        loop {
            let next = match self.peek() {
                Tok::Plus => {
                    self.bump();
                    self.product()?
                }
                Tok::Minus => {
                    self.bump();
                    let t = self.product()?;
                    self.node(Expr::neg(t))?
                }
                _ => break,
            };
            terms.extend(first.take());
            terms.push(next);
        }
        self.depth -= 1;
        let e = first.unwrap_or(Expr::Add(terms));
        self.node(e)
    }

    fn starts_factor(&self) -> bool {
        match self.peek() {
            Tok::Num(_) | Tok::Word(_) | Tok::Frac | Tok::Sqrt | Tok::LBrace => true,
            Tok::Open(_) => true,
            Tok::Bar => self.abs_open == 0,
            _ => false,
        }
    }

    fn product(&mut self) -> Result<Expr> {
        // A single factor (the common case) allocates no vector.
        let mut first = Some(self.unary()?);
        let mut factors = Vec::new();
        loop {
            let next = match self.peek() {
                Tok::Star => {
                    self.bump();
                    self.unary()?
                }
                Tok::Slash => {
                    self.bump();
                    let d = self.unary()?;
                    self.node(Expr::pow(d, Expr::int(-1)))?
                }
                _ if self.starts_factor() => self.power()?,
                _ => break,
            };
            factors.extend(first.take());
            factors.push(next);
        }
        let e = first.unwrap_or(Expr::Mul(factors));
        self.node(e)
    }

    fn unary(&mut self) -> Result<Expr> {
        self.enter()?;
        let e = match self.peek() {
            Tok::Minus => {
                self.bump();
                let e = self.unary()?;
                self.node(Expr::neg(e))?
            }
            Tok::Plus => {
                self.bump();
                self.unary()?
            }
            _ => self.power()?,
        };
        self.depth -= 1;
        Ok(e)
    }

    fn power(&mut self) -> Result<Expr> {
        let base = self.postfix()?;
        if self.eat(&Tok::Caret) {
            let exp = self.exponent()?;
            return self.node(Expr::pow(base, constant_exponent(exp)));
        }
        Ok(base)
    }

    /// The exponent after `^`: a braced group, or a signed power (right associative).
    fn exponent(&mut self) -> Result<Expr> {
        if self.peek() == &Tok::LBrace {
            self.enter()?;
            let e = self.group()?;
            self.depth -= 1;
            return Ok(e);
        }
        // `x^2y` is x^2 * y: a bare number exponent takes only that number.
        if let Tok::Num(_) = self.peek() {
            let n = self.primary()?;
            if self.eat(&Tok::Caret) {
                self.enter()?;
                let e = self.exponent()?;
                self.depth -= 1;
                return self.node(Expr::pow(n, e));
            }
            return Ok(n);
        }
        self.unary()
    }

    fn postfix(&mut self) -> Result<Expr> {
        let e = self.primary()?;
        if let Expr::Sym(name) = &e
            && self.peek() == &Tok::Underscore
        {
            self.bump();
            let sub = self.subscript()?;
            return self.node(Expr::Sym(format!("{name}_{sub}")));
        }
        Ok(e)
    }

    fn subscript(&mut self) -> Result<String> {
        match self.bump() {
            Tok::Num(s) | Tok::Word(s) => Ok(s.to_string()),
            Tok::LBrace => {
                let mut s = String::new();
                loop {
                    match self.bump() {
                        Tok::RBrace => break,
                        Tok::Num(t) | Tok::Word(t) => s.push_str(t),
                        _ => return Err(self.err("a subscript may hold only letters and digits")),
                    }
                }
                Ok(s)
            }
            _ => Err(self.err("expected a subscript after '_'")),
        }
    }

    fn group(&mut self) -> Result<Expr> {
        let close = match self.bump() {
            Tok::Open('(') => Tok::Close(')'),
            Tok::Open(_) => Tok::Close(']'),
            Tok::LBrace => Tok::RBrace,
            _ => {
                self.i -= 1;
                return Err(self.err(format!("expected '(' or '{{', found {}", self.peek().describe())));
            }
        };
        let saved = self.abs_open;
        self.abs_open = 0;
        let e = self.sum()?;
        self.abs_open = saved;
        if !self.eat(&close) {
            return Err(self.err(format!("expected {} to close the group", close.describe())));
        }
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr> {
        match *self.peek() {
            Tok::Num(s) => {
                let at = self.pos();
                self.bump();
                let n = number(s, self.limits).map_err(|m| SymError::parse(self.text, at, m))?;
                self.node(Expr::Num(n))
            }
            Tok::Word("∂") => Err(self.err(
                "\\partial is read only as the operator \\frac{\\partial}{\\partial x} (or \\frac{\\partial^2}{\\partial x^2}) before an expression",
            )),
            Tok::Word(w) => self.word(w),
            Tok::Open(_) | Tok::LBrace => self.group(),
            Tok::Bar => {
                self.bump();
                self.abs_open += 1;
                let e = self.sum()?;
                self.abs_open -= 1;
                if !self.eat(&Tok::Bar) {
                    return Err(self.err("expected '|' to close the absolute value"));
                }
                self.node(Expr::func(Func::Abs, e))
            }
            Tok::Frac => self.frac(),
            Tok::Sqrt => {
                self.bump();
                self.sqrt()
            }
            _ => Err(self.unexpected()),
        }
    }

    fn frac(&mut self) -> Result<Expr> {
        self.bump();
        if let Some(d) = self.derivative_frac()? {
            return Ok(d);
        }
        let (a, b) = if let Tok::Num(s) = *self.peek() {
            // \frac12
            if s.len() == 2 && s.chars().all(|c| c.is_ascii_digit()) {
                self.bump();
                let digit = |d: &str| number(d, self.limits).map_err(|m| self.err(m));
                (Expr::Num(digit(&s[..1])?), Expr::Num(digit(&s[1..])?))
            } else {
                return Err(self.err("expected {numerator}{denominator} after \\frac"));
            }
        } else {
            let a = self.frac_part()?;
            let b = self.frac_part()?;
            (a, b)
        };
        self.node(Expr::div(a, b))
    }

    fn frac_part(&mut self) -> Result<Expr> {
        if self.peek() == &Tok::LBrace {
            self.enter()?;
            let e = self.group();
            self.depth -= 1;
            e
        } else {
            self.primary()
        }
    }

    /// `\frac{d}{dx}` or `\frac{d^2}{dx^2}` followed by the operand; also with
    /// `\partial` for `d` (a partial derivative: the other variables held fixed, which
    /// is what differentiating with respect to one variable does here).
    fn derivative_frac(&mut self) -> Result<Option<Expr>> {
        let t = |k: usize| *self.peek_at(k);
        let d = if t(1) == Tok::Word("∂") { Tok::Word("∂") } else { Tok::Word("d") };
        if t(0) != Tok::LBrace || t(1) != d {
            return Ok(None);
        }
        let (order, k) = match (t(2), t(3)) {
            (Tok::RBrace, _) => (1, 3),
            (Tok::Caret, Tok::Num(n)) if t(4) == Tok::RBrace => (n.parse().unwrap_or(0), 5),
            _ => return Ok(None),
        };
        let Tok::Word(var) = t(k + 2) else { return Ok(None) };
        if t(k) != Tok::LBrace || t(k + 1) != d {
            return Ok(None);
        }
        let mut end = k + 3;
        if order > 1 {
            if t(end) != Tok::Caret || t(end + 1) != Tok::Num(&order.to_string()) {
                return Ok(None);
            }
            end += 2;
        }
        if t(end) != Tok::RBrace {
            return Ok(None);
        }
        self.i += end + 1;
        self.derivative_of(var.to_string(), order).map(Some)
    }

    fn derivative_of(&mut self, var: String, order: u32) -> Result<Expr> {
        if order == 0 || order > self.limits.max_order {
            return Err(self.err(format!("derivative order must be 1 to {}", self.limits.max_order)));
        }
        self.enter()?;
        let operand = self.product()?;
        self.depth -= 1;
        self.node(Expr::Deriv(Box::new(operand), var, order))
    }

    /// `d/dx` or `d^2/dx^2` in plain text, starting at a `d` word.
    fn derivative_text(&mut self) -> Result<Option<Expr>> {
        let t = |k: usize| *self.peek_at(k);
        let d = Tok::Word("d");
        let (order, k) = match (t(1), t(2)) {
            (Tok::Slash, _) => (1u32, 2),
            (Tok::Caret, Tok::Num(n)) if t(3) == Tok::Slash => (n.parse().unwrap_or(0), 4),
            _ => return Ok(None),
        };
        if t(k) != d {
            return Ok(None);
        }
        let Tok::Word(var) = t(k + 1) else { return Ok(None) };
        // "d" and the variable must touch: "dx", not "d x".
        let (dpos, vpos) = (self.toks[self.i + k].1, self.toks[self.i + k + 1].1);
        if vpos != dpos + 1 || Func::from_name(var).is_some() {
            return Ok(None);
        }
        let mut end = k + 2;
        if order > 1 && t(end) == Tok::Caret && t(end + 1) == Tok::Num(&order.to_string()) {
            end += 2;
        }
        self.i += end;
        self.derivative_of(var.to_string(), order).map(Some)
    }

    fn word(&mut self, w: &str) -> Result<Expr> {
        if w == "d"
            && let Some(e) = self.derivative_text()?
        {
            return Ok(e);
        }
        self.bump();
        match w {
            "pi" => return self.node(Expr::Pi),
            "e" => return self.node(Expr::E),
            "sqrt" => return self.sqrt(),
            _ => {}
        }
        match Func::from_name(w) {
            Some(f) => self.application(f),
            None => self.node(Expr::Sym(w.to_string())),
        }
    }

    fn sqrt(&mut self) -> Result<Expr> {
        let mut index = Expr::int(2);
        if self.peek() == &Tok::Open('[') {
            self.bump();
            index = self.sum()?;
            if !self.eat(&Tok::Close(']')) {
                return Err(self.err("expected ']' after the root index"));
            }
        }
        let arg = self.argument()?;
        let exp = match index {
            Expr::Num(n) if !n.is_zero() => Expr::Num(n.recip()),
            other => Expr::pow(other, Expr::int(-1)),
        };
        self.node(Expr::pow(arg, exp))
    }

    /// A function application: optional `^power` (or `^{-1}` for the inverse), optional
    /// `_base` for log, then a parenthesised argument or a bare product (`sin 2x`).
    fn application(&mut self, mut f: Func) -> Result<Expr> {
        let mut power = None;
        if self.eat(&Tok::Caret) {
            let p = self.exponent()?;
            if p == Expr::int(-1) {
                f = f
                    .inverse()
                    .ok_or_else(|| self.err(format!("{}^-1 is ambiguous: write 1/{}", f.name(), f.name())))?;
            } else {
                power = Some(p);
            }
        }
        let mut base = None;
        if f == Func::Log && self.eat(&Tok::Underscore) {
            base = Some(self.primary()?);
        }
        self.enter()?;
        let arg = self.argument()?;
        self.depth -= 1;
        let mut e = Expr::func(f, arg);
        if let Some(b) = base {
            e = Expr::div(e, Expr::func(Func::Log, b));
        }
        if let Some(p) = power {
            e = Expr::pow(e, p);
        } else if self.peek() == &Tok::Caret {
            self.bump();
            let p = self.exponent()?;
            e = Expr::pow(e, p);
        }
        self.node(e)
    }

    fn argument(&mut self) -> Result<Expr> {
        match self.peek() {
            Tok::Open(_) | Tok::LBrace => self.group(),
            Tok::Eof => Err(self.err("a function needs an argument")),
            _ => {
                let mut factors = vec![self.power()?];
                while self.starts_factor() && !self.starts_function() && !matches!(self.peek(), Tok::Open(_)) {
                    factors.push(self.power()?);
                }
                Ok(if factors.len() == 1 { factors.pop().expect("one") } else { Expr::Mul(factors) })
            }
        }
    }

    fn starts_function(&self) -> bool {
        match self.peek() {
            Tok::Word(w) => Func::from_name(w).is_some() || *w == "sqrt" || *w == "d",
            Tok::Frac | Tok::Sqrt => true,
            _ => false,
        }
    }
}

/// An exponent written as a quotient of numbers (`1/3`, `-2/4`, `1/2 + 1/6`) becomes the
/// rational it denotes, so `(-8)^(1/3)` is the real cube root, as `\sqrt[3]{-8}` is,
/// rather than a power with a computed exponent (undefined for a negative base).
fn constant_exponent(e: Expr) -> Expr {
    fn numeric(e: &Expr) -> bool {
        match e {
            Expr::Num(_) => true,
            Expr::Add(v) | Expr::Mul(v) => v.iter().all(numeric),
            // a division by a number; towers such as `2^3^2` are kept as written
            Expr::Pow(b, x) => matches!(b.as_ref(), Expr::Num(_)) && x.as_num().is_some_and(|n| *n == -Q::one()),
            _ => false,
        }
    }
    if matches!(e, Expr::Num(_)) || !numeric(&e) {
        return e;
    }
    match crate::eval::eval_exact(&e, &crate::eval::ExactEnv::new()) {
        Some(q) => Expr::Num(q),
        None => e,
    }
}

/// Read a decimal number (with optional fraction and exponent) exactly.
/// A plain decimal (`12`, `0.25`) of at most 18 digits, read without big-number
/// parsing; `None` for anything else (exponents, long numbers), which the general
/// reader handles.
fn small_number(s: &str) -> Option<Q> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.len() + frac.len() > 18 || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let m = int.bytes().chain(frac.bytes()).fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
    if frac.is_empty() {
        return Some(Q::from_integer(BigInt::from(m)));
    }
    let d = 10i64.pow(frac.len() as u32);
    let g = num_integer::Integer::gcd(&m, &d);
    Some(Q::new_raw(BigInt::from(m / g), BigInt::from(d / g)))
}

fn number(s: &str, limits: &Limits) -> std::result::Result<Q, String> {
    if let Some(v) = small_number(s) {
        return Ok(v);
    }
    let (mant, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().map_err(|_| format!("bad exponent in {s}"))?),
        None => (s, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{int}{frac}");
    let exp = exp - frac.len() as i64;
    let total = digits.trim_start_matches('0').len() as i64 + exp;
    if exp.unsigned_abs() as usize > limits.max_input_digits || total > limits.max_input_digits as i64 {
        return Err(format!("the number {s} is too large: at most {} digits", limits.max_input_digits));
    }
    let m: BigInt =
        if digits.is_empty() { BigInt::zero() } else { digits.parse().map_err(|_| format!("bad number {s}"))? };
    let ten = BigInt::from(10);
    let scale = ten.pow(exp.unsigned_abs());
    Ok(if exp >= 0 { Q::from_integer(m * scale) } else { Q::new(m, scale) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> String {
        parse_expr(s, &Limits::default()).unwrap_or_else(|e| panic!("{s}: {e}")).to_string()
    }

    #[test]
    fn implicit_multiplication_and_powers() {
        assert_eq!(p("2x"), "2*x");
        assert_eq!(p("2 a b"), "2*a*b");
        assert_eq!(p("x(x+1)"), "x*(x + 1)");
        assert_eq!(p("2sin(x)"), "2*sin(x)");
        assert_eq!(p("x**2 + x^3"), "x^2 + x^3");
        assert_eq!(p("2^3^2"), "2^(3^2)");
        // A quotient of numbers as an exponent is the rational it denotes.
        assert_eq!(p("(-8)^(1/3)"), p("\\sqrt[3]{-8}"));
        assert_eq!(p("x^(2/4)"), p("x^(1/2)"));
        assert_eq!(p("-x^2"), "-x^2");
        assert_eq!(p("1.5e3"), "1500");
        assert_eq!(p("0.25"), "1/4");
        assert_eq!(p("sin x cos x"), "sin(x)*cos(x)");
        assert_eq!(p("x_1 + x_{2}"), "x_1 + x_2");
        assert_eq!(p("ln(e)"), "log(e)");
    }

    #[test]
    fn latex_subset() {
        assert_eq!(p(r"\frac{a}{b}"), "a/b");
        assert_eq!(p(r"\sqrt{x}"), "sqrt(x)");
        assert_eq!(p(r"\sqrt[3]{x}"), "root(x, 3)");
        assert_eq!(p(r"\sin^2 x + \cos^{2} x"), "sin(x)^2 + cos(x)^2");
        assert_eq!(p(r"2 \cdot a \times b"), "2*a*b");
        assert_eq!(p(r"\left( x + 1 \right)^2"), "(x + 1)^2");
        assert_eq!(p(r"|x - 1|"), "abs(x - 1)");
        assert_eq!(p(r"\frac{d}{dx} x^2"), "d/dx(x^2)");
        assert_eq!(p(r"\frac{\partial}{\partial x} x^2 y"), "d/dx(x^2*y)");
        assert_eq!(p(r"\frac{\partial^2}{\partial y^2} (x y^3)"), "d^2/dy^2(x*y^3)");
        assert!(parse_expr(r"\partial f/\partial x", &Limits::default()).is_err());
        assert_eq!(p(r"d/dx (x^3)"), "d/dx(x^3)");
        assert_eq!(p(r"\ln x + \exp(2)"), "log(x) + exp(2)");
        assert_eq!(p(r"\pi r^2"), "pi*r^2");
        assert_eq!(p(r"\sin^{-1} x"), "asin(x)");
    }

    #[test]
    fn equations() {
        let l = Limits::default();
        for s in ["a = b", "a == b", "a equals b", "a is equal to b"] {
            let st = parse_statement(s, &l).unwrap();
            assert_eq!(st.lhs, Expr::sym("a"));
            assert_eq!(st.rhs, Some(Expr::sym("b")), "{s}");
        }
    }

    #[test]
    fn errors_point_at_the_problem() {
        let l = Limits::default();
        match parse_expr("x + (y * 2", &l).unwrap_err() {
            SymError::Parse { position, .. } => assert_eq!(position, 10),
            e => panic!("{e}"),
        }
        match parse_expr("x + * 2", &l).unwrap_err() {
            SymError::Parse { position, message, .. } => {
                assert_eq!(position, 4);
                assert!(message.contains("'*'"));
            }
            e => panic!("{e}"),
        }
        assert!(matches!(parse_expr("simplify x", &l), Err(SymError::Parse { .. })));
    }

    #[test]
    fn limits_refuse_early() {
        let l = Limits::default();
        let deep = "x^".repeat(3000) + "x";
        assert!(matches!(parse_expr(&deep, &l), Err(SymError::Limit { .. })));
        let parens = "(".repeat(5000) + "x" + &")".repeat(5000);
        assert!(matches!(parse_expr(&parens, &l), Err(SymError::Limit { .. })));
        let big = "9".repeat(400);
        assert!(matches!(parse_expr(&big, &l), Err(SymError::Parse { .. })));
        let long = "x+".repeat(600_000) + "x";
        assert!(matches!(parse_expr(&long, &l), Err(SymError::Limit { .. })));
    }
}
