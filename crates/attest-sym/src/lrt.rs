//! The algebra behind collapsing a root sum `Σ_{P(r)=0} c(r)·log(x − r)` into fewer
//! logarithms (Lazard–Rioboo–Trager) and arctangents (Rioboo), exact over the
//! rationals. For an irreducible `P` the residues `c(r_i)` are conjugates, so their
//! minimal polynomial `m(t)` (the square-free part of the Rothstein–Trager resultant
//! `res_x(A − t·P', P)`) has one irreducible factor of degree `d | n`. When `d = 2`, the
//! roots of `P` with the same residue are those of `S(x, t) = gcd(A − t·P', P)` over
//! `Q(t)/m(t)`, a polynomial of degree `n/2`, and the sum is `Σ_{m(t)=0} t·log S(x, t)`:
//! two logarithms, or for complex conjugate residues one logarithm and arctangents
//! ([`log_to_atan`]). The caller builds the closed form and differentiates it back.

use num_traits::{One, Signed, Zero};

use crate::expr::Q;
use crate::rootsum::{minus, times};
use crate::upoly::{degree, divmod, mul, trim};

/// The minimal polynomial (monic, from the constant up) of `c(r)` in `Q[r]/(p)`, `p`
/// irreducible of degree `n`: the first linear relation among `1, c, c², …` (mod `p`).
pub(crate) fn minimal_polynomial(c: &[Q], p: &[Q]) -> Option<Vec<Q>> {
    let n = degree(p);
    let vec_of = |v: &[Q]| -> Vec<Q> { (0..n).map(|i| v.get(i).cloned().unwrap_or_else(Q::zero)).collect() };
    let mut powers = vec![vec_of(&[Q::one()])];
    let mut cur = vec![Q::one()];
    for d in 1..=n {
        cur = divmod(&mul(&cur, c), p).1;
        let target = vec_of(&cur);
        // Solve Σ u_i powers_i = target.
        let mut m: crate::linalg::Mat = (0..n)
            .map(|row| {
                let mut r: Vec<Q> = powers.iter().map(|v| v[row].clone()).collect();
                r.push(target[row].clone());
                r
            })
            .collect();
        let (pivots, _) = crate::linalg::rref(&mut m, d, None);
        if pivots.len() == d && m[d..].iter().all(|row| row[d].is_zero()) {
            let mut out: Vec<Q> = (0..d).map(|i| -m[i][d].clone()).collect();
            out.push(Q::one());
            return Some(out);
        }
        powers.push(target);
    }
    None
}

/// `a + b·t` in `Q(t)/(t² + m1·t + m0)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct K2 {
    pub a: Q,
    pub b: Q,
}

struct Field {
    m1: Q,
    m0: Q,
}

impl Field {
    fn sub(&self, x: &K2, y: &K2) -> K2 {
        K2 { a: &x.a - &y.a, b: &x.b - &y.b }
    }
    fn mul(&self, x: &K2, y: &K2) -> K2 {
        let bd = &x.b * &y.b;
        K2 { a: &(&x.a * &y.a) - &(&bd * &self.m0), b: &(&(&x.a * &y.b) + &(&x.b * &y.a)) - &(&bd * &self.m1) }
    }
    fn inv(&self, x: &K2) -> Option<K2> {
        // (a + bt)(a − b·m1 − bt) = a² − ab·m1 + b²·m0, rational.
        let conj = K2 { a: &x.a - &(&x.b * &self.m1), b: -x.b.clone() };
        let norm = &(&(&x.a * &x.a) - &(&(&x.a * &x.b) * &self.m1)) + &(&(&x.b * &x.b) * &self.m0);
        if norm.is_zero() {
            return None;
        }
        let r = norm.recip();
        Some(K2 { a: &conj.a * &r, b: &conj.b * &r })
    }
    fn is_zero(x: &K2) -> bool {
        x.a.is_zero() && x.b.is_zero()
    }
    fn trim(&self, mut p: Vec<K2>) -> Vec<K2> {
        while p.last().is_some_and(Field::is_zero) {
            p.pop();
        }
        p
    }
    /// The remainder of `a` divided by `b` (non-zero), over the field.
    fn rem(&self, a: &[K2], b: &[K2]) -> Option<Vec<K2>> {
        let mut r = self.trim(a.to_vec());
        let lead = self.inv(b.last()?)?;
        while r.len() >= b.len() {
            let k = r.len() - b.len();
            let c = self.mul(r.last()?, &lead);
            for (i, bi) in b.iter().enumerate() {
                r[k + i] = self.sub(&r[k + i], &self.mul(&c, bi));
            }
            r.pop();
            r = self.trim(r);
        }
        Some(r)
    }
    /// The monic greatest common divisor.
    fn gcd(&self, a: &[K2], b: &[K2]) -> Option<Vec<K2>> {
        let (mut a, mut b) = (self.trim(a.to_vec()), self.trim(b.to_vec()));
        while !b.is_empty() {
            let r = self.rem(&a, &b)?;
            a = std::mem::replace(&mut b, r);
        }
        let lead = self.inv(a.last()?)?;
        Some(a.iter().map(|c| self.mul(c, &lead)).collect())
    }
}

