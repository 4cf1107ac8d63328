//! Exact linear algebra over the rationals: small matrices (determinant, inverse,
//! rank, transpose, product) and linear systems (unique, none, or a parametric
//! family), each answer checked by substituting or multiplying back.
//!
//! Matrices are written `[[1, 2], [3, 4]]` or in LaTeX (`pmatrix`, `bmatrix`,
//! `vmatrix`, `matrix`, rows split by `\\`, entries by `&`); entries are constant
//! expressions with rational values (`1/2`, `-3`, `0.25`). Symbolic entries are out of
//! reach here. At most [`MAX_DIM`] rows and columns, and [`MAX_UNKNOWNS`] unknowns.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, normal_form};
use num_traits::{One, Zero};

/// The largest matrix side accepted.
pub const MAX_DIM: usize = 10;
/// The most unknowns (and equations) in a linear system.
pub const MAX_UNKNOWNS: usize = 10;

pub(crate) type Mat = Vec<Vec<Q>>;

/// The answer of [`matrix`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MatrixResult {
    /// The matrix (or matrices) as read.
    pub input: String,
    /// `determinant`, `inverse`, `rank`, `transpose`, `product`, `eigenvalues` or
    /// `summary`.
    pub operation: String,
    /// Rows and columns of the (first) matrix.
    pub shape: [usize; 2],
    /// The result: a number, or a matrix `[[…], […]]`; absent for the inverse of a
    /// singular matrix.
    pub result: Option<String>,
    /// The determinant, for a square matrix.
    pub determinant: Option<String>,
    /// The rank.
    pub rank: Option<usize>,
    /// Whether a square matrix is singular.
    pub singular: Option<bool>,
    /// The real eigenvalues (with multiplicity), for `eigenvalues`: exact where the
    /// characteristic polynomial's roots are, else decimals.
    pub eigenvalues: Option<Vec<String>>,
    /// For `eigenvalues`: a basis of the eigenvectors of each rational eigenvalue,
    /// `"λ: [v1, …]"` with integer entries, each checked by `A·v = λ·v` exactly.
    pub eigenvectors: Option<Vec<String>>,
    /// The characteristic polynomial `det(λI − A)` in `x`, for `eigenvalues`.
    pub characteristic: Option<String>,
    /// How the result was checked.
    pub check: String,
}

impl MatrixResult {
    /// The answer before anything is worked out: what was read, the operation and the
    /// first matrix's shape.
    pub(crate) fn bare(input: String, operation: &str, shape: [usize; 2]) -> MatrixResult {
        MatrixResult {
            input,
            operation: operation.into(),
            shape,
            result: None,
            determinant: None,
            rank: None,
            singular: None,
            eigenvalues: None,
            eigenvectors: None,
            characteristic: None,
            check: String::new(),
        }
    }
}

/// Refuses a product `a·b` whose inner dimensions differ.
pub(crate) fn product_shape([r, c]: [usize; 2], [br, bc]: [usize; 2]) -> Result<(), SymError> {
    if c != br {
        return Err(SymError::input(format!("cannot multiply a {r}×{c} matrix by a {br}×{bc} one: {c} ≠ {br}")));
    }
    Ok(())
}

/// The answer of [`solve_system`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SystemSolution {
    /// The equations as read.
    pub equations: Vec<String>,
    /// The unknowns.
    pub unknowns: Vec<String>,
    /// `unique`, `none`, `infinitely_many`, `finite` (a polynomial system: every
    /// real solution listed) or `partial` (the rational solutions of a polynomial
    /// system; others, with irrational values, may exist).
    pub status: String,
    /// Each unknown's value (in terms of the free unknowns for a family).
    pub solution: BTreeMap<String, String>,
    /// The unknowns left free (parameters of the family).
    pub free: Vec<String>,
    /// For `none`: the combination of the equations that gives `0 = c`.
    pub evidence: Option<String>,
    /// For a non-linear system of two equations (`finite`): every real solution found,
    /// each substituted back.
    pub solutions: Vec<BTreeMap<String, String>>,
    /// How a non-linear system was solved and what is not listed.
    pub notes: Vec<String>,
    /// How the answer was checked.
    pub check: String,
}

fn show_q(q: &Q) -> String {
    Expr::Num(q.clone()).to_string()
}

fn show_mat(m: &Mat) -> String {
    let rows: Vec<String> =
        m.iter().map(|r| format!("[{}]", r.iter().map(show_q).collect::<Vec<_>>().join(", "))).collect();
    format!("[{}]", rows.join(", "))
}

/// Every matrix literal in `text`, in order.
pub fn parse_matrices(text: &str, limits: &Limits) -> Result<Vec<Mat>> {
    parse_raw(text, limits)?.into_iter().map(|rows| entries(rows, limits)).collect()
}

