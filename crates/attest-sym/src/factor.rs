//! A factored form of a normal form, for `simplify`: the rational content, the
//! common monomial, and — for a polynomial in one variable with rational
//! coefficients — a linear factor `(q·x − p)^m` for every rational root `p/q`.
//! What has no rational root is left as one factor (no factoring into irreducibles
//! of degree ≥ 2). The result is checked: its normal form must equal the input's.

use num_integer::Integer;
use num_traits::{One, Zero};

use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, normal_form};
use crate::poly::Poly;
use crate::solve::rational_roots;

/// The factored form of `nf`, when it has more than one factor; `None` when it is
/// already a single irreducible piece (or a constant), or the search was out of reach.
pub fn factored(nf: &Nf, limits: &Limits) -> Option<Expr> {
    let (nc, mut num) = factor_poly(&nf.num)?;
    let (dc, mut den) = factor_poly(&nf.den)?;
    let content = nc / dc;
    let pieces: u32 = num.iter().chain(&den).map(|(_, m)| m).sum();
    if pieces <= 1 && (content.is_one() || pieces == 0) {
        return None; // one factor, nothing pulled out
    }
    let mut factors = Vec::new();
    if !content.is_one() {
        factors.push(Expr::Num(content));
    }
    let power = |(f, m): (Expr, u32), sign: i64| match m {
        1 if sign > 0 => f,
        m => Expr::pow(f, Expr::int(sign * i64::from(m))),
    };
    factors.extend(num.drain(..).map(|f| power(f, 1)));
    factors.extend(den.drain(..).map(|f| power(f, -1)));
    let e = if factors.len() == 1 { factors.pop().expect("one") } else { Expr::Mul(factors) };
    // Never show a factorisation that is not equal to the input.
    let back = normal_form(&e, &mut Cx::new(*limits)).ok()?;
    (back == *nf).then_some(e)
}

/// `p = content · ∏ factor^multiplicity`, each factor with integer coefficients and a
/// positive leading coefficient.
fn factor_poly(p: &Poly) -> Option<(Q, Vec<(Expr, u32)>)> {
    if p.is_zero() {
        return None;
    }
    if let Some(c) = p.as_const() {
        return Some((c, Vec::new()));
    }
    let m = p.common_monomial(p);
    let rest = p.div_mono(&m);
    let mut factors: Vec<(Expr, u32)> = m.iter().map(|(a, e)| (atom_expr(a), *e)).collect();
    let content = match univariate(&rest) {
        Some((x, coeffs)) if coeffs.len() > 2 => {
            let roots = rational_roots(&coeffs);
            if roots.too_large {
                return None;
            }
            let mut lead = coeffs.last().expect("degree ≥ 2").clone();
            for (r, mult) in roots.found {
                // x − p/q = (q·x − p)/q
                let (pn, qd) = (Q::from_integer(r.numer()), Q::from_integer(r.denom()));
                let f = Poly::atom(x.clone()).scale(&qd).add(&Poly::constant(-pn));
                lead /= num_traits::Pow::pow(&qd, mult);
                factors.push((poly_expr(f), mult));
            }
            if roots.rest.len() > 1 {
                let (c, f) = primitive(&poly_in(&x, &roots.rest));
                lead = lead / roots.rest.last().expect("non-empty").clone() * c;
                factors.push((poly_expr(f), 1));
            }
            lead
        }
        _ if rest.as_const().is_none() => {
            let (c, f) = primitive(&rest);
            factors.push((poly_expr(f), 1));
            c
        }
        _ => rest.as_const().expect("constant"),
    };
    Some((content, factors))
}

/// `p = c · q` with `q` having integer coefficients, no common integer factor and a
/// positive leading coefficient.
fn primitive(p: &Poly) -> (Q, Poly) {
    let mut num = num_bigint::BigInt::zero();
    let mut den = num_bigint::BigInt::one();
    for c in p.0.values() {
        num = num.gcd(&c.numer());
        den = den.lcm(&c.denom());
    }
    let mut c = Q::new(num, den);
    if p.lead_negative() {
        c = -c;
    }
    (c.clone(), p.scale(&c.recip()))
}

/// The one plain variable of `p` and its coefficients (low → high), when `p` is a
/// polynomial in a single variable with rational coefficients.
fn univariate(p: &Poly) -> Option<(Atom, Vec<Q>)> {
    let atoms = p.atoms();
    let [x @ Atom::Sym(_)] = atoms.iter().collect::<Vec<_>>()[..] else { return None };
    let cs = p.coeffs_in(x);
    let deg = *cs.keys().next_back()?;
    let coeffs = (0..=deg).map(|d| cs.get(&d).map_or(Some(Q::zero()), Poly::as_const)).collect::<Option<Vec<Q>>>()?;
    Some((x.clone(), coeffs))
}

fn poly_in(x: &Atom, coeffs: &[Q]) -> Poly {
    let mut p = Poly::zero();
    let mut xp = Poly::one();
    for c in coeffs {
        p = p.add(&xp.scale(c));
        xp = xp.mul_raw(&Poly::atom(x.clone()), &mut crate::poly::Budget::new(Limits::default())).unwrap_or(xp);
    }
    p
}

fn poly_expr(p: Poly) -> Expr {
    Nf { num: p, den: Poly::one() }.to_expr()
}

fn atom_expr(a: &Atom) -> Expr {
    poly_expr(Poly::atom(a.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(text: &str) -> Option<String> {
        let l = Limits::default();
        let nf = normal_form(&crate::parse_expr(text, &l).unwrap(), &mut Cx::new(l)).unwrap();
        factored(&nf, &l).map(|e| e.to_string())
    }

    #[test]
    fn rational_roots_become_linear_factors() {
        for (t, want) in [
            ("x^3 - x", "x*(x - 1)*(x + 1)"),
            ("x^2 + 2x + 1", "(x + 1)^2"),
            ("2x^2 - 8", "2*(x - 2)*(x + 2)"),
            ("4x^2 - 1", "(2*x - 1)*(2*x + 1)"),
            ("x^3 - 2x^2 + x - 2", "(x - 2)*(x^2 + 1)"),
            ("x^2/2 - 1/2", "(x - 1)*(x + 1)/2"),
        ] {
            assert_eq!(f(t).as_deref(), Some(want), "{t}");
        }
    }

    #[test]
    fn monomials_and_content_come_out() {
        for (t, want) in [
            ("x^2 y + x y^2", "x*y*(x + y)"),
            ("6a + 9b", "3*(2*a + 3*b)"),
            ("(x^2 - 4)/(x^2 + 2x + 1)", "(x - 2)*(x + 2)/(x + 1)^2"),
        ] {
            assert_eq!(f(t).as_deref(), Some(want), "{t}");
        }
    }

    #[test]
    fn nothing_to_factor_is_none() {
        for t in ["x^2 + 1", "x + 1", "7", "sin(x)", "x"] {
            assert_eq!(f(t), None, "{t}");
        }
    }
}
