//! Sparse multivariate polynomials over the rationals, in opaque atoms, with exact
//! division and a recursive GCD. Every multiplication is charged to a work budget.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use num_traits::{One, Signed, Zero};

use crate::error::{Result, SymError};
use crate::expr::{Q, qadd, qmul};
use crate::limits::Limits;
use crate::nf::Atom;

/// A monomial: atoms with positive exponents, sorted by atom.
pub type Mono = Vec<(Atom, u32)>;

/// A polynomial: monomial → non-zero coefficient.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Poly(pub Terms);

/// The terms of a polynomial: a map monomial → coefficient kept as a vector sorted
/// by monomial. It iterates, compares and hashes exactly like the `BTreeMap` it
/// replaces, without a tree node allocated for every small polynomial.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Terms(Vec<(Mono, Q)>);

impl Terms {
    /// No terms.
    pub fn new() -> Terms {
        Terms(Vec::new())
    }

    /// The `(monomial, coefficient)` pairs, in increasing monomial order.
    pub fn as_slice(&self) -> &[(Mono, Q)] {
        &self.0
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no terms.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `(monomial, coefficient)` in increasing monomial order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Mono, &Q)> + ExactSizeIterator + Clone {
        self.0.iter().map(|(m, c)| (m, c))
    }

    /// The monomials, in increasing order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Mono> + ExactSizeIterator + Clone {
        self.0.iter().map(|(m, _)| m)
    }

    /// The coefficients, in increasing monomial order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Q> + ExactSizeIterator + Clone {
        self.0.iter().map(|(_, c)| c)
    }

    /// The coefficients, by value.
    pub fn into_values(self) -> impl Iterator<Item = Q> {
        self.0.into_iter().map(|(_, c)| c)
    }

    fn find(&self, m: &Mono) -> std::result::Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.cmp(m))
    }

    /// The coefficient of `m`.
    pub fn get(&self, m: &Mono) -> Option<&Q> {
        self.find(m).ok().map(|i| &self.0[i].1)
    }

    /// Set the coefficient of `m`, returning the old one.
    pub fn insert(&mut self, m: Mono, c: Q) -> Option<Q> {
        match self.find(&m) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, c)),
            Err(i) => {
                self.0.insert(i, (m, c));
                None
            }
        }
    }

    /// Remove `m`, returning its coefficient.
    pub fn remove(&mut self, m: &Mono) -> Option<Q> {
        self.find(m).ok().map(|i| self.0.remove(i).1)
    }

    /// Add `c` to the coefficient of `m`, dropping it when the sum is zero.
    fn add_term(&mut self, m: Mono, c: Q) {
        match self.find(&m) {
            Ok(i) => {
                let s = qadd(&self.0[i].1, &c);
                if s.is_zero() {
                    self.0.remove(i);
                } else {
                    self.0[i].1 = s;
                }
            }
            Err(i) => self.0.insert(i, (m, c)),
        }
    }

    /// Merge sorted, non-zero `(monomial, coefficient)` pairs in, summing equal
    /// monomials (in any order) and dropping zero sums.
    fn merge(&mut self, mut add: Vec<(Mono, Q)>) {
        add.sort_by(|a, b| a.0.cmp(&b.0));
        let old = std::mem::take(&mut self.0);
        let mut out: Vec<(Mono, Q)> = Vec::with_capacity(old.len() + add.len());
        let push = |out: &mut Vec<(Mono, Q)>, (m, c): (Mono, Q)| match out.last_mut() {
            Some((k, v)) if *k == m => {
                *v = qadd(v, &c);
                if v.is_zero() {
                    out.pop();
                }
            }
            _ => {
                if !c.is_zero() {
                    out.push((m, c));
                }
            }
        };
        let (mut a, mut b) = (old.into_iter().peekable(), add.into_iter().peekable());
        loop {
            let take_a = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => x.0 <= y.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let t = if take_a { a.next() } else { b.next() }.expect("peeked");
            push(&mut out, t);
        }
        self.0 = out;
    }
}

impl<'a> IntoIterator for &'a Terms {
    type Item = (&'a Mono, &'a Q);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Mono, Q)>, fn(&'a (Mono, Q)) -> (&'a Mono, &'a Q)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(m, c)| (m, c))
    }
}

