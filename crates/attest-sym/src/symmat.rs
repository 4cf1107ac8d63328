//! Matrices with symbolic entries (`[[a, b], [c, d]]`, `[[cos(t), -sin(t)], [sin(t),
//! cos(t)]]`): determinant (cofactor expansion), transpose, product and inverse
//! (adjugate over the determinant, where it is not 0), every entry in normal form.
//! Each result is checked at seeded points: the entries evaluated in floating point,
//! the operation redone on the numbers, and compared with the result evaluated there.

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::limits::Limits;
use crate::linalg::{MatrixResult, operation_name, product_shape};
use crate::nf::{Cx, Nf, normal_form};

/// The largest symbolic matrix side (cofactor expansion grows as n!).
pub const MAX_SYMBOLIC_DIM: usize = 5;

type SMat = Vec<Vec<Nf>>;

fn show(m: &SMat) -> String {
    let rows: Vec<String> = m
        .iter()
        .map(|r| format!("[{}]", r.iter().map(|e| e.to_expr().to_string()).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("[{}]", rows.join(", "))
}

fn det(a: &SMat, cx: &mut Cx) -> Result<Nf> {
    let n = a.len();
    if n == 1 {
        return Ok(a[0][0].clone());
    }
    let mut acc = Nf::zero();
    for j in 0..n {
        if a[0][j].is_zero() {
            continue;
        }
        let t = a[0][j].mul(&det(&minor(a, 0, j), cx)?, cx)?;
        acc = if j % 2 == 0 { acc.add(&t, cx)? } else { acc.sub(&t, cx)? };
    }
    Ok(acc)
}

fn minor<T: Clone>(a: &[Vec<T>], i: usize, j: usize) -> Vec<Vec<T>> {
    a.iter()
        .enumerate()
        .filter(|(r, _)| *r != i)
        .map(|(_, row)| row.iter().enumerate().filter(|(c, _)| *c != j).map(|(_, v)| v.clone()).collect())
        .collect()
}

fn det_f(a: &[Vec<f64>]) -> f64 {
    let n = a.len();
    if n == 1 {
        return a[0][0];
    }
    (0..n).map(|j| if j % 2 == 0 { 1.0 } else { -1.0 } * a[0][j] * det_f(&minor(a, 0, j))).sum()
}

fn mul_f(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    (0..a.len()).map(|i| (0..b[0].len()).map(|j| (0..b.len()).map(|t| a[i][t] * b[t][j]).sum()).collect()).collect()
}

fn transpose<T: Clone>(a: &[Vec<T>]) -> Vec<Vec<T>> {
    (0..a[0].len()).map(|j| a.iter().map(|r| r[j].clone()).collect()).collect()
}

/// A matrix operation on matrices some of whose entries are not rational numbers.
pub fn matrix(text: &str, raw: &[Vec<Vec<String>>], operation: Option<&str>, limits: &Limits) -> Result<MatrixResult> {
    let op = operation_name(operation, raw.len(), text)?;
    let mut cx = Cx::new(*limits);
    let mut ms: Vec<SMat> = Vec::new();
    for rows in raw {
        let mut m = Vec::new();
        for row in rows {
            let mut out = Vec::new();
            for t in row {
                out.push(normal_form(&crate::parse_expr(t.trim(), limits)?, &mut cx)?);
            }
            m.push(out);
        }
        ms.push(m);
    }
    let a = &ms[0];
    let (r, c) = (a.len(), a[0].len());
    if r.max(c) > MAX_SYMBOLIC_DIM {
        return Err(SymError::limit(format!(
            "a {r}×{c} matrix with symbolic entries is over the limit of {MAX_SYMBOLIC_DIM}×{MAX_SYMBOLIC_DIM} here; it was not attempted"
        )));
    }
    let mut out = MatrixResult::bare(ms.iter().map(show).collect::<Vec<_>>().join(" * "), op, [r, c]);
    let square = |what: &str| {
        if r == c { Ok(()) } else { Err(SymError::input(format!("a {r}×{c} matrix has no {what}: it is not square"))) }
    };
    // The numeric check: a function of the entries' values that the result must match.
    let result: SMat;
    match op {
        "determinant" => {
            square("determinant")?;
            let d = det(a, &mut cx)?;
            out.determinant = Some(d.to_expr().to_string());
            result = vec![vec![d]];
        }
        "transpose" => result = transpose(a),
        "product" => {
            let b = ms
                .get(1)
                .filter(|_| ms.len() == 2)
                .ok_or_else(|| SymError::input("a product needs two matrices, e.g. [[a, b], [c, d]] * [[x], [y]]"))?;
            product_shape([r, c], [b.len(), b[0].len()])?;
            let mut p = Vec::new();
            for ai in a {
                let mut row = Vec::new();
                for j in 0..b[0].len() {
                    let mut acc = Nf::zero();
                    for (at, bt) in ai.iter().zip(b) {
                        acc = acc.add(&at.mul(&bt[j], &mut cx)?, &mut cx)?;
                    }
                    row.push(acc);
                }
                p.push(row);
            }
            result = p;
        }
        "inverse" | "summary" => {
            square("inverse")?;
            let d = det(a, &mut cx)?;
            out.determinant = Some(d.to_expr().to_string());
            if d.is_zero() {
                out.singular = Some(true);
                out.check = "the determinant is 0 for every value of the entries, so there is no inverse".into();
                return Ok(out);
            }
            let mut inv = vec![vec![Nf::zero(); r]; r];
            for (i, row) in inv.iter_mut().enumerate() {
                for (j, v) in row.iter_mut().enumerate() {
                    // (A⁻¹)_ij = (−1)^(i+j) det(minor_ji) / det A
                    let m = if r == 1 { Nf::one() } else { det(&minor(a, j, i), &mut cx)? };
                    let m = if (i + j) % 2 == 1 { m.neg() } else { m };
                    *v = m.div(&d, &mut cx)?;
                }
            }
            out.singular = Some(false);
            result = inv;
        }
        "rank" => return rank(a, out, limits),
        "eigenvalues" => {
            square("eigenvalues")?;
            return eigenvalues(a, out, limits);
        }
        _ => {
            return Err(SymError::unsupported(format!(
                "{op} needs numeric entries here; with symbolic entries, ask for the determinant, transpose, product, inverse, rank or eigenvalues"
            )));
        }
    }
    // Check at seeded points.
    let mut vars: Vec<String> = ms.iter().flatten().flatten().flat_map(|e| e.free_symbols()).collect();
    vars.sort();
    vars.dedup();
    let seeds = [0.37, -1.21, 1.83, 0.59, -0.74, 2.27, -1.66, 0.91];
    let mut checked = 0;
    for k in 0..4 {
        let env: FloatEnv = vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.clone(), seeds[(i * 3 + k) % seeds.len()] + k as f64 * 0.13))
            .collect();
        let num = |m: &SMat| -> Option<Vec<Vec<f64>>> {
            m.iter()
                .map(|row| row.iter().map(|e| eval_f64(&e.to_expr(), &env).filter(|v| v.is_finite())).collect())
                .collect()
        };
        let (Some(fa), Some(got)) = (num(a), num(&result)) else { continue };
        let want: Vec<Vec<f64>> = match op {
            "determinant" => vec![vec![det_f(&fa)]],
            "transpose" => transpose(&fa),
            "product" => {
                let Some(fb) = num(&ms[1]) else { continue };
                mul_f(&fa, &fb)
            }
            _ => {
                // inverse: A·A⁻¹ must be I
                let d = det_f(&fa);
                if d.abs() < 1e-9 {
                    continue;
                }
                let p = mul_f(&fa, &got);
                let id: Vec<Vec<f64>> =
                    (0..r).map(|i| (0..r).map(|j| if i == j { 1.0 } else { 0.0 }).collect()).collect();
                if !close(&p, &id) {
                    return Err(mismatch(&env));
                }
                checked += 1;
                continue;
            }
        };
        if !close(&got, &want) {
            return Err(mismatch(&env));
        }
        checked += 1;
    }
    if checked == 0 {
        return Err(SymError::unsupported(
            "the result could not be checked at any point tried (the entries are undefined there); no answer is given",
        ));
    }
    let at = if vars.is_empty() {
        "numerically".to_string()
    } else {
        format!("at {checked} points for {}", vars.join(", "))
    };
    out.check = match op {
        "determinant" => format!("cofactor expansion; the determinant of the numeric matrix agrees {at}"),
        "transpose" => "rows become columns".into(),
        "product" => format!("the product of the numeric matrices agrees {at}"),
        _ => format!("adjugate over the determinant; A × A⁻¹ = I {at}"),
    };
    if op == "inverse" || op == "summary" {
        out.check
            .push_str(&format!(", valid where the determinant {} ≠ 0", out.determinant.clone().unwrap_or_default()));
    }
    out.result = Some(if op == "determinant" { result[0][0].to_expr().to_string() } else { show(&result) });
    if op == "product" {
        out.shape = [r, ms[1][0].len()];
    }
    Ok(out)
}

