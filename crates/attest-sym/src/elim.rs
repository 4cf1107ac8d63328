//! Polynomial systems of two or three unknowns by elimination: Sylvester resultants
//! (fraction-free Bareiss elimination over polynomials) remove one unknown at a time
//! down to one polynomial in one unknown; its rational roots are substituted back and
//! the next unknown found the same way. Only rational solutions are found; when a
//! polynomial on the way has roots that are not rational, the list says it may be
//! incomplete. Every solution is substituted back into every equation exactly.

use std::collections::BTreeMap;

use num_traits::{One, Zero};

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::linalg::SystemSolution;
use crate::nf::{Atom, Cx, Nf, normal_form};
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
    if !complete && let Some(r) = by_candidates(&ps, diffs, shown, unknowns, &vars, limits)? {
        return Ok(Some(r));
    }
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
            "a polynomial on the way has roots that are not rational, and the search over every combination of the unknowns' real roots was out of reach (over 1,000 combinations, or a root not confirmed): solutions with irrational values are not listed"
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

/// One polynomial in `order[0]` alone that vanishes at every solution's value of it:
/// the other unknowns eliminated by resultants (last first), then the greatest common
/// divisor of what is left. `None` when nothing is left (an unknown is free).
fn eliminant(ps: &[Poly], order: &[Atom], b: &mut Budget) -> Result<Option<Vec<Q>>> {
    let ps: Vec<Poly> = ps.iter().filter(|p| !p.is_zero()).cloned().collect();
    let Some((v, outer)) = order.split_last() else { return Ok(None) };
    if outer.is_empty() {
        let mut g: Option<Vec<Q>> = None;
        for p in &ps {
            let Some(u) = univariate(p, v) else { return Ok(None) };
            let u = crate::upoly::trim(u);
            g = Some(match g {
                None => u,
                Some(g) => crate::upoly::gcd(&g, &u),
            });
        }
        return Ok(g.filter(|g| g.len() > 1));
    }
    let with: Vec<&Poly> = ps.iter().filter(|p| p.degree_in(v) > 0).collect();
    let mut reduced: Vec<Poly> = ps.iter().filter(|p| p.degree_in(v) == 0).cloned().collect();
    let Some(pivot) = with.iter().min_by_key(|p| (p.degree_in(v), p.len())) else {
        return eliminant(&reduced, outer, b);
    };
    for p in &with {
        if !std::ptr::eq(*p, *pivot) {
            reduced.push(resultant(pivot, p, v, b)?);
        }
    }
    eliminant(&reduced, outer, b)
}

/// Most combinations of candidate values tried by [`by_candidates`].
const MAX_CANDIDATES: usize = 1_000;

