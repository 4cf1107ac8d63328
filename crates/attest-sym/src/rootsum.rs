//! Sums of logarithms over the roots of an irreducible polynomial (SymPy's `RootSum`):
//! the part of a rational function's antiderivative that partial fractions over the
//! rationals cannot write with radicals.
//!
//! For `Q` square-free and `deg A < deg Q`, `∫ A/Q dx = Σ_{Q(r)=0} A(r)/Q'(r) · log(x − r)`
//! (the residues at the simple poles). The coefficient is reduced exactly to a
//! polynomial in `r`, `A·(Q')⁻¹ mod Q`, by the extended Euclidean algorithm over the
//! rationals. The roots are numeric: Durand–Kerner ([`crate::upoly::complex_roots`])
//! polished by Newton's method, each residual checked, the number of real ones fixed
//! by an exact Sturm count and each real one certified by an exact sign change of `Q`
//! around it. The sum is checked numerically: its derivative `Σ c_i/(x − r_i)` against
//! `A(x)/Q(x)` at sample points, real and complex.

use num_traits::{One, Signed, Zero};

use crate::eval::q_to_f64;
use crate::expr::Q;
use crate::upoly::{degree, derivative, divmod, mul, trim};

/// A complex number in floating point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Z {
    pub re: f64,
    pub im: f64,
}

impl Z {
    pub fn new(re: f64, im: f64) -> Z {
        Z { re, im }
    }
    pub fn real(re: f64) -> Z {
        Z { re, im: 0.0 }
    }
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    /// The principal logarithm (argument in (−π, π]).
    pub fn ln(self) -> Z {
        Z { re: self.abs().ln(), im: self.im.atan2(self.re) }
    }
}

impl std::ops::Add for Z {
    type Output = Z;
    fn add(self, o: Z) -> Z {
        Z::new(self.re + o.re, self.im + o.im)
    }
}

impl std::ops::Sub for Z {
    type Output = Z;
    fn sub(self, o: Z) -> Z {
        Z::new(self.re - o.re, self.im - o.im)
    }
}

impl std::ops::Mul for Z {
    type Output = Z;
    fn mul(self, o: Z) -> Z {
        Z::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
    }
}

impl std::ops::Div for Z {
    type Output = Z;
    fn div(self, o: Z) -> Z {
        let d = o.re * o.re + o.im * o.im;
        Z::new((self.re * o.re + self.im * o.im) / d, (self.im * o.re - self.re * o.im) / d)
    }
}

/// `p(z)` (coefficients from the constant up) and `Σ |p_k| |z|^k`, the scale its
/// rounding error is measured against.
fn horner(p: &[f64], z: Z) -> (Z, f64) {
    let mut acc = Z::real(0.0);
    let mut scale = 0.0;
    let r = z.abs();
    for c in p.iter().rev() {
        acc = acc * z + Z::real(*c);
        scale = scale * r + c.abs();
    }
    (acc, scale)
}

fn floats(p: &[Q]) -> Vec<f64> {
    p.iter().map(q_to_f64).collect()
}

/// `p(x)` exactly.
pub(crate) fn eval_q(p: &[Q], x: &Q) -> Q {
    p.iter().rev().fold(Q::zero(), |acc, c| &(&acc * x) + c)
}

fn add(a: &[Q], b: &[Q]) -> Vec<Q> {
    let n = a.len().max(b.len());
    trim(
        (0..n).map(|i| a.get(i).cloned().unwrap_or_else(Q::zero) + b.get(i).cloned().unwrap_or_else(Q::zero)).collect(),
    )
}

fn scale(a: &[Q], c: &Q) -> Vec<Q> {
    trim(a.iter().map(|x| x * c).collect())
}

/// `a + b`.
pub(crate) fn plus(a: &[Q], b: &[Q]) -> Vec<Q> {
    add(a, b)
}

/// `a − b`.
pub(crate) fn minus(a: &[Q], b: &[Q]) -> Vec<Q> {
    add(a, &scale(b, &Q::int(-1)))
}

/// `c·a`.
pub(crate) fn times(a: &[Q], c: &Q) -> Vec<Q> {
    scale(a, c)
}