fn close(a: &[Vec<f64>], b: &[Vec<f64>]) -> bool {
    a.iter().zip(b).all(|(r, s)| r.iter().zip(s).all(|(x, y)| (x - y).abs() <= 1e-8 * x.abs().max(y.abs()).max(1.0)))
}

fn mismatch(env: &FloatEnv) -> SymError {
    let at: Vec<String> = env.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    SymError::unsupported(format!(
        "the symbolic result and the numeric one disagree at {}; no answer is given",
        at.join(", ")
    ))
}

/// Seeded values for the entries' variables, point `k` (the same as the checks above).
fn seeded_env(vars: &[String], k: usize) -> FloatEnv {
    let seeds = [0.37, -1.21, 1.83, 0.59, -0.74, 2.27, -1.66, 0.91];
    vars.iter().enumerate().map(|(i, v)| (v.clone(), seeds[(i * 3 + k) % seeds.len()] + k as f64 * 0.13)).collect()
}

fn entry_vars(a: &SMat) -> Vec<String> {
    let mut vars: Vec<String> = a.iter().flatten().flat_map(|e| e.free_symbols()).collect();
    vars.sort();
    vars.dedup();
    vars
}

fn numeric(a: &SMat, env: &FloatEnv) -> Option<Vec<Vec<f64>>> {
    a.iter().map(|row| row.iter().map(|e| eval_f64(&e.to_expr(), env).filter(|v| v.is_finite())).collect()).collect()
}

