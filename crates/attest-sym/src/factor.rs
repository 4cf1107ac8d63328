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
                    let split = homogeneous_split(&f, &mut budget).or_else(|| kronecker_split(&f, &mut budget));
                    match split {
                        Some(parts) if parts.len() > 1 => {
                            for g in parts {
                                let (c, g) = primitive(&g);
                                content *= c;
                                factors.push((poly_expr(g), 1));
                            }
                        }
                        _ => factors.push((poly_expr(f), 1)),
                    }
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

/// Largest degree of the one-variable image searched by [`kronecker_split`].
const MAX_KRONECKER_DEGREE: u64 = 48;
/// Most sub-products of the image's factors tried by [`kronecker_split`].
const MAX_KRONECKER_COMBOS: u64 = 20_000;

/// The factors of a polynomial in several variables, by Kronecker's substitution:
/// with `dᵢ` the degree of `p` in its `i`-th variable, `xᵢ = t^Nᵢ` (`N₀ = 1`,
/// `Nᵢ₊₁ = Nᵢ·(dᵢ + 1)`) maps `p` to one variable injectively on polynomials of
/// those degrees and is a ring homomorphism, so the image of each factor of `p` is a
/// product of some of the image's irreducible factors. Products of subsets of those
/// are mapped back (each exponent read in the mixed radix) and kept only when they
/// divide `p` exactly; sub-products are tried by degree, smallest first, so each factor found cannot
/// split further (unless the one-variable factorisation left a piece unsplit, which
/// can only leave a factor whole, never give a wrong one). `None` when out of reach
/// (image degree over 48, more than 20,000 sub-products) or nothing splits.
fn kronecker_split(p: &Poly, b: &mut crate::poly::Budget) -> Option<Vec<Poly>> {
    let atoms: Vec<Atom> = p.atoms().into_iter().collect();
    if atoms.len() < 2 {
        return None;
    }
    let degs: Vec<u64> = atoms.iter().map(|a| u64::from(p.degree_in(a))).collect();
    let mut radix = Vec::with_capacity(atoms.len());
    let mut n = 1u64;
    for d in &degs {
        radix.push(n);
        n = n.checked_mul(d + 1)?;
        if n > MAX_KRONECKER_DEGREE + 1 {
            return None;
        }
    }
    let mut image = vec![Q::zero(); n as usize];
    for (m, c) in p.0.iter() {
        let e: u64 =
            m.iter().map(|(a, k)| radix[atoms.iter().position(|x| x == a).expect("atom of p")] * u64::from(*k)).sum();
        image[e as usize] += c;
    }
    let f = crate::upoly::factor(&image);
    // Distinct irreducible factors of the image with their multiplicities.
    let mut pieces: Vec<(Vec<Q>, u32)> = f.factors.clone();
    let combos = |pieces: &[(Vec<Q>, u32)]| pieces.iter().map(|(_, m)| u64::from(*m) + 1).product::<u64>();
    if pieces.iter().map(|(_, m)| m).sum::<u32>() < 2 || combos(&pieces) > MAX_KRONECKER_COMBOS {
        return None;
    }
    // Back from one variable: t^e is ∏ xᵢ^(digit i of e in the mixed radix).
    let back = |u: &[Q]| -> Option<Poly> {
        let mut out = Poly::zero();
        for (e, c) in u.iter().enumerate() {
            if c.is_zero() {
                continue;
            }
            let mut mono = Vec::new();
            let mut rest = e as u64;
            for i in (0..atoms.len()).rev() {
                let k = rest / radix[i];
                rest %= radix[i];
                if k > degs[i] {
                    return None;
                }
                if k > 0 {
                    mono.push((atoms[i].clone(), k as u32));
                }
            }
            mono.reverse();
            out.add_term(mono, c.clone());
        }
        Some(out)
    };
    let mut rest = p.clone();
    let mut found = Vec::new();
    'search: loop {
        // Every sub-multiset of the pieces (not empty, not all), by degree of the
        // product: the first that maps back to a divisor is irreducible.
        let total: Vec<u32> = pieces.iter().map(|(_, m)| *m).collect();
        let mut choices: Vec<(usize, Vec<u32>)> = Vec::new();
        let mut pick = vec![0u32; pieces.len()];
        while let Some(i) = (0..pick.len()).find(|&i| pick[i] < total[i]) {
            pick[i] += 1;
            for p in pick.iter_mut().take(i) {
                *p = 0;
            }
            if pick != total {
                let deg = pick.iter().zip(&pieces).map(|(k, (g, _))| *k as usize * (g.len() - 1)).sum();
                choices.push((deg, pick.clone()));
            }
        }
        choices.sort();
        for (_, pick) in &choices {
            let mut prod = vec![Q::one()];
            for (k, (g, _)) in pick.iter().zip(&pieces) {
                for _ in 0..*k {
                    prod = crate::upoly::mul(&prod, g);
                }
            }
            let Some(g) = back(&prod) else { continue };
            if g.as_const().is_some() {
                continue;
            }
            b.charge((g.len() * rest.len()) as u64).ok()?;
            if let Ok(Some(q)) = rest.div_exact(&g, b) {
                found.push(g);
                rest = q;
                for (k, piece) in pick.iter().zip(pieces.iter_mut()) {
                    piece.1 -= k;
                }
                pieces.retain(|(_, m)| *m > 0);
                if pieces.iter().map(|(_, m)| m).sum::<u32>() >= 2 {
                    continue 'search;
                }
                break 'search;
            }
        }
        break;
    }
    if found.is_empty() {
        return None;
    }
    if rest.as_const().is_none() {
        found.push(rest);
    } else if let Some(c) = rest.as_const() {
        let last = found.pop().expect("non-empty");
        found.push(last.scale(&c));
    }
    // Shown in a fixed order: lower degree first, then by coefficients from the
    // leading term down (so x − y before x + y).
    let key = |g: &Poly| {
        let deg = g.0.keys().map(|m| m.iter().map(|(_, e)| e).sum::<u32>()).max().unwrap_or(0);
        let (_, g) = primitive(g);
        (deg, g.0.iter().rev().map(|(_, c)| c.clone()).collect::<Vec<Q>>())
    };
    found.sort_by_key(key);
    Some(found)
}

