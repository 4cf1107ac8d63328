//! The normal form: a quotient of polynomials over opaque atoms (variables, π, e,
//! `sin(u)`, `exp(u)`, `sqrt(u)`, …), expanded, collected and cancelled. Two
//! expressions with the same normal form are equal wherever both are defined.
//!
//! Only rewrites that hold on the whole domain of what they rewrite are applied
//! (they may enlarge the domain, as cancelling `(x-1)/(x-1)` does, never shrink it).
//! The domain conditions met on the way are collected, so a result can say where it
//! holds. Rules that hold only where their result is defined (`log(ab) = log a +
//! log b`) are applied only in [`Mode::WhereDefined`].

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::error::{Result, SymError};
use crate::expr::{Expr, Func, Q, q, qf};
use crate::limits::Limits;
use crate::poly::{Budget, Mono, Poly};

/// An opaque building block of the normal form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// A variable (shared, so cloning an atom does not copy its name).
    Sym(std::sync::Arc<str>),
    /// π.
    Pi,
    /// Euler's number.
    E,
    /// `f(u)` for sin, cos, exp, log, abs and the inverse trig functions.
    Fn(Func, Box<Nf>),
    /// The real `q`-th root of a polynomial.
    Root(Box<Nf>, u32),
    /// `base^exponent` with a non-numeric exponent.
    Pow(Box<Nf>, Box<Nf>),
}

/// A normal form `num / den`, cancelled, with `den`'s leading coefficient 1.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nf {
    /// Numerator.
    pub num: Poly,
    /// Denominator.
    pub den: Poly,
}

/// A condition under which an expression is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CondKind {
    /// `u ≠ 0`
    NonZero,
    /// `u > 0`
    Positive,
    /// `u ≥ 0`
    NonNegative,
    /// `-1 ≤ u ≤ 1`
    UnitInterval,
}

/// Which rewrites are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Only rewrites valid on the whole domain of what they rewrite.
    Exact,
    /// Also rules valid where their result is defined (logarithms of products and
    /// powers split, `acos u = π/2 − asin u`).
    WhereDefined,
}

/// The context of one normal-form computation: budget, domain conditions met and
/// the names of the rewrite rules used.
#[derive(Debug)]
pub struct Cx {
    /// Work and size budget.
    pub budget: Budget,
    /// Domain conditions met, in order.
    pub conds: BTreeSet<(CondKind, Nf)>,
    /// Names of the non-trivial rules used.
    pub rules: BTreeSet<&'static str>,
    /// Which rewrites are allowed.
    pub mode: Mode,
}

impl Cx {
    /// A fresh context.
    pub fn new(limits: Limits) -> Self {
        Cx { budget: Budget::new(limits), conds: BTreeSet::new(), rules: BTreeSet::new(), mode: Mode::Exact }
    }

    /// Record a domain condition; a constant one is decided at once.
    fn require(&mut self, kind: CondKind, u: &Nf) -> Result<()> {
        if let Some(c) = u.as_const() {
            let ok = match kind {
                CondKind::NonZero => !c.is_zero(),
                CondKind::Positive => c.is_positive(),
                CondKind::NonNegative => !c.is_negative(),
                CondKind::UnitInterval => c.abs() <= Q::one(),
            };
            if !ok {
                return Err(SymError::input(format!("the expression is undefined: {}", cond_text(kind, u))));
            }
            return Ok(());
        }
        // Positive already (exp u, π, x² + 1): every condition but the unit interval holds.
        if kind != CondKind::UnitInterval && definitely_positive(u) {
            return Ok(());
        }
        // u ≥ 0 already (x², |x|): u > 0 means u ≠ 0, said of the bare factors.
        let (kind, u) = if kind == CondKind::Positive && definitely_nonneg(u) {
            (CondKind::NonZero, radical(u))
        } else {
            (kind, u.clone())
        };
        let u = &u;
        if kind == CondKind::NonZero && u.num.as_const().is_some() {
            return Ok(()); // c/D is never 0 where it is defined
        }
        if kind == CondKind::NonZero && u.den.is_one() && u.num.len() == 1 {
            let r = radical(u);
            let (m, _) = r.num.0.iter().next().expect("one term");
            if m.len() > 1 {
                for (a, _) in m.clone() {
                    self.require(CondKind::NonZero, &Nf::atom(a))?;
                }
                return Ok(());
            }
        }
        let holds = match kind {
            CondKind::NonZero | CondKind::Positive => definitely_positive(u),
            CondKind::NonNegative => definitely_nonneg(u),
            CondKind::UnitInterval => false,
        };
        if holds {
            return Ok(());
        }
        self.conds.insert((kind, u.clone()));
        Ok(())
    }

    /// The domain conditions as text, e.g. `x ≠ 1`, `x > 0`.
    pub fn cond_texts(&self) -> Vec<String> {
        self.conds.iter().map(|(k, u)| cond_text(*k, u)).collect()
    }
}

/// A single term's atoms to the first power, with `|v|` read as `v`: the factors
/// whose vanishing makes the term vanish.
fn radical(u: &Nf) -> Nf {
    if !u.den.is_one() || u.num.len() != 1 {
        return u.clone();
    }
    let (m, _) = u.num.0.iter().next().expect("one term");
    let mut out = Poly::one();
    for (a, _) in m {
        let f = match a {
            Atom::Fn(Func::Abs, v) if v.den.is_one() => v.num.clone(),
            a => Poly::atom(a.clone()),
        };
        out = out.mul_raw(&f, &mut Budget::new(Limits::default())).unwrap_or(out);
    }
    Nf::poly(out)
}

/// Whether every term is a positive coefficient times even powers or non-negative atoms.
fn nonneg_poly(p: &Poly) -> bool {
    p.0.iter().all(|(m, c)| c.is_positive() && m.iter().all(|(a, e)| e % 2 == 0 || nonnegative_atom(a)))
}

fn positive_poly(p: &Poly) -> bool {
    let all_positive_atoms = p.0.iter().all(|(m, c)| c.is_positive() && m.iter().all(|(a, _)| positive_atom(a)));
    all_positive_atoms || (nonneg_poly(p) && p.0.get(&Vec::new()).is_some_and(Signed::is_positive))
}

fn definitely_nonneg(u: &Nf) -> bool {
    nonneg_poly(&u.num) && positive_poly(&u.den)
}

fn definitely_positive(u: &Nf) -> bool {
    positive_poly(&u.num) && positive_poly(&u.den)
}

fn positive_atom(a: &Atom) -> bool {
    matches!(a, Atom::Pi | Atom::E | Atom::Fn(Func::Exp, _))
}

