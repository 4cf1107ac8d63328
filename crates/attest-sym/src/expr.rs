//! The expression tree as parsed, and its plain-text rendering.

use std::collections::BTreeSet;
use std::fmt;

use num_traits::{One, Signed, Zero};

pub use crate::rat::Q;

/// A rational from a small integer.
pub fn q(n: i64) -> Q {
    Q::int(n)
}

/// `a · b` (kept as a function: the call sites read as the arithmetic they do).
pub fn qmul(a: &Q, b: &Q) -> Q {
    a * b
}

/// `a + b`.
pub fn qadd(a: &Q, b: &Q) -> Q {
    a + b
}

/// A rational `n/d` from small integers (`d` must be non-zero).
pub fn qf(n: i64, d: i64) -> Q {
    Q::int(n) / Q::int(d)
}

/// The functions the parser knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    /// sine
    Sin,
    /// cosine
    Cos,
    /// tangent
    Tan,
    /// secant, 1/cos
    Sec,
    /// cosecant, 1/sin
    Csc,
    /// cotangent, cos/sin
    Cot,
    /// inverse sine
    Asin,
    /// inverse cosine
    Acos,
    /// inverse tangent
    Atan,
    /// hyperbolic sine
    Sinh,
    /// hyperbolic cosine
    Cosh,
    /// hyperbolic tangent
    Tanh,
    /// natural exponential
    Exp,
    /// natural logarithm
    Log,
    /// absolute value
    Abs,
}

impl Func {
    /// The name used when printing.
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Sec => "sec",
            Func::Csc => "csc",
            Func::Cot => "cot",
            Func::Asin => "asin",
            Func::Acos => "acos",
            Func::Atan => "atan",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Abs => "abs",
        }
    }

    /// Look a function up by any of the names people write for it.
    pub fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" | "tg" => Func::Tan,
            "sec" => Func::Sec,
            "csc" | "cosec" => Func::Csc,
            "cot" | "cotan" => Func::Cot,
            "asin" | "arcsin" => Func::Asin,
            "acos" | "arccos" => Func::Acos,
            "atan" | "arctan" => Func::Atan,
            "sinh" => Func::Sinh,
            "cosh" => Func::Cosh,
            "tanh" => Func::Tanh,
            "exp" => Func::Exp,
            "log" | "ln" => Func::Log,
            "abs" => Func::Abs,
            _ => return None,
        })
    }

    /// The inverse function, for `sin^{-1}`-style notation.
    pub fn inverse(self) -> Option<Func> {
        match self {
            Func::Sin => Some(Func::Asin),
            Func::Cos => Some(Func::Acos),
            Func::Tan => Some(Func::Atan),
            _ => None,
        }
    }
}

/// A parsed expression. Subtraction is addition of `-1 * b`; division is
/// multiplication by `b^-1`; `sqrt(x)` is `x^(1/2)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expr {
    /// An exact rational number.
    Num(Q),
    /// A variable.
    Sym(String),
    /// π.
    Pi,
    /// Euler's number e.
    E,
    /// A sum.
    Add(Vec<Expr>),
    /// A product.
    Mul(Vec<Expr>),
    /// A power `base^exponent`.
    Pow(Box<Expr>, Box<Expr>),
    /// A function applied to one argument.
    Func(Func, Box<Expr>),
    /// An unevaluated derivative `d^order/dvar^order expr`.
    Deriv(Box<Expr>, String, u32),
}

#[allow(clippy::should_implement_trait)]
impl Expr {
    /// A number from a small integer.
    pub fn int(n: i64) -> Expr {
        Expr::Num(q(n))
    }

    /// A variable.
    pub fn sym(name: &str) -> Expr {
        Expr::Sym(name.to_string())
    }

    /// `a + b`, flattening nested sums.
    pub fn add(a: Expr, b: Expr) -> Expr {
        let mut v = Vec::new();
        for t in [a, b] {
            match t {
                Expr::Add(ts) => v.extend(ts),
                t => v.push(t),
            }
        }
        Expr::Add(v)
    }