/// `t` with `a·t ≡ 1 (mod p)`, by the extended Euclidean algorithm; `None` when `a`
/// and `p` share a factor.
pub(crate) fn inverse_mod(a: &[Q], p: &[Q]) -> Option<Vec<Q>> {
    let (mut r0, mut r1) = (trim(p.to_vec()), divmod(a, p).1);
    let (mut t0, mut t1): (Vec<Q>, Vec<Q>) = (Vec::new(), vec![Q::one()]);
    while !r1.is_empty() {
        let (quot, r) = divmod(&r0, &r1);
        let t2 = minus(&t0, &mul(&quot, &t1));
        r0 = std::mem::replace(&mut r1, r);
        t0 = std::mem::replace(&mut t1, t2);
    }
    if r0.is_empty() || degree(&r0) != 0 {
        return None;
    }
    Some(divmod(&scale(&t0, &r0[0].recip()), p).1)
}

/// The number of distinct real roots of a square-free `p`, by Sturm's theorem (exact).
pub(crate) fn sturm_count(p: &[Q]) -> usize {
    let seq = sturm_sequence(p);
    variations(&seq, None).saturating_sub(variations(&seq, Some((&Q::one(), true))))
}

/// The Sturm sequence of a square-free `p`: `p`, `p'`, then the negated remainders.
pub(crate) fn sturm_sequence(p: &[Q]) -> Vec<Vec<Q>> {
    let mut seq = vec![trim(p.to_vec()), derivative(p)];
    while seq.last().is_some_and(|s| !s.is_empty()) && seq.len() < 64 {
        let n = seq.len();
        let r = divmod(&seq[n - 2], &seq[n - 1]).1;
        if r.is_empty() {
            break;
        }
        seq.push(scale(&r, &Q::int(-1)));
    }
    seq
}

fn sign(c: &Q) -> i8 {
    if c.is_positive() {
        1
    } else if c.is_negative() {
        -1
    } else {
        0
    }
}

/// The sign changes of the Sturm sequence at a point: `None` is −∞; `Some((x, false))`
/// the rational `x`; `Some((_, true))` is +∞.
fn variations(seq: &[Vec<Q>], at: Option<(&Q, bool)>) -> usize {
    let signs: Vec<i8> = seq
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| match at {
            None => {
                let c = sign(s.last().expect("non-empty"));
                if degree(s) % 2 == 1 { -c } else { c }
            }
            Some((_, true)) => sign(s.last().expect("non-empty")),
            Some((x, false)) => sign(&eval_q(s, x)),
        })
        .filter(|s| *s != 0)
        .collect();
    signs.windows(2).filter(|w| w[0] != w[1]).count()
}

/// The number of distinct real roots of the square-free `p` (with Sturm sequence
/// `seq`) in the closed range `[lo, hi]`, exactly; `None` ends are infinite.
pub(crate) fn roots_within(p: &[Q], seq: &[Vec<Q>], lo: Option<&Q>, hi: Option<&Q>) -> usize {
    let at_lo = variations(seq, lo.map(|x| (x, false)));
    let at_hi = variations(seq, Some(hi.map_or((&Q::one(), true), |x| (x, false))));
    // Sturm counts the roots in (lo, hi]; a root at `lo` itself is added.
    let at_end = lo.is_some_and(|x| eval_q(p, x).is_zero());
    at_lo.saturating_sub(at_hi) + usize::from(at_end)
}

pub(crate) fn q_of(x: f64) -> Option<Q> {
    let b = num_rational::BigRational::from_float(x)?;
    Some(Q::new(b.numer().clone(), b.denom().clone()))
}

/// The roots of a square-free `p` of degree ≥ 1, numerically, with their checks.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    /// Real roots first (ascending), then the others as conjugate pairs (`+` first).
    pub z: Vec<Z>,
    /// How many are real (an exact Sturm count).
    pub real: usize,
    /// Each real root's certified bracket `[lo, hi]`: `p` changes sign over it.
    pub brackets: Vec<(f64, f64)>,
    /// The largest relative residual `|p(r)| / Σ |p_k| |r|^k`.
    pub residual: f64,
}