/// All real solutions, when some are irrational: for each unknown, its eliminant's
/// real roots (by `solve`: exact up to degree 4, numeric beyond); every combination
/// of them is a candidate (a superset of the solutions, since each solution's values
/// are roots of the eliminants); a candidate is kept when it satisfies every equation
/// exactly by the normal form, or else when every residual is at rounding level in
/// floating point (then its values are shown as decimals with `≈`). `None` when an eliminant is not found or a
/// root is not checked.
fn by_candidates(
    ps: &[Poly],
    diffs: &[Expr],
    shown: &[String],
    unknowns: &[String],
    vars: &[Atom],
    limits: &Limits,
) -> Result<Option<SystemSolution>> {
    let mut budget = Budget::new(*limits);
    let mut roots: Vec<Vec<(Expr, f64, bool)>> = Vec::new();
    let mut degrees = Vec::new();
    for (i, u) in unknowns.iter().enumerate() {
        let mut order = vec![vars[i].clone()];
        order.extend(vars.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, a)| a.clone()));
        let Some(e) = eliminant(ps, &order, &mut budget)? else { return Ok(None) };
        degrees.push(e.len() - 1);
        let text = Nf { num: poly_in(&vars[i], &e), den: Poly::one() }.to_string();
        let sol = crate::solve(&format!("{text} = 0"), Some(u), limits)?;
        if sol.roots.iter().any(|r| !r.checked) {
            return Ok(None);
        }
        let mut rs = Vec::new();
        for r in &sol.roots {
            let e = if r.exact {
                let e = crate::parse_expr(&r.value, limits)?;
                normal_form(&e, &mut Cx::new(*limits)).map(|n| n.to_expr()).unwrap_or(e)
            } else {
                Expr::Num(Q::zero())
            };
            rs.push((e, r.numeric, r.exact));
        }
        roots.push(rs);
    }
    let count = roots.iter().map(Vec::len).product::<usize>();
    if count > MAX_CANDIDATES {
        return Ok(None);
    }
    // Each equation's residual and the scale of its terms at a point, in floating point
    // (from the polynomials themselves, so large coefficients scale the tolerance).
    let residual = |p: &Poly, xs: &[f64]| -> (f64, f64) {
        let (mut r, mut scale) = (0.0, 0.0);
        for (m, c) in p.0.iter() {
            let mut t = crate::eval::q_to_f64(c);
            for (a, e) in m {
                let i = vars.iter().position(|v| v == a).expect("an unknown");
                t *= xs[i].powi(*e as i32);
            }
            r += t;
            scale += t.abs();
        }
        (r, scale)
    };
    let within = |xs: &[f64], tol: f64| {
        ps.iter().all(|p| {
            let (r, scale) = residual(p, xs);
            r.is_finite() && r.abs() <= tol * scale.max(f64::MIN_POSITIVE)
        })
    };
    let mut listed = Vec::new();
    let mut numeric_only = false;
    let mut unconfirmed = 0;
    let mut cx = Cx::new(*limits);
    for k in 0..count {
        let mut idx = Vec::new();
        let mut r = k;
        for rs in &roots {
            idx.push(r % rs.len());
            r /= rs.len();
        }
        let pick: Vec<&(Expr, f64, bool)> = idx.iter().zip(&roots).map(|(&j, rs)| &rs[j]).collect();
        let xs: Vec<f64> = pick.iter().map(|p| p.1).collect();
        if !within(&xs, 1e-7) {
            continue;
        }
        let mut exact = pick.iter().all(|p| p.2);
        if exact {
            let at = |n: &str| unknowns.iter().position(|u| u == n).map(|i| pick[i].0.clone());
            exact = diffs.iter().all(|d| normal_form(&d.substitute(&at), &mut cx).is_ok_and(|z| z.is_zero()));
        }
        if !exact {
            // Not shown exactly (nested radicals the normal form cannot multiply out, or
            // numeric roots): listed with ≈ only when every residual is at rounding level.
            if !within(&xs, 1e-10) {
                unconfirmed += 1; // nearly a solution, but not confirmed either way
                continue;
            }
            numeric_only = true;
        }
        listed.push((
            xs.clone(),
            unknowns
                .iter()
                .zip(&pick)
                .map(|(u, p)| {
                    let v =
                        if exact { p.0.to_string() } else { format!("≈ {}", attest_core::text::fmt_sig(p.1, 12)) };
                    (u.clone(), v)
                })
                .collect::<BTreeMap<_, _>>(),
        ));
    }
    listed.sort_by(|a, b| {
        a.0.iter().zip(&b.0).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    });
    let listed: Vec<BTreeMap<String, String>> = listed.into_iter().map(|(_, m)| m).collect();
    let mut notes = vec![format!(
        "each unknown's values are the real roots of one polynomial found by eliminating the others with resultants (degrees {}); every combination of them was substituted into every equation, and the ones listed satisfy all of them{}",
        degrees.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
        if numeric_only {
            " (values marked ≈ are decimals of roots the normal form could not confirm exactly, checked in floating point only)"
        } else {
            ", exactly"
        }
    )];
    notes.push("real solutions only: complex ones are not listed".into());
    if unconfirmed > 0 {
        notes.push(format!(
            "{unconfirmed} more combination(s) nearly satisfy the equations (within 1e-7 of the terms' size) but could be confirmed neither exactly nor at rounding level: they are not listed, so the list may be incomplete"
        ));
    }
    Ok(Some(SystemSolution {
        equations: shown.to_vec(),
        unknowns: unknowns.to_vec(),
        status: if unconfirmed > 0 {
            "partial".into()
        } else if listed.is_empty() {
            "none".into()
        } else {
            "finite".into()
        },
        solution: BTreeMap::new(),
        free: Vec::new(),
        evidence: None,
        solutions: listed,
        notes,
        check: if numeric_only {
            "each solution substituted back into every equation: exactly where its values are exact, else in floating point (each residual within 1e-10 of the size of the equation's terms)".into()
        } else {
            "each solution substituted back into every equation, exactly".into()
        },
    }))
}