impl FromIterator<(Mono, Q)> for Terms {
    /// Collect, keeping the last coefficient given for a monomial (as a map would).
    fn from_iter<I: IntoIterator<Item = (Mono, Q)>>(iter: I) -> Terms {
        let mut v: Vec<(Mono, Q)> = iter.into_iter().collect();
        if !v.is_sorted_by(|a, b| a.0 < b.0) {
            v.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out: Vec<(Mono, Q)> = Vec::with_capacity(v.len());
            for t in v {
                match out.last_mut() {
                    Some(last) if last.0 == t.0 => *last = t,
                    _ => out.push(t),
                }
            }
            v = out;
        }
        Terms(v)
    }
}

/// The work and size budget of one operation.
#[derive(Debug)]
pub struct Budget {
    /// The limits in force.
    pub limits: Limits,
    /// Elementary steps spent so far.
    pub work: u64,
}

impl Budget {
    /// A fresh budget.
    pub fn new(limits: Limits) -> Self {
        Budget { limits, work: 0 }
    }

    /// Charge `n` steps.
    pub fn charge(&mut self, n: u64) -> Result<()> {
        self.work += n;
        if self.work > self.limits.max_work {
            return Err(SymError::limit(format!(
                "the computation needs more than {} steps, over the limit; try a smaller expression",
                self.limits.max_work
            )));
        }
        Ok(())
    }

    fn check_terms(&self, p: &Poly) -> Result<()> {
        if p.0.len() > self.limits.max_terms {
            return Err(SymError::limit(format!(
                "an intermediate result has {} terms, over the limit of {}",
                p.0.len(),
                self.limits.max_terms
            )));
        }
        Ok(())
    }

    fn check_digits(&self, c: &Q) -> Result<()> {
        let bits = c.bits();
        let digits = (bits as f64 * std::f64::consts::LOG10_2) as usize;
        if digits > self.limits.max_digits {
            return Err(SymError::limit(format!(
                "a number grew to about {digits} digits, over the limit of {}",
                self.limits.max_digits
            )));
        }
        Ok(())
    }
}

fn mono_mul(a: &Mono, b: &Mono, limits: &Limits) -> Result<Mono> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let ord = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.cmp(&y.0),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match ord {
            Ordering::Less => {
                out.push(a[i].clone());
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j].clone());
                j += 1;
            }
            Ordering::Equal => {
                let e = a[i].1 as u64 + b[j].1 as u64;
                if e > limits.max_exponent {
                    return Err(SymError::limit(format!(
                        "an exponent reached {e}, over the limit of {}",
                        limits.max_exponent
                    )));
                }
                out.push((a[i].0.clone(), e as u32));
                i += 1;
                j += 1;
            }
        }
    }
    Ok(out)
}

/// `a / b` for monomials, when `b` divides `a`.
fn mono_div(a: &Mono, b: &Mono) -> Option<Mono> {
    let mut out = a.clone();
    for (atom, e) in b {
        let k = out.iter().position(|(x, _)| x == atom)?;
        if out[k].1 < *e {
            return None;
        }
        out[k].1 -= e;
        if out[k].1 == 0 {
            out.remove(k);
        }
    }
    Some(out)
}

/// Lexicographic monomial order, largest atom first: a true monomial order, used for
/// leading terms in division.
pub fn mono_cmp(a: &Mono, b: &Mono) -> Ordering {
    let (mut i, mut j) = (a.len(), b.len());
    loop {
        match (i.checked_sub(1).map(|k| &a[k]), j.checked_sub(1).map(|k| &b[k])) {
            (None, None) => return Ordering::Equal,
            (Some(_), None) => return Ordering::Greater,
            (None, Some(_)) => return Ordering::Less,
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                Ordering::Greater => return Ordering::Greater,
                Ordering::Less => return Ordering::Less,
                Ordering::Equal => match x.1.cmp(&y.1) {
                    Ordering::Equal => {
                        i -= 1;
                        j -= 1;
                    }
                    o => return o,
                },
            },
        }
    }
}

#[allow(clippy::should_implement_trait)]
impl Poly {
    /// Zero.
    pub fn zero() -> Poly {
        Poly(Terms::new())
    }

    /// A constant.
    pub fn constant(c: Q) -> Poly {
        let mut m = Terms::new();
        if !c.is_zero() {
            m.0.push((Vec::new(), c));
        }
        Poly(m)
    }

    /// One.
    pub fn one() -> Poly {
        Poly::constant(Q::one())
    }

    /// A single atom.
    pub fn atom(a: Atom) -> Poly {
        Poly::term(vec![(a, 1)], Q::one())
    }