/// Every matrix literal in `text`, in order, as rows of entry texts (shape checked).
pub(crate) fn parse_raw(text: &str, limits: &Limits) -> Result<Vec<Vec<Vec<String>>>> {
    if text.len() > limits.max_len {
        return Err(SymError::limit(format!(
            "the input is {} characters long, over the limit of {}",
            text.len(),
            limits.max_len
        )));
    }
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let b = rest.find("[[");
        let l = rest.find("\\begin{");
        match (b, l) {
            (Some(i), l) if l.is_none_or(|l| i < l) => {
                let tail = &rest[i..];
                let end = bracket_end(tail).ok_or_else(|| SymError::input("a matrix '[[' is not closed"))?;
                let inner = &tail[1..end];
                let mut rows = Vec::new();
                let mut r = inner.trim();
                while !r.is_empty() {
                    let r0 = r.strip_prefix('[').ok_or_else(|| SymError::input("each row of a matrix is [a, b, …]"))?;
                    let close = r0.find(']').ok_or_else(|| SymError::input("a matrix row is not closed"))?;
                    rows.push(r0[..close].split(',').map(str::to_string).collect::<Vec<_>>());
                    r = r0[close + 1..].trim_start().trim_start_matches(',').trim_start();
                }
                out.push(shape_checked(rows)?);
                rest = &tail[end + 1..];
            }
            (_, Some(i)) => {
                let tail = &rest[i + 7..];
                let close = tail.find('}').ok_or_else(|| SymError::input("\\begin{ is not closed"))?;
                let env = &tail[..close];
                if !matches!(env, "pmatrix" | "bmatrix" | "vmatrix" | "Bmatrix" | "matrix" | "Vmatrix") {
                    return Err(SymError::input(format!("\\begin{{{env}}} is not a matrix")));
                }
                let body_start = &tail[close + 1..];
                let endtag = format!("\\end{{{env}}}");
                let stop = body_start.find(&endtag).ok_or_else(|| SymError::input(format!("missing {endtag}")))?;
                let body = &body_start[..stop];
                let rows: Vec<Vec<String>> = body
                    .split("\\\\")
                    .map(str::trim)
                    .filter(|r| !r.is_empty())
                    .map(|r| r.split('&').map(str::to_string).collect())
                    .collect();
                out.push(shape_checked(rows)?);
                rest = &body_start[stop + endtag.len()..];
            }
            _ => break,
        }
    }
    Ok(out)
}

fn bracket_end(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn shape_checked(rows: Vec<Vec<String>>) -> Result<Vec<Vec<String>>> {
    if rows.is_empty() {
        return Err(SymError::input("an empty matrix"));
    }
    let (r, c) = (rows.len(), rows[0].len());
    if r > MAX_DIM || c > MAX_DIM {
        return Err(SymError::limit(format!(
            "a {r}×{c} matrix is over the limit of {MAX_DIM}×{MAX_DIM} for exact linear algebra here; it was not attempted"
        )));
    }
    if rows.iter().any(|row| row.len() != c) {
        return Err(SymError::input("the rows of the matrix have different lengths"));
    }
    Ok(rows)
}

fn entries(rows: Vec<Vec<String>>, limits: &Limits) -> Result<Mat> {
    let r = rows.len();
    let mut m = Vec::with_capacity(r);
    for row in rows {
        let mut out = Vec::with_capacity(row.len());
        for t in row {
            let e = crate::parse_expr(t.trim(), limits)?;
            let n = normal_form(&e, &mut Cx::new(*limits))?;
            let q = n.as_const().ok_or_else(|| {
                SymError::unsupported(format!(
                    "the entry {e} is not a rational number; only rational entries are handled here"
                ))
            })?;
            out.push(q);
        }
        m.push(out);
    }
    Ok(m)
}

/// Row reduction to reduced echelon form; returns the pivot columns and the
/// determinant factor (product of pivots, sign of swaps) of the first `n` columns.
pub(crate) fn rref(m: &mut Mat, ncols: usize, track: Option<&mut Mat>) -> (Vec<usize>, Q) {
    let rows = m.len();
    let mut det = Q::one();
    let mut pivots = Vec::new();
    let mut r = 0;
    let mut track = track;
    for c in 0..ncols {
        let Some(p) = (r..rows).find(|&i| !m[i][c].is_zero()) else {
            det = Q::zero();
            continue;
        };
        if p != r {
            m.swap(p, r);
            if let Some(t) = track.as_deref_mut() {
                t.swap(p, r);
            }
            det = -det;
        }
        let pv = m[r][c].clone();
        det = &det * &pv;
        let inv = pv.recip();
        for x in m[r].iter_mut() {
            *x = &*x * &inv;
        }
        if let Some(t) = track.as_deref_mut() {
            for x in t[r].iter_mut() {
                *x = &*x * &inv;
            }
        }
        for i in 0..rows {
            if i != r && !m[i][c].is_zero() {
                let f = m[i][c].clone();
                for j in 0..m[i].len() {
                    let d = &f * &m[r][j];
                    m[i][j] = &m[i][j] - &d;
                }
                if let Some(t) = track.as_deref_mut() {
                    for j in 0..t[i].len() {
                        let d = &f * &t[r][j];
                        t[i][j] = &t[i][j] - &d;
                    }
                }
            }
        }
        pivots.push(c);
        r += 1;
        if r == rows {
            break;
        }
    }
    (pivots, det)
}

fn identity(n: usize) -> Mat {
    (0..n).map(|i| (0..n).map(|j| if i == j { Q::one() } else { Q::zero() }).collect()).collect()
}

fn mul(a: &Mat, b: &Mat) -> Mat {
    let (n, k, m) = (a.len(), b.len(), b[0].len());
    (0..n).map(|i| (0..m).map(|j| (0..k).fold(Q::zero(), |acc, t| &acc + &(&a[i][t] * &b[t][j]))).collect()).collect()
}

fn transpose(a: &Mat) -> Mat {
    (0..a[0].len()).map(|j| a.iter().map(|r| r[j].clone()).collect()).collect()
}

/// Determinant by cofactor expansion (for the cross-check of small matrices).
fn det_cofactor(a: &Mat) -> Q {
    let n = a.len();
    if n == 1 {
        return a[0][0].clone();
    }
    let mut acc = Q::zero();
    for j in 0..n {
        if a[0][j].is_zero() {
            continue;
        }
        let minor: Mat = a[1..]
            .iter()
            .map(|r| r.iter().enumerate().filter(|(c, _)| *c != j).map(|(_, v)| v.clone()).collect())
            .collect();
        let t = &a[0][j] * &det_cofactor(&minor);
        acc = if j % 2 == 0 { &acc + &t } else { &acc - &t };
    }
    acc
}

/// The operation asked for, by its canonical name.
pub(crate) fn operation_name(operation: Option<&str>, count: usize, text: &str) -> Result<&'static str> {
    let op = operation.map(|o| o.trim().to_lowercase()).filter(|o| !o.is_empty());
    Ok(match op.as_deref() {
        None if count == 2 => "product",
        None if text.contains("vmatrix") => "determinant",
        None => "summary",
        Some("det" | "determinant") => "determinant",
        Some("inverse" | "inv" | "invert") => "inverse",
        Some("rank") => "rank",
        Some("transpose" | "t") => "transpose",
        Some("product" | "multiply" | "times" | "mul") => "product",
        Some("summary" | "all") => "summary",
        Some("eigenvalues" | "eigenvalue" | "eigen" | "eig" | "eigenvectors" | "eigenvector") => "eigenvalues",
        Some(o) => {
            return Err(SymError::input(format!(
                "operation '{o}': use determinant, inverse, rank, transpose, product, eigenvalues or summary"
            )));
        }
    })
}