fn cond_text(kind: CondKind, u: &Nf) -> String {
    // c·x ≠ 0 (the usual case: a variable divided by): x ≠ 0, without the general search.
    if kind == CondKind::NonZero
        && u.den.is_one()
        && let [(m, _)] = u.num.0.as_slice()
        && let [(Atom::Sym(name), 1)] = m.as_slice()
    {
        return format!("{name} ≠ 0");
    }
    if kind == CondKind::NonZero && u.den.is_one() {
        // a*x + b ≠ 0  →  x ≠ -b/a
        let atoms = u.num.atoms();
        if let (1, Some(Atom::Sym(name))) = (atoms.len(), atoms.iter().next()) {
            let a = atoms.iter().next().expect("one");
            if u.num.degree_in(a) == 1 {
                let cs = u.num.coeffs_in(a);
                let k = cs.get(&1).and_then(Poly::as_const).unwrap_or_else(Q::one);
                let c = cs.get(&0).and_then(Poly::as_const).unwrap_or_else(Q::zero);
                return format!("{name} ≠ {}", Expr::Num(-c / k));
            }
        }
    }
    let e = u.to_expr();
    match kind {
        CondKind::NonZero => format!("{e} ≠ 0"),
        CondKind::Positive => format!("{e} > 0"),
        CondKind::NonNegative => format!("{e} ≥ 0"),
        CondKind::UnitInterval => format!("-1 ≤ {e} ≤ 1"),
    }
}

#[allow(clippy::should_implement_trait)]
impl Nf {
    /// A rational constant.
    pub fn constant(c: Q) -> Nf {
        Nf { num: Poly::constant(c), den: Poly::one() }
    }

    /// Zero.
    pub fn zero() -> Nf {
        Nf::constant(Q::zero())
    }

    /// One.
    pub fn one() -> Nf {
        Nf::constant(Q::one())
    }

    /// A single atom.
    pub fn atom(a: Atom) -> Nf {
        Nf { num: Poly::atom(a), den: Poly::one() }
    }

    pub(crate) fn poly(p: Poly) -> Nf {
        Nf { num: p, den: Poly::one() }
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.num.is_zero()
    }

    /// The value, when constant.
    pub fn as_const(&self) -> Option<Q> {
        if self.den.is_one() {
            return self.num.as_const();
        }
        Some(self.num.as_const()? / self.den.as_const()?)
    }

    /// Number of terms in numerator and denominator.
    pub fn terms(&self) -> usize {
        self.num.len() + self.den.len()
    }

    /// The atoms that occur (not looking inside function arguments).
    pub fn atoms(&self) -> BTreeSet<Atom> {
        let mut a = self.num.atoms();
        a.extend(self.den.atoms());
        a
    }

    /// The variables that occur anywhere, inside atoms too.
    pub fn free_symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for a in self.atoms() {
            match a {
                Atom::Sym(s) => {
                    out.insert(s.to_string());
                }
                Atom::Pi | Atom::E => {}
                Atom::Fn(_, u) | Atom::Root(u, _) => out.extend(u.free_symbols()),
                Atom::Pow(b, e) => {
                    out.extend(b.free_symbols());
                    out.extend(e.free_symbols());
                }
            }
        }
        out
    }

    /// `num / den`, cancelled and normalised.
    pub fn make(num: Poly, den: Poly, cx: &mut Cx) -> Result<Nf> {
        if den.is_zero() {
            return Err(SymError::input("the expression divides by zero"));
        }
        if num.is_zero() {
            return Ok(Nf::zero());
        }
        if let Some(c) = den.as_const_ref() {
            if c.is_one() {
                return Ok(Nf::poly(num));
            }
            return Ok(Nf::poly(num.scale(&c.recip())));
        }
        let m = num.common_monomial(&den);
        let (mut num, mut den) = if m.is_empty() { (num, den) } else { (num.div_mono(&m), den.div_mono(&m)) };
        if den.as_const().is_none() && num.as_const().is_none() {
            let g = num.gcd(&den, &mut cx.budget)?;
            if g.as_const().is_none() {
                cx.rules.insert("cancel common factors");
                num = num.div_exact(&g, &mut cx.budget)?.unwrap_or(num);
                den = den.div_exact(&g, &mut cx.budget)?.unwrap_or(den);
            }
        }
        let lc = den.lead().map(|(_, c)| c.clone()).unwrap_or_else(Q::one);
        let inv = lc.recip();
        Ok(Nf { num: num.scale(&inv), den: den.scale(&inv) })
    }

    /// `self + other`.
    pub fn add(&self, other: &Nf, cx: &mut Cx) -> Result<Nf> {
        cx.budget.charge((self.terms() + other.terms()) as u64)?;
        if self.den == other.den {
            return Nf::make(self.num.add(&other.num), self.den.clone(), cx);
        }
        let a = mul(&self.num, &other.den, cx)?;
        let b = mul(&other.num, &self.den, cx)?;
        let d = mul(&self.den, &other.den, cx)?;
        Nf::make(a.add(&b), d, cx)
    }

    /// `self - other`.
    pub fn sub(&self, other: &Nf, cx: &mut Cx) -> Result<Nf> {
        self.add(&other.neg(), cx)
    }

    /// `-self`.
    pub fn neg(&self) -> Nf {
        Nf { num: self.num.neg(), den: self.den.clone() }
    }

    /// `c * self`.
    pub fn scale(&self, c: &Q) -> Nf {
        Nf { num: self.num.scale(c), den: self.den.clone() }
    }

    /// `self * other`.
    pub fn mul(&self, other: &Nf, cx: &mut Cx) -> Result<Nf> {
        if self.den.is_one() && other.den.is_one() {
            return Ok(Nf::poly(mul(&self.num, &other.num, cx)?));
        }
        let n = mul(&self.num, &other.num, cx)?;
        let d = mul(&self.den, &other.den, cx)?;
        Nf::make(n, d, cx)
    }

    /// `1 / self`, recording `self ≠ 0`.
    pub fn inv(&self, cx: &mut Cx) -> Result<Nf> {
        if self.is_zero() {
            return Err(SymError::input("the expression divides by zero"));
        }
        cx.require(CondKind::NonZero, self)?;
        // `self` is cancelled, so `den/num` is too: only the leading coefficient of
        // the new denominator is normalised.
        if let Some(c) = self.num.as_const_ref() {
            return Ok(Nf::poly(self.den.scale(&c.recip())));
        }
        let inv = self.num.lead().map(|(_, c)| c.recip()).expect("non-zero");
        Ok(Nf { num: self.den.scale(&inv), den: self.num.scale(&inv) })
    }

    /// `self / other`.
    pub fn div(&self, other: &Nf, cx: &mut Cx) -> Result<Nf> {
        self.mul(&other.inv(cx)?, cx)
    }

    /// `self ^ n` for an integer `n`, refusing early when the expansion would be too big.
    pub fn pow_int(&self, n: i64, cx: &mut Cx) -> Result<Nf> {
        if n < 0 {
            return self.inv(cx)?.pow_int(-n, cx);
        }
        let n = n as u64;
        if n == 0 {
            return Ok(Nf::one());
        }
        if n == 1 {
            return Ok(self.clone());
        }
        for p in [&self.num, &self.den] {
            expansion_check(p.len(), n, &cx.budget.limits)?;
        }
        let num = pow_poly(&self.num, n, cx)?;
        let den = pow_poly(&self.den, n, cx)?;
        Nf::make(num, den, cx)
    }

    /// Back to an expression, terms in a readable order.
    pub fn to_expr(&self) -> Expr {
        let num = poly_expr(&self.num);
        if self.den.is_one() {
            return num;
        }
        Expr::Mul(vec![num, Expr::pow(poly_expr(&self.den), Expr::int(-1))])
    }
}