/// Rank by partial pivoting in floating point, a pivot counting when it is over
/// 1e-9 of the largest entry.
fn rank_f(mut m: Vec<Vec<f64>>) -> usize {
    let scale = m.iter().flatten().fold(0f64, |s, v| s.max(v.abs())).max(1e-300);
    let (r, c) = (m.len(), m[0].len());
    let mut rank = 0;
    for col in 0..c {
        let Some(p) = (rank..r).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs())) else { break };
        if m[p][col].abs() <= 1e-9 * scale {
            continue;
        }
        m.swap(rank, p);
        let prow = m[rank].clone();
        for row in m.iter_mut().skip(rank + 1) {
            let f = row[col] / prow[col];
            for (v, pv) in row.iter_mut().zip(&prow).skip(col) {
                *v -= f * pv;
            }
        }
        rank += 1;
    }
    rank
}

/// The rank for generic values of the entries: elimination over rational functions of
/// them, a pivot counting when its normal form is not 0. It can be lower where a pivot
/// vanishes, which the answer says; the numeric rank must agree at the seeded points
/// where no pivot is near 0.
fn rank(a: &SMat, mut out: MatrixResult, limits: &Limits) -> Result<MatrixResult> {
    let mut cx = Cx::new(*limits);
    let mut m = a.clone();
    let (r, c) = (m.len(), m[0].len());
    let mut rank = 0;
    let mut pivots: Vec<Nf> = Vec::new();
    for col in 0..c {
        let Some(p) = (rank..r).find(|&i| !m[i][col].is_zero()) else { continue };
        m.swap(rank, p);
        let prow = m[rank].clone();
        let pivot = prow[col].clone();
        for row in m.iter_mut().skip(rank + 1) {
            if row[col].is_zero() {
                continue;
            }
            let f = row[col].div(&pivot, &mut cx)?;
            for (v, pv) in row.iter_mut().zip(&prow).skip(col) {
                let t = f.mul(pv, &mut cx)?;
                *v = v.sub(&t, &mut cx)?;
            }
        }
        pivots.push(pivot);
        rank += 1;
        if rank == r {
            break;
        }
    }
    let vars = entry_vars(a);
    let mut checked = 0;
    for k in 0..4 {
        let env = seeded_env(&vars, k);
        let Some(fa) = numeric(a, &env) else { continue };
        let pv: Option<Vec<f64>> = pivots.iter().map(|p| eval_f64(&p.to_expr(), &env)).collect();
        if pv.is_none_or(|pv| pv.iter().any(|v| !v.is_finite() || v.abs() < 1e-6)) {
            continue; // a pivot (nearly) vanishes here: the rank may drop
        }
        if rank_f(fa) != rank {
            return Err(mismatch(&env));
        }
        checked += 1;
    }
    if checked == 0 {
        return Err(SymError::unsupported("the rank could not be checked at any point tried; no answer is given"));
    }
    let conds: Vec<String> = pivots
        .iter()
        .filter(|p| p.num.as_const().is_none())
        .map(|p| format!("{} ≠ 0", Nf::poly(p.num.clone()).to_expr()))
        .collect();
    out.rank = Some(rank);
    out.result = Some(rank.to_string());
    if r == c && rank < r {
        out.singular = Some(true); // for every value of the entries
    }
    out.check = format!(
        "elimination over rational functions of the entries; the numeric rank agrees at {checked} points for {}{}",
        vars.join(", "),
        if conds.is_empty() {
            String::new()
        } else {
            format!(
                "; this is the rank for generic values of the entries: it holds wherever {}, and may be lower where one of these vanishes",
                conds.join(" and ")
            )
        }
    );
    Ok(out)
}