/// Most branches (one irreducible factor chosen per equation) tried by [`curve`].
const MAX_BRANCHES: usize = 81;

/// One branch of a system after eliminating the unknowns that appear linearly with a
/// constant coefficient: those unknowns as expressions in the rest, and the
/// equations left over in the unknowns left.
struct Branch {
    assigned: Vec<(String, Nf)>,
    left: Vec<Nf>,
    free: Vec<String>,
}

/// A family of solutions: every unknown as an expression in the parameters.
struct Family {
    params: Vec<String>,
    values: BTreeMap<String, Expr>,
}

fn subst_nf(n: &Nf, u: &str, by: &Expr, limits: &Limits) -> Result<Nf> {
    normal_form(&n.to_expr().substitute(&|name| (name == u).then(|| by.clone())), &mut Cx::new(*limits))
}

/// Eliminate, one at a time, unknowns that some equation holds linearly with a
/// constant coefficient (`y = 0`, `x − z = 1`). `None` when the branch has no solution
/// (an equation became a non-zero constant).
fn reduce(eqs: &[Nf], unknowns: &[String], limits: &Limits) -> Result<Option<Branch>> {
    let mut eqs: Vec<Nf> = eqs.to_vec();
    let mut assigned: Vec<(String, Nf)> = Vec::new();
    loop {
        eqs.retain(|e| !e.is_zero());
        // The same equation twice (up to a constant factor) counts once.
        let mut seen: Vec<Nf> = Vec::new();
        eqs.retain(|e| {
            let lead = e.num.lead().map(|(_, c)| c.clone()).filter(|c| !c.is_zero());
            let m = lead.map_or(e.clone(), |c| e.scale(&c.recip()));
            let fresh = !seen.contains(&m);
            seen.push(m);
            fresh
        });
        if eqs.iter().any(|e| e.num.as_const().is_some()) {
            return Ok(None);
        }
        let mut pick = None;
        'find: for (i, e) in eqs.iter().enumerate() {
            if e.den.as_const().is_none() {
                continue;
            }
            for u in unknowns.iter().filter(|u| !assigned.iter().any(|(a, _)| a == *u)) {
                let ua = Atom::Sym(u.as_str().into());
                if e.num.degree_in(&ua) != 1 {
                    continue;
                }
                let cs = e.num.coeffs_in(&ua);
                if let Some(c) = cs.get(&1).and_then(|p| p.as_const()) {
                    let rest = Nf { num: cs.get(&0).cloned().unwrap_or_default(), den: Poly::one() };
                    pick = Some((i, u.clone(), rest.scale(&(-c.recip()))));
                    break 'find;
                }
            }
        }
        let Some((i, u, val)) = pick else { break };
        eqs.remove(i);
        let by = val.to_expr();
        for e in eqs.iter_mut() {
            *e = subst_nf(e, &u, &by, limits)?;
        }
        for (_, a) in assigned.iter_mut() {
            *a = subst_nf(a, &u, &by, limits)?;
        }
        assigned.push((u, val));
    }
    let free = unknowns.iter().filter(|u| !assigned.iter().any(|(a, _)| a == *u)).cloned().collect();
    Ok(Some(Branch { assigned, left: eqs, free }))
}

/// Parameter values tried when looking for real points of a family.
const SAMPLES: [(i64, i64); 9] = [(0, 1), (1, 2), (-1, 2), (1, 3), (-1, 3), (1, 1), (-1, 1), (2, 1), (-2, 1)];