impl std::fmt::Display for Nf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_expr())
    }
}

fn expansion_check(terms: usize, n: u64, limits: &Limits) -> Result<()> {
    if terms <= 1 || n <= 1 {
        return Ok(());
    }
    // Upper bound on the number of monomials: C(n + t - 1, t - 1).
    let mut est = 1f64;
    for i in 1..terms {
        est *= (n as f64 + i as f64) / i as f64;
        if est > 1e12 {
            break;
        }
    }
    if n > limits.max_expand_power || est > limits.max_terms as f64 {
        return Err(SymError::limit(format!(
            "expanding a {terms}-term expression to the power {n} would give about {} terms, over the limit of {} (largest power expanded: {}); it was not attempted",
            if est > 1e12 { ">10^12".to_string() } else { format!("{est:.0}") },
            limits.max_terms,
            limits.max_expand_power
        )));
    }
    Ok(())
}

fn pow_poly(p: &Poly, mut n: u64, cx: &mut Cx) -> Result<Poly> {
    if p.len() == 1 {
        let (m, c) = p.0.iter().next().expect("one term");
        let k = n.min(u32::MAX as u64) as u32;
        if m.iter().any(|(_, e)| *e as u64 * n > cx.budget.limits.max_exponent) {
            return Err(SymError::limit(format!(
                "an exponent would exceed the limit of {}",
                cx.budget.limits.max_exponent
            )));
        }
        let cpow = qpow(c, n, &cx.budget.limits)?;
        let mono: Mono = m.iter().map(|(a, e)| (a.clone(), e * k)).collect();
        return reduce(Poly::term(mono, cpow), cx);
    }
    let mut base = p.clone();
    let mut acc = Poly::one();
    while n > 0 {
        if n & 1 == 1 {
            acc = mul(&acc, &base, cx)?;
        }
        n >>= 1;
        if n > 0 {
            base = mul(&base, &base, cx)?;
        }
    }
    Ok(acc)
}

/// `c^n` for a rational, refusing when the result would have too many digits.
pub fn qpow(c: &Q, n: u64, limits: &Limits) -> Result<Q> {
    let bits = c.bits() as f64;
    if bits * n as f64 * std::f64::consts::LOG10_2 > limits.max_digits as f64 {
        return Err(SymError::limit(format!(
            "{c}^{n} would have more than {} digits, over the limit",
            limits.max_digits
        )));
    }
    let e = u32::try_from(n).map_err(|_| SymError::limit("exponent too large"))?;
    Ok(num_traits::Pow::pow(c, e))
}

/// Multiply and apply the atom relations (cos² = 1 − sin², |u|² = u², root(b,q)^q = b).
fn mul(a: &Poly, b: &Poly, cx: &mut Cx) -> Result<Poly> {
    let p = a.mul_raw(b, &mut cx.budget)?;
    reduce(p, cx)
}

fn reducible(a: &Atom, e: u32) -> bool {
    match a {
        Atom::Fn(Func::Cos, _) | Atom::Fn(Func::Abs, _) => e >= 2,
        Atom::Root(_, k) => e >= *k || num_integer::gcd(e, *k) > 1,
        _ => false,
    }
}

fn reduce(p: Poly, cx: &mut Cx) -> Result<Poly> {
    let mut cur = p;
    for _ in 0..64 {
        if !cur.0.keys().any(|m| m.iter().any(|(a, e)| reducible(a, *e))) {
            return Ok(cur);
        }
        let mut out = Poly::zero();
        for (m, c) in &cur.0 {
            let Some(k) = m.iter().position(|(a, e)| reducible(a, *e)) else {
                out.add_term(m.clone(), c.clone());
                continue;
            };
            let (atom, e) = m[k].clone();
            let mut rest = m.clone();
            let (keep, replacement, times) = match &atom {
                Atom::Fn(Func::Cos, u) => {
                    cx.rules.insert("cos² = 1 − sin²");
                    let s2 = Poly::term(vec![(Atom::Fn(Func::Sin, u.clone()), 2)], Q::one());
                    (e % 2, Poly::one().sub(&s2), e / 2)
                }
                Atom::Fn(_, u) => (e % 2, u.num.mul_raw(&u.num, &mut cx.budget)?, e / 2),
                Atom::Root(b, k) if e < *k => {
                    // root(b, k)^e = root(b, k/g)^(e/g), g = gcd(e, k): equal wherever the
                    // left side is defined (it may enlarge the domain, as for k even, k/g odd).
                    let g = num_integer::gcd(e, *k);
                    (0, Poly::term(vec![(Atom::Root(b.clone(), k / g), e / g)], Q::one()), 1)
                }
                Atom::Root(b, k) => (e % k, b.num.clone(), e / k),
                _ => unreachable!("only reducible atoms"),
            };
            if keep == 0 {
                rest.remove(k);
            } else {
                rest[k].1 = keep;
            }
            let mut t = Poly::term(rest, c.clone());
            for _ in 0..times {
                t = t.mul_raw(&replacement, &mut cx.budget)?;
            }
            out = out.add(&t);
        }
        cur = out;
    }
    Err(SymError::limit("the normal form did not settle"))
}

/// Display order among terms of one total degree: the higher power of the first atom
/// first, then of the next (`x^2 + x*y + y^2`, `a*d - b*c`).
fn grlex(a: &Mono, b: &Mono) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut i, mut j) = (0, 0);
    loop {
        match (a.get(i), b.get(j)) {
            (None, None) => return Ordering::Equal,
            (Some(_), None) => return Ordering::Less,
            (None, Some(_)) => return Ordering::Greater,
            (Some((x, e)), Some((y, f))) => match x.cmp(y) {
                Ordering::Equal if e != f => return f.cmp(e),
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                o => return o,
            },
        }
    }
}

/// Terms sorted for display: higher total degree first.
fn poly_expr(p: &Poly) -> Expr {
    let mut terms: Vec<(&Mono, &Q)> = p.0.iter().collect();
    terms.sort_by(|a, b| {
        let da: u32 = a.0.iter().map(|(_, e)| e).sum();
        let db: u32 = b.0.iter().map(|(_, e)| e).sum();
        db.cmp(&da).then_with(|| grlex(a.0, b.0))
    });
    let exprs: Vec<Expr> = terms.into_iter().map(|(m, c)| term_expr(m, c)).collect();
    match exprs.len() {
        0 => Expr::int(0),
        1 => exprs.into_iter().next().expect("one"),
        _ => Expr::Add(exprs),
    }
}

fn term_expr(m: &Mono, c: &Q) -> Expr {
    let mut factors = Vec::new();
    if !c.is_one() || m.is_empty() {
        factors.push(Expr::Num(c.clone()));
    }
    for (a, e) in m {
        let base = atom_expr(a);
        factors.push(match (a, *e) {
            (_, 1) => base,
            (Atom::Fn(Func::Exp, u), k) => Expr::func(Func::Exp, u.scale(&q(k as i64)).to_expr()),
            (_, k) => Expr::pow(base, Expr::int(k as i64)),
        });
    }
    if factors.len() == 1 { factors.pop().expect("one") } else { Expr::Mul(factors) }
}

