//! `verify` of identities between matrix expressions written with literal matrices:
//! `det([[1,2],[3,4]] * [[0,1],[1,2]]) = det([[1,2],[3,4]]) * det([[0,1],[1,2]])`,
//! `[[2,1],[1,1]] * inverse([[2,1],[1,1]]) = I`. Both sides are evaluated exactly over
//! the rationals (products, sums, differences, scalar multiples, integer powers,
//! `det`, `inverse`/`inv`, `transpose`, `trace`, `^T`, `^{-1}`, `I` the identity of the
//! size in use) and compared; the comparison is then redone in floating point from the
//! same literals, independently, and must agree before a verdict is given.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::error::{Result, SymError};
use crate::eval::q_to_f64;
use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::linalg::{MAX_DIM, parse_matrices};
use crate::verify::{Counterexample, NumericCheck, Verdict, Verification};

/// Whether `lhs = rhs` is about matrices (a literal matrix on either side).
pub fn is_matrix_claim(lhs: &str, rhs: &str) -> bool {
    [lhs, rhs].iter().any(|s| s.contains("[[") || s.contains("\\begin{"))
}

#[derive(Clone, Debug, PartialEq)]
enum V<T> {
    S(T),
    M(Vec<Vec<T>>),
    /// `c·I`, sized by what it meets.
    Id(T),
}

trait Field: Clone + PartialEq + std::fmt::Debug {
    fn zero() -> Self;
    fn one() -> Self;
    fn from_q(q: &Q) -> Self;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    fn div(&self, o: &Self) -> Self;
    fn is_zero(&self) -> bool;
    fn size(&self) -> f64;
    /// Over the computed-digit limit (exact arithmetic only).
    fn too_big(&self) -> bool;
}

/// 1,000 decimal digits, in bits.
const MAX_BITS: u64 = 3_322;

fn checked<T: Field>(v: V<T>) -> Result<V<T>> {
    let big = match &v {
        V::S(x) | V::Id(x) => x.too_big(),
        V::M(m) => m.iter().flatten().any(Field::too_big),
    };
    if big {
        return Err(SymError::limit(
            "a number in the matrix computation passed 1000 digits, over the limit; it was not finished",
        ));
    }
    Ok(v)
}

