//! A factored form of a normal form, for `simplify`: the rational content, the
//! common monomial, the multivariate content (split off variable by variable), and —
//! for a polynomial in one variable with rational coefficients — its irreducible
//! factors over the rationals (linear factors `(q·x − p)^m` for the rational roots,
//! then factors of degree ≥ 2, see [`crate::upoly`]). The result is checked: its
//! normal form must equal the input's.

use num_integer::Integer;
use num_traits::{One, Zero};

use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, normal_form};
use crate::poly::Poly;

/// The factored form of `nf`, when it has more than one factor; `None` when it is
/// already a single irreducible piece (or a constant), or the search was out of reach.
pub fn factored(nf: &Nf, limits: &Limits) -> Option<Expr> {
    factored_noting(nf, limits, &mut Vec::new())
}

/// [`factored`], also noting the degrees of factors left whole because they were too
/// large to search for factors of degree ≥ 2 (they may still split).
pub fn factored_noting(nf: &Nf, limits: &Limits, unsearched: &mut Vec<usize>) -> Option<Expr> {
    let (nc, mut num) = factor_poly(&nf.num, limits, unsearched)?;
    let (dc, mut den) = factor_poly(&nf.den, limits, unsearched)?;
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
/// positive leading coefficient: the common monomial, the multivariate content (the
/// greatest common divisor of the coefficients in one variable, split off
/// recursively), and for a polynomial in one variable its irreducible factors over
/// the rationals ([`crate::upoly::factor`]).
fn factor_poly(p: &Poly, limits: &Limits, unsearched: &mut Vec<usize>) -> Option<(Q, Vec<(Expr, u32)>)> {
    if p.is_zero() {
        return None;
    }
    if let Some(c) = p.as_const() {
        return Some((c, Vec::new()));
    }
    let m = p.common_monomial(p);
    let rest = p.div_mono(&m);
    let mut factors: Vec<(Expr, u32)> = m.iter().map(|(a, e)| (atom_expr(a), *e)).collect();
    let mut content = Q::one();
    let mut budget = crate::poly::Budget::new(*limits);
    for piece in split_content(&rest, &mut budget, 0) {
        match univariate(&piece) {
            Some((x, coeffs)) if coeffs.len() > 2 => {
                let f = crate::upoly::factor(&coeffs);
                unsearched.extend(&f.unsearched);
                content *= f.content;
                for (c, mult) in f.factors {
                    factors.push((poly_expr(poly_in(&x, &c)), mult));
                }
            }
            _ => match piece.as_const() {
                Some(c) => content *= c,
                None => {
                    let (c, f) = primitive(&piece);
                    content *= c;
                    factors.push((poly_expr(f), 1));
                }
            },
        }
    }
    // The same factor from two pieces is one factor with the multiplicities added.
    let mut merged: Vec<(Expr, u32)> = Vec::new();
    for (f, k) in factors {
        match merged.iter_mut().find(|(g, _)| *g == f) {
            Some((_, j)) => *j += k,
            None => merged.push((f, k)),
        }
    }
    Some((content, merged))
}

/// `p` as a product of polynomials: the content in each variable in turn (the
/// greatest common divisor of `p`'s coefficients as a polynomial in it), split off
/// and split again, so `x^2 y + x^2 z - y^3 - y^2 z` gives `y + z` and `x^2 - y^2`.
fn split_content(p: &Poly, b: &mut crate::poly::Budget, depth: u32) -> Vec<Poly> {
    let atoms: Vec<Atom> = p.atoms().into_iter().collect();
    if atoms.len() < 2 || depth > 16 {
        return vec![p.clone()];
    }
    for a in &atoms {
        let cs = p.coeffs_in(a);
        if cs.len() < 2 {
            continue;
        }
        let mut g: Option<Poly> = None;
        for c in cs.values() {
            g = Some(match g {
                None => c.clone(),
                Some(g) => match g.gcd(c, b) {
                    Ok(g) => g,
                    Err(_) => return vec![p.clone()],
                },
            });
        }
        let Some(g) = g.filter(|g| g.as_const().is_none()) else { continue };
        if let Ok(Some(q)) = p.div_exact(&g, b) {
            let mut out = split_content(&g, b, depth + 1);
            out.extend(split_content(&q, b, depth + 1));
            return out;
        }
    }
    vec![p.clone()]
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
    let f = p.scale(&c.recip());
    // Shown with a leading minus sign (the printed order is not the leading term's
    // for several variables): take the sign into the content instead.
    if poly_expr(f.clone()).to_string().starts_with('-') {
        return (-c, f.neg());
    }
    (c, f)
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
            ("x^4 + 4", "(x^2 - 2*x + 2)*(x^2 + 2*x + 2)"),
            ("x^4 - 5x^2 + 6", "(x^2 - 3)*(x^2 - 2)"),
            ("x^6 - 1", "(x - 1)*(x + 1)*(x^2 - x + 1)*(x^2 + x + 1)"),
            ("x^4 + 2x^2 + 1", "(x^2 + 1)^2"),
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
            ("x^2 y - y^3 + x^2 z - y^2 z", "(y + z)*(x^2 - y^2)"),
            ("(x^2 - 4)/(x^2 + 2x + 1)", "(x - 2)*(x + 2)/(x + 1)^2"),
        ] {
            assert_eq!(f(t).as_deref(), Some(want), "{t}");
        }
    }

    #[test]
    fn nothing_to_factor_is_none() {
        for t in ["x^2 + 1", "x + 1", "7", "sin(x)", "x", "x^4 + 1", "x^3 - 2"] {
            assert_eq!(f(t), None, "{t}");
        }
    }
}