fn atom_expr(a: &Atom) -> Expr {
    match a {
        Atom::Sym(s) => Expr::Sym(s.to_string()),
        Atom::Pi => Expr::Pi,
        Atom::E => Expr::E,
        Atom::Fn(f, u) => Expr::func(*f, u.to_expr()),
        Atom::Root(b, k) => Expr::pow(b.to_expr(), Expr::Num(qf(1, *k as i64))),
        Atom::Pow(b, e) => Expr::pow(b.to_expr(), e.to_expr()),
    }
}

/// The normal form of an expression.
pub fn normal_form(e: &Expr, cx: &mut Cx) -> Result<Nf> {
    cx.budget.charge(1)?;
    match e {
        Expr::Num(c) => Ok(Nf::constant(c.clone())),
        Expr::Sym(s) => Ok(Nf::atom(Atom::Sym(s.as_str().into()))),
        Expr::Pi => Ok(Nf::atom(Atom::Pi)),
        Expr::E => Ok(Nf::atom(Atom::E)),
        Expr::Add(v) => {
            let mut acc = Nf::zero();
            for t in v {
                acc = acc.add(&normal_form(t, cx)?, cx)?;
            }
            Ok(acc)
        }
        Expr::Mul(v) => {
            let mut acc = Nf::one();
            for t in v {
                acc = acc.mul(&normal_form(t, cx)?, cx)?;
                if acc.is_zero() {
                    // keep collecting domain conditions of the remaining factors
                    for rest in v {
                        let _ = normal_form(rest, cx)?;
                    }
                    return Ok(acc);
                }
            }
            Ok(acc)
        }
        Expr::Pow(b, x) => {
            let b = normal_form(b, cx)?;
            let x = normal_form(x, cx)?;
            power(&b, &x, cx)
        }
        Expr::Func(f, a) => {
            let a = normal_form(a, cx)?;
            apply(*f, &a, cx)
        }
        Expr::Deriv(a, v, n) => {
            let mut d = normal_form(a, cx)?;
            for _ in 0..*n {
                d = derivative(&d, v, cx)?;
            }
            Ok(d)
        }
    }
}

/// `b ^ x`.
pub fn power(b: &Nf, x: &Nf, cx: &mut Cx) -> Result<Nf> {
    if let Some(r) = x.as_const() {
        if r.is_integer() {
            let n = r.to_integer().to_i64().ok_or_else(|| SymError::limit(format!("the exponent {r} is too large")))?;
            if n == 0 {
                return Ok(Nf::one());
            }
            return b.pow_int(n, cx);
        }
        let p = r.numer_i64().ok_or_else(|| SymError::limit("exponent too large"))?;
        let k = r
            .denom_i64()
            .and_then(|v| u32::try_from(v).ok())
            .filter(|k| *k <= 64)
            .ok_or_else(|| SymError::unsupported("root index too large"))?;
        let root = root(b, k, cx)?;
        return root.pow_int(p, cx);
    }
    if b.num == Poly::atom(Atom::E) && b.den.is_one() {
        return exp(x, cx);
    }
    cx.require(CondKind::Positive, b)?;
    if b.as_const().is_some_and(|c| c.is_one()) {
        return Ok(Nf::one());
    }
    Ok(Nf::atom(Atom::Pow(Box::new(b.clone()), Box::new(x.clone()))))
}

/// The real `k`-th root.
pub fn root(b: &Nf, k: u32, cx: &mut Cx) -> Result<Nf> {
    if k == 1 {
        return Ok(b.clone());
    }
    let even = k.is_multiple_of(2);
    if even {
        cx.require(CondKind::NonNegative, b)?;
    }
    if !b.den.is_one() {
        // root(N/D) = root(N·D^(k-1)) / D, with |D| for even k: valid wherever defined.
        let nd = Nf::poly(b.num.clone()).mul(&Nf::poly(b.den.clone()).pow_int(k as i64 - 1, cx)?, cx)?;
        let top = root_poly(&nd.num, k, cx)?;
        let d = Nf::poly(b.den.clone());
        let bottom = if even { abs(&d, cx)? } else { d };
        return top.div(&bottom, cx);
    }
    root_poly(&b.num, k, cx)
}

fn root_poly(p: &Poly, k: u32, cx: &mut Cx) -> Result<Nf> {
    let even = k.is_multiple_of(2);
    if let Some(c) = p.as_const() {
        return root_const(&c, k);
    }
    // Pull out the positive rational content.
    let content = p.0.values().fold(Q::zero(), |g, c| gcd_q(&g, c));
    let prim = p.scale(&content.recip());
    let outer = root_const(&content, k)?;
    if prim.len() == 1 {
        let (m, c) = prim.0.iter().next().expect("one");
        if m.iter().all(|(_, e)| e % k == 0) && (c.is_positive() || !even) {
            let mut out = Nf::constant(if c.is_negative() { -Q::one() } else { Q::one() });
            for (a, e) in m {
                let base = Nf::atom(a.clone());
                let f = if even && (e / k) % 2 == 1 { abs(&base, cx)? } else { base };
                out = out.mul(&f.pow_int((e / k) as i64, cx)?, cx)?;
            }
            return outer.mul(&out, cx);
        }
        if even && m.len() == 1 && c.is_positive() {
            // One atom under an even root: with g = gcd(e, k), root(a^e, k) is
            // root(|a|^(e/g), k/g) for e even (a^e = |a|^e ≥ 0 for every real a), and
            // root(a^(e/g), k/g) for e odd (where it is defined, a ≥ 0); then the
            // whole powers come out, as for odd roots: (x^2)^(1/4) = sqrt(|x|),
            // (x^3)^(1/2) = x·sqrt(x) for x ≥ 0. Both sides have the same domain.
            let (a, e) = &m[0];
            let g = num_integer::gcd(*e, k);
            let (e2, k2) = (e / g, k / g);
            let atom = Nf::atom(a.clone());
            let base = if e % 2 == 0 { abs(&atom, cx)? } else { atom };
            let mut out = base.pow_int((e2 / k2) as i64, cx)?;
            if e2 % k2 != 0 {
                let r = Nf::atom(Atom::Root(Box::new(base), k2));
                out = out.mul(&r.pow_int((e2 % k2) as i64, cx)?, cx)?;
            }
            cx.rules.insert("even real roots of one power: root(a^e, k) = root(|a|^(e/g), k/g)");
            return outer.mul(&out, cx);
        }
        if !even {
            // An odd real root is multiplicative for every real value, and
            // root(a^e) = a^(e div k)·root(a)^(e mod k): so x^(2/3) and (x^2)^(1/3)
            // meet as root(x, 3)^2 (the real cube root; complex-valued systems differ).
            let mut out = Nf::constant(if c.is_negative() { -Q::one() } else { Q::one() });
            for (a, e) in m {
                let base = Nf::atom(a.clone());
                out = out.mul(&base.pow_int((e / k) as i64, cx)?, cx)?;
                if e % k != 0 {
                    let r = Nf::atom(Atom::Root(Box::new(base), k));
                    out = out.mul(&r.pow_int((e % k) as i64, cx)?, cx)?;
                }
            }
            if m.len() > 1 || m.iter().any(|(_, e)| *e > 1) {
                cx.rules.insert(crate::verify::ODD_ROOT_RULE);
            }
            return outer.mul(&out, cx);
        }
    }
    if k == 2
        && let Some(s) = poly_sqrt(&prim, cx)?
    {
        cx.rules.insert("sqrt(u²) = |u|");
        return outer.mul(&abs(&Nf::poly(s), cx)?, cx);
    }
    let atom = Nf::atom(Atom::Root(Box::new(Nf::poly(prim)), k));
    outer.mul(&atom, cx)
}

