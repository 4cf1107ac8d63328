//! Polynomials in one variable with rational coefficients (low → high), and their
//! factorisation into irreducible factors over the rationals: square-free parts
//! (Yun), rational roots, then factors of degree ≥ 2 found by recombining numeric
//! roots (conjugate pairs kept together) into candidate integer factors, each
//! accepted only after an exact division leaves no remainder. Trying candidate
//! degrees upwards makes each factor found irreducible; a factor that cannot be
//! searched (degree over [`MAX_SPLIT_DEGREE`], or a search over budget) is left
//! whole and reported as not searched.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::eval::q_to_f64;
use crate::expr::Q;

/// Largest square-free degree searched for factors of degree ≥ 2.
pub const MAX_SPLIT_DEGREE: usize = 24;
/// Most candidate factors built in one search.
const MAX_CANDIDATES: usize = 200_000;

/// Drop zero leading coefficients.
pub fn trim(mut p: Vec<Q>) -> Vec<Q> {
    while p.last().is_some_and(Zero::is_zero) {
        p.pop();
    }
    p
}

/// Degree (`0` for constants and zero).
pub fn degree(p: &[Q]) -> usize {
    p.len().saturating_sub(1)
}

/// `p mod d` and the quotient.
pub fn divmod(p: &[Q], d: &[Q]) -> (Vec<Q>, Vec<Q>) {
    let d = trim(d.to_vec());
    let mut r = trim(p.to_vec());
    if d.is_empty() || r.len() < d.len() {
        return (Vec::new(), r);
    }
    let lead = d.last().expect("non-empty").clone();
    let mut quot = vec![Q::zero(); r.len() - d.len() + 1];
    while r.len() >= d.len() && !r.is_empty() {
        let shift = r.len() - d.len();
        let c = r.last().expect("non-empty").clone() / &lead;
        for (i, dc) in d.iter().enumerate() {
            let v = &r[i + shift] - &(&c * dc);
            r[i + shift] = v;
        }
        quot[shift] = c;
        r.pop();
        r = trim(r);
    }
    (trim(quot), r)
}

/// Product.
pub fn mul(a: &[Q], b: &[Q]) -> Vec<Q> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Q::zero(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        if x.is_zero() {
            continue;
        }
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    trim(out)
}

/// Monic greatest common divisor.
pub fn gcd(a: &[Q], b: &[Q]) -> Vec<Q> {
    let (mut a, mut b) = (trim(a.to_vec()), trim(b.to_vec()));
    while !b.is_empty() {
        let (_, r) = divmod(&a, &b);
        a = b;
        b = r;
    }
    monic(&a)
}

/// Divided by its leading coefficient.
pub fn monic(p: &[Q]) -> Vec<Q> {
    match p.last() {
        Some(l) if !l.is_zero() => p.iter().map(|c| c / l).collect(),
        _ => p.to_vec(),
    }
}

/// Derivative.
pub fn derivative(p: &[Q]) -> Vec<Q> {
    trim(p.iter().enumerate().skip(1).map(|(i, c)| c * &Q::int(i as i64)).collect())
}

/// `p = c · q` with `q` integer, primitive, positive leading coefficient.
pub fn primitive(p: &[Q]) -> (Q, Vec<Q>) {
    let mut num = BigInt::zero();
    let mut den = BigInt::one();
    for c in p {
        num = num.gcd(&c.numer());
        den = den.lcm(&c.denom());
    }
    if num.is_zero() {
        return (Q::one(), p.to_vec());
    }
    let mut c = Q::new(num, den);
    if p.last().is_some_and(Signed::is_negative) {
        c = -c;
    }
    let r = c.recip();
    (c, p.iter().map(|x| x * &r).collect())
}

/// Square-free decomposition (Yun): monic `(factor, multiplicity)` pairs whose
/// product, times the leading coefficient, is `p`.
pub fn square_free(p: &[Q]) -> Vec<(Vec<Q>, u32)> {
    let p = trim(p.to_vec());
    if degree(&p) == 0 {
        return Vec::new();
    }
    let dp = derivative(&p);
    let a0 = gcd(&p, &dp);
    let mut b = divmod(&p, &a0).0;
    let mut c = divmod(&dp, &a0).0;
    let mut d = trim(sub(&c, &derivative(&b)));
    let mut out = Vec::new();
    let mut i = 1;
    while degree(&b) > 0 {
        let a = gcd(&b, &d);
        if degree(&a) > 0 {
            out.push((a.clone(), i));
        }
        b = divmod(&b, &a).0;
        c = divmod(&d, &a).0;
        d = trim(sub(&c, &derivative(&b)));
        i += 1;
        if i > 10_000 {
            break;
        }
    }
    out
}