/// A matrix operation on the matrix (or two matrices, for `product`) in `text`.
pub fn matrix(text: &str, operation: Option<&str>, limits: &Limits) -> Result<MatrixResult> {
    let raw = parse_raw(text, limits)?;
    let mut ms = Vec::with_capacity(raw.len());
    for rows in &raw {
        match entries(rows.clone(), limits) {
            Ok(m) => ms.push(m),
            Err(SymError::Unsupported { .. }) => return crate::symmat::matrix(text, &raw, operation, limits),
            Err(e) => return Err(e),
        }
    }
    if ms.is_empty() {
        return Err(SymError::input(
            "no matrix found: write it as [[1, 2], [3, 4]] or \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        ));
    }
    let op = operation_name(operation, ms.len(), text)?;
    let a = &ms[0];
    let (r, c) = (a.len(), a[0].len());
    let input = ms.iter().map(show_mat).collect::<Vec<_>>().join(" * ");
    let mut out = MatrixResult::bare(input, op, [r, c]);
    let mut red = a.clone();
    let (pivots, det) = rref(&mut red, c, None);
    let rank = pivots.len();
    if op != "product" && op != "transpose" {
        out.rank = Some(rank);
        if r == c {
            if r <= 6 && det_cofactor(a) != det {
                return Err(SymError::unsupported(
                    "the determinant by elimination and by cofactors disagree; no answer is given",
                ));
            }
            out.determinant = Some(show_q(&det));
            out.singular = Some(det.is_zero());
        }
    }
    match op {
        "determinant" => {
            if r != c {
                return Err(SymError::input(format!("a {r}×{c} matrix has no determinant: it is not square")));
            }
            out.result = out.determinant.clone();
            out.check =
                if r <= 6 { "elimination and cofactor expansion agree".into() } else { "exact elimination".into() };
        }
        "eigenvalues" => eigen(a, &mut out, limits)?,
        "rank" => {
            out.result = Some(rank.to_string());
            out.check = format!(
                "exact row reduction: {rank} pivot columns ({})",
                pivots.iter().map(|p| (p + 1).to_string()).collect::<Vec<_>>().join(", ")
            );
        }
        "transpose" => {
            out.result = Some(show_mat(&transpose(a)));
            out.check = "rows become columns".into();
        }
        "product" => {
            let b = ms
                .get(1)
                .ok_or_else(|| SymError::input("a product needs two matrices, e.g. [[1,2],[3,4]] * [[5],[6]]"))?;
            if ms.len() > 2 {
                return Err(SymError::input("give two matrices to multiply"));
            }
            product_shape([r, c], [b.len(), b[0].len()])?;
            let p = mul(a, b);
            // Cross-check in floating point.
            let ok = p.iter().enumerate().all(|(i, row)| {
                row.iter().enumerate().all(|(j, v)| {
                    let f: f64 =
                        (0..c).map(|t| crate::eval::q_to_f64(&a[i][t]) * crate::eval::q_to_f64(&b[t][j])).sum();
                    (f - crate::eval::q_to_f64(v)).abs() <= 1e-9 * f.abs().max(1.0)
                })
            });
            if !ok {
                return Err(SymError::unsupported(
                    "the exact product and its decimal check disagree; no answer is given",
                ));
            }
            out.shape = [r, c];
            out.result = Some(show_mat(&p));
            out.check = "recomputed in floating point".into();
        }
        "inverse" | "summary" => {
            if r != c {
                if op == "inverse" {
                    return Err(SymError::input(format!("a {r}×{c} matrix has no inverse: it is not square")));
                }
                out.result = Some(format!("rank {rank}"));
                out.check = "exact row reduction".into();
                return Ok(out);
            }
            if det.is_zero() {
                out.result = None;
                out.check = format!("the determinant is 0 (rank {rank} < {r}), so there is no inverse");
                return Ok(out);
            }
            let mut aug = a.clone();
            let mut inv = identity(r);
            rref(&mut aug, c, Some(&mut inv));
            if mul(a, &inv) != identity(r) {
                return Err(SymError::unsupported("the inverse found does not give the identity; no answer is given"));
            }
            out.result = Some(show_mat(&inv));
            out.check = "A × A⁻¹ = I, exactly".into();
        }
        _ => unreachable!("operations are normalised above"),
    }
    Ok(out)
}

/// The characteristic polynomial `det(x·I − A)` by Faddeev–LeVerrier, exactly: its
/// coefficients from `x^n` down to the constant.
fn characteristic(a: &Mat) -> Vec<Q> {
    let n = a.len();
    let mut coeffs = vec![Q::one()];
    let mut m = vec![vec![Q::zero(); n]; n]; // M_0 = 0
    for k in 1..=n {
        // M_k = A·M_{k−1} + c_{n−k+1}·I ; c_{n−k} = −tr(A·M_k)/k
        let mut am = mul(a, &m);
        let c_prev = coeffs[k - 1].clone();
        for (i, row) in am.iter_mut().enumerate() {
            row[i] = &row[i] + &c_prev;
        }
        m = am;
        let amk = mul(a, &m);
        let tr = (0..n).fold(Q::zero(), |acc, i| &acc + &amk[i][i]);
        coeffs.push(-(&tr / &Q::int(k as i64)));
    }
    coeffs
}

/// Real eigenvalues of a 2×2 to 4×4 matrix: the roots of the characteristic polynomial
/// (exact where `solve` finds them exactly), each checked by `det(A − λI) ≈ 0`
/// computed directly from `A`.
fn eigen(a: &Mat, out: &mut MatrixResult, limits: &Limits) -> Result<()> {
    let n = a.len();
    if n != a[0].len() {
        return Err(SymError::input(format!("a {n}×{} matrix has no eigenvalues: it is not square", a[0].len())));
    }
    if n > 4 {
        return Err(SymError::unsupported(format!(
            "eigenvalues are found here for matrices up to 4×4 (characteristic polynomials up to degree 4); this one is {n}×{n}"
        )));
    }
    let c = characteristic(a);
    let terms: Vec<Expr> = c
        .iter()
        .enumerate()
        .filter(|(_, q)| !q.is_zero())
        .map(|(i, q)| Expr::mul(Expr::Num(q.clone()), Expr::pow(Expr::sym("x"), Expr::int((n - i) as i64))))
        .collect();
    let poly = normal_form(&Expr::Add(terms), &mut Cx::new(*limits))?.to_expr().to_string();
    let sol = crate::solve(&poly, Some("x"), limits).map_err(|e| match e {
        SymError::Parse { .. } => SymError::limit(format!(
            "the characteristic polynomial has coefficients over the limit of {} digits; the eigenvalues were not attempted",
            limits.max_input_digits
        )),
        other => other,
    })?;
    let mut vals = Vec::new();
    let fa: Vec<Vec<f64>> = a.iter().map(|r| r.iter().map(crate::eval::q_to_f64).collect()).collect();
    let scale = fa.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
    for r in &sol.roots {
        // det(A − λI) in floating point, by elimination with pivoting.
        let mut m: Vec<Vec<f64>> = fa.clone();
        for (i, row) in m.iter_mut().enumerate() {
            row[i] -= r.numeric;
        }
        let d = det_f64(m);
        if !r.checked || d.abs() > 1e-7 * scale.powi(n as i32).max(1.0) {
            return Err(SymError::unsupported(format!(
                "the eigenvalue {} found does not make det(A − λI) vanish (it is {d:e}); no answer is given",
                r.value
            )));
        }
        for _ in 0..r.multiplicity.max(1) {
            vals.push(if r.exact { r.value.clone() } else { format!("≈ {}", r.value) });
        }
    }
    // Eigenvectors of the rational eigenvalues: the null space of A − λI, exactly.
    let mut vecs = Vec::new();
    let mut irrational = false;
    for r in &sol.roots {
        let lam = crate::parse_expr(&r.value, limits)
            .ok()
            .and_then(|e| normal_form(&e, &mut Cx::new(*limits)).ok())
            .and_then(|nf| nf.as_const());
        let Some(lam) = lam.filter(|_| r.exact) else {
            irrational = true;
            continue;
        };
        let mut m: Mat = a.clone();
        for (i, row) in m.iter_mut().enumerate() {
            row[i] = &row[i] - &lam;
        }
        let (pivots, _) = rref(&mut m, n, None);
        for free in (0..n).filter(|j| !pivots.contains(j)) {
            let mut v = vec![Q::zero(); n];
            v[free] = Q::one();
            for (row, &p) in pivots.iter().enumerate() {
                v[p] = -m[row][free].clone();
            }
            // Integer entries, the first non-zero one positive.
            let l = v.iter().fold(num_bigint::BigInt::one(), |l, q| num_integer::Integer::lcm(&l, &q.denom()));
            let mut v: Vec<Q> = v.iter().map(|q| q * &Q::from_integer(l.clone())).collect();
            if v.iter().find(|q| !q.is_zero()).is_some_and(|q| q < &Q::zero()) {
                v = v.iter().map(|q| -q.clone()).collect();
            }
            let av: Vec<Q> =
                a.iter().map(|row| row.iter().zip(&v).fold(Q::zero(), |s, (x, y)| &s + &(x * y))).collect();
            if av != v.iter().map(|q| q * &lam).collect::<Vec<_>>() {
                return Err(SymError::unsupported(
                    "an eigenvector found does not satisfy A·v = λ·v; no answer is given",
                ));
            }
            vecs.push(format!("{}: [{}]", show_q(&lam), v.iter().map(show_q).collect::<Vec<_>>().join(", ")));
        }
    }
    if !vecs.is_empty() {
        out.eigenvectors = Some(vecs);
    }
    out.result = Some(if vals.is_empty() { "no real eigenvalues".into() } else { vals.join(", ") });
    out.eigenvalues = Some(vals);
    out.characteristic = Some(poly);
    let complex = sol.notes.iter().any(|n| n.contains("complex"));
    out.check = format!(
        "the roots of det(x·I − A) (Faddeev–LeVerrier), each making det(A − λI) vanish when computed from A directly{}",
        if complex { "; complex eigenvalues are not listed" } else { "" }
    );
    if out.eigenvectors.is_some() {
        out.check.push_str("; each eigenvector satisfies A·v = λ·v exactly");
        if irrational {
            out.check.push_str(" (eigenvectors of irrational eigenvalues are not given)");
        }
    }
    Ok(())
}

fn det_f64(mut m: Vec<Vec<f64>>) -> f64 {
    let n = m.len();
    let mut det = 1.0;
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs())).unwrap_or(c);
        if m[p][c] == 0.0 {
            return 0.0;
        }
        if p != c {
            m.swap(p, c);
            det = -det;
        }
        det *= m[c][c];
        let (top, bottom) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for row in bottom.iter_mut() {
            let f = row[c] / pivot[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
        }
    }
    det
}