    /// `a * b`, flattening nested products.
    pub fn mul(a: Expr, b: Expr) -> Expr {
        let mut v = Vec::new();
        for t in [a, b] {
            match t {
                Expr::Mul(ts) => v.extend(ts),
                t => v.push(t),
            }
        }
        Expr::Mul(v)
    }

    /// `-a`.
    pub fn neg(a: Expr) -> Expr {
        match a {
            Expr::Num(n) => Expr::Num(-n),
            a => Expr::mul(Expr::int(-1), a),
        }
    }

    /// `a - b`.
    pub fn sub(a: Expr, b: Expr) -> Expr {
        Expr::add(a, Expr::neg(b))
    }

    /// `a / b`.
    pub fn div(a: Expr, b: Expr) -> Expr {
        Expr::mul(a, Expr::pow(b, Expr::int(-1)))
    }

    /// `a ^ b`.
    pub fn pow(a: Expr, b: Expr) -> Expr {
        Expr::Pow(Box::new(a), Box::new(b))
    }

    /// `f(a)`.
    pub fn func(f: Func, a: Expr) -> Expr {
        Expr::Func(f, Box::new(a))
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        1 + match self {
            Expr::Add(v) | Expr::Mul(v) => v.iter().map(Expr::size).sum(),
            Expr::Pow(a, b) => a.size() + b.size(),
            Expr::Func(_, a) | Expr::Deriv(a, _, _) => a.size(),
            _ => 0,
        }
    }

    /// The variables that occur, in name order.
    pub fn free_symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    fn collect_symbols(&self, out: &mut BTreeSet<String>) {
        match self {
            Expr::Sym(s) => {
                out.insert(s.clone());
            }
            Expr::Add(v) | Expr::Mul(v) => v.iter().for_each(|e| e.collect_symbols(out)),
            Expr::Pow(a, b) => {
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
            Expr::Func(_, a) => a.collect_symbols(out),
            Expr::Deriv(a, v, _) => {
                a.collect_symbols(out);
                out.insert(v.clone());
            }
            _ => {}
        }
    }

    /// Replace variables by expressions.
    pub fn substitute(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        match self {
            Expr::Sym(s) => f(s).unwrap_or_else(|| self.clone()),
            Expr::Add(v) => Expr::Add(v.iter().map(|e| e.substitute(f)).collect()),
            Expr::Mul(v) => Expr::Mul(v.iter().map(|e| e.substitute(f)).collect()),
            Expr::Pow(a, b) => Expr::pow(a.substitute(f), b.substitute(f)),
            Expr::Func(g, a) => Expr::func(*g, a.substitute(f)),
            Expr::Deriv(a, v, n) => Expr::Deriv(Box::new(a.substitute(f)), v.clone(), *n),
            _ => self.clone(),
        }
    }

    /// The rational value, when this is a plain number.
    pub fn as_num(&self) -> Option<&Q> {
        match self {
            Expr::Num(n) => Some(n),
            _ => None,
        }
    }

    fn is_negative_term(&self) -> bool {
        match self {
            Expr::Num(n) => n.is_negative(),
            Expr::Mul(v) => v.first().is_some_and(|f| matches!(f, Expr::Num(n) if n.is_negative())),
            _ => false,
        }
    }
}

const P_ADD: u8 = 1;
const P_MUL: u8 = 2;
const P_NEG: u8 = 3;
const P_POW: u8 = 4;
const P_ATOM: u8 = 5;

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Num(n) if n.is_negative() => P_NEG,
        Expr::Num(n) if !n.is_integer() => P_MUL,
        Expr::Add(v) if v.len() > 1 => P_ADD,
        Expr::Mul(v) if v.len() > 1 || e.is_negative_term() => {
            if e.is_negative_term() {
                P_NEG
            } else {
                P_MUL
            }
        }
        Expr::Pow(_, b) if is_root(b).is_some() => P_ATOM,
        Expr::Pow(..) => P_POW,
        _ => P_ATOM,
    }
}

