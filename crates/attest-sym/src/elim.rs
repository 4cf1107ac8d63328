//! Polynomial systems of two or three unknowns by elimination: Sylvester resultants
//! (fraction-free Bareiss elimination over polynomials) remove one unknown at a time
//! down to one polynomial in one unknown; its rational roots are substituted back and
//! the next unknown found the same way. Only rational solutions are found; when a
//! polynomial on the way has roots that are not rational, the list says it may be
//! incomplete. Every solution is substituted back into every equation exactly.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::error::{Result, SymError};
use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::linalg::SystemSolution;
use crate::nf::{Atom, Cx, normal_form};
use crate::poly::{Budget, Poly};

/// `p` with the atom `a` replaced by the rational `v`.
fn subst(p: &Poly, a: &Atom, v: &Q) -> Poly {
    let mut out = Poly::zero();
    for (m, c) in p.0.iter() {
        let mut c = c.clone();
        let mut rest = Vec::new();
        for (b, e) in m {
            if b == a {
                c *= num_traits::Pow::pow(v, *e);
            } else {
                rest.push((b.clone(), *e));
            }
        }
        out = out.add(&Poly::term(rest, c));
    }
    out
}

/// The Sylvester resultant of `f` and `g` with respect to `v`.
fn resultant(f: &Poly, g: &Poly, v: &Atom, b: &mut Budget) -> Result<Poly> {
    let (m, n) = (f.degree_in(v) as usize, g.degree_in(v) as usize);
    if m == 0 || n == 0 {
        return Ok(if m == 0 { f.clone() } else { g.clone() });
    }
    let (fc, gc) = (f.coeffs_in(v), g.coeffs_in(v));
    let size = m + n;
    if size > 12 {
        return Err(SymError::limit(format!(
            "eliminating an unknown of degrees {m} and {n} needs a {size}×{size} resultant, over the limit of 12; it was not attempted"
        )));
    }
    let mut mat = vec![vec![Poly::zero(); size]; size];
    for i in 0..n {
        for k in 0..=m {
            mat[i][i + k] = fc.get(&((m - k) as u32)).cloned().unwrap_or_default();
        }
    }
    for j in 0..m {
        for k in 0..=n {
            mat[n + j][j + k] = gc.get(&((n - k) as u32)).cloned().unwrap_or_default();
        }
    }
    let mut prev = Poly::one();
    for k in 0..size - 1 {
        if mat[k][k].is_zero() {
            let Some(r) = (k + 1..size).find(|&r| !mat[r][k].is_zero()) else { return Ok(Poly::zero()) };
            mat.swap(k, r);
        }
        for i in k + 1..size {
            for j in k + 1..size {
                let num = mat[k][k].mul_raw(&mat[i][j], b)?.sub(&mat[i][k].mul_raw(&mat[k][j], b)?);
                mat[i][j] = num.div_exact(&prev, b)?.ok_or_else(|| {
                    SymError::unsupported("the elimination did not divide exactly; no answer is given")
                })?;
            }
            mat[i][k] = Poly::zero();
        }
        prev = mat[k][k].clone();
    }
    Ok(mat[size - 1][size - 1].clone())
}

fn univariate(p: &Poly, v: &Atom) -> Option<Vec<Q>> {
    let cs = p.coeffs_in(v);
    let deg = cs.keys().next_back().copied().unwrap_or(0);
    (0..=deg).map(|d| cs.get(&d).map_or(Some(Q::zero()), Poly::as_const)).collect()
}

/// Rational solutions of `ps = 0` in `vars`, and whether they are all the solutions.
/// `None` when the system does not fix every unknown (infinitely many solutions, or
/// too few equations).
fn solutions(ps: &[Poly], vars: &[Atom], b: &mut Budget) -> Result<Option<(Vec<Vec<Q>>, bool)>> {
    let ps: Vec<Poly> = ps.iter().filter(|p| !p.is_zero()).cloned().collect();
    if ps.iter().any(|p| p.as_const().is_some()) {
        return Ok(Some((Vec::new(), true))); // a non-zero constant = 0: no solution
    }
    let Some((v, outer)) = vars.split_last() else { return Ok(Some((vec![Vec::new()], true))) };
    let with: Vec<&Poly> = ps.iter().filter(|p| p.degree_in(v) > 0).collect();
    let without: Vec<Poly> = ps.iter().filter(|p| p.degree_in(v) == 0).cloned().collect();
    if with.is_empty() {
        return Ok(None);
    }
    // Values of the outer unknowns.
    let outer_sols = if outer.is_empty() {
        (vec![Vec::new()], true)
    } else {
        let pivot = with.iter().min_by_key(|p| (p.degree_in(v), p.len())).expect("non-empty");
        let mut reduced = without.clone();
        for p in &with {
            if std::ptr::eq(*p, *pivot) {
                continue;
            }
            reduced.push(resultant(pivot, p, v, b)?);
        }
        match solutions(&reduced, outer, b)? {
            Some(s) => s,
            None => return Ok(None),
        }
    };
    let (outer_list, mut complete) = outer_sols;
    let mut out = Vec::new();
    for s in outer_list {
        let mut g: Option<Vec<Q>> = None;
        for p in &with {
            let mut q = (*p).clone();
            for (a, val) in outer.iter().zip(&s) {
                q = subst(&q, a, val);
            }
            let Some(u) = univariate(&q, v) else { return Ok(None) };
            g = Some(match g {
                None => crate::upoly::trim(u),
                Some(g) => crate::upoly::gcd(&g, &u),
            });
        }
        let g = g.unwrap_or_default();
        if g.is_empty() {
            return Ok(None); // every equation vanishes: this unknown is free
        }
        if g.len() == 1 {
            continue;
        }
        if g.len() == 2 {
            let mut t = s.clone();
            t.push(-(&g[0] / &g[1]));
            out.push(t);
            continue;
        }
        let rr = crate::solve::rational_roots(&g);
        if rr.too_large || rr.rest.len() > 1 {
            complete = false;
        }
        for (r, _) in rr.found {
            let mut t = s.clone();
            t.push(r);
            out.push(t);
        }
    }
    Ok(Some((out, complete)))
}

