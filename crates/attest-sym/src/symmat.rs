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
        _ => {
            return Err(SymError::unsupported(format!(
                "{op} needs numeric entries here; with symbolic entries, ask for the determinant, transpose, product or inverse"
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