/// The families of a branch with fewer equations left than unknowns: none left (the
/// free unknowns are the parameters), or one left of degree 2 with a constant leading
/// coefficient in some unknown (its two roots by the quadratic formula, the others
/// parameters). Empty when the branch is not of that shape.
fn families(b: &Branch, limits: &Limits) -> Result<Vec<Family>> {
    let mut cx = Cx::new(*limits);
    let with = |params: Vec<String>, extra: Option<(&String, &Nf)>| -> Result<Family> {
        let mut values = BTreeMap::new();
        for (u, v) in &b.assigned {
            let mut v = v.clone();
            if let Some((w, by)) = extra {
                v = subst_nf(&v, w, &by.to_expr(), limits)?;
            }
            values.insert(u.clone(), v.to_expr());
        }
        if let Some((w, by)) = extra {
            values.insert(w.clone(), by.to_expr());
        }
        for p in &params {
            values.insert(p.clone(), Expr::sym(p));
        }
        Ok(Family { params, values })
    };
    match b.left.as_slice() {
        [] if !b.free.is_empty() => Ok(vec![with(b.free.clone(), None)?]),
        [q] if b.free.len() >= 2 && q.den.as_const().is_some() => {
            for w in &b.free {
                let wa = Atom::Sym(w.as_str().into());
                if q.num.degree_in(&wa) != 2 {
                    continue;
                }
                let cs = q.num.coeffs_in(&wa);
                let Some(a) = cs.get(&2).and_then(|p| p.as_const()) else { continue };
                let get = |d: u32| Nf { num: cs.get(&d).cloned().unwrap_or_default(), den: Poly::one() };
                let (bb, c) = (get(1), get(0));
                let disc = bb.mul(&bb, &mut cx)?.sub(&c.scale(&(&a * &crate::expr::q(4))), &mut cx)?;
                let s = crate::nf::root(&disc, 2, &mut cx)?;
                let two_a = (&a * &crate::expr::q(2)).recip();
                let params: Vec<String> = b.free.iter().filter(|u| *u != w).cloned().collect();
                let mut out = Vec::new();
                let roots = if disc.is_zero() {
                    vec![bb.neg().scale(&two_a)]
                } else {
                    vec![bb.neg().sub(&s, &mut cx)?.scale(&two_a), bb.neg().add(&s, &mut cx)?.scale(&two_a)]
                };
                for r in roots {
                    out.push(with(params.clone(), Some((w, &r)))?);
                }
                return Ok(out);
            }
            Ok(Vec::new())
        }
        _ => Ok(Vec::new()),
    }
}

/// The unknowns' values of a family at parameter values, in floating point.
fn family_at(f: &Family, at: &[f64]) -> Option<BTreeMap<String, f64>> {
    let look = |n: &str| f.params.iter().position(|p| p == n).map(|i| at[i]);
    f.values.iter().map(|(u, e)| Some((u.clone(), crate::eval::eval_f64_with(e, &look)?))).collect()
}