    /// A single term.
    pub fn term(m: Mono, c: Q) -> Poly {
        let mut p = Poly::zero();
        p.add_term(m, c);
        p
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// The value, when constant.
    pub fn as_const(&self) -> Option<Q> {
        match self.0.len() {
            0 => Some(Q::zero()),
            1 => self.0.get(&Vec::new()).cloned(),
            _ => None,
        }
    }

    /// The value of a non-zero constant, borrowed.
    pub fn as_const_ref(&self) -> Option<&Q> {
        match self.0.len() {
            1 => self.0.get(&Vec::new()),
            _ => None,
        }
    }

    /// Whether this is one.
    pub fn is_one(&self) -> bool {
        self.as_const_ref().is_some_and(|c| c.is_one())
    }

    /// Number of terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no terms.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Add `c * m` in place.
    pub fn add_term(&mut self, m: Mono, c: Q) {
        if c.is_zero() {
            return;
        }
        self.0.add_term(m, c);
    }

    /// `self + other`.
    pub fn add(&self, other: &Poly) -> Poly {
        let mut out = self.clone();
        if other.len() == 1 {
            let (m, c) = other.0.iter().next().expect("one term");
            out.add_term(m.clone(), c.clone());
        } else if !other.is_empty() {
            out.0.merge(other.0.0.clone());
        }
        out
    }

    /// `self - other`.
    pub fn sub(&self, other: &Poly) -> Poly {
        self.add(&other.neg())
    }

    /// `c * self`.
    pub fn scale(&self, c: &Q) -> Poly {
        if c.is_zero() {
            return Poly::zero();
        }
        if c.is_one() {
            return self.clone();
        }
        Poly(self.0.iter().map(|(m, k)| (m.clone(), qmul(k, c))).collect())
    }

    /// `-self`.
    pub fn neg(&self) -> Poly {
        Poly(self.0.iter().map(|(m, k)| (m.clone(), -k)).collect())
    }

    /// `self * other`, in the free polynomial ring (no atom relations applied).
    pub fn mul_raw(&self, other: &Poly, b: &mut Budget) -> Result<Poly> {
        b.charge((self.len() * other.len()) as u64)?;
        for (x, y) in [(self, other), (other, self)] {
            if let Some(c) = x.as_const_ref() {
                let p = y.scale(c);
                for k in p.0.values() {
                    b.check_digits(k)?;
                }
                return Ok(p);
            }
        }
        let mut out = Poly::zero();
        for (m1, c1) in &self.0 {
            let mut row = Vec::with_capacity(other.len());
            for (m2, c2) in &other.0 {
                let c = qmul(c1, c2);
                b.check_digits(&c)?;
                row.push((mono_mul(m1, m2, &b.limits)?, c));
            }
            out.0.merge(row);
            b.check_terms(&out)?;
        }
        Ok(out)
    }

    /// The atoms that occur.
    pub fn atoms(&self) -> BTreeSet<Atom> {
        self.0.keys().flat_map(|m| m.iter().map(|(a, _)| a.clone())).collect()
    }

    /// The highest exponent of `a`.
    pub fn degree_in(&self, a: &Atom) -> u32 {
        self.0.keys().map(|m| exp_of(m, a)).max().unwrap_or(0)
    }

    /// Coefficients as a polynomial in `a`: exponent → coefficient without `a`.
    pub fn coeffs_in(&self, a: &Atom) -> BTreeMap<u32, Poly> {
        let mut out: BTreeMap<u32, Poly> = BTreeMap::new();
        for (m, c) in &self.0 {
            let e = exp_of(m, a);
            let rest: Mono = m.iter().filter(|(x, _)| x != a).cloned().collect();
            out.entry(e).or_default().add_term(rest, c.clone());
        }
        out
    }

    /// The leading term under [`mono_cmp`].
    pub fn lead(&self) -> Option<(&Mono, &Q)> {
        self.0.iter().max_by(|x, y| mono_cmp(x.0, y.0))
    }

    /// Divide by the leading coefficient, so it becomes 1.
    pub fn monic(&self) -> Poly {
        match self.lead() {
            Some((_, c)) => {
                let inv = c.recip();
                self.scale(&inv)
            }
            None => Poly::zero(),
        }
    }

    /// `self / other` when the division is exact, else `None`.
    pub fn div_exact(&self, other: &Poly, b: &mut Budget) -> Result<Option<Poly>> {
        let Some((lm, lc)) = other.lead() else {
            return Err(SymError::input("division by zero"));
        };
        let (lm, lc) = (lm.clone(), lc.clone());
        let mut rem = self.clone();
        let mut quo = Poly::zero();
        while let Some((rm, rc)) = rem.lead() {
            let Some(m) = mono_div(rm, &lm) else { return Ok(None) };
            let c = rc / &lc;
            b.check_digits(&c)?;
            let t = Poly::term(m.clone(), c.clone());
            rem = rem.sub(&t.mul_raw(other, b)?);
            quo.add_term(m, c);
            b.check_terms(&rem)?;
        }
        Ok(Some(quo))
    }

    /// Greatest common divisor (monic), treating atoms as independent variables.
    pub fn gcd(&self, other: &Poly, b: &mut Budget) -> Result<Poly> {
        b.charge(1)?;
        if self.is_zero() {
            return Ok(other.monic());
        }
        if other.is_zero() {
            return Ok(self.monic());
        }
        if self.as_const().is_some() || other.as_const().is_some() {
            return Ok(Poly::one());
        }
        let mut atoms = self.atoms();
        atoms.extend(other.atoms());
        let v = atoms.iter().next_back().cloned().expect("non-constant");
        let (da, db) = (self.degree_in(&v), other.degree_in(&v));
        if da == 0 {
            return self.gcd(&other.content(&v, b)?, b);
        }
        if db == 0 {
            return self.content(&v, b)?.gcd(other, b);
        }
        let (ca, cb) = (self.content(&v, b)?, other.content(&v, b)?);
        let c = ca.gcd(&cb, b)?;
        let pa = self.div_exact(&ca, b)?.ok_or_else(|| SymError::limit("gcd: content division failed"))?;
        let pb = other.div_exact(&cb, b)?.ok_or_else(|| SymError::limit("gcd: content division failed"))?;
        let (mut f, mut g) = if da >= db { (pa, pb) } else { (pb, pa) };
        loop {
            let r = f.prem(&g, &v, b)?;
            if r.is_zero() {
                break;
            }
            if r.degree_in(&v) == 0 {
                return Ok(c.monic());
            }
            f = g;
            g = r.primitive(&v, b)?;
        }
        let g = g.primitive(&v, b)?;
        Ok(g.mul_raw(&c, b)?.monic())
    }

    /// The GCD of the coefficients in `v`.
    fn content(&self, v: &Atom, b: &mut Budget) -> Result<Poly> {
        let mut g = Poly::zero();
        for c in self.coeffs_in(v).into_values() {
            g = g.gcd(&c, b)?;
            if g.is_one() {
                break;
            }
        }
        Ok(g)
    }

    fn primitive(&self, v: &Atom, b: &mut Budget) -> Result<Poly> {
        let c = self.content(v, b)?;
        Ok(self.div_exact(&c, b)?.unwrap_or_else(|| self.clone()))
    }

    /// Pseudo-remainder of `self` by `g` in `v`.
    fn prem(&self, g: &Poly, v: &Atom, b: &mut Budget) -> Result<Poly> {
        let n = g.degree_in(v);
        let gc = g.coeffs_in(v);
        let lc = gc.get(&n).cloned().unwrap_or_default();
        let mut r = self.clone();
        loop {
            let m = r.degree_in(v);
            if r.is_zero() || m < n {
                return Ok(r);
            }
            let rl = r.coeffs_in(v).remove(&m).unwrap_or_default();
            let shift = Poly::term(if m > n { vec![(v.clone(), m - n)] } else { Vec::new() }, Q::one());
            let t = rl.mul_raw(&shift, b)?.mul_raw(g, b)?;
            r = r.mul_raw(&lc, b)?.sub(&t);
            b.check_terms(&r)?;
        }
    }

    /// Remove the common monomial factor of `self` and `other`, returning it.
    pub fn common_monomial(&self, other: &Poly) -> Mono {
        let mut common: Option<Mono> = None;
        for m in self.0.keys().chain(other.0.keys()) {
            common = Some(match common {
                None => m.clone(),
                Some(c) => c
                    .into_iter()
                    .filter_map(|(a, e)| {
                        let f = exp_of(m, &a).min(e);
                        (f > 0).then_some((a, f))
                    })
                    .collect(),
            });
            if common.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        common.unwrap_or_default()
    }

    /// Divide every term by a monomial that divides it.
    pub fn div_mono(&self, m: &Mono) -> Poly {
        Poly(self.0.iter().map(|(k, c)| (mono_div(k, m).unwrap_or_else(|| k.clone()), c.clone())).collect())
    }

    /// Whether the leading coefficient is negative.
    pub fn lead_negative(&self) -> bool {
        self.lead().is_some_and(|(_, c)| c.is_negative())
    }
}

/// The exponent of `a` in `m`.
pub fn exp_of(m: &Mono, a: &Atom) -> u32 {
    m.iter().find(|(x, _)| x == a).map_or(0, |(_, e)| *e)
}