/// Eigenvalues of a symbolic matrix: the characteristic polynomial `det(x·I − A)` by
/// cofactor expansion, split into factors (including several-variable ones), each
/// factor of degree 1 or 2 in `x` solved by formula. A factor of degree 3 or more is
/// out of reach (refused). Each eigenvalue is checked at seeded points:
/// `det(A − λI) ≈ 0` with the entries and `λ` evaluated there.
fn eigenvalues(a: &SMat, mut out: MatrixResult, limits: &Limits) -> Result<MatrixResult> {
    let mut cx = Cx::new(*limits);
    let vars = entry_vars(a);
    let x = ["x", "t", "s", "u", "w", "z"]
        .into_iter()
        .find(|v| !vars.iter().any(|u| u == v))
        .ok_or_else(|| SymError::unsupported("no free letter for the characteristic polynomial's variable"))?;
    let xn = normal_form(&crate::expr::Expr::sym(x), &mut cx)?;
    let n = a.len();
    let mut m = a.clone();
    for (i, row) in m.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            *e = if i == j { xn.sub(e, &mut cx)? } else { e.neg() };
        }
    }
    let chi = det(&m, &mut cx)?;
    if x == "x" {
        out.characteristic = Some(chi.to_expr().to_string());
    }
    let mut pieces: Vec<(crate::expr::Expr, u32)> = Vec::new();
    let whole = crate::factor::factored(&chi, limits).unwrap_or_else(|| chi.to_expr());
    let items = match whole {
        crate::expr::Expr::Mul(v) => v,
        e => vec![e],
    };
    for f in items {
        let (b, k) = match &f {
            crate::expr::Expr::Pow(b, e) => match e.as_num().and_then(|q| q.numer_i64().filter(|_| q.is_integer())) {
                Some(k) if k > 0 => ((**b).clone(), k as u32),
                _ => (f.clone(), 1),
            },
            _ => (f.clone(), 1),
        };
        if b.free_symbols().contains(x) {
            pieces.push((b, k));
        }
    }
    let mut values: Vec<String> = Vec::new();
    let mut exprs: Vec<crate::expr::Expr> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for (f, k) in &pieces {
        let deg = normal_form(f, &mut cx)?.num.degree_in(&crate::nf::Atom::Sym(x.into()));
        if deg > 2 {
            return Err(SymError::unsupported(format!(
                "the characteristic polynomial {} has the factor {f} of degree {deg} in {x}; eigenvalues of a symbolic matrix are found here only when it splits into factors of degree 1 or 2",
                chi.to_expr()
            )));
        }
        let sol = crate::solve(&format!("{f} = 0"), Some(x), limits)?;
        for r in &sol.roots {
            for _ in 0..*k {
                values.push(r.value.clone());
                exprs.push(crate::parse_expr(&r.value, limits)?);
            }
        }
        if deg == 2 {
            let fx = normal_form(f, &mut cx)?;
            let cs = fx.num.coeffs_in(&crate::nf::Atom::Sym(x.into()));
            let get = |d: u32| Nf::poly(cs.get(&d).cloned().unwrap_or_default());
            let disc =
                get(1).mul(&get(1), &mut cx)?.sub(&get(2).mul(&get(0), &mut cx)?.scale(&crate::expr::q(4)), &mut cx)?;
            if disc.as_const().is_none() {
                notes.push(format!("the two from {f} = 0 are real where {} ≥ 0", disc.to_expr()));
            }
        }
    }
    if exprs.len() != n {
        return Err(SymError::unsupported(format!(
            "{} eigenvalues were found for a {n}×{n} matrix; no answer is given",
            exprs.len()
        )));
    }
    let mut checked = 0;
    for k in 0..4 {
        let env = seeded_env(&vars, k);
        let Some(fa) = numeric(a, &env) else { continue };
        let scale: f64 = fa.iter().map(|r| r.iter().map(|v| v.abs()).sum::<f64>().max(1.0)).product();
        let mut all = true;
        for e in &exprs {
            let Some(l) = eval_f64(e, &env).filter(|v| v.is_finite()) else {
                all = false; // complex (or undefined) at this point
                continue;
            };
            let shifted: Vec<Vec<f64>> = fa
                .iter()
                .enumerate()
                .map(|(i, r)| r.iter().enumerate().map(|(j, v)| if i == j { v - l } else { *v }).collect())
                .collect();
            if det_f(&shifted).abs() > 1e-8 * scale * (1.0 + l.abs()).powi(n as i32) {
                return Err(mismatch(&env));
            }
        }
        if all {
            checked += 1;
        }
    }
    if checked == 0 {
        return Err(SymError::unsupported(
            "the eigenvalues are not real at any point tried, so they could not be checked; no answer is given",
        ));
    }
    out.result = Some(values.join(", "));
    out.eigenvalues = Some(values);
    out.check = format!(
        "characteristic polynomial det({x}·I − A){} by cofactor expansion, factored and solved by formula; det(A − λI) ≈ 0 for every eigenvalue at {checked} points for {}{}",
        if x == "x" { String::new() } else { format!(" = {}", chi.to_expr()) },
        vars.join(", "),
        if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) }
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    fn m(text: &str, op: &str) -> crate::linalg::MatrixResult {
        crate::matrix(text, Some(op), &crate::Limits::default()).unwrap()
    }

    #[test]
    fn symbolic_rank_is_generic_and_says_so() {
        let r = m("[[a, b], [c, d]]", "rank");
        assert_eq!(r.rank, Some(2));
        assert!(r.check.contains("generic"), "{}", r.check);
        assert_eq!(m("[[a, b], [2a, 2b]]", "rank").rank, Some(1));
        assert_eq!(m("[[1, t, t^2], [1, 2t, 4t^2]]", "rank").rank, Some(2));
    }

    #[test]
    fn symbolic_eigenvalues_split_or_use_the_formula() {
        let r = m("[[a, b], [b, a]]", "eigenvalues");
        assert_eq!(r.result.as_deref(), Some("a - b, a + b"), "{r:?}");
        let r = m("[[a, 1], [0, c]]", "eigenvalues");
        assert_eq!(r.eigenvalues.as_ref().map(Vec::len), Some(2), "{r:?}");
        let r = m("[[a, b], [b, d]]", "eigenvalues");
        assert_eq!(r.eigenvalues.as_ref().map(Vec::len), Some(2), "{r:?}");
        assert!(r.result.unwrap().contains("sqrt"));
    }
}