impl Field for Q {
    fn zero() -> Self {
        Zero::zero()
    }
    fn one() -> Self {
        One::one()
    }
    fn from_q(q: &Q) -> Self {
        q.clone()
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn mul(&self, o: &Self) -> Self {
        self * o
    }
    fn div(&self, o: &Self) -> Self {
        self / o
    }
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn size(&self) -> f64 {
        q_to_f64(self).abs()
    }
    fn too_big(&self) -> bool {
        self.bits() > MAX_BITS
    }
}

impl Field for f64 {
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    fn from_q(q: &Q) -> Self {
        q_to_f64(q)
    }
    fn add(&self, o: &Self) -> Self {
        self + o
    }
    fn sub(&self, o: &Self) -> Self {
        self - o
    }
    fn mul(&self, o: &Self) -> Self {
        self * o
    }
    fn div(&self, o: &Self) -> Self {
        self / o
    }
    fn is_zero(&self) -> bool {
        self.abs() < 1e-300
    }
    fn size(&self) -> f64 {
        self.abs()
    }
    fn too_big(&self) -> bool {
        false
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Mat(usize),
    Num(Q),
    Name(String),
    Op(char),
}

type Lexed = (Vec<Tok>, Vec<Vec<Vec<Q>>>);

fn lex(text: &str, limits: &Limits) -> Result<Lexed> {
    let mats = parse_matrices(text, limits)?;
    let mut toks = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    let mut k = 0;
    while i < b.len() {
        let rest = &text[i..];
        let c = b[i] as char;
        if rest.starts_with("[[") || rest.starts_with("\\begin{") {
            // Skip the literal (already read, in order).
            let end = if rest.starts_with("[[") {
                let mut depth = 0i32;
                let mut e = 0;
                for (j, ch) in rest.char_indices() {
                    match ch {
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                e = j + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                e
            } else {
                let env_end = rest[7..].find('}').map(|j| j + 7).unwrap_or(rest.len());
                let env = &rest[7..env_end];
                let tag = format!("\\end{{{env}}}");
                rest.find(&tag).map(|j| j + tag.len()).unwrap_or(rest.len())
            };
            if end == 0 {
                return Err(SymError::input("a matrix '[[' is not closed"));
            }
            toks.push(Tok::Mat(k));
            k += 1;
            i += end;
        } else if c.is_ascii_whitespace()
            || rest.starts_with("\\,")
            || rest.starts_with("\\left")
            || rest.starts_with("\\right")
        {
            i += if c.is_ascii_whitespace() {
                1
            } else if rest.starts_with("\\,") {
                2
            } else if rest.starts_with("\\left") {
                5
            } else {
                6
            };
        } else if rest.starts_with("\\cdot") || rest.starts_with("\\times") {
            toks.push(Tok::Op('*'));
            i += if rest.starts_with("\\cdot") { 5 } else { 6 };
        } else if rest.starts_with('·') || rest.starts_with('×') {
            toks.push(Tok::Op('*'));
            i += c.len_utf8().max(rest.chars().next().map_or(1, char::len_utf8));
        } else if "+-*/^(){}".contains(c) {
            toks.push(Tok::Op(c));
            i += 1;
        } else if c.is_ascii_digit() {
            let len = rest.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(rest.len());
            let n: Q = rest[..len].parse().map_err(|_| SymError::input("a number could not be read"))?;
            toks.push(Tok::Num(n));
            i += len;
        } else if c.is_ascii_alphabetic() || c == '\\' {
            let start = usize::from(c == '\\');
            let len = rest[start..].find(|ch: char| !ch.is_ascii_alphabetic()).unwrap_or(rest.len() - start) + start;
            toks.push(Tok::Name(rest[start..len].to_lowercase()));
            i += len;
        } else {
            return Err(SymError::input(format!(
                "'{}' cannot be read in a matrix expression",
                rest.chars().next().unwrap_or(c)
            )));
        }
        if toks.len() > 2_000 {
            return Err(SymError::limit("the matrix expression is over 2000 tokens long"));
        }
    }
    Ok((toks, mats))
}

struct P<'a, T> {
    toks: &'a [Tok],
    i: usize,
    mats: &'a [Vec<Vec<T>>],
    depth: u32,
}

fn bad(msg: impl Into<String>) -> SymError {
    SymError::input(msg.into())
}

impl<T: Field> P<'_, T> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i)
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Op(c)) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expr(&mut self) -> Result<V<T>> {
        self.depth += 1;
        if self.depth > 100 {
            return Err(SymError::limit("the matrix expression is nested more than 100 levels deep"));
        }
        let mut v = self.term()?;
        loop {
            if self.eat('+') {
                v = checked(add(&v, &self.term()?, false)?)?;
            } else if self.eat('-') {
                v = checked(add(&v, &self.term()?, true)?)?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(v)
    }
    fn term(&mut self) -> Result<V<T>> {
        let mut v = self.unary()?;
        loop {
            if self.eat('*') {
                v = checked(mul(&v, &self.unary()?)?)?;
            } else if self.eat('/') {
                let d = self.unary()?;
                let V::S(d) = d else { return Err(bad("divide only by a number; use inverse(…) for a matrix")) };
                if d.is_zero() {
                    return Err(bad("division by zero"));
                }
                v = mul(&v, &V::S(T::one().div(&d)))?;
            } else if matches!(self.peek(), Some(Tok::Mat(_) | Tok::Name(_)) | Some(Tok::Op('('))) {
                v = checked(mul(&v, &self.unary()?)?)?;
            } else {
                break;
            }
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<V<T>> {
        if self.eat('-') {
            return mul(&V::S(T::zero().sub(&T::one())), &self.unary()?);
        }
        let base = self.atom()?;
        if self.eat('^') {
            let braced = self.eat('{');
            let e = match self.peek().cloned() {
                Some(Tok::Name(n)) if n == "t" => {
                    self.i += 1;
                    Pw::T
                }
                Some(Tok::Op('-')) => {
                    self.i += 1;
                    match self.peek().cloned() {
                        Some(Tok::Num(n)) => {
                            self.i += 1;
                            Pw::N(-small(&n)?)
                        }
                        _ => return Err(bad("a power must be an integer or T")),
                    }
                }
                Some(Tok::Num(n)) => {
                    self.i += 1;
                    Pw::N(small(&n)?)
                }
                _ => return Err(bad("a power must be an integer or T")),
            };
            if braced && !self.eat('}') {
                return Err(bad("'^{' is not closed"));
            }
            return match e {
                Pw::T => transpose(&base),
                Pw::N(n) => checked(power(&base, n)?),
            };
        }
        Ok(base)
    }
    fn atom(&mut self) -> Result<V<T>> {
        match self.peek().cloned() {
            Some(Tok::Mat(k)) => {
                self.i += 1;
                Ok(V::M(self.mats[k].clone()))
            }
            Some(Tok::Num(n)) => {
                self.i += 1;
                Ok(V::S(T::from_q(&n)))
            }
            Some(Tok::Op('(')) | Some(Tok::Op('{')) => {
                let close = if self.eat('(') {
                    ')'
                } else {
                    self.eat('{');
                    '}'
                };
                let v = self.expr()?;
                if !self.eat(close) {
                    return Err(bad(format!("missing '{close}'")));
                }
                Ok(v)
            }
            Some(Tok::Name(n)) => {
                self.i += 1;
                if n == "i" || n == "id" || n == "identity" {
                    return Ok(V::Id(T::one()));
                }
                let arg =
                    if n == "det" && !matches!(self.peek(), Some(Tok::Op('('))) { self.unary()? } else { self.atom()? };
                match n.as_str() {
                    "det" | "determinant" => det_v(&arg),
                    "inverse" | "inv" => power(&arg, -1),
                    "transpose" => transpose(&arg),
                    "trace" | "tr" => match arg {
                        V::M(m) if m.len() == m[0].len() => {
                            Ok(V::S((0..m.len()).fold(T::zero(), |a, i| a.add(&m[i][i]))))
                        }
                        _ => Err(bad("the trace needs a square matrix")),
                    },
                    other => Err(bad(format!(
                        "'{other}' is not known in a matrix identity (use det, inverse, transpose, trace, I, ^T, ^-1)"
                    ))),
                }
            }
            _ => Err(bad("a matrix, a number or '(' was expected")),
        }
    }
}

enum Pw {
    T,
    N(i64),
}

fn small(n: &Q) -> Result<i64> {
    n.numer_i64().filter(|v| n.is_integer() && v.abs() <= 64).ok_or_else(|| bad("matrix powers are integers up to 64"))
}

fn ident<T: Field>(n: usize) -> Vec<Vec<T>> {
    (0..n).map(|i| (0..n).map(|j| if i == j { T::one() } else { T::zero() }).collect()).collect()
}

fn scaled<T: Field>(n: usize, c: &T) -> Vec<Vec<T>> {
    (0..n).map(|i| (0..n).map(|j| if i == j { c.clone() } else { T::zero() }).collect()).collect()
}

fn add<T: Field>(a: &V<T>, b: &V<T>, minus: bool) -> Result<V<T>> {
    let f = |x: &T, y: &T| if minus { x.sub(y) } else { x.add(y) };
    match (a, b) {
        (V::S(x), V::S(y)) => Ok(V::S(f(x, y))),
        (V::M(m), V::Id(c)) => add(a, &V::M(scaled(m.len(), c)), minus),
        (V::Id(c), V::M(m)) => add(&V::M(scaled(m.len(), c)), b, minus),
        (V::Id(x), V::Id(y)) => Ok(V::Id(f(x, y))),
        (V::M(x), V::M(y)) if x.len() == y.len() && x[0].len() == y[0].len() => {
            Ok(V::M(x.iter().zip(y).map(|(r, s)| r.iter().zip(s).map(|(u, v)| f(u, v)).collect()).collect()))
        }
        (V::M(x), V::M(y)) => {
            Err(bad(format!("cannot add a {}×{} matrix and a {}×{} one", x.len(), x[0].len(), y.len(), y[0].len())))
        }
        _ => Err(bad("a number and a matrix cannot be added (write c*I for a multiple of the identity)")),
    }
}

fn mul<T: Field>(a: &V<T>, b: &V<T>) -> Result<V<T>> {
    match (a, b) {
        (V::S(x), V::S(y)) => Ok(V::S(x.mul(y))),
        (V::S(x), V::M(m)) | (V::M(m), V::S(x)) => {
            Ok(V::M(m.iter().map(|r| r.iter().map(|v| v.mul(x)).collect()).collect()))
        }
        (V::S(x), V::Id(c)) | (V::Id(c), V::S(x)) => Ok(V::Id(x.mul(c))),
        (V::Id(a), V::Id(b)) => Ok(V::Id(a.mul(b))),
        (V::Id(c), V::M(m)) | (V::M(m), V::Id(c)) => {
            Ok(V::M(m.iter().map(|r| r.iter().map(|v| v.mul(c)).collect()).collect()))
        }
        (V::M(x), V::M(y)) => {
            if x[0].len() != y.len() {
                return Err(bad(format!(
                    "cannot multiply a {}×{} matrix by a {}×{} one",
                    x.len(),
                    x[0].len(),
                    y.len(),
                    y[0].len()
                )));
            }
            Ok(V::M(
                (0..x.len())
                    .map(|i| {
                        (0..y[0].len())
                            .map(|j| (0..y.len()).fold(T::zero(), |s, t| s.add(&x[i][t].mul(&y[t][j]))))
                            .collect()
                    })
                    .collect(),
            ))
        }
    }
}

fn transpose<T: Field>(a: &V<T>) -> Result<V<T>> {
    match a {
        V::M(m) => Ok(V::M((0..m[0].len()).map(|j| m.iter().map(|r| r[j].clone()).collect()).collect())),
        other => Ok(other.clone()),
    }
}

fn det_v<T: Field>(a: &V<T>) -> Result<V<T>> {
    match a {
        V::M(m) if m.len() == m[0].len() => Ok(V::S(det(m))),
        V::M(m) => Err(bad(format!("a {}×{} matrix has no determinant: it is not square", m.len(), m[0].len()))),
        V::Id(_) => Err(bad("det(c·I) needs the size of I: write the identity out as a matrix")),
        V::S(_) => Err(bad("det needs a matrix")),
    }
}

/// Determinant by elimination (largest pivot; exact for rationals).
fn det<T: Field>(m: &[Vec<T>]) -> T {
    let mut m = m.to_vec();
    let n = m.len();
    let mut d = T::one();
    for c in 0..n {
        let Some(p) = (c..n).filter(|&i| !m[i][c].is_zero()).max_by(|&i, &j| m[i][c].size().total_cmp(&m[j][c].size()))
        else {
            return T::zero();
        };
        if p != c {
            m.swap(p, c);
            d = T::zero().sub(&d);
        }
        d = d.mul(&m[c][c]);
        let (top, rest) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for row in rest.iter_mut() {
            let f = row[c].div(&pivot[c]);
            for (v, p) in row.iter_mut().zip(pivot).skip(c) {
                *v = v.sub(&f.mul(p));
            }
        }
    }
    d
}

fn inverse<T: Field>(m: &[Vec<T>]) -> Option<Vec<Vec<T>>> {
    let n = m.len();
    let mut a = m.to_vec();
    let mut inv = ident::<T>(n);
    for c in 0..n {
        let p = (c..n).filter(|&i| !a[i][c].is_zero()).max_by(|&i, &j| a[i][c].size().total_cmp(&a[j][c].size()))?;
        a.swap(p, c);
        inv.swap(p, c);
        let piv = a[c][c].clone();
        for j in 0..n {
            a[c][j] = a[c][j].div(&piv);
            inv[c][j] = inv[c][j].div(&piv);
        }
        for i in 0..n {
            if i != c && !a[i][c].is_zero() {
                let f = a[i][c].clone();
                for j in 0..n {
                    let v = a[i][j].sub(&f.mul(&a[c][j]));
                    a[i][j] = v;
                    let w = inv[i][j].sub(&f.mul(&inv[c][j]));
                    inv[i][j] = w;
                }
            }
        }
    }
    Some(inv)
}

fn power<T: Field>(a: &V<T>, n: i64) -> Result<V<T>> {
    match a {
        V::Id(c) => Ok(match power(&V::S(c.clone()), n)? {
            V::S(p) => V::Id(p),
            other => other,
        }),
        V::S(x) => {
            let mut out = T::one();
            for _ in 0..n.unsigned_abs() {
                out = out.mul(x);
            }
            if n < 0 {
                if out.is_zero() {
                    return Err(bad("division by zero"));
                }
                out = T::one().div(&out);
            }
            Ok(V::S(out))
        }
        V::M(m) => {
            if m.len() != m[0].len() {
                return Err(bad("only a square matrix has powers and an inverse"));
            }
            let base = if n < 0 {
                if det(m).is_zero() {
                    return Err(bad("the matrix is singular (determinant 0): it has no inverse"));
                }
                inverse(m).ok_or_else(|| bad("the matrix is singular (determinant 0): it has no inverse"))?
            } else {
                m.clone()
            };
            let mut out = ident::<T>(m.len());
            for _ in 0..n.unsigned_abs() {
                let V::M(p) = checked(mul(&V::M(out), &V::M(base.clone()))?)? else { unreachable!("matrix product") };
                out = p;
            }
            Ok(V::M(out))
        }
    }
}

fn eval<T: Field>(toks: &[Tok], mats: &[Vec<Vec<T>>]) -> Result<V<T>> {
    let mut p = P { toks, i: 0, mats, depth: 0 };
    let v = p.expr()?;
    if p.i != toks.len() {
        return Err(bad("the matrix expression has something left over after its end"));
    }
    Ok(v)
}

fn show(v: &V<Q>) -> String {
    match v {
        V::S(q) => Expr::Num(q.clone()).to_string(),
        V::M(m) => format!(
            "[{}]",
            m.iter()
                .map(|r| format!(
                    "[{}]",
                    r.iter().map(|q| Expr::Num(q.clone()).to_string()).collect::<Vec<_>>().join(", ")
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        V::Id(c) => format!("{}·I", Expr::Num(c.clone())),
    }
}

fn size_of<T>(v: &V<T>) -> Option<usize> {
    match v {
        V::M(m) if m.len() == m[0].len() => Some(m.len()),
        _ => None,
    }
}

fn resolve<T: Field>(v: V<T>, n: Option<usize>) -> V<T> {
    match (v, n) {
        (V::Id(c), Some(n)) => V::M(scaled(n, &c)),
        (v, _) => v,
    }
}

fn agree(a: &V<f64>, b: &V<f64>) -> Option<bool> {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
    match (a, b) {
        (V::S(x), V::S(y)) | (V::Id(x), V::Id(y)) => Some(close(*x, *y)),
        (V::M(x), V::M(y)) if x.len() == y.len() && x[0].len() == y[0].len() => {
            Some(x.iter().zip(y).all(|(r, s)| r.iter().zip(s).all(|(u, v)| close(*u, *v))))
        }
        _ => None,
    }
}

/// Whether `text` reads as a matrix expression (for the router; cheap: matrices are
/// at most 10×10 and are evaluated in floating point only).
pub fn reads(text: &str) -> bool {
    let limits = Limits::default();
    let Ok((t, m)) = lex(text, &limits) else { return false };
    let mf: Vec<Vec<Vec<f64>>> =
        m.iter().map(|m| m.iter().map(|r| r.iter().map(q_to_f64).collect()).collect()).collect();
    !t.is_empty() && eval::<f64>(&t, &mf).is_ok()
}

/// `lhs = rhs` split at the one `=` outside brackets.
pub fn split_claim(text: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut eq = None;
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            '=' if depth == 0 => {
                if eq.is_some() {
                    return None;
                }
                eq = Some(i);
            }
            _ => {}
        }
    }
    let eq = eq?;
    Some((text[..eq].trim_end_matches('='), text[eq + 1..].trim_start_matches('=')))
}

/// Verify a matrix identity (see the module notes).
pub fn verify(lhs: &str, rhs: &str, limits: &Limits) -> Result<Verification> {
    let (lt, lm) = lex(lhs, limits)?;
    let (rt, rm) = lex(rhs, limits)?;
    if lm.iter().chain(&rm).any(|m| m.len() > MAX_DIM) {
        return Err(SymError::limit(format!("matrices are limited to {MAX_DIM}×{MAX_DIM} here")));
    }
    let l = eval::<Q>(&lt, &lm)?;
    let r = eval::<Q>(&rt, &rm)?;
    let n = size_of(&l).or(size_of(&r));
    let (l, r) = (resolve(l, n), resolve(r, n));
    // The same claim in floating point, from the same literals.
    let to_f = |ms: &[Vec<Vec<Q>>]| -> Vec<Vec<Vec<f64>>> {
        ms.iter().map(|m| m.iter().map(|row| row.iter().map(q_to_f64).collect()).collect()).collect()
    };
    let lf = resolve(eval::<f64>(&lt, &to_f(&lm))?, n);
    let rf = resolve(eval::<f64>(&rt, &to_f(&rm))?, n);
    let shape_differs = match (&l, &r) {
        (V::S(_), V::S(_)) | (V::Id(_), V::Id(_)) => false,
        (V::M(a), V::M(b)) => a.len() != b.len() || a[0].len() != b[0].len(),
        _ => true,
    };
    let (ls, rs) = (show(&l), show(&r));
    let mut out = Verification {
        verdict: Verdict::Unknown,
        lhs: lhs.trim().to_string(),
        rhs: rhs.trim().to_string(),
        reason: String::new(),
        steps: vec![format!("left side = {ls}"), format!("right side = {rs}")],
        domain: Vec::new(),
        counterexample: None,
        numeric: NumericCheck { points: 1, both_defined: 1, agreeing: 0, lhs_only: 0, rhs_only: 0 },
    };
    if shape_differs {
        out.verdict = Verdict::Refuted;
        out.reason = "one side is a number and the other a matrix, or the matrices have different shapes".into();
        out.counterexample =
            Some(Counterexample { point: BTreeMap::new(), lhs_value: ls, rhs_value: rs, confirmed_by: "exact".into() });
        return Ok(out);
    }
    let exact_equal = l == r;
    let float_equal = agree(&lf, &rf);
    if float_equal != Some(exact_equal) && !(exact_equal && float_equal.is_none()) {
        out.reason = "the exact computation and its floating-point check disagree, so no verdict is given".into();
        return Ok(out);
    }
    if exact_equal {
        out.numeric.agreeing = 1;
        out.verdict = Verdict::Proved;
        out.reason =
            "both sides computed exactly in rational arithmetic are equal, and a floating-point recomputation agrees"
                .into();
    } else {
        out.verdict = Verdict::Refuted;
        out.reason =
            "both sides computed exactly in rational arithmetic differ (a floating-point recomputation agrees)".into();
        out.counterexample =
            Some(Counterexample { point: BTreeMap::new(), lhs_value: ls, rhs_value: rs, confirmed_by: "exact".into() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(l: &str, r: &str) -> Verdict {
        verify(l, r, &Limits::default()).unwrap().verdict
    }

    #[test]
    fn matrix_identities() {
        let a = "[[1, 2], [3, 4]]";
        let b = "[[0, 1], [5, -2]]";
        assert_eq!(v(&format!("det({a} * {b})"), &format!("det({a}) * det({b})")), Verdict::Proved);
        assert_eq!(v(&format!("{a} * inverse({a})"), "I"), Verdict::Proved);
        assert_eq!(v(&format!("({a} {b})^T"), &format!("{b}^T {a}^T")), Verdict::Proved);
        assert_eq!(v(&format!("({a} {b})^T"), &format!("{a}^T {b}^T")), Verdict::Refuted);
        assert_eq!(v(&format!("{a} * {b}"), &format!("{b} * {a}")), Verdict::Refuted);
        assert_eq!(v(&format!("det(2 {a})"), &format!("4 det({a})")), Verdict::Proved);
        assert_eq!(v(&format!("{a}^2 - 5 {a} - 2 I"), "0 * I"), Verdict::Proved);
        assert_eq!(v(&format!("trace({a} {b})"), &format!("trace({b} {a})")), Verdict::Proved);
        assert!(verify("inverse([[1, 2], [2, 4]])", "I", &Limits::default()).is_err());
        let huge = format!("[[{0}, 1], [1, {0}]]^64", "9".repeat(200));
        assert!(matches!(verify(&huge, "I", &Limits::default()), Err(SymError::Limit { .. })));
    }
}