fn sub(a: &[Q], b: &[Q]) -> Vec<Q> {
    let n = a.len().max(b.len());
    (0..n).map(|i| a.get(i).cloned().unwrap_or_else(Q::zero) - b.get(i).cloned().unwrap_or_else(Q::zero)).collect()
}

/// The outcome of [`factor`].
#[derive(Debug, Clone, PartialEq)]
pub struct Factors {
    /// The constant: `p = content · ∏ factor^multiplicity`.
    pub content: Q,
    /// Primitive integer factors with positive leading coefficients, by degree.
    pub factors: Vec<(Vec<Q>, u32)>,
    /// Factors left whole because they were too large to search (degree).
    pub unsearched: Vec<usize>,
}

/// Irreducible factors of `p` over the rationals (see the module notes).
pub fn factor(p: &[Q]) -> Factors {
    let p = trim(p.to_vec());
    let mut content = p.last().cloned().unwrap_or_else(Q::zero);
    let mut factors: Vec<(Vec<Q>, u32)> = Vec::new();
    let mut unsearched = Vec::new();
    for (sf, m) in square_free(&p) {
        let (pieces, whole) = split_square_free(&sf);
        if whole {
            unsearched.push(pieces.last().map_or(0, |p| degree(p)));
        }
        for f in pieces {
            let (c, f) = primitive(&f);
            // `f = c·f'`, so each power of it puts `c^m` into the content.
            content *= num_traits::Pow::pow(&c, m);
            factors.push((f, m));
        }
    }
    factors.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| cmp_coeffs(&a.0, &b.0)));
    Factors { content, factors, unsearched }
}

fn cmp_coeffs(a: &[Q], b: &[Q]) -> std::cmp::Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// Split a square-free polynomial; `true` when it was left whole unsearched.
fn split_square_free(p: &[Q]) -> (Vec<Vec<Q>>, bool) {
    let mut out = Vec::new();
    // Rational roots first (exact).
    let rr = crate::solve::rational_roots(p);
    for (r, _) in &rr.found {
        out.push(vec![-r.clone(), Q::one()]);
    }
    let rest = trim(rr.rest.clone());
    if degree(&rest) == 0 {
        return (out, false);
    }
    if rr.too_large || degree(&rest) < 4 {
        // Degree 2 or 3 with no rational root is irreducible.
        let whole = rr.too_large && degree(&rest) >= 2;
        out.push(rest);
        return (out, whole);
    }
    if degree(&rest) > MAX_SPLIT_DEGREE {
        out.push(rest);
        return (out, true);
    }
    match split_numeric(&rest) {
        Some(pieces) => {
            out.extend(pieces);
            (out, false)
        }
        None => {
            out.push(rest);
            (out, true)
        }
    }
}

type C = (f64, f64);