/// A system with a curve (or surface) of solutions: each equation split into its
/// irreducible factors (an equation holds when one of its factors vanishes), and for
/// each choice of one factor per equation the unknowns that appear linearly are
/// eliminated. A branch that leaves fewer equations than unknowns gives a family
/// (every unknown in terms of parameters; a square root when one quadratic equation is
/// left), which is substituted into every original equation and must make each
/// vanish identically by the normal form, and must be real at some rational parameter
/// values and at six more beside them (so on an interval of them: infinitely many
/// real solutions). Branches left with as many equations as unknowns are solved as
/// systems; their solutions not on a family are listed. `None` when no family with
/// real points is found.
pub fn curve(diffs: &[Expr], shown: &[String], unknowns: &[String], limits: &Limits) -> Result<Option<SystemSolution>> {
    if unknowns.len() > 4 || diffs.len() > 4 {
        return Ok(None);
    }
    let mut cx = Cx::new(*limits);
    let mut choices: Vec<Vec<Nf>> = Vec::new();
    for d in diffs {
        let nf = normal_form(d, &mut cx)?;
        if !nf.den.as_const().is_some_and(|c| c.is_one())
            || nf.num.atoms().iter().any(|a| !matches!(a, Atom::Sym(s) if unknowns.iter().any(|u| **u == **s)))
        {
            return Ok(None);
        }
        let mut fs: Vec<Nf> = Vec::new();
        let parts = match crate::factor::factored(&nf, limits) {
            Some(Expr::Mul(v)) => v,
            Some(e) => vec![e],
            None => vec![nf.to_expr()],
        };
        for p in parts {
            let base = match p {
                Expr::Pow(b, _) => *b,
                Expr::Num(_) => continue,
                e => e,
            };
            let f = normal_form(&base, &mut cx)?;
            if f.num.as_const().is_none() && !fs.contains(&f) {
                fs.push(f);
            }
        }
        if fs.is_empty() {
            fs.push(nf);
        }
        choices.push(fs);
    }
    let count: usize = choices.iter().map(Vec::len).product();
    if count > MAX_BRANCHES {
        return Ok(None);
    }
    let mut found: Vec<(Family, Vec<f64>, BTreeMap<String, Expr>)> = Vec::new();
    let mut points: Vec<BTreeMap<String, Expr>> = Vec::new();
    let mut unresolved = 0;
    for k in 0..count {
        let mut r = k;
        let mut eqs = Vec::new();
        for c in &choices {
            eqs.push(c[r % c.len()].clone());
            r /= c.len();
        }
        let Some(b) = reduce(&eqs, unknowns, limits)? else { continue };
        let fams = families(&b, limits)?;
        if fams.is_empty() {
            if b.left.is_empty() {
                // Every unknown fixed: one point.
                let values: BTreeMap<String, Expr> = b.assigned.iter().map(|(u, v)| (u.clone(), v.to_expr())).collect();
                points.push(values);
                continue;
            }
            // As many equations left as unknowns: solve them as a system.
            let left: Vec<Expr> = b.left.iter().map(Nf::to_expr).collect();
            let texts: Vec<String> = left.iter().map(|e| format!("{e} = 0")).collect();
            let sol = if left.len() == b.free.len() && (2..=3).contains(&left.len()) {
                by_elimination(&left, &texts, &b.free, limits)?
            } else if b.free.len() == 1 && left.len() == 1 {
                let s = crate::solve(&format!("{} = 0", left[0]), Some(&b.free[0]), limits)?;
                let list = s
                    .roots
                    .iter()
                    .filter(|r| r.exact)
                    .map(|root| BTreeMap::from([(b.free[0].clone(), root.value.clone())]))
                    .collect();
                Some(SystemSolution {
                    equations: texts.clone(),
                    unknowns: b.free.clone(),
                    status: if s.roots.iter().all(|r| r.exact) { "finite".into() } else { "partial".into() },
                    solution: BTreeMap::new(),
                    free: Vec::new(),
                    evidence: None,
                    solutions: list,
                    notes: Vec::new(),
                    check: String::new(),
                })
            } else {
                None
            };
            match sol {
                Some(s) if s.status == "finite" || s.status == "none" => {
                    for p in &s.solutions {
                        if p.values().any(|v| v.starts_with('≈')) {
                            unresolved += 1;
                            continue;
                        }
                        let mut vals: BTreeMap<String, Expr> = BTreeMap::new();
                        for (u, v) in p {
                            vals.insert(u.clone(), crate::parse_expr(v, limits)?);
                        }
                        let at = |n: &str| vals.get(n).cloned();
                        let mut full = vals.clone();
                        for (u, v) in &b.assigned {
                            full.insert(u.clone(), normal_form(&v.to_expr().substitute(&at), &mut cx)?.to_expr());
                        }
                        points.push(full);
                    }
                }
                _ => unresolved += 1,
            }
            continue;
        }
        for fam in fams {
            // Identically a solution of every original equation.
            let at = |n: &str| fam.values.get(n).cloned();
            if !diffs.iter().all(|d| normal_form(&d.substitute(&at), &mut Cx::new(*limits)).is_ok_and(|z| z.is_zero()))
            {
                unresolved += 1;
                continue;
            }
            // Real at some rational parameter values and at six more beside them.
            let np = fam.params.len();
            let mut real_at = None;
            'sample: for i in 0..SAMPLES.len().pow(np as u32) {
                let mut idx = i;
                let mut t = Vec::new();
                for _ in 0..np {
                    let (p, q) = SAMPLES[idx % SAMPLES.len()];
                    idx /= SAMPLES.len();
                    t.push(Q::new(p.into(), q.into()));
                }
                let tf: Vec<f64> = t.iter().map(crate::eval::q_to_f64).collect();
                for j in 0..=6 {
                    let near: Vec<f64> = tf.iter().map(|v| v + j as f64 * 1e-3).collect();
                    if family_at(&fam, &near).is_none() {
                        continue 'sample;
                    }
                }
                real_at = Some(t);
                break;
            }
            let Some(t) = real_at else { continue };
            // The exact point at those parameter values, checked exactly.
            let look = |n: &str| fam.params.iter().position(|p| p == n).map(|i| Expr::Num(t[i].clone()));
            let mut point = BTreeMap::new();
            for (u, e) in &fam.values {
                point.insert(u.clone(), normal_form(&e.substitute(&look), &mut cx)?.to_expr());
            }
            let at_point = |n: &str| point.get(n).cloned();
            if !diffs
                .iter()
                .all(|d| normal_form(&d.substitute(&at_point), &mut Cx::new(*limits)).is_ok_and(|z| z.is_zero()))
            {
                unresolved += 1;
                continue;
            }
            let tf = t.iter().map(crate::eval::q_to_f64).collect();
            found.push((fam, tf, point));
        }
    }
    if found.is_empty() {
        return Ok(None);
    }
    // Points of zero-dimensional branches that lie on no family.
    let on_family = |p: &BTreeMap<String, Expr>| {
        let pf: Option<BTreeMap<String, f64>> =
            p.iter().map(|(u, e)| Some((u.clone(), eval_f64(e, &FloatEnv::new())?))).collect();
        let Some(pf) = pf else { return false };
        found.iter().any(|(f, _, _)| {
            let at: Vec<f64> = f.params.iter().map(|u| pf.get(u).copied().unwrap_or(f64::NAN)).collect();
            family_at(f, &at).is_some_and(|v| {
                v.iter().all(|(u, x)| pf.get(u).is_some_and(|y| (x - y).abs() <= 1e-9 * (1.0 + y.abs())))
            })
        })
    };
    let mut isolated: Vec<BTreeMap<String, String>> = Vec::new();
    for p in &points {
        if p.len() != unknowns.len() || on_family(p) {
            continue;
        }
        let at = |n: &str| p.get(n).cloned();
        if !diffs.iter().all(|d| normal_form(&d.substitute(&at), &mut Cx::new(*limits)).is_ok_and(|z| z.is_zero())) {
            unresolved += 1;
            continue;
        }
        let m: BTreeMap<String, String> = p.iter().map(|(u, e)| (u.clone(), e.to_string())).collect();
        if !isolated.contains(&m) {
            isolated.push(m);
        }
    }
    isolated.sort_by(|a, b| a.values().cmp(b.values()));
    let describe = |f: &Family| -> String {
        let vals: Vec<String> =
            f.values.iter().filter(|(u, _)| !f.params.contains(u)).map(|(u, e)| format!("{u} = {e}")).collect();
        let kind = match f.params.len() {
            1 => "a curve",
            2 => "a surface",
            _ => "a family",
        };
        let radical = vals.iter().any(|v| v.contains("sqrt(") || v.contains("root("));
        let range = if radical { "where real" } else { "any real value" };
        let params = f.params.join(", ");
        format!("{}, for {params} {range} ({kind})", vals.join(", "))
    };
    let mut notes = vec![format!(
        "infinitely many solutions: each equation split into its irreducible factors, and for each choice of one factor per equation the unknowns that appear linearly eliminated; {} famil{} of solutions found",
        found.len(),
        if found.len() == 1 { "y" } else { "ies" }
    )];
    for (f, _, _) in &found {
        notes.push(format!("family: {}", describe(f)));
    }
    if !isolated.is_empty() {
        notes.push("the solutions listed lie on none of the families".into());
    }
    if unresolved > 0 {
        notes.push(format!(
            "{unresolved} branch(es) or point(s) could not be settled exactly: other isolated solutions may exist and are not listed"
        ));
    }
    let evidence: Vec<String> = found
        .iter()
        .map(|(f, t, p)| {
            let at: Vec<String> =
                f.params.iter().zip(t).map(|(u, v)| format!("{u} = {}", attest_core::text::fmt_g(*v))).collect();
            let pt: Vec<String> = p.iter().map(|(u, e)| format!("{u} = {e}")).collect();
            format!("at {}: {} satisfies every equation exactly", at.join(", "), pt.join(", "))
        })
        .collect();
    let (first, _, _) = &found[0];
    Ok(Some(SystemSolution {
        equations: shown.to_vec(),
        unknowns: unknowns.to_vec(),
        status: "infinitely_many".into(),
        solution: first.values.iter().filter(|(u, _)| !first.params.contains(u)).map(|(u, e)| (u.clone(), e.to_string())).collect(),
        free: first.params.clone(),
        evidence: Some(evidence.join("; ")),
        solutions: isolated,
        notes,
        check: "each family substituted into every equation: each vanishes identically (normal form), and the family is real at the parameter values shown and at six more within 0.006 of them".into(),
    }))
}