/// The root index `k` when the exponent is `1/k`.
fn is_root(exp: &Expr) -> Option<Q> {
    match exp {
        Expr::Num(n) if n.numer_i64() == Some(1) && !n.is_integer() => Some(n.recip()),
        _ => None,
    }
}

fn write_prec(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if prec(e) < min { write!(f, "({e})") } else { write!(f, "{e}") }
}

/// A factor of a product, as printed: part of the coefficient, of the numerator, or
/// of the denominator (a negative integer power: its base, and the positive power
/// when it is not 1).
enum Factor<'a> {
    Coef(&'a Q),
    Num(&'a Expr),
    Den(&'a Expr, Option<Q>),
}

fn factor(x: &Expr) -> Factor<'_> {
    match x {
        Expr::Num(n) => Factor::Coef(n),
        Expr::Pow(b, e) => match e.as_num() {
            Some(n) if n.is_negative() && n.is_integer() => Factor::Den(b, (n.numer_i64() != Some(-1)).then(|| -n)),
            _ => Factor::Num(x),
        },
        _ => Factor::Num(x),
    }
}

/// A product as `c*a*b/(d*e)`: written straight to the formatter, no part copied.
fn write_product(f: &mut fmt::Formatter<'_>, v: &[Expr]) -> fmt::Result {
    let (mut coef, mut n_num, mut n_den) = (Q::one(), 0, 0);
    for x in v {
        match factor(x) {
            Factor::Coef(n) => coef = qmul(&coef, n),
            Factor::Num(_) => n_num += 1,
            Factor::Den(..) => n_den += 1,
        }
    }
    if coef.is_zero() {
        return write!(f, "0");
    }
    if coef.is_negative() {
        write!(f, "-")?;
    }
    let c = coef.abs();
    let (cn, cd) = match c.small() {
        Some((n, d)) => (Q::int(n), Q::int(d)),
        None => (Q::from_integer(c.numer()), Q::from_integer(c.denom())),
    };
    let parenthesised = |f: &mut fmt::Formatter<'_>, x: &Expr| {
        if prec(x) < P_POW { write!(f, "({x})") } else { write!(f, "{x}") }
    };
    let mut first = true;
    let mut sep = |f: &mut fmt::Formatter<'_>| if std::mem::take(&mut first) { Ok(()) } else { write!(f, "*") };
    if !cn.is_one() || n_num == 0 {
        sep(f)?;
        write_q(f, &cn)?;
    }
    for x in v {
        if let Factor::Num(x) = factor(x) {
            sep(f)?;
            parenthesised(f, x)?;
        }
    }
    let n_parts = usize::from(!cd.is_one()) + n_den;
    if n_parts == 0 {
        return Ok(());
    }
    write!(f, "{}", if n_parts > 1 { "/(" } else { "/" })?;
    let mut first = true;
    let mut sep = |f: &mut fmt::Formatter<'_>| if std::mem::take(&mut first) { Ok(()) } else { write!(f, "*") };
    if !cd.is_one() {
        sep(f)?;
        write_q(f, &cd)?;
    }
    for x in v {
        if let Factor::Den(b, k) = factor(x) {
            sep(f)?;
            match k {
                None => parenthesised(f, b)?,
                Some(k) => {
                    write_prec(f, b, P_ATOM)?;
                    write!(f, "^")?;
                    write_prec(f, &Expr::Num(k), P_ATOM)?;
                }
            }
        }
    }
    if n_parts > 1 { write!(f, ")") } else { Ok(()) }
}