/// Every complex root, by Durand–Kerner then Newton.
pub fn complex_roots(p: &[Q]) -> Option<Vec<C>> {
    let cf: Vec<f64> = p.iter().map(q_to_f64).collect();
    if cf.iter().any(|c| !c.is_finite()) {
        return None;
    }
    let n = cf.len() - 1;
    let lead = cf[n];
    let mon: Vec<f64> = cf.iter().map(|k| k / lead).collect();
    let radius = 1.0 + mon[..n].iter().map(|x| x.abs()).fold(0.0, f64::max);
    let mut zs: Vec<C> = (0..n)
        .map(|k| {
            let a = 0.4 + std::f64::consts::TAU * k as f64 / n as f64;
            (radius * 0.5 * a.cos(), radius * 0.5 * a.sin())
        })
        .collect();
    let eval = |z: C| {
        let mut acc = (0.0, 0.0);
        for k in mon.iter().rev() {
            acc = (acc.0 * z.0 - acc.1 * z.1 + k, acc.0 * z.1 + acc.1 * z.0);
        }
        acc
    };
    for _ in 0..2000 {
        let mut moved = 0.0f64;
        for i in 0..n {
            let num = eval(zs[i]);
            let mut den = (1.0, 0.0);
            for (j, zj) in zs.iter().enumerate() {
                if i != j {
                    let d = (zs[i].0 - zj.0, zs[i].1 - zj.1);
                    den = (den.0 * d.0 - den.1 * d.1, den.0 * d.1 + den.1 * d.0);
                }
            }
            let dd = den.0 * den.0 + den.1 * den.1;
            if dd == 0.0 || !dd.is_finite() {
                continue;
            }
            let step = ((num.0 * den.0 + num.1 * den.1) / dd, (num.1 * den.0 - num.0 * den.1) / dd);
            zs[i] = (zs[i].0 - step.0, zs[i].1 - step.1);
            moved = moved.max(step.0.hypot(step.1) / (1.0 + zs[i].0.hypot(zs[i].1)));
        }
        if moved < 1e-15 {
            break;
        }
    }
    zs.iter().all(|z| z.0.is_finite() && z.1.is_finite()).then_some(zs)
}

/// Real roots as single units, complex roots as conjugate pairs.
fn units(zs: &[C]) -> Option<Vec<Vec<C>>> {
    let mut used = vec![false; zs.len()];
    let mut out = Vec::new();
    for i in 0..zs.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let z = zs[i];
        let tol = 1e-6 * (1.0 + z.0.hypot(z.1));
        if z.1.abs() <= tol {
            out.push(vec![(z.0, 0.0)]);
            continue;
        }
        let j = (0..zs.len())
            .filter(|&j| !used[j])
            .min_by(|&a, &b| dist(zs[a], (z.0, -z.1)).total_cmp(&dist(zs[b], (z.0, -z.1))))?;
        if dist(zs[j], (z.0, -z.1)) > 1e-4 * (1.0 + z.0.hypot(z.1)) {
            return None;
        }
        used[j] = true;
        out.push(vec![z, (z.0, -z.1)]);
    }
    Some(out)
}

fn dist(a: C, b: C) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// Real coefficients (low → high) of ∏ (x − z) over a union of units.
fn real_product(roots: &[C]) -> Vec<f64> {
    let mut c: Vec<C> = vec![(1.0, 0.0)];
    for z in roots {
        let mut next = vec![(0.0, 0.0); c.len() + 1];
        for (i, a) in c.iter().enumerate() {
            next[i + 1].0 += a.0;
            next[i + 1].1 += a.1;
            next[i].0 -= a.0 * z.0 - a.1 * z.1;
            next[i].1 -= a.0 * z.1 + a.1 * z.0;
        }
        c = next;
    }
    c.into_iter().map(|z| z.0).collect()
}

/// Factors of degree ≥ 2 of a square-free `p` with no rational root, or `None` when
/// the search could not run.
fn split_numeric(p: &[Q]) -> Option<Vec<Vec<Q>>> {
    let (c0, prim) = primitive(p);
    let lead = prim.last()?.to_integer();
    let leads: Vec<BigInt> = small_divisors(&lead)?;
    let mut rest = prim;
    let mut us = units(&complex_roots(&rest)?)?;
    let mut out = Vec::new();
    let mut built = 0usize;
    let mut deg = 2;
    while 2 * deg <= degree(&rest) {
        let mut found = None;
        let mut pick: Vec<usize> = Vec::new();
        // Subsets of units whose degrees sum to `deg`, by index recursion.
        fn subsets(
            us: &[Vec<C>],
            start: usize,
            left: usize,
            pick: &mut Vec<usize>,
            f: &mut dyn FnMut(&[usize]) -> bool,
        ) -> bool {
            if left == 0 {
                return f(pick);
            }
            for i in start..us.len() {
                if us[i].len() <= left {
                    pick.push(i);
                    if subsets(us, i + 1, left - us[i].len(), pick, f) {
                        return true;
                    }
                    pick.pop();
                }
            }
            false
        }
        let rest_ref = rest.clone();
        subsets(&us, 0, deg, &mut pick, &mut |ix: &[usize]| {
            built += 1;
            if built > MAX_CANDIDATES {
                return true;
            }
            let roots: Vec<C> = ix.iter().flat_map(|&i| us[i].iter().copied()).collect();
            let real = real_product(&roots);
            for t in &leads {
                let tf = t.to_f64().unwrap_or(f64::NAN);
                let mut cand = Vec::with_capacity(real.len());
                let mut ok = true;
                for c in &real {
                    let v = c * tf;
                    let r = v.round();
                    if !v.is_finite() || (v - r).abs() > 1e-6 * (1.0 + v.abs()).sqrt() || r.abs() > 9.0e15 {
                        ok = false;
                        break;
                    }
                    cand.push(Q::int(r as i64));
                }
                if !ok {
                    continue;
                }
                let (q, r) = divmod(&rest_ref, &cand);
                if r.is_empty() && degree(&q) > 0 {
                    found = Some((ix.to_vec(), cand, q));
                    return true;
                }
            }
            false
        });
        if built > MAX_CANDIDATES {
            return None;
        }
        match found {
            Some((ix, cand, q)) => {
                out.push(cand);
                rest = q;
                let mut k = 0;
                us.retain(|_| {
                    k += 1;
                    !ix.contains(&(k - 1))
                });
            }
            None => deg += 1,
        }
    }
    out.push(rest.iter().map(|x| x * &c0).collect());
    Some(out)
}