fn poly_in(x: &Atom, coeffs: &[Q]) -> Poly {
    let mut p = Poly::zero();
    for (d, c) in coeffs.iter().enumerate() {
        let m = if d == 0 { Vec::new() } else { vec![(x.clone(), d as u32)] };
        p.add_term(m, c.clone());
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(t: &str) -> Poly {
        let l = Limits::default();
        normal_form(&crate::parse_expr(t, &l).unwrap(), &mut Cx::new(l)).unwrap().num
    }

    fn sols(text: &str) -> (String, Vec<BTreeMap<String, String>>) {
        let r = crate::solve_system(text, None, &Limits::default()).unwrap();
        (r.status, r.solutions)
    }

    #[test]
    fn irrational_solutions_are_listed_exactly() {
        let (status, s) = sols("x^2 + y^2 = 1; x^2 - y^2 = 0");
        assert_eq!(status, "finite");
        assert_eq!(s.len(), 4, "{s:?}");
        assert!(s.iter().all(|m| m.values().all(|v| v.contains("sqrt(2)"))), "{s:?}");
        let (status, s) = sols("x^2 + y^2 = 4; x y = 1");
        assert_eq!((status.as_str(), s.len()), ("finite", 4), "{s:?}");
        assert!(s.iter().all(|m| m.values().all(|v| v.starts_with('≈'))), "{s:?}");
        let (status, s) = sols("x^2 + y^2 = -1; x y = 2");
        assert_eq!((status.as_str(), s.len()), ("none", 0), "{s:?}");
    }

    #[test]
    fn curves_of_solutions() {
        let l = Limits::default();
        let r = crate::linalg::solve_system("x^2 + y^2 + z^2 = 1; xy = 0; yz = 0", None, &l).unwrap();
        assert_eq!(r.status, "infinitely_many", "{r:?}");
        assert_eq!(r.solutions.len(), 2, "{r:?}"); // (0, ±1, 0)
        let r = crate::linalg::solve_system("x - y = 0; x^2 - y^2 = 0", None, &l).unwrap();
        assert_eq!(r.status, "infinitely_many", "{r:?}");
        let r = crate::linalg::solve_system("(x - 1)(y - 2) = 0; (x - 1)(x + y) = 0", None, &l).unwrap();
        assert_eq!(r.status, "infinitely_many", "{r:?}");
        // No real points on the would-be curve: not claimed.
        let r = crate::linalg::solve_system("x^2 + y^2 + z^2 = -1; xy = 0; yz = 0", None, &l);
        assert!(r.as_ref().map_or(true, |s| s.status != "infinitely_many"), "{r:?}");
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