/// A homogeneous polynomial in two or more variables (`x^6 − y^6`, `x^2 − 5xy + 6y^2`):
/// the last variable set to 1, the rest factored (in one variable by
/// [`crate::upoly::factor`], else by [`kronecker_split`]), and each factor made
/// homogeneous again. The product is checked against `p` before it is used. `None`
/// when `p` is not homogeneous; one piece when it does not split (as far as searched).
fn homogeneous_split(p: &Poly, b: &mut crate::poly::Budget) -> Option<Vec<Poly>> {
    let atoms: Vec<Atom> = p.atoms().into_iter().collect();
    let degree = |m: &crate::poly::Mono| m.iter().map(|(_, e)| e).sum::<u32>();
    let d = p.0.keys().next().map(degree)?;
    if atoms.len() < 2 || p.0.keys().any(|m| degree(m) != d) {
        return None;
    }
    let z = atoms.last().expect("two or more").clone();
    let mut q = Poly::zero();
    for (m, c) in p.0.iter() {
        q.add_term(m.iter().filter(|(a, _)| *a != z).cloned().collect(), c.clone());
    }
    let parts: Vec<Poly> = match univariate(&q) {
        Some((x, coeffs)) => {
            let f = crate::upoly::factor(&coeffs);
            let mut v = Vec::new();
            for (g, m) in &f.factors {
                for _ in 0..*m {
                    v.push(poly_in(&x, g));
                }
            }
            v
        }
        None => kronecker_split(&q, b).unwrap_or_else(|| vec![q.clone()]),
    };
    if parts.len() < 2 {
        // Every factor of a homogeneous polynomial is homogeneous, and none is a power
        // of z (the common monomial is already out): p splits only if q does.
        return Some(vec![p.clone()]);
    }
    let mut out = Vec::new();
    let mut prod = Poly::one();
    for g in parts {
        let e = g.0.keys().map(degree).max().unwrap_or(0);
        let mut h = Poly::zero();
        for (m, c) in g.0.iter() {
            let mut m = m.clone();
            if e > degree(&m) {
                m.push((z.clone(), e - degree(&m)));
            }
            h.add_term(m, c.clone());
        }
        prod = prod.mul_raw(&h, b).ok()?;
        out.push(h);
    }
    // p = c · ∏ h: put the constant into the last factor.
    let c = p.lead()?.1.clone() / prod.lead()?.1.clone();
    (prod.scale(&c) == *p).then(|| {
        let last = out.pop().expect("two or more");
        out.push(last.scale(&c));
        out
    })
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
            ("x^2 y - y^3 + x^2 z - y^2 z", "(y + z)*(x - y)*(x + y)"),
            ("(x^2 - 4)/(x^2 + 2x + 1)", "(x - 2)*(x + 2)/(x + 1)^2"),
        ] {
            assert_eq!(f(t).as_deref(), Some(want), "{t}");
        }
    }

    #[test]
    fn several_variables_split_by_kronecker() {
        for (t, want) in [
            ("x^2 - y^2", "(x - y)*(x + y)"),
            ("x^3 - y^3", "(x - y)*(x^2 + x*y + y^2)"),
            ("x^2 + 2x y + y^2", "(x + y)^2"),
            ("x^2 - y^2 + x - y", "(x - y)*(x + y + 1)"),
            ("a^4 - b^4", "(a - b)*(a + b)*(a^2 + b^2)"),
            ("x^6 - y^6", "(x - y)*(x + y)*(x^2 - x*y + y^2)*(x^2 + x*y + y^2)"),
            ("x^2 y + x y^2 + x + y", "(x + y)*(x*y + 1)"),
            ("x^3 + y^3 + z^3 - 3x y z", "(x + y + z)*(x^2 - x*y - x*z + y^2 - y*z + z^2)"),
        ] {
            assert_eq!(f(t).as_deref(), Some(want), "{t}");
        }
        let big = f("x^12 - y^12").unwrap();
        assert_eq!(big.matches(")*(").count() + 1, 6, "{big}");
        for t in ["x^2 + y^2", "x^2 + y^2 - 1", "x y + 1", "x^3 + y^3 + z^3 - 1", "x^2 - 2y^2"] {
            assert_eq!(f(t), None, "{t}");
        }
    }

    #[test]
    fn nothing_to_factor_is_none() {
        for t in ["x^2 + 1", "x + 1", "7", "sin(x)", "x", "x^4 + 1", "x^3 - 2"] {
            assert_eq!(f(t), None, "{t}");
        }
    }
}