/// Every complex root of the square-free `p` (see the module notes), or why not.
pub(crate) fn roots(p: &[Q]) -> Result<Roots, String> {
    let n = degree(p);
    if n == 0 {
        return Ok(Roots { z: Vec::new(), real: 0, brackets: Vec::new(), residual: 0.0 });
    }
    let f = floats(p);
    let df: Vec<f64> = f.iter().enumerate().skip(1).map(|(i, c)| c * i as f64).collect();
    let raw: Vec<Z> = if n == 1 {
        vec![Z::real(-f[0] / f[1])]
    } else {
        crate::upoly::complex_roots(p)
            .ok_or("the numeric root finder did not converge")?
            .into_iter()
            .map(|(re, im)| Z::new(re, im))
            .collect()
    };
    let newton = |mut z: Z, real: bool| {
        for _ in 0..60 {
            let (v, _) = horner(&f, z);
            let (d, _) = horner(&df, z);
            if d.abs() == 0.0 {
                break;
            }
            let mut step = v / d;
            if real {
                step.im = 0.0;
            }
            z = z - step;
            if step.abs() <= 1e-17 * (1.0 + z.abs()) {
                break;
            }
        }
        z
    };
    let mut zs: Vec<Z> = raw.into_iter().map(|z| newton(z, false)).collect();
    let real = sturm_count(p);
    // The `real` roots nearest the real axis are the real ones (Sturm says how many).
    zs.sort_by(|a, b| a.im.abs().total_cmp(&b.im.abs()));
    let mut reals: Vec<Z> = zs[..real].iter().map(|z| newton(Z::real(z.re), true)).collect();
    reals.sort_by(|a, b| a.re.total_cmp(&b.re));
    let mut brackets = Vec::new();
    for r in &reals {
        let mut ok = false;
        for k in [1e-13, 1e-11, 1e-9, 1e-7] {
            let d = k * (1.0 + r.re.abs());
            let (Some(lo), Some(hi)) = (q_of(r.re - d), q_of(r.re + d)) else { break };
            let (a, b) = (eval_q(p, &lo), eval_q(p, &hi));
            if (a.is_positive() && b.is_negative()) || (a.is_negative() && b.is_positive()) {
                brackets.push((r.re - d, r.re + d));
                ok = true;
                break;
            }
        }
        if !ok {
            return Err(format!("the real root near {} could not be certified by a sign change", r.re));
        }
    }
    if brackets.windows(2).any(|w| w[0].1 >= w[1].0) {
        return Err("two real roots could not be separated".into());
    }
    // The rest pair up into conjugates.
    let mut rest: Vec<Z> = zs[real..].to_vec();
    let mut pairs = Vec::new();
    let upper = |z: Z| Z::new(z.re, z.im.abs());
    while let Some(first) = rest.pop() {
        let z = upper(first);
        // Its partner: the root nearest to its conjugate, on the other side of the axis.
        let Some(j) = (0..rest.len())
            .filter(|&k| rest[k].im * first.im < 0.0)
            .min_by(|&a, &b| (upper(rest[a]) - z).abs().total_cmp(&(upper(rest[b]) - z).abs()))
        else {
            return Err("a non-real root has no conjugate among the roots found".into());
        };
        let w = rest.remove(j);
        if (upper(w) - z).abs() > 1e-6 * (1.0 + z.abs()) {
            return Err("the non-real roots found do not pair into conjugates".into());
        }
        let m = newton(Z::new((z.re + w.re) / 2.0, (z.im + w.im.abs()) / 2.0), false);
        pairs.push(Z::new(m.re, m.im.abs()));
    }
    pairs.sort_by(|a, b| a.re.total_cmp(&b.re).then(a.im.total_cmp(&b.im)));
    let mut z = reals;
    for w in pairs {
        z.push(w);
        z.push(Z::new(w.re, -w.im));
    }
    let mut residual = 0.0f64;
    for r in &z {
        let (v, s) = horner(&f, *r);
        residual = residual.max(v.abs() / s.max(f64::MIN_POSITIVE));
    }
    if residual > 1e-12 || z.len() != n {
        return Err(format!("the roots found leave a residual of {residual:e}"));
    }
    let spread = z.iter().map(|r| r.abs()).fold(1.0, f64::max);
    for (i, a) in z.iter().enumerate() {
        if z[i + 1..].iter().any(|b| (*a - *b).abs() <= 1e-9 * spread) {
            return Err("two roots found coincide numerically".into());
        }
    }
    Ok(Roots { z, real, brackets, residual })
}

/// `Σ c_i log(x − r_i)` over the roots of `q`, numerically: the coefficients, the
/// roots, and the numeric check of its derivative.
#[derive(Debug, Clone)]
pub(crate) struct Solved {
    /// The numerator `A` (deg A < deg Q), from the constant up.
    pub a: Vec<Q>,
    /// The irreducible denominator `Q`.
    pub q: Vec<Q>,
    /// `A·(Q')⁻¹ mod Q`: the coefficient as a polynomial in `r`.
    pub reduced: Vec<Q>,
    /// The roots and their checks.
    pub roots: Roots,
    /// `c_i = A(r_i)/Q'(r_i)`.
    pub coeffs: Vec<Z>,
    /// Sample points of the derivative check and the largest relative difference.
    pub samples: usize,
    pub complex_samples: usize,
    pub worst: f64,
}