/// The exact square root of a polynomial, when it has one.
fn poly_sqrt(p: &Poly, cx: &mut Cx) -> Result<Option<Poly>> {
    let Some((lm, lc)) = p.lead() else { return Ok(None) };
    if lm.iter().any(|(_, e)| e % 2 == 1) || lc.is_negative() {
        return Ok(None);
    }
    let Some(c) = exact_root_q(lc, 2) else { return Ok(None) };
    let first: Mono = lm.iter().map(|(a, e)| (a.clone(), e / 2)).collect();
    let mut r = Poly::term(first.clone(), c.clone());
    let two_lead = Poly::term(first, c * q(2));
    for _ in 0..p.len() + 1 {
        let rem = p.sub(&r.mul_raw(&r, &mut cx.budget)?);
        if rem.is_zero() {
            return Ok(Some(r));
        }
        let Some(t) = Poly::term(rem.lead().expect("non-zero").0.clone(), rem.lead().expect("non-zero").1.clone())
            .div_exact(&two_lead, &mut cx.budget)?
        else {
            return Ok(None);
        };
        if t.len() != 1 {
            return Ok(None);
        }
        r = r.add(&t);
        // The leading term of the remainder must shrink; stop if it does not.
        if crate::poly::mono_cmp(t.lead().expect("one").0, r.lead().expect("one").0) == std::cmp::Ordering::Greater {
            return Ok(None);
        }
    }
    Ok(None)
}

fn gcd_q(a: &Q, b: &Q) -> Q {
    if a.is_zero() {
        return b.abs();
    }
    Q::new(a.numer().gcd(&b.numer()), a.denom().lcm(&b.denom()))
}

/// The exact `k`-th root of a rational, when it has one.
pub fn exact_root_q(c: &Q, k: u32) -> Option<Q> {
    if c.is_negative() {
        return if k % 2 == 1 { exact_root_q(&-c, k).map(|r| -r) } else { None };
    }
    let n = c.numer().nth_root(k);
    let d = c.denom().nth_root(k);
    (num_traits::Pow::pow(&n, k) == c.numer() && num_traits::Pow::pow(&d, k) == c.denom()).then(|| Q::new(n, d))
}

fn root_const(c: &Q, k: u32) -> Result<Nf> {
    if let Some(r) = exact_root_q(c, k) {
        return Ok(Nf::constant(r));
    }
    if c.is_negative() {
        return Ok(root_const(&-c, k)?.neg());
    }
    // root(n/d) = root(n·d^(k-1)) / d; then pull perfect powers of small primes out.
    let d = c.denom().clone();
    let mut n = c.numer() * num_traits::Pow::pow(&d, k - 1);
    let mut outside = BigInt::one();
    if let Some(mut m) = n.to_u64() {
        // The same in machine integers; once p^k exceeds what is left, no larger
        // prime power divides it.
        let mut out: u64 = 1;
        for prime in small_primes() {
            let Some(pk) = u64::from(prime).checked_pow(k).filter(|pk| *pk <= m) else { break };
            while m.is_multiple_of(pk) {
                m /= pk;
                out *= u64::from(prime);
            }
        }
        let coef = Q::new(BigInt::from(out), d);
        let atom = Nf::atom(Atom::Root(Box::new(Nf::constant(Q::from_integer(BigInt::from(m)))), k));
        return Ok(atom.scale(&coef));
    }
    for prime in small_primes() {
        let pk = num_traits::Pow::pow(&BigInt::from(prime), k);
        while (&n % &pk).is_zero() {
            n /= &pk;
            outside *= prime;
        }
    }
    let coef = Q::new(outside, d);
    let atom = Nf::atom(Atom::Root(Box::new(Nf::constant(Q::from_integer(n))), k));
    Ok(atom.scale(&coef))
}

/// The primes below 200.
const SMALL_PRIMES: [u32; 46] = [
    2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109,
    113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199,
];

fn small_primes() -> impl Iterator<Item = u32> {
    SMALL_PRIMES.into_iter()
}

/// `|u|`.
pub fn abs(u: &Nf, cx: &mut Cx) -> Result<Nf> {
    if !u.den.is_one() {
        let n = abs(&Nf::poly(u.num.clone()), cx)?;
        let d = abs(&Nf::poly(u.den.clone()), cx)?;
        return n.div(&d, cx);
    }
    if let Some(c) = u.as_const() {
        return Ok(Nf::constant(c.abs()));
    }
    let p = &u.num;
    if p.len() == 1 {
        let (m, c) = p.0.iter().next().expect("one");
        let mut out = Nf::constant(c.abs());
        for (a, e) in m {
            let f = if e % 2 == 0 || nonnegative_atom(a) {
                Nf::atom(a.clone())
            } else {
                Nf::atom(Atom::Fn(Func::Abs, Box::new(Nf::atom(a.clone()))))
            };
            out = out.mul(&f.pow_int(*e as i64, cx)?, cx)?;
        }
        return Ok(out);
    }
    let sign = if p.lead_negative() { -Q::one() } else { Q::one() };
    let content = p.0.values().fold(Q::zero(), |g, c| gcd_q(&g, c));
    let prim = p.scale(&(sign / &content));
    if prim.0.iter().all(|(m, c)| c.is_positive() && m.iter().all(|(a, e)| e % 2 == 0 || nonnegative_atom(a))) {
        return Ok(Nf::poly(prim).scale(&content));
    }
    Ok(Nf::atom(Atom::Fn(Func::Abs, Box::new(Nf::poly(prim)))).scale(&content))
}

fn nonnegative_atom(a: &Atom) -> bool {
    positive_atom(a) || matches!(a, Atom::Fn(Func::Abs, _)) || matches!(a, Atom::Root(_, k) if k % 2 == 0)
}