/// `S(x, t) = gcd(A − t·P', P)` over `Q(t)/(m)` for a monic quadratic `m` (from the
/// constant up): its coefficients `a_k + b_k·t`, monic, from the constant up.
pub(crate) fn log_argument(a: &[Q], p: &[Q], m: &[Q]) -> Option<Vec<K2>> {
    let f = Field { m1: m.get(1)?.clone(), m0: m.first()?.clone() };
    let dp = crate::upoly::derivative(p);
    let n = a.len().max(dp.len());
    let lhs: Vec<K2> = (0..n)
        .map(|i| {
            let ai = a.get(i).cloned().unwrap_or_else(Q::zero);
            let di = dp.get(i).cloned().unwrap_or_else(Q::zero);
            K2 { a: ai, b: -di }
        })
        .collect();
    let pk: Vec<K2> = p.iter().map(|c| K2 { a: c.clone(), b: Q::zero() }).collect();
    f.gcd(&pk, &lhs)
}

/// `(s, t, g)` with `s·a + t·b = g`, `g` the monic greatest common divisor.
pub(crate) fn ext_gcd(a: &[Q], b: &[Q]) -> (Vec<Q>, Vec<Q>, Vec<Q>) {
    let (mut r0, mut r1) = (trim(a.to_vec()), trim(b.to_vec()));
    let (mut s0, mut s1) = (vec![Q::one()], Vec::new());
    let (mut t0, mut t1) = (Vec::new(), vec![Q::one()]);
    while !r1.is_empty() {
        let (quot, r) = divmod(&r0, &r1);
        let s2 = minus(&s0, &mul(&quot, &s1));
        let t2 = minus(&t0, &mul(&quot, &t1));
        r0 = std::mem::replace(&mut r1, r);
        s0 = std::mem::replace(&mut s1, s2);
        t0 = std::mem::replace(&mut t1, t2);
    }
    let Some(lead) = r0.last().cloned() else { return (s0, t0, r0) };
    let k = lead.recip();
    (times(&s0, &k), times(&t0, &k), times(&r0, &k))
}