/// A polynomial system of as many equations as unknowns (2 or 3), by elimination.
/// `Ok(None)` when it is not such a system or elimination does not fix the unknowns.
pub fn by_elimination(
    diffs: &[Expr],
    shown: &[String],
    unknowns: &[String],
    limits: &Limits,
) -> Result<Option<SystemSolution>> {
    if !(2..=3).contains(&unknowns.len()) || diffs.len() != unknowns.len() {
        return Ok(None);
    }
    let mut cx = Cx::new(*limits);
    let mut ps = Vec::new();
    for d in diffs {
        let nf = normal_form(d, &mut cx)?;
        if !nf.den.as_const().is_some_and(|c| c.is_one())
            || nf.num.atoms().iter().any(|a| !matches!(a, Atom::Sym(s) if unknowns.iter().any(|u| **u == **s)))
        {
            return Ok(None);
        }
        ps.push(nf.num);
    }
    let vars: Vec<Atom> = unknowns.iter().map(|u| Atom::Sym(u.as_str().into())).collect();
    let mut budget = Budget::new(*limits);
    let Some((sols, complete)) = solutions(&ps, &vars, &mut budget)? else { return Ok(None) };
    let mut listed = Vec::new();
    for s in &sols {
        for (p, text) in ps.iter().zip(shown) {
            let mut q = p.clone();
            for (a, v) in vars.iter().zip(s) {
                q = subst(&q, a, v);
            }
            if !q.is_zero() {
                return Err(SymError::unsupported(format!(
                    "a solution found does not satisfy {text}; no answer is given"
                )));
            }
        }
        listed.push(
            unknowns
                .iter()
                .zip(s)
                .map(|(u, v)| (u.clone(), Expr::Num(v.clone()).to_string()))
                .collect::<BTreeMap<_, _>>(),
        );
    }
    listed.sort_by(|a, b| a.values().cmp(b.values()));
    listed.dedup();
    let mut notes = vec![format!(
        "unknowns eliminated one at a time by resultants, down to one polynomial in {}; its rational roots substituted back",
        unknowns[0]
    )];
    if !complete {
        notes.push(
            "a polynomial on the way has roots that are not rational: solutions with those values are not listed"
                .into(),
        );
    }
    Ok(Some(SystemSolution {
        equations: shown.to_vec(),
        unknowns: unknowns.to_vec(),
        status: match (listed.is_empty(), complete) {
            (true, true) => "none".into(),
            (_, false) => "partial".into(),
            (false, true) => "finite".into(),
        },
        solution: BTreeMap::new(),
        free: Vec::new(),
        evidence: None,
        solutions: listed,
        notes,
        check: "each solution substituted back into every equation, exactly".into(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> Poly {
        let l = Limits::default();
        normal_form(&crate::parse_expr(t, &l).unwrap(), &mut Cx::new(l)).unwrap().num
    }

    #[test]
    fn resultants() {
        let mut b = Budget::new(Limits::default());
        let z = Atom::Sym("z".into());
        let r = resultant(&p("y z - 1"), &p("x z - 4"), &z, &mut b).unwrap();
        assert_eq!(crate::nf::Nf { num: r, den: Poly::one() }.to_string(), "x - 4*y");
        let y = Atom::Sym("y".into());
        let r = resultant(&p("x^2 + y^2 - 5"), &p("x y - 2"), &y, &mut b).unwrap();
        assert_eq!(crate::nf::Nf { num: r, den: Poly::one() }.to_string(), "x^4 - 5*x^2 + 4");
    }
}