impl Solved {
    /// Find the roots and check `d/dx Σ c_i log(x − r_i) = A(x)/Q(x)` at sample points.
    pub fn new(a: Vec<Q>, q: Vec<Q>, reduced: Vec<Q>) -> Result<Solved, String> {
        let roots = roots(&q)?;
        let (fa, fq, fr) = (floats(&a), floats(&q), floats(&reduced));
        let fdq: Vec<f64> = fq.iter().enumerate().skip(1).map(|(i, c)| c * i as f64).collect();
        let mut coeffs = Vec::with_capacity(roots.z.len());
        for r in &roots.z {
            let c = horner(&fa, *r).0 / horner(&fdq, *r).0;
            let red = horner(&fr, *r).0;
            if (c - red).abs() > 1e-8 * (1.0 + c.abs()) {
                return Err(format!(
                    "the reduced coefficient and A(r)/Q'(r) differ at r ≈ {} (by {:e})",
                    show(*r),
                    (c - red).abs()
                ));
            }
            coeffs.push(c);
        }
        let spread = roots.z.iter().map(|r| r.abs()).fold(1.0, f64::max);
        let points = [
            Z::real(-2.5 * spread),
            Z::real(-0.75),
            Z::real(0.5),
            Z::real(1.25 * spread),
            Z::real(3.5 * spread),
            Z::new(0.5, 0.7 * spread),
            Z::new(-1.1 * spread, -0.4),
        ];
        let (mut worst, mut samples, mut complex_samples) = (0.0f64, 0, 0);
        for x in points {
            if roots.z.iter().any(|r| (x - *r).abs() < 1e-3 * spread) {
                continue;
            }
            let mut sum = Z::real(0.0);
            let mut size = 0.0;
            for (c, r) in coeffs.iter().zip(&roots.z) {
                let t = *c / (x - *r);
                sum = sum + t;
                size += t.abs();
            }
            let want = horner(&fa, x).0 / horner(&fq, x).0;
            worst = worst.max((sum - want).abs() / size.max(want.abs()).max(f64::MIN_POSITIVE));
            samples += 1;
            if x.im != 0.0 {
                complex_samples += 1;
            }
        }
        if samples < 4 || worst > 1e-9 {
            return Err(format!(
                "the derivative of the root sum did not match A(x)/Q(x) numerically (relative difference {worst:e})"
            ));
        }
        Ok(Solved { a, q, reduced, roots, coeffs, samples, complex_samples, worst })
    }

    /// `Σ c_i log(x − r_i)` at a real `x` (principal logarithms).
    pub fn at(&self, x: f64) -> Z {
        self.coeffs.iter().zip(&self.roots.z).fold(Z::real(0.0), |acc, (c, r)| acc + *c * (Z::real(x) - *r).ln())
    }
}

/// A complex number as text, 12 significant digits.
pub(crate) fn show(z: Z) -> String {
    let re = attest_core::text::fmt_sig(z.re, 12);
    if z.im == 0.0 {
        return re;
    }
    let im = attest_core::text::fmt_sig(z.im.abs(), 12);
    let sign = if z.im < 0.0 { '-' } else { '+' };
    format!("{re} {sign} {im}i")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(cs: &[i64]) -> Vec<Q> {
        cs.iter().map(|&c| Q::int(c)).collect()
    }

    #[test]
    fn roots_of_cubics_and_quartics() {
        let r = roots(&p(&[1, 1, 0, 1])).unwrap();
        assert_eq!(r.real, 1);
        assert!((r.z[0].re + 0.6823278038280193).abs() < 1e-14, "{:?}", r.z);
        assert!((r.z[1].im - 1.161541399997252).abs() < 1e-13, "{:?}", r.z);
        let r = roots(&p(&[1, 0, 0, 0, 1])).unwrap();
        assert_eq!((r.real, r.z.len()), (0, 4));
        let r = roots(&p(&[1, -3, 0, 1])).unwrap(); // x^3 − 3x + 1: three real roots
        assert_eq!((r.real, r.brackets.len()), (3, 3));
        assert_eq!(sturm_count(&p(&[-2, 0, 0, 0, 1])), 2);
    }

    #[test]
    fn inverse_modulo() {
        // (3r^2 + 1)^(-1) mod r^3 + r + 1 = (−6r^2 + 9r − 4)/31... checked by multiplying back.
        let q = p(&[1, 1, 0, 1]);
        let d = derivative(&q);
        let t = inverse_mod(&d, &q).unwrap();
        assert_eq!(divmod(&mul(&t, &d), &q).1, vec![Q::one()]);
        assert!(inverse_mod(&p(&[-1, 1]), &p(&[-1, 0, 1])).is_none());
    }
}