/// Rioboo's conversion of `i·log((A + iB)/(A − iB))` into arctangents of polynomials
/// (no poles on the real line), for `A = a0` and `B = β·b0` with `β = √k`, `k > 0`
/// rational and `a0`, `b0` rational polynomials (`b0 ≠ 0`). Each `(num, den)` returned
/// stands for `2·atan(num/(β·den))`; their sum has the derivative of
/// `i·log((A + iB)/(A − iB))`. Scaling `(A, B)` by a real constant changes neither, which
/// keeps every step rational.
pub(crate) fn log_to_atan(a0: &[Q], b0: &[Q], k: &Q) -> Vec<(Vec<Q>, Vec<Q>)> {
    let (mut a, mut b) = (trim(a0.to_vec()), trim(b0.to_vec()));
    let mut out = Vec::new();
    for _ in 0..64 {
        if b.is_empty() {
            break;
        }
        let (quot, r) = divmod(&a, &b);
        if r.is_empty() {
            out.push((quot, vec![Q::one()]));
            break;
        }
        if degree(&a) < degree(&b) || a.is_empty() {
            // LogToAtan(−B, A): (−β·b0, a0) ≅ (−b0, β·a0/k).
            let na = times(&b, &Q::int(-1));
            b = times(&a, &k.recip());
            a = na;
            continue;
        }
        // B·D − A·C = G with D = d0/β: b0·d0 − a0·C = G, by the extended Euclidean algorithm.
        let (s, t, g) = ext_gcd(&b, &a);
        let (d0, c) = (s, times(&t, &Q::int(-1)));
        // 2·atan((A·D + B·C)/G) = 2·atan((a0·d0 + k·b0·C)/(β·G)).
        let num = crate::rootsum::plus(&mul(&a, &d0), &times(&mul(&b, &c), k));
        out.push((num, g));
        // LogToAtan(D, C) = (d0/β, C) ≅ (d0, β·C).
        a = d0;
        b = c;
    }
    out
}

/// `√x` when the rational `x ≥ 0` is a square.
pub(crate) fn rational_sqrt(x: &Q) -> Option<Q> {
    if x.is_negative() {
        return None;
    }
    let (n, d) = (x.numer(), x.denom());
    let (sn, sd) = (n.sqrt(), d.sqrt());
    (&sn * &sn == n && &sd * &sd == d).then(|| Q::new(sn, sd))
}

/// `p(x + h)`, coefficients from the constant up (a Taylor shift).
pub(crate) fn shift(p: &[Q], h: &Q) -> Vec<Q> {
    let mut out: Vec<Q> = Vec::new();
    // Horner in the shifted variable: out = out·(x + h) + c.
    for c in p.iter().rev() {
        let mut next = vec![Q::zero(); out.len() + 1];
        for (i, o) in out.iter().enumerate() {
            next[i + 1] = &next[i + 1] + o;
            next[i] = &next[i] + &(o * h);
        }
        next[0] = &next[0] + c;
        out = next;
    }
    trim(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(cs: &[i64]) -> Vec<Q> {
        cs.iter().map(|&c| Q::int(c)).collect()
    }

    #[test]
    fn minimal_polynomials_of_residues() {
        // x/(x^4 + 1): c(r) = −r²/4, whose minimal polynomial is t² + 1/16.
        let q = p(&[1, 0, 0, 0, 1]);
        let c = vec![Q::zero(), Q::zero(), Q::new((-1).into(), 4.into())];
        assert_eq!(minimal_polynomial(&c, &q).unwrap(), vec![Q::new(1.into(), 16.into()), Q::zero(), Q::one()]);
        // 1/(x^4 + 1): c(r) = −r/4, degree 4.
        let c = vec![Q::zero(), Q::new((-1).into(), 4.into())];
        assert_eq!(minimal_polynomial(&c, &q).unwrap().len(), 5);
        // A constant residue: degree 1.
        assert_eq!(minimal_polynomial(&p(&[3]), &q).unwrap(), p(&[-3, 1]));
    }

    #[test]
    fn shifts_and_square_roots() {
        assert_eq!(shift(&p(&[0, 0, 1]), &Q::int(1)), p(&[1, 2, 1]));
        assert_eq!(rational_sqrt(&Q::new(9.into(), 4.into())), Some(Q::new(3.into(), 2.into())));
        assert_eq!(rational_sqrt(&Q::int(2)), None);
        let (s, t, g) = ext_gcd(&p(&[0, 4]), &p(&[-1, 0, 1]));
        assert_eq!(crate::rootsum::plus(&mul(&s, &p(&[0, 4])), &mul(&t, &p(&[-1, 0, 1]))), g);
    }
}