/// A rational as `n` or `n/d`, without big-number formatting when both fit in 64 bits.
fn write_q(f: &mut fmt::Formatter<'_>, n: &Q) -> fmt::Result {
    match (n.numer_i64(), n.denom_i64()) {
        (Some(a), Some(1)) => write!(f, "{a}"),
        (Some(a), Some(b)) => write!(f, "{a}/{b}"),
        _ => write!(f, "{n}"),
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(n) => write_q(f, n),
            Expr::Sym(s) => write!(f, "{s}"),
            Expr::Pi => write!(f, "pi"),
            Expr::E => write!(f, "e"),
            Expr::Add(v) if v.is_empty() => write!(f, "0"),
            Expr::Add(v) => {
                for (i, t) in v.iter().enumerate() {
                    if i == 0 {
                        write_prec(f, t, P_ADD)?;
                    } else if t.is_negative_term() {
                        write!(f, " - {}", Expr::neg_display(t))?;
                    } else {
                        write!(f, " + ")?;
                        write_prec(f, t, P_ADD + 1)?;
                    }
                }
                Ok(())
            }
            Expr::Mul(v) if v.is_empty() => write!(f, "1"),
            Expr::Mul(v) => write_product(f, v),
            Expr::Pow(b, e) => {
                if let Some(n) = is_root(e) {
                    return if n == Q::int(2) { write!(f, "sqrt({b})") } else { write!(f, "root({b}, {n})") };
                }
                write_prec(f, b, P_ATOM)?;
                write!(f, "^")?;
                write_prec(f, e, P_ATOM)
            }
            Expr::Func(g, a) => write!(f, "{}({a})", g.name()),
            Expr::Deriv(a, v, 1) => write!(f, "d/d{v}({a})"),
            Expr::Deriv(a, v, n) => write!(f, "d^{n}/d{v}^{n}({a})"),
        }
    }
}

impl Expr {
    /// The text of `-t` for a negative term `t`, used after " - ".
    fn neg_display(t: &Expr) -> String {
        match t {
            Expr::Num(n) => (-n).to_string(),
            Expr::Mul(v) => {
                let mut v = v.clone();
                if let Some(Expr::Num(n)) = v.first_mut() {
                    *n = -n.clone();
                }
                let e = Expr::Mul(v);
                if prec(&e) <= P_ADD { format!("({e})") } else { e.to_string() }
            }
            other => other.to_string(),
        }
    }

    /// `P_ATOM`-level check used by callers that print juxtaposed factors.
    pub fn is_atomic(&self) -> bool {
        prec(self) == P_ATOM
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_with_few_parentheses() {
        let x = || Expr::sym("x");
        let e = Expr::add(Expr::pow(x(), Expr::int(2)), Expr::mul(Expr::int(-2), x()));
        assert_eq!(e.to_string(), "x^2 - 2*x");
        let d = Expr::div(Expr::add(x(), Expr::int(1)), Expr::sub(x(), Expr::int(1)));
        assert_eq!(d.to_string(), "(x + 1)/(x - 1)");
        assert_eq!(Expr::pow(x(), Expr::Num(qf(1, 2))).to_string(), "sqrt(x)");
        assert_eq!(Expr::mul(Expr::Num(qf(1, 3)), Expr::pow(x(), Expr::int(3))).to_string(), "x^3/3");
        assert_eq!(Expr::pow(Expr::int(-1), Expr::int(2)).to_string(), "(-1)^2");
        let y = || Expr::sym("y");
        let inv = |e: Expr, k: i64| Expr::pow(e, Expr::int(-k));
        let p = Expr::Mul(vec![Expr::Num(qf(2, 3)), x(), inv(y(), 2), inv(Expr::add(x(), Expr::int(1)), 1)]);
        assert_eq!(p.to_string(), "2*x/(3*y^2*(x + 1))");
        assert_eq!(Expr::Mul(vec![Expr::int(-1), x(), inv(y(), 1)]).to_string(), "-x/y");
        assert_eq!(Expr::Mul(vec![Expr::Num(qf(-1, 2)), inv(y(), 1)]).to_string(), "-1/(2*y)");
        assert_eq!(Expr::pow(x(), Expr::Num(qf(1, 3))).to_string(), "root(x, 3)");
    }
}