/// `f(a)`.
pub fn apply(f: Func, a: &Nf, cx: &mut Cx) -> Result<Nf> {
    match f {
        Func::Sin => Ok(sin_cos(a, cx)?.0),
        Func::Cos => Ok(sin_cos(a, cx)?.1),
        Func::Tan | Func::Sec | Func::Csc | Func::Cot => {
            let (s, c) = sin_cos(a, cx)?;
            cx.rules.insert("tan, sec, csc, cot in terms of sin and cos");
            match f {
                Func::Tan => s.div(&c, cx),
                Func::Sec => c.inv(cx),
                Func::Csc => s.inv(cx),
                _ => c.div(&s, cx),
            }
        }
        Func::Exp => exp(a, cx),
        Func::Log => {
            cx.require(CondKind::Positive, a)?;
            log(a, cx)
        }
        Func::Abs => abs(a, cx),
        Func::Sinh | Func::Cosh | Func::Tanh => {
            cx.rules.insert("hyperbolic functions in terms of exp");
            let ep = exp(a, cx)?;
            let em = exp(&a.neg(), cx)?;
            let half = qf(1, 2);
            match f {
                Func::Sinh => Ok(ep.sub(&em, cx)?.scale(&half)),
                Func::Cosh => Ok(ep.add(&em, cx)?.scale(&half)),
                _ => ep.sub(&em, cx)?.div(&ep.add(&em, cx)?, cx),
            }
        }
        Func::Asin | Func::Acos | Func::Atan => inverse_trig(f, a, cx),
    }
}

fn inverse_trig(f: Func, a: &Nf, cx: &mut Cx) -> Result<Nf> {
    if f != Func::Atan {
        cx.require(CondKind::UnitInterval, a)?;
    }
    let pi = |r: Q| Nf::atom(Atom::Pi).scale(&r);
    if let Some(c) = a.as_const() {
        let special = match (f, c.clone()) {
            (_, c) if c.is_zero() => Some(if f == Func::Acos { pi(qf(1, 2)) } else { Nf::zero() }),
            (Func::Asin, c) if c.is_one() => Some(pi(qf(1, 2))),
            (Func::Acos, c) if c.is_one() => Some(Nf::zero()),
            (Func::Atan, c) if c.is_one() => Some(pi(qf(1, 4))),
            (Func::Asin, c) if c == qf(1, 2) => Some(pi(qf(1, 6))),
            (Func::Acos, c) if c == qf(1, 2) => Some(pi(qf(1, 3))),
            _ => None,
        };
        if let Some(s) = special {
            return Ok(s);
        }
    }
    if f == Func::Acos && cx.mode == Mode::WhereDefined {
        cx.rules.insert("acos u = π/2 − asin u");
        let asin = inverse_trig(Func::Asin, a, cx)?;
        return pi(qf(1, 2)).sub(&asin, cx);
    }
    // Odd symmetry: asin(-u) = -asin(u), atan(-u) = -atan(u), acos(-u) = π - acos(u).
    if a.num.lead_negative() {
        let pos = inverse_trig(f, &a.neg(), cx)?;
        return Ok(if f == Func::Acos { pi(Q::one()).sub(&pos, cx)? } else { pos.neg() });
    }
    Ok(Nf::atom(Atom::Fn(f, Box::new(a.clone()))))
}

/// `exp(a)`: sums split into products, integer multiples into powers, `exp(n·log u)`
/// into `u^n`.
pub fn exp(a: &Nf, cx: &mut Cx) -> Result<Nf> {
    if !a.den.is_one() {
        return Ok(Nf::atom(Atom::Fn(Func::Exp, Box::new(a.clone()))));
    }
    let mut out = Nf::one();
    for (m, c) in &a.num.0 {
        let factor = if m.is_empty() {
            power(&Nf::atom(Atom::E), &Nf::constant(c.clone()), cx)?
        } else if let [(Atom::Fn(Func::Log, u), 1)] = m.as_slice() {
            cx.rules.insert("exp(n·log u) = u^n");
            power(u, &Nf::constant(c.clone()), cx)?
        } else if c.is_integer() {
            if a.num.len() > 1 || !c.is_one() {
                cx.rules.insert("exp(a + b) = exp(a)·exp(b)");
            }
            let n = c.to_integer().to_i64().ok_or_else(|| SymError::limit("exponent too large"))?;
            Nf::atom(Atom::Fn(Func::Exp, Box::new(Nf::poly(Poly::term(m.clone(), Q::one()))))).pow_int(n, cx)?
        } else {
            Nf::atom(Atom::Fn(Func::Exp, Box::new(Nf::poly(Poly::term(m.clone(), c.clone())))))
        };
        out = out.mul(&factor, cx)?;
    }
    Ok(out)
}

/// Put every `exp(c·m)` of `d` (same monomial `m`, rational `c`) over one base:
/// `exp(c·m) = exp(m/D)^(c·D)` with `D` the common denominator of the `c`s, so that
/// `exp(x/2)^2 − exp(x)` becomes `exp(x/2)^2 − exp(x/2)^2 = 0`. Valid for every real
/// value (exp is defined and positive everywhere). `None` when no two `exp` atoms
/// share a monomial with a fractional coefficient (nothing to merge).
pub fn rebase_exp(d: &Nf, cx: &mut Cx) -> Result<Option<Nf>> {
    let mut groups: BTreeMap<Mono, (BigInt, usize)> = BTreeMap::new();
    let atoms = d.atoms();
    for a in &atoms {
        if let Some((m, c)) = exp_monomial(a) {
            let g = groups.entry(m.clone()).or_insert((BigInt::one(), 0));
            g.0 = g.0.lcm(&c.denom());
            g.1 += 1;
        }
    }
    let mut map: BTreeMap<Atom, Nf> = BTreeMap::new();
    for a in &atoms {
        let Some((m, c)) = exp_monomial(a) else { continue };
        let (den, count) = &groups[m];
        if den.is_one() || *count < 2 {
            continue;
        }
        let n = (c * Q::from_integer(den.clone()))
            .to_integer()
            .to_i64()
            .ok_or_else(|| SymError::limit("exponent too large"))?;
        let base = Nf::atom(Atom::Fn(
            Func::Exp,
            Box::new(Nf::poly(Poly::term(m.clone(), Q::new(BigInt::one(), den.clone())))),
        ));
        map.insert(a.clone(), base.pow_int(n, cx)?);
    }
    if map.is_empty() {
        return Ok(None);
    }
    cx.rules.insert("exp(c·u) = exp(u/D)^(c·D)");
    let num = subst_poly(&d.num, &map, cx)?;
    let den = subst_poly(&d.den, &map, cx)?;
    Ok(Some(num.div(&den, cx)?))
}

/// `exp(c·m)` as `(m, c)`, for an exp atom whose argument is a single term.
fn exp_monomial(a: &Atom) -> Option<(&Mono, &Q)> {
    match a {
        Atom::Fn(Func::Exp, u) if u.den.is_one() && u.num.len() == 1 => {
            u.num.0.iter().next().filter(|(m, _)| !m.is_empty())
        }
        _ => None,
    }
}

/// `p` with the atoms in `map` replaced.
fn subst_poly(p: &Poly, map: &BTreeMap<Atom, Nf>, cx: &mut Cx) -> Result<Nf> {
    let mut out = Nf::zero();
    for (m, c) in &p.0 {
        let mut t = Nf::constant(c.clone());
        for (a, e) in m {
            let f = match map.get(a) {
                Some(r) => r.pow_int(*e as i64, cx)?,
                None => Nf::poly(Poly::term(vec![(a.clone(), *e)], Q::one())),
            };
            t = t.mul(&f, cx)?;
        }
        out = out.add(&t, cx)?;
    }
    Ok(out)
}