/// Split text into the equations of a system: by `;`, new lines, `\\` (LaTeX
/// `cases`), top-level commas, or " and ". `None` unless there are at least two, each
/// with `=`.
pub fn split_system(text: &str) -> Option<Vec<String>> {
    let t = text.replace("\\begin{cases}", "").replace("\\end{cases}", "").replace("\\\\", ";").replace('&', "");
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in t.chars() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && matches!(ch, ';' | '\n' | ',') {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    parts.push(cur);
    let parts: Vec<String> = parts
        .iter()
        .flat_map(|p| p.split(" and ").map(str::to_string).collect::<Vec<_>>())
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    (parts.len() >= 2 && parts.iter().all(|p| p.matches('=').count() == 1)).then_some(parts)
}

/// Solve a linear system exactly. `vars` are the unknowns (default: every variable, in
/// name order).
pub fn solve_system(text: &str, vars: Option<&[String]>, limits: &Limits) -> Result<SystemSolution> {
    let eqs = split_system(text).ok_or_else(|| {
        SymError::input("a system needs at least two equations, separated by ';', ',' or new lines, each with one '='")
    })?;
    if eqs.len() > MAX_UNKNOWNS {
        return Err(SymError::limit(format!(
            "{} equations is over the limit of {MAX_UNKNOWNS} for an exact system here; it was not attempted",
            eqs.len()
        )));
    }
    let mut cx = Cx::new(*limits);
    let mut diffs = Vec::new();
    let mut shown = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for e in &eqs {
        let st = crate::parse_statement(e, limits)?;
        let rhs = st.rhs.clone().unwrap_or(Expr::int(0));
        shown.push(format!("{} = {}", st.lhs, rhs));
        let d = crate::verify::lower(&Expr::sub(st.lhs, rhs), limits)?;
        names.extend(d.free_symbols());
        diffs.push(d);
    }
    let unknowns: Vec<String> = match vars {
        Some(v) if !v.is_empty() => v.to_vec(),
        _ => names.iter().cloned().collect(),
    };
    if unknowns.len() > MAX_UNKNOWNS {
        return Err(SymError::limit(format!(
            "{} unknowns is over the limit of {MAX_UNKNOWNS} for an exact system here; it was not attempted",
            unknowns.len()
        )));
    }
    if let Some(extra) = names.iter().find(|n| !unknowns.contains(n)) {
        return Err(SymError::unsupported(format!(
            "{extra} is not among the unknowns; systems with symbolic coefficients are not handled here"
        )));
    }
    let n = unknowns.len();
    let linear = |d: &Expr| -> bool {
        normal_form(d, &mut Cx::new(*limits)).is_ok_and(|nf| {
            nf.den.as_const().is_some_and(|c| c.is_one())
                && nf.num.0.iter().all(|(m, _)| matches!(m.as_slice(), [] | [(Atom::Sym(_), 1)]))
        })
    };
    if diffs.len() == 2
        && n == 2
        && !diffs.iter().all(linear)
        && let Some(r) = by_substitution(&diffs, &shown, &unknowns, limits)?
    {
        return Ok(r);
    }
    if !diffs.iter().all(linear)
        && let Some(r) = crate::elim::by_elimination(&diffs, &shown, &unknowns, limits)?
    {
        return Ok(r);
    }
    if !diffs.iter().all(linear)
        && let Some(r) = crate::elim::curve(&diffs, &shown, &unknowns, limits)?
    {
        return Ok(r);
    }
    let mut rows: Mat = Vec::new();
    for (d, text) in diffs.iter().zip(&shown) {
        let nf = normal_form(d, &mut cx)?;
        let not_linear = || {
            SymError::unsupported(format!(
                "{text} is not linear in {}; only linear systems are solved here",
                unknowns.join(", ")
            ))
        };
        if !nf.den.as_const().is_some_and(|c| c.is_one()) {
            return Err(not_linear());
        }
        let mut row = vec![Q::zero(); n + 1];
        for (m, c) in nf.num.0.iter() {
            let c = c.clone();
            match m.as_slice() {
                [] => row[n] = -c,
                [(Atom::Sym(s), 1)] => {
                    let i = unknowns.iter().position(|u| **u == **s).ok_or_else(not_linear)?;
                    row[i] = c;
                }
                _ => return Err(not_linear()),
            }
        }
        rows.push(row);
    }
    let m = rows.len();
    let original = rows.clone();
    let mut track = identity(m);
    let (pivots, _) = rref(&mut rows, n, Some(&mut track));
    let mut out = SystemSolution {
        equations: shown.clone(),
        unknowns: unknowns.clone(),
        status: String::new(),
        solution: BTreeMap::new(),
        free: Vec::new(),
        evidence: None,
        solutions: Vec::new(),
        notes: Vec::new(),
        check: String::new(),
    };
    // An inconsistent row: 0 = c.
    if let Some(i) = (0..m).find(|&i| rows[i][..n].iter().all(Q::is_zero) && !rows[i][n].is_zero()) {
        let mut combo = Vec::new();
        for (j, w) in track[i].iter().enumerate() {
            if !w.is_zero() {
                combo.push(format!("{}·({})", show_q(w), shown[j]));
            }
        }
        // Check the combination of the original rows really gives 0 = c.
        let mut sum = vec![Q::zero(); n + 1];
        for (j, w) in track[i].iter().enumerate() {
            for (s, v) in sum.iter_mut().zip(&original[j]) {
                *s = &*s + &(w * v);
            }
        }
        if !sum[..n].iter().all(Q::is_zero) || sum[n].is_zero() {
            return Err(SymError::unsupported("the inconsistency found does not check out; no answer is given"));
        }
        out.status = "none".into();
        out.evidence = Some(format!("{} gives 0 = {}", combo.join(" + "), show_q(&sum[n])));
        out.check = "the combination of the original equations was recomputed exactly".into();
        return Ok(out);
    }
    let free: Vec<usize> = (0..n).filter(|j| !pivots.contains(j)).collect();
    let mut values: BTreeMap<String, Expr> = BTreeMap::new();
    for (i, &p) in pivots.iter().enumerate() {
        let mut e = vec![Expr::Num(rows[i][n].clone())];
        for &f in &free {
            if !rows[i][f].is_zero() {
                e.push(Expr::mul(Expr::Num(-rows[i][f].clone()), Expr::sym(&unknowns[f])));
            }
        }
        let e = normal_form(&Expr::Add(e), &mut cx)?.to_expr();
        values.insert(unknowns[p].clone(), e);
    }
    for &f in &free {
        values.insert(unknowns[f].clone(), Expr::sym(&unknowns[f]));
    }
    // Substitute back into every original equation.
    for (d, text) in diffs.iter().zip(&shown) {
        let s = d.substitute(&|name| values.get(name).cloned());
        if !normal_form(&s, &mut cx)?.is_zero() {
            return Err(SymError::unsupported(format!("the solution does not satisfy {text}; no answer is given")));
        }
    }
    out.status = if free.is_empty() { "unique".into() } else { "infinitely_many".into() };
    out.free = free.iter().map(|&f| unknowns[f].clone()).collect();
    out.solution =
        values.iter().filter(|(k, _)| !out.free.contains(k)).map(|(k, v)| (k.clone(), v.to_string())).collect();
    out.check = format!("substituted back into all {m} equations: each holds exactly");
    Ok(out)
}

/// Two equations in two unknowns, one of them linear in an unknown with a constant
/// coefficient: that unknown is eliminated, the other equation solved by `solve`, and
/// every pair substituted back into both equations (exactly, or within 1e-9 for
/// numeric roots).
fn by_substitution(
    diffs: &[Expr],
    shown: &[String],
    unknowns: &[String],
    limits: &Limits,
) -> Result<Option<SystemSolution>> {
    for (i, j) in [(0, 1), (1, 0)] {
        for (ui, vi) in [(0, 1), (1, 0)] {
            let (u, v) = (&unknowns[ui], &unknowns[vi]);
            let mut cx = Cx::new(*limits);
            let nf = normal_form(&diffs[i], &mut cx)?;
            let ua = Atom::Sym(u.as_str().into());
            if !nf.den.as_const().is_some_and(|c| c.is_one()) || nf.num.degree_in(&ua) != 1 {
                continue;
            }
            let cs = nf.num.coeffs_in(&ua);
            let Some(c) = cs.get(&1).and_then(|p| p.as_const()) else { continue };
            let rest = crate::nf::Nf { num: cs.get(&0).cloned().unwrap_or_default(), den: crate::poly::Poly::one() };
            let u_of_v = rest.scale(&(-c.recip())).to_expr();
            let other = diffs[j].substitute(&|n| (n == u.as_str()).then(|| u_of_v.clone()));
            let other = normal_form(&other, &mut cx)?;
            if other.is_zero() {
                return Ok(None); // the second equation follows from the first: a curve
            }
            let other = other.to_expr();
            if other.free_symbols().iter().any(|s| s != v) {
                continue;
            }
            let sol = match crate::solve(&format!("{other} = 0"), Some(v), limits) {
                Ok(s) => s,
                Err(_) => continue,
            };
            let mut solutions = Vec::new();
            for r in &sol.roots {
                let vv = if r.exact { crate::parse_expr(&r.value, limits)? } else { Expr::Num(decimal(r.numeric)) };
                let uu =
                    normal_form(&u_of_v.substitute(&|n| (n == v.as_str()).then(|| vv.clone())), &mut cx)?.to_expr();
                let at = |n: &str| {
                    if n == u.as_str() {
                        Some(uu.clone())
                    } else if n == v.as_str() {
                        Some(vv.clone())
                    } else {
                        None
                    }
                };
                for (d, text) in diffs.iter().zip(shown) {
                    let s = d.substitute(&at);
                    let ok = if r.exact {
                        normal_form(&s, &mut cx).is_ok_and(|z| z.is_zero())
                    } else {
                        crate::eval::eval_f64(&s, &crate::eval::FloatEnv::new()).is_some_and(|z| z.abs() < 1e-7)
                    };
                    if !ok {
                        return Err(SymError::unsupported(format!(
                            "the solution {u} = {uu}, {v} = {vv} does not satisfy {text}; no answer is given"
                        )));
                    }
                }
                let mark = if r.exact { "" } else { "≈ " };
                let show = |e: &Expr| {
                    if r.exact {
                        e.to_string()
                    } else {
                        attest_core::text::fmt_sig(
                            crate::eval::eval_f64(e, &crate::eval::FloatEnv::new()).unwrap_or(f64::NAN),
                            12,
                        )
                    }
                };
                solutions.push(BTreeMap::from([
                    (u.clone(), format!("{mark}{}", show(&uu))),
                    (v.clone(), format!("{mark}{}", show(&vv))),
                ]));
            }
            let mut notes = vec![format!("{} solved for {u} and substituted into {}", shown[i], shown[j])];
            notes.extend(sol.notes.iter().cloned());
            return Ok(Some(SystemSolution {
                equations: shown.to_vec(),
                unknowns: unknowns.to_vec(),
                status: if solutions.is_empty() { "none".into() } else { "finite".into() },
                solution: BTreeMap::new(),
                free: Vec::new(),
                evidence: None,
                solutions,
                notes,
                check: "each solution substituted back into both equations (exactly, or within 1e-7 for decimals)"
                    .into(),
            }));
        }
    }
    Ok(None)
}

/// A decimal as an exact rational with 15 significant digits.
fn decimal(x: f64) -> Q {
    let s = format!("{x:.15e}");
    s.parse::<f64>()
        .ok()
        .and_then(|_| {
            let (m, e) = s.split_once('e')?;
            let e: i32 = e.parse().ok()?;
            let digits: String = m.chars().filter(|c| c.is_ascii_digit() || *c == '-').collect();
            let n: i64 = digits.parse().ok()?;
            let p = e - 15;
            let ten = Q::int(10);
            Some(if p >= 0 {
                &Q::int(n) * &num_traits::Pow::pow(&ten, p as u32)
            } else {
                &Q::int(n) / &num_traits::Pow::pow(&ten, (-p) as u32)
            })
        })
        .unwrap_or_else(|| Q::int(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l() -> Limits {
        Limits::default()
    }

    #[test]
    fn matrices() {
        let d = matrix("[[1,2],[3,4]]", Some("det"), &l()).unwrap();
        assert_eq!(d.result.as_deref(), Some("-2"));
        let i = matrix("[[1,2],[3,4]]", Some("inverse"), &l()).unwrap();
        assert_eq!(i.result.as_deref(), Some("[[-2, 1], [3/2, -1/2]]"));
        let s = matrix("[[1,2],[2,4]]", Some("inverse"), &l()).unwrap();
        assert_eq!((s.result, s.singular, s.determinant.as_deref()), (None, Some(true), Some("0")));
        let p = matrix("[[1,2],[3,4]] * [[5],[6]]", None, &l()).unwrap();
        assert_eq!(p.result.as_deref(), Some("[[17], [39]]"));
        let t = matrix("\\begin{pmatrix} 1 & 2 & 3 \\\\ 4 & 5 & 6 \\end{pmatrix}", Some("transpose"), &l()).unwrap();
        assert_eq!(t.result.as_deref(), Some("[[1, 4], [2, 5], [3, 6]]"));
        assert_eq!(matrix("[[1,2,3],[2,4,6],[1,0,1]]", Some("rank"), &l()).unwrap().result.as_deref(), Some("2"));
        let e = matrix("[[2,1],[1,2]]", Some("eigenvalues"), &l()).unwrap();
        assert_eq!((e.result.as_deref(), e.characteristic.as_deref()), (Some("1, 3"), Some("x^2 - 4*x + 3")));
        let r = matrix("[[0,-1],[1,0]]", Some("eigenvalues"), &l()).unwrap();
        assert_eq!(r.result.as_deref(), Some("no real eigenvalues"));
        let t = matrix("[[2,0,0],[0,3,4],[0,4,9]]", Some("eigenvalues"), &l()).unwrap();
        assert_eq!(t.result.as_deref(), Some("1, 2, 11"));
        let big = format!("[{}]", vec![format!("[{}]", vec!["1"; 50].join(",")); 50].join(","));
        assert!(matches!(matrix(&big, None, &l()), Err(SymError::Limit { .. })));
    }

    #[test]
    fn systems() {
        let u = solve_system("x + y = 3; x - y = 1", None, &l()).unwrap();
        assert_eq!(u.status, "unique");
        assert_eq!((u.solution["x"].as_str(), u.solution["y"].as_str()), ("2", "1"));
        let n = solve_system("x + y = 1, x + y = 2", None, &l()).unwrap();
        assert_eq!(n.status, "none");
        assert!(n.evidence.unwrap().ends_with("gives 0 = 1"));
        let f = solve_system("x + y + z = 1\nx - y = 0", None, &l()).unwrap();
        assert_eq!(f.status, "infinitely_many");
        assert_eq!(f.free, ["z"]);
        assert_eq!(f.solution["x"], "-z/2 + 1/2");
        let c = solve_system("x + y = 3; x^2 + y^2 = 5", None, &l()).unwrap();
        assert_eq!(c.status, "finite");
        assert_eq!(c.solutions.len(), 2, "{c:?}");
        let p = solve_system("y = x^2; y = 2 - x", None, &l()).unwrap();
        assert_eq!(p.solutions.len(), 2, "{p:?}");
        let irr = solve_system("x^2 + y^2 = 1; x^2 - y^2 = 0", None, &l()).unwrap();
        assert_eq!((irr.status.as_str(), irr.solutions.len()), ("finite", 4));
        let three = solve_system("x + y + z = 6; x y z = 6; x^2 + y^2 + z^2 = 14", None, &l()).unwrap();
        assert_eq!((three.status.as_str(), three.solutions.len()), ("finite", 6));
        assert_eq!(split_system("2x + 3y = 7 and x - y = 1").map(|v| v.len()), Some(2));
    }
}