/// Positive divisors of `n` when there are at most 256 and `n` fits in 64 bits.
fn small_divisors(n: &BigInt) -> Option<Vec<BigInt>> {
    let n = n.abs().to_u64()?;
    if n == 0 {
        return None;
    }
    let mut out = Vec::new();
    let mut d = 1u64;
    while d.saturating_mul(d) <= n {
        if n.is_multiple_of(d) {
            out.push(BigInt::from(d));
            if d != n / d {
                out.push(BigInt::from(n / d));
            }
        }
        d += 1;
        if d > 1_000_000 {
            return None;
        }
    }
    out.sort();
    (out.len() <= 256).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(cs: &[i64]) -> Vec<Q> {
        cs.iter().map(|&c| Q::int(c)).collect()
    }

    fn show(f: &Factors) -> String {
        let parts: Vec<String> = f
            .factors
            .iter()
            .map(|(c, m)| format!("{:?}^{m}", c.iter().map(|q| q.to_string()).collect::<Vec<_>>()))
            .collect();
        format!("{} {}", f.content, parts.join(" "))
    }

    #[test]
    fn splits_into_irreducibles() {
        // x^4 + 4 = (x^2 - 2x + 2)(x^2 + 2x + 2)
        assert_eq!(show(&factor(&p(&[4, 0, 0, 0, 1]))), r#"1 ["2", "-2", "1"]^1 ["2", "2", "1"]^1"#);
        // x^4 - 5x^2 + 6 = (x^2 - 2)(x^2 - 3)
        assert_eq!(show(&factor(&p(&[6, 0, -5, 0, 1]))), r#"1 ["-3", "0", "1"]^1 ["-2", "0", "1"]^1"#);
        // (x^2 + 1)^2 (x - 1)·2
        let f = factor(&mul(&mul(&p(&[1, 0, 1]), &p(&[1, 0, 1])), &p(&[-2, 2])));
        assert_eq!(show(&f), r#"2 ["-1", "1"]^1 ["1", "0", "1"]^2"#);
        // x^4 + 1 is irreducible over the rationals
        assert_eq!(show(&factor(&p(&[1, 0, 0, 0, 1]))), r#"1 ["1", "0", "0", "0", "1"]^1"#);
        // 6x^4 + 5x^3 + 9x^2 + 5x + 3... = (2x^2 + x + 1)(3x^2 + x + 3)
        assert_eq!(show(&factor(&mul(&p(&[1, 1, 2]), &p(&[3, 1, 3])))), r#"1 ["1", "1", "2"]^1 ["3", "1", "3"]^1"#);
    }

    #[test]
    fn large_degree_is_left_whole() {
        let mut cs = vec![0i64; 41];
        cs[0] = 2;
        cs[40] = 1;
        let f = factor(&p(&cs));
        assert_eq!(f.unsearched, vec![40]);
        assert_eq!(f.factors.len(), 1);
    }
}