/// `log(a)` (the caller records `a > 0`).
pub fn log(a: &Nf, cx: &mut Cx) -> Result<Nf> {
    if !a.den.is_one() {
        if cx.mode == Mode::WhereDefined {
            cx.rules.insert("log(a/b) = log a − log b (where a, b > 0)");
            return log_poly(&a.num, cx)?.sub(&log_poly(&a.den, cx)?, cx);
        }
        return Ok(Nf::atom(Atom::Fn(Func::Log, Box::new(a.clone()))));
    }
    log_poly(&a.num, cx)
}

fn log_poly(p: &Poly, cx: &mut Cx) -> Result<Nf> {
    if let Some(c) = p.as_const() {
        return log_const(&c, cx);
    }
    let content = p.0.values().fold(Q::zero(), |g, c| gcd_q(&g, c));
    let mut out = if content.is_one() { Nf::zero() } else { log_const(&content, cx)? };
    let prim = p.scale(&content.recip());
    if prim.len() > 1 {
        return out.add(&Nf::atom(Atom::Fn(Func::Log, Box::new(Nf::poly(prim)))), cx);
    }
    let (m, c) = prim.0.iter().next().expect("one");
    let mut rest: Mono = Vec::new();
    for (atom, e) in m {
        let k = Nf::constant(q(*e as i64));
        match atom {
            Atom::E => out = out.add(&k, cx)?,
            Atom::Fn(Func::Exp, u) => {
                cx.rules.insert("log(exp u) = u");
                out = out.add(&u.mul(&k, cx)?, cx)?;
            }
            Atom::Root(b, r) if *b.as_ref() == Nf::atom(Atom::E) => {
                out = out.add(&k.scale(&qf(1, *r as i64)), cx)?;
            }
            a if cx.mode == Mode::Exact && e % 2 == 0 => {
                cx.rules.insert("log(a^(2k)·b) = 2k·log|a| + log b");
                let l = log(&abs(&Nf::atom(a.clone()), cx)?, cx)?;
                out = out.add(&l.mul(&k, cx)?, cx)?;
            }
            a if cx.mode == Mode::WhereDefined && c.is_positive() => {
                cx.rules.insert("log(a·b) = log a + log b, log(a^n) = n·log a (where a, b > 0)");
                let l = Nf::atom(Atom::Fn(Func::Log, Box::new(Nf::atom(a.clone()))));
                out = out.add(&l.mul(&k, cx)?, cx)?;
            }
            a => rest.push((a.clone(), *e)),
        }
    }
    if rest.is_empty() && c.is_one() {
        return Ok(out);
    }
    let inner = Nf::poly(Poly::term(rest, c.clone()));
    if inner.as_const().is_some_and(|k| k.is_one()) {
        return Ok(out);
    }
    out.add(&Nf::atom(Atom::Fn(Func::Log, Box::new(inner))), cx)
}

fn log_const(c: &Q, cx: &mut Cx) -> Result<Nf> {
    if c.is_one() {
        return Ok(Nf::zero());
    }
    // log of a rational over small primes: Σ e_p log p.
    let mut out = Nf::zero();
    let mut parts: BTreeMap<u32, i64> = BTreeMap::new();
    for (x, sign) in [(c.numer().clone(), 1i64), (c.denom().clone(), -1)] {
        let mut x = x;
        for p in small_primes() {
            if x.is_one() {
                break;
            }
            while (&x % p).is_zero() {
                x /= p;
                *parts.entry(p).or_default() += sign;
            }
        }
        if !x.is_one() {
            return Ok(Nf::atom(Atom::Fn(Func::Log, Box::new(Nf::constant(c.clone())))));
        }
    }
    for (p, e) in parts {
        let l = Nf::atom(Atom::Fn(Func::Log, Box::new(Nf::constant(q(p as i64)))));
        out = out.add(&l.scale(&q(e)), cx)?;
    }
    Ok(out)
}

/// `(sin a, cos a)`, expanded over sums and small integer multiples, with exact
/// values at multiples of π/6 and π/4.
pub fn sin_cos(a: &Nf, cx: &mut Cx) -> Result<(Nf, Nf)> {
    if !a.den.is_one() {
        return Ok(trig_atoms(a, cx));
    }
    let mut acc: Option<(Nf, Nf)> = None;
    for (m, c) in &a.num.0 {
        let part = if m.is_empty() {
            trig_atoms(&Nf::constant(c.clone()), cx)
        } else if m.as_slice() == [(Atom::Pi, 1)] && (c * q(12)).is_integer() {
            special_angle(c, cx)?
        } else if let Some(n) = c.is_integer().then(|| c.numer_i64()).flatten().filter(|n| n.abs() <= 8) {
            let base = trig_of_monomial(m, cx)?;
            if n.abs() > 1 || a.num.len() > 1 {
                cx.rules.insert("angle-sum and multiple-angle formulas");
            }
            let mut r = base.clone();
            for _ in 1..n.abs() {
                r = angle_sum(&r, &base, cx)?;
            }
            if n < 0 { (r.0.neg(), r.1) } else { r }
        } else {
            trig_atoms(&Nf::poly(Poly::term(m.clone(), c.clone())), cx)
        };
        acc = Some(match acc {
            None => part,
            Some(acc) => angle_sum(&acc, &part, cx)?,
        });
    }
    Ok(acc.unwrap_or_else(|| (Nf::zero(), Nf::one())))
}

fn angle_sum(a: &(Nf, Nf), b: &(Nf, Nf), cx: &mut Cx) -> Result<(Nf, Nf)> {
    let s = a.0.mul(&b.1, cx)?.add(&a.1.mul(&b.0, cx)?, cx)?;
    let c = a.1.mul(&b.1, cx)?.sub(&a.0.mul(&b.0, cx)?, cx)?;
    Ok((s, c))
}

/// sin and cos of a monomial with coefficient 1, using the inverse functions.
fn trig_of_monomial(m: &Mono, cx: &mut Cx) -> Result<(Nf, Nf)> {
    if let [(Atom::Fn(g @ (Func::Asin | Func::Acos | Func::Atan), u), 1)] = m.as_slice() {
        cx.rules.insert("sin, cos of inverse trig functions");
        let one = Nf::one();
        let u2 = u.mul(u, cx)?;
        return Ok(match g {
            Func::Asin => (u.as_ref().clone(), root(&one.sub(&u2, cx)?, 2, cx)?),
            Func::Acos => (root(&one.sub(&u2, cx)?, 2, cx)?, u.as_ref().clone()),
            _ => {
                let r = root(&one.add(&u2, cx)?, 2, cx)?;
                (u.div(&r, cx)?, r.inv(cx)?)
            }
        });
    }
    Ok(trig_atoms(&Nf::poly(Poly::term(m.clone(), Q::one())), cx))
}

/// sin and cos of an argument kept whole, with the sign normalised.
fn trig_atoms(a: &Nf, _cx: &mut Cx) -> (Nf, Nf) {
    if a.is_zero() {
        return (Nf::zero(), Nf::one());
    }
    let neg = a.num.lead_negative();
    let u = if neg { a.neg() } else { a.clone() };
    let s = Nf::atom(Atom::Fn(Func::Sin, Box::new(u.clone())));
    let c = Nf::atom(Atom::Fn(Func::Cos, Box::new(u)));
    if neg { (s.neg(), c) } else { (s, c) }
}

/// Exact sin and cos of `r·π` when `12r` is an integer and the value is in our table.
fn special_angle(r: &Q, cx: &mut Cx) -> Result<(Nf, Nf)> {
    let n = (r * q(12)).to_integer().mod_floor(&BigInt::from(24)).to_i64().expect("small");
    let quadrant = n / 6;
    let m = n % 6;
    let half = qf(1, 2);
    let sqrt2 = root(&Nf::constant(q(2)), 2, cx)?.scale(&half);
    let sqrt3 = root(&Nf::constant(q(3)), 2, cx)?.scale(&half);
    let (s, c) = match m {
        0 => (Nf::zero(), Nf::one()),
        2 => (Nf::constant(half.clone()), sqrt3),
        3 => (sqrt2.clone(), sqrt2),
        4 => (sqrt3, Nf::constant(half)),
        _ => return Ok(trig_atoms(&Nf::atom(Atom::Pi).scale(r), cx)),
    };
    cx.rules.insert("exact values at multiples of π/6 and π/4");
    Ok(match quadrant {
        0 => (s, c),
        1 => (c, s.neg()),
        2 => (s.neg(), c.neg()),
        _ => (c.neg(), s),
    })
}

/// `d/dvar u`, in normal form.
pub fn derivative(u: &Nf, var: &str, cx: &mut Cx) -> Result<Nf> {
    let dn = diff_poly(&u.num, var, cx)?;
    if u.den.is_one() {
        return Ok(dn);
    }
    let dd = diff_poly(&u.den, var, cx)?;
    let d = Nf::poly(u.den.clone());
    let n = Nf::poly(u.num.clone());
    let top = dn.mul(&d, cx)?.sub(&n.mul(&dd, cx)?, cx)?;
    top.div(&d.mul(&d, cx)?, cx)
}

fn diff_poly(p: &Poly, var: &str, cx: &mut Cx) -> Result<Nf> {
    let mut out = Nf::zero();
    let mut cache: BTreeMap<Atom, Nf> = BTreeMap::new();
    for (m, c) in &p.0 {
        for (i, (a, e)) in m.iter().enumerate() {
            let da = match cache.get(a) {
                Some(d) => d.clone(),
                None => {
                    let d = diff_atom(a, var, cx)?;
                    cache.insert(a.clone(), d.clone());
                    d
                }
            };
            if da.is_zero() {
                continue;
            }
            let mut rest = m.clone();
            if *e == 1 {
                rest.remove(i);
            } else {
                rest[i].1 -= 1;
            }
            let t = Nf::poly(Poly::term(rest, c * q(*e as i64)));
            out = out.add(&t.mul(&da, cx)?, cx)?;
        }
    }
    Ok(out)
}

fn diff_atom(a: &Atom, var: &str, cx: &mut Cx) -> Result<Nf> {
    let chain = |outer: Nf, u: &Nf, cx: &mut Cx| -> Result<Nf> {
        let du = derivative(u, var, cx)?;
        if du.is_zero() { Ok(Nf::zero()) } else { outer.mul(&du, cx) }
    };
    match a {
        Atom::Sym(s) => Ok(if &**s == var { Nf::one() } else { Nf::zero() }),
        Atom::Pi | Atom::E => Ok(Nf::zero()),
        Atom::Fn(f, u) => {
            if !u.free_symbols().contains(var) {
                return Ok(Nf::zero());
            }
            let outer = match f {
                Func::Sin => apply(Func::Cos, u, cx)?,
                Func::Cos => apply(Func::Sin, u, cx)?.neg(),
                Func::Exp => Nf::atom(a.clone()),
                Func::Log => u.inv(cx)?,
                Func::Abs => u.div(&Nf::atom(a.clone()), cx)?,
                Func::Asin | Func::Acos => {
                    let r = root(&Nf::one().sub(&u.mul(u, cx)?, cx)?, 2, cx)?.inv(cx)?;
                    if *f == Func::Acos { r.neg() } else { r }
                }
                Func::Atan => Nf::one().add(&u.mul(u, cx)?, cx)?.inv(cx)?,
                _ => return Err(SymError::unsupported(format!("cannot differentiate {}", f.name()))),
            };
            chain(outer, u, cx)
        }
        Atom::Root(b, k) => {
            // d root(b,k) = root(b,k) · b' / (k·b)
            let outer = Nf::atom(a.clone()).div(&b.scale(&q(*k as i64)), cx)?;
            chain(outer, b, cx)
        }
        Atom::Pow(b, x) => {
            // d b^x = b^x (x' log b + x b'/b)
            let lb = log(b, cx)?;
            let dx = derivative(x, var, cx)?;
            let db = derivative(b, var, cx)?;
            let inner = dx.mul(&lb, cx)?.add(&x.mul(&db, cx)?.div(b, cx)?, cx)?;
            Nf::atom(a.clone()).mul(&inner, cx)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_expr;

    fn nf(s: &str) -> String {
        let l = Limits::default();
        let mut cx = Cx::new(l);
        normal_form(&parse_expr(s, &l).unwrap(), &mut cx).unwrap_or_else(|e| panic!("{s}: {e}")).to_string()
    }

    #[test]
    fn expands_collects_and_cancels() {
        assert_eq!(nf("(a+b)^2 - a^2 - b^2"), "2*a*b");
        assert_eq!(nf("(x^2-1)/(x-1)"), "x + 1");
        assert_eq!(nf("(a^2-b^2)/(a-b)"), "a + b");
        assert_eq!(nf("(x^3 - 1)/(x^2 + x + 1)"), "x - 1");
        assert_eq!(nf("sin(x)^2 + cos(x)^2"), "1");
        assert_eq!(nf("sin(2x) - 2 sin(x) cos(x)"), "0");
        assert_eq!(nf("sqrt(x^2)"), "abs(x)");
        assert_eq!(nf("exp(x) exp(y) - exp(x+y)"), "0");
        assert_eq!(nf("cosh(x)^2 - sinh(x)^2"), "1");
        assert_eq!(nf("sqrt(8)"), "2*sqrt(2)");
        assert_eq!(nf("sin(pi/6)"), "1/2");
        assert_eq!(nf("log(exp(x))"), "x");
        assert_eq!(nf("d/dx (x^3)"), "3*x^2");
    }

    #[test]
    fn huge_expansion_is_refused_early() {
        let l = Limits::default();
        let mut cx = Cx::new(l);
        let e = parse_expr("(x+1)^100000", &l).unwrap();
        assert!(matches!(normal_form(&e, &mut cx), Err(SymError::Limit { .. })));
    }
}
