//! Limits of one-variable expressions: two-sided or one-sided, at a point or at ±∞.
//!
//! (Not to be confused with [`crate::limits`], the computation budgets.)
//!
//! Exact where a rule decides: a rational function is cancelled and read off (degrees at
//! ±∞, the order of a pole at a point); otherwise the expression is walked bottom-up,
//! each piece's limit combined (continuity of the elementary functions on their domain,
//! `exp(−∞) = 0`, `log(0⁺) = −∞`, `atan(±∞) = ±π/2`, …), and an indeterminate form
//! (`0/0`, `∞/∞`, `0·∞`, `∞ − ∞` over one denominator, `1^∞` through `exp(u·log b)`)
//! goes to L'Hôpital's rule, at most 8 times. Every exact answer is then confirmed by
//! evaluating the expression ever closer to the point (from each side asked); an answer
//! the numbers do not confirm is `unknown`, never returned. A two-sided limit whose
//! one-sided limits differ "does not exist", with both as evidence.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64, eval_f64_with};
use crate::expr::{Expr, Func, Q};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, derivative, normal_form};
use crate::poly::Poly;
use num_traits::{One, Signed, Zero};

/// What a limit came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitStatus {
    /// A finite value.
    Finite,
    /// `+∞` or `−∞` (the value says which).
    Infinite,
    /// The one-sided limits differ (both given).
    DoesNotExist,
    /// Not decided: no rule here settled it, or the numbers did not confirm it.
    Unknown,
}

/// The answer of [`limit`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LimitResult {
    /// The expression as read.
    pub input: String,
    /// The variable.
    pub variable: String,
    /// The point approached: a constant, `oo` or `-oo`.
    pub point: String,
    /// `both`, `right` (from above) or `left` (from below).
    pub direction: String,
    /// What the limit came to.
    pub status: LimitStatus,
    /// The limit (`oo`/`-oo` when infinite); absent when it does not exist or is unknown.
    pub value: Option<String>,
    /// Its decimal value, when finite.
    pub numeric: Option<f64>,
    /// The limit from the left (below), when computed.
    pub left: Option<String>,
    /// The limit from the right (above), when computed.
    pub right: Option<String>,
    /// How it was found (rules used).
    pub method: Vec<String>,
    /// The numeric cross-check: the points tried and what they showed.
    pub check: String,
    /// Why the status is what it is (for `unknown`: what is missing).
    pub reason: String,
}

/// Where the variable goes.
#[derive(Debug, Clone)]
enum Point {
    At(Expr, f64),
    PosInf,
    NegInf,
}

/// A limit of a piece.
#[derive(Debug, Clone)]
enum L {
    Fin(Expr),
    Pos,
    Neg,
    Unk(String),
}

/// The most L'Hôpital steps in one limit.
const HOPITAL_STEPS: u32 = 8;
/// The deepest recursion over the expression.
const MAX_DEPTH: u32 = 60;

/// Parse a point: a constant expression, or `oo`, `∞`, `inf`, `infinity`, `\infty`,
/// with a sign; a trailing `+`/`-` (`0+`, `0^-`) gives the side.
pub fn parse_point(text: &str, limits: &Limits) -> Result<(String, Option<i8>)> {
    let mut t = text.trim().replace(' ', "");
    let mut side = None;
    for (suffix, s) in [("^+", 1), ("^-", -1), ("^{+}", 1), ("^{-}", -1), ("+", 1), ("-", -1)] {
        if t.len() > suffix.len() && t.ends_with(suffix) {
            t.truncate(t.len() - suffix.len());
            side = Some(s);
            break;
        }
    }
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", t.strip_prefix('+').unwrap_or(&t)),
    };
    if matches!(body.to_lowercase().as_str(), "oo" | "∞" | "inf" | "infinity" | "\\infty" | "+∞") {
        return Ok((format!("{sign}oo"), None));
    }
    let e = crate::parse_expr(&t, limits)?;
    if !e.free_symbols().is_empty() {
        return Err(SymError::input(format!("the point {t} must be a number or ±oo, not an expression in variables")));
    }
    Ok((t, side))
}

/// The limit of `text` as `var` → `to` (a constant, `oo` or `-oo`), from `direction`
/// (`right`/`+`, `left`/`-`, or both when omitted).
pub fn limit(text: &str, var: Option<&str>, to: &str, direction: Option<&str>, limits: &Limits) -> Result<LimitResult> {
    let e = crate::parse_expr(text, limits)?;
    let e = crate::verify::lower(&e, limits)?;
    let v = crate::ops::resolve_var(&e, var)?;
    if e.free_symbols().len() > 1 {
        return Err(SymError::unsupported(format!(
            "limits are taken of expressions in one variable; {e} has {}",
            e.free_symbols().into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    let (pt_text, side_in_point) = parse_point(to, limits)?;
    let dir = match direction.map(|d| d.trim().to_lowercase()) {
        Some(d) if matches!(d.as_str(), "right" | "+" | "from above" | "above" | "plus") => Some(1),
        Some(d) if matches!(d.as_str(), "left" | "-" | "from below" | "below" | "minus") => Some(-1),
        Some(d) if matches!(d.as_str(), "" | "both" | "two-sided" | "+-") => None,
        Some(d) => return Err(SymError::input(format!("direction '{d}': use left, right or both"))),
        None => None,
    }
    .or(side_in_point);
    let point = match pt_text.as_str() {
        "oo" => Point::PosInf,
        "-oo" => Point::NegInf,
        t => {
            let a = crate::parse_expr(t, limits)?;
            let av =
                eval_f64(&a, &FloatEnv::new()).ok_or_else(|| SymError::input(format!("the point {t} is undefined")))?;
            let a = simp(&a, limits).unwrap_or(a);
            Point::At(a, av)
        }
    };
    let f = prep(&e);
    let direction = match (&point, dir) {
        (Point::PosInf, _) => "left",
        (Point::NegInf, _) => "right",
        (_, Some(1)) => "right",
        (_, Some(_)) => "left",
        (_, None) => "both",
    };
    let mut out = LimitResult {
        input: e.to_string(),
        variable: v.clone(),
        point: match &point {
            Point::At(a, _) => a.to_string(),
            Point::PosInf => "oo".into(),
            Point::NegInf => "-oo".into(),
        },
        direction: direction.into(),
        status: LimitStatus::Unknown,
        value: None,
        numeric: None,
        left: None,
        right: None,
        method: Vec::new(),
        check: String::new(),
        reason: String::new(),
    };
    let sides: Vec<i8> = match (&point, dir) {
        (Point::PosInf, _) => vec![-1],
        (Point::NegInf, _) => vec![1],
        (_, Some(s)) => vec![s],
        (_, None) => vec![-1, 1],
    };
    let mut found: Vec<(i8, Option<L>, String)> = Vec::new();
    let mut methods = std::collections::BTreeSet::new();
    for &s in &sides {
        let mut lx = Lx { var: &v, point: point.clone(), side: s, limits, steps: 0, depth: 0, methods: Vec::new() };
        // A side where the expression is undefined at every point tried is outside its domain.
        let ks = if matches!(point, Point::At(..)) { 3..=7 } else { 1..=3 };
        if ks.clone().all(|k| lx.probe(&f, k).is_none()) {
            found.push((s, None, format!("{} is undefined just {} the point", e, side_word(s))));
            continue;
        }
        let r = lx.top(&f)?;
        let mut confirmed = match r {
            L::Unk(why) => (L::Unk(why), String::new()),
            r => match lx.confirm(&f, &r) {
                Ok(note) => (r, note),
                Err(note) => (L::Unk(format!("the exact computation gave {} but {note}", show(&r))), note),
            },
        };
        if matches!(confirmed.0, L::Unk(_)) && matches!(point, Point::NegInf) {
            // At −∞ through x = −t: the rules that only work at +∞ (the dominant terms,
            // the conjugate of a square root, whose `sqrt(x²) = |x|` is `−x` here) see
            // `f(−t)` at +∞. The answer is confirmed on `f` itself at −∞.
            let g = prep(&f.substitute(&|n| (n == v).then(|| Expr::neg(Expr::sym(&v)))));
            let mut lt =
                Lx { var: &v, point: Point::PosInf, side: -1, limits, steps: 0, depth: 0, methods: Vec::new() };
            let rt = lt.top(&g)?;
            if !matches!(rt, L::Unk(_))
                && let Ok(note) = lx.confirm(&f, &rt)
            {
                lx.used("x = −t: the limit of f(−t) as t → +∞");
                lx.methods.extend(lt.methods.iter().copied());
                confirmed = (rt, note);
            }
        }
        methods.extend(lx.methods.iter().copied());
        let (r, note) = confirmed;
        found.push((s, Some(r), note));
    }
    out.method = methods.into_iter().map(str::to_string).collect();
    let shown = |r: &Option<L>| match r {
        Some(L::Unk(_)) | None => None,
        Some(r) => Some(show(r)),
    };
    if sides.len() == 2 {
        out.left = shown(&found[0].1);
        out.right = shown(&found[1].1);
    }
    let checks: Vec<String> = found.iter().filter(|f| !f.2.is_empty()).map(|f| f.2.clone()).collect();
    out.check = checks.join("; ");
    let defined: Vec<&(i8, Option<L>, String)> = found.iter().filter(|f| f.1.is_some()).collect();
    if defined.is_empty() {
        out.reason = format!("{e} is undefined near the point on every side tried");
        return Ok(out);
    }
    if let Some(u) = defined.iter().find_map(|f| match &f.1 {
        Some(L::Unk(why)) => Some(why.clone()),
        _ => None,
    }) {
        out.reason = u;
        return Ok(out);
    }
    let vals: Vec<&L> = defined.iter().filter_map(|f| f.1.as_ref()).collect();
    let agree = vals.windows(2).all(|w| same(w[0], w[1], limits));
    if !agree {
        out.status = LimitStatus::DoesNotExist;
        out.reason = format!(
            "the one-sided limits differ: from the left {}, from the right {}",
            out.left.clone().unwrap_or_default(),
            out.right.clone().unwrap_or_default()
        );
        return Ok(out);
    }
    let r = vals[0];
    out.value = Some(show(r));
    match r {
        L::Fin(c) => {
            out.status = LimitStatus::Finite;
            out.numeric = eval_f64(c, &FloatEnv::new());
        }
        _ => out.status = LimitStatus::Infinite,
    }
    out.reason = if defined.len() < found.len() {
        format!(
            "{}; the limit is taken over the points where it is defined",
            found.iter().find(|f| f.1.is_none()).map(|f| f.2.clone()).unwrap_or_default()
        )
    } else {
        String::new()
    };
    Ok(out)
}

fn side_word(s: i8) -> &'static str {
    if s > 0 { "above" } else { "below" }
}

fn show(r: &L) -> String {
    match r {
        L::Fin(c) => c.to_string(),
        L::Pos => "oo".into(),
        L::Neg => "-oo".into(),
        L::Unk(_) => "unknown".into(),
    }
}

fn same(a: &L, b: &L, limits: &Limits) -> bool {
    match (a, b) {
        (L::Pos, L::Pos) | (L::Neg, L::Neg) => true,
        (L::Fin(x), L::Fin(y)) => {
            let d = Expr::sub(x.clone(), y.clone());
            normal_form(&d, &mut Cx::new(*limits)).is_ok_and(|n| n.is_zero())
        }
        _ => false,
    }
}

/// The dominant term `c·x^p` of `e` as `x → +∞` (`c` a non-zero constant, `p`
/// rational), for sums, products and rational powers of polynomials in `x`
/// (`sqrt(x^2 + x) + x` ~ `2·x`). `None` for anything else, or when the leading terms of
/// a sum cancel (then the next order would decide, which this does not compute).
fn dominant(e: &Expr, var: &str, limits: &Limits) -> Option<(Expr, Q)> {
    let nonzero = |c: &Expr| eval_f64(c, &FloatEnv::new()).is_some_and(|v| v.is_finite() && v.abs() > 1e-300);
    if !e.free_symbols().contains(var) {
        let c = simp(e, limits)?;
        return nonzero(&c).then(|| (c, Q::zero()));
    }
    match e {
        Expr::Sym(_) => Some((Expr::int(1), Q::one())),
        Expr::Add(v) => {
            let parts: Vec<(Expr, Q)> = v.iter().map(|t| dominant(t, var, limits)).collect::<Option<_>>()?;
            let top = parts.iter().map(|(_, p)| p.clone()).max()?;
            let c =
                simp(&Expr::Add(parts.iter().filter(|(_, p)| *p == top).map(|(c, _)| c.clone()).collect()), limits)?;
            nonzero(&c).then_some((c, top))
        }
        Expr::Mul(v) => {
            let mut c = Expr::int(1);
            let mut p = Q::zero();
            for t in v {
                let (ct, pt) = dominant(t, var, limits)?;
                c = Expr::mul(c, ct);
                p += pt;
            }
            Some((simp(&c, limits)?, p))
        }
        Expr::Pow(b, x) => {
            let n = x.as_num()?.clone();
            let (cb, pb) = dominant(b, var, limits)?;
            if !n.is_integer() && eval_f64(&cb, &FloatEnv::new()).is_none_or(|v| v <= 0.0) {
                return None;
            }
            Some((simp(&Expr::pow(cb, Expr::Num(n.clone())), limits)?, pb * n))
        }
        _ => None,
    }
}

/// Normal form of a constant, back as an expression.
fn simp(e: &Expr, limits: &Limits) -> Option<Expr> {
    normal_form(e, &mut Cx::new(*limits)).ok().map(|n| n.to_expr())
}

/// tan, sec, csc, cot, sinh, cosh, tanh in terms of sin, cos and exp, so that only
/// functions continuous on their domain (and `log`) remain.
fn prep(e: &Expr) -> Expr {
    let recip = |x: Expr| Expr::pow(x, Expr::int(-1));
    match e {
        Expr::Add(v) => Expr::Add(v.iter().map(prep).collect()),
        Expr::Mul(v) => Expr::Mul(v.iter().map(prep).collect()),
        Expr::Pow(a, b) => Expr::pow(prep(a), prep(b)),
        Expr::Func(f, a) => {
            let a = prep(a);
            let s = || Expr::func(Func::Sin, a.clone());
            let c = || Expr::func(Func::Cos, a.clone());
            let ep = || Expr::func(Func::Exp, a.clone());
            let em = || Expr::func(Func::Exp, Expr::neg(a.clone()));
            let half = || Expr::Num(crate::expr::qf(1, 2));
            match f {
                Func::Tan => Expr::mul(s(), recip(c())),
                Func::Sec => recip(c()),
                Func::Csc => recip(s()),
                Func::Cot => Expr::mul(c(), recip(s())),
                Func::Sinh => Expr::mul(half(), Expr::sub(ep(), em())),
                Func::Cosh => Expr::mul(half(), Expr::add(ep(), em())),
                Func::Tanh => Expr::mul(Expr::sub(ep(), em()), recip(Expr::add(ep(), em()))),
                f => Expr::func(*f, a),
            }
        }
        e => e.clone(),
    }
}

struct Lx<'a> {
    var: &'a str,
    point: Point,
    side: i8,
    limits: &'a Limits,
    steps: u32,
    depth: u32,
    methods: Vec<&'static str>,
}

impl Lx<'_> {
    fn used(&mut self, m: &'static str) {
        if !self.methods.contains(&m) {
            self.methods.push(m);
        }
    }

    /// The variable's value `k` steps in: `a ± 10^-k`, or `±10^k` at infinity.
    fn x_at(&self, k: i32) -> f64 {
        match &self.point {
            Point::At(_, a) => a + f64::from(self.side) * 10f64.powi(-k).max(a.abs() * 10f64.powi(-k)),
            Point::PosInf => 10f64.powi(k),
            Point::NegInf => -(10f64.powi(k)),
        }
    }

    fn probe(&self, e: &Expr, k: i32) -> Option<f64> {
        let x = self.x_at(k);
        eval_f64_with(e, &|s: &str| (s == self.var).then_some(x))
    }

    /// The sign `e` keeps near the point on this side, when it keeps one.
    fn sign_near(&self, e: &Expr) -> Option<i8> {
        let ks: &[i32] = if matches!(self.point, Point::At(..)) { &[4, 5, 6, 7] } else { &[2, 3, 4, 5] };
        let signs: Vec<i8> = ks
            .iter()
            .filter_map(|&k| self.probe(e, k))
            .map(|v| {
                if v > 0.0 {
                    1
                } else if v < 0.0 {
                    -1
                } else {
                    0
                }
            })
            .collect();
        (signs.len() >= 2 && signs.iter().all(|s| *s == signs[0]) && signs[0] != 0).then(|| signs[0])
    }

    fn nf(&self, e: &Expr) -> Result<Nf> {
        normal_form(e, &mut Cx::new(*self.limits))
    }

    fn is_zero(&self, c: &Expr) -> bool {
        self.nf(c).is_ok_and(|n| n.is_zero())
    }

    fn sign_of(&self, c: &Expr) -> Option<i8> {
        let v = eval_f64(c, &FloatEnv::new())?;
        if self.is_zero(c) {
            return Some(0);
        }
        Some(if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            return None;
        })
    }

    fn fin(&self, e: Expr) -> L {
        match simp(&e, self.limits) {
            Some(s) if eval_f64(&s, &FloatEnv::new()).is_some() => L::Fin(s),
            _ => L::Unk(format!("{e} has no value")),
        }
    }

    fn inf(sign: i8) -> L {
        if sign > 0 { L::Pos } else { L::Neg }
    }

    /// The whole expression: a rational function first, then the general walk.
    fn top(&mut self, f: &Expr) -> Result<L> {
        let f = &self.deabs(f);
        if let Some(r) = self.rational(f)? {
            self.used("rational function, cancelled");
            return Ok(r);
        }
        if matches!(self.point, Point::PosInf)
            && let Some((c, p)) = dominant(f, self.var, self.limits)
        {
            // Sums, products and rational powers of polynomials: c·x^p dominates.
            let r = self.dominant_limit(&c, &p).unwrap_or_else(|| L::Unk(format!("the sign of {c} is not known")));
            if !matches!(r, L::Unk(_)) {
                self.used("the dominant term c·x^p at +∞");
                return Ok(r);
            }
        }
        let r = self.lim(f)?;
        if let L::Unk(_) = r {
            // One denominator for the whole, then L'Hôpital.
            if let Ok(n) = self.nf(f)
                && !n.den.is_one()
            {
                let (num, den) = split(&n);
                let q = self.hopital(num, den)?;
                if !matches!(q, L::Unk(_)) {
                    return Ok(q);
                }
            }
            if let Some(g) = self.by_groups(f)? {
                return Ok(g);
            }
        }
        Ok(r)
    }

    /// `Σ Tᵢ·(pᵢ/q)` over one denominator `q` (a polynomial in the variable), where each
    /// `Tᵢ` is a product of atoms other than the variable (`atan x`, `log x`) and `pᵢ` a
    /// polynomial in the variable: each group's limit is `lim Tᵢ · lim pᵢ/q`, the
    /// rational factor read off exactly; the sum of the groups when every one is
    /// finite (or all infinite of one sign). `None` when the form does not fit.
    fn by_groups(&mut self, f: &Expr) -> Result<Option<L>> {
        let Ok(n) = self.nf(f) else { return Ok(None) };
        let x = Atom::Sym(self.var.into());
        if n.den.is_one() || n.den.atoms().iter().any(|a| *a != x) {
            return Ok(None);
        }
        let mut groups: Vec<(crate::poly::Mono, Poly)> = Vec::new();
        for (m, c) in n.num.0.iter() {
            let (xs, rest): (crate::poly::Mono, crate::poly::Mono) = m.iter().cloned().partition(|(a, _)| *a == x);
            let t = Poly::term(xs, c.clone());
            match groups.iter_mut().find(|(r, _)| *r == rest) {
                Some((_, p)) => *p = p.add(&t),
                None => groups.push((rest, t)),
            }
        }
        if groups.len() < 2 || groups.iter().all(|(r, _)| r.is_empty()) {
            return Ok(None);
        }
        let mut acc = Expr::int(0);
        let (mut pos, mut neg) = (false, false);
        for (rest, p) in groups {
            let q = Nf::make(p, n.den.clone(), &mut Cx::new(*self.limits))?.to_expr();
            let Some(lq) = self.rational(&q)? else { return Ok(None) };
            let t = Nf { num: Poly::term(rest, Q::one()), den: Poly::one() }.to_expr();
            let lt = self.lim(&t)?;
            let piece = match (lt, lq) {
                (L::Fin(a), L::Fin(b)) => L::Fin(Expr::mul(a, b)),
                (L::Fin(a), inf @ (L::Pos | L::Neg)) | (inf @ (L::Pos | L::Neg), L::Fin(a)) => match self.sign_of(&a) {
                    Some(sg) if sg != 0 => Self::inf(sg * if matches!(inf, L::Pos) { 1 } else { -1 }),
                    _ => return Ok(None),
                },
                (L::Pos, L::Pos) | (L::Neg, L::Neg) => L::Pos,
                (L::Pos, L::Neg) | (L::Neg, L::Pos) => L::Neg,
                _ => return Ok(None),
            };
            match piece {
                L::Fin(c) => acc = Expr::add(acc, c),
                L::Pos => pos = true,
                L::Neg => neg = true,
                L::Unk(_) => return Ok(None),
            }
        }
        self.used("the numerator grouped by its non-polynomial factors, each group's limit taken apart");
        Ok(Some(match (pos, neg) {
            (true, true) => return Ok(None),
            (true, false) => L::Pos,
            (false, true) => L::Neg,
            (false, false) => self.fin(acc),
        }))
    }

    /// `|u|` is `u` or `−u` near the point when `u` keeps its sign there (on this side).
    fn deabs(&self, e: &Expr) -> Expr {
        match e {
            Expr::Add(v) => Expr::Add(v.iter().map(|t| self.deabs(t)).collect()),
            Expr::Mul(v) => Expr::Mul(v.iter().map(|t| self.deabs(t)).collect()),
            Expr::Pow(a, b) => Expr::pow(self.deabs(a), self.deabs(b)),
            Expr::Func(Func::Abs, u) => {
                let u = self.deabs(u);
                match self.sign_near(&u) {
                    Some(1) => u,
                    Some(_) => Expr::neg(u),
                    None => Expr::func(Func::Abs, u),
                }
            }
            Expr::Func(f, u) => Expr::func(*f, self.deabs(u)),
            e => e.clone(),
        }
    }

    /// A quotient of polynomials in the variable with rational coefficients, at a
    /// rational point or at ±∞.
    fn rational(&mut self, f: &Expr) -> Result<Option<L>> {
        let Ok(n) = self.nf(f) else { return Ok(None) };
        let x = Atom::Sym(self.var.into());
        let only_x = |p: &Poly| p.atoms().iter().all(|a| *a == x);
        if !only_x(&n.num) || !only_x(&n.den) {
            return Ok(None);
        }
        let coeffs = |p: &Poly| -> Option<Vec<Q>> {
            let m = p.coeffs_in(&x);
            let deg = m.keys().max().copied().unwrap_or(0) as usize;
            let mut v = vec![Q::zero(); deg + 1];
            for (k, c) in m {
                v[k as usize] = c.as_const()?;
            }
            Some(v)
        };
        let (Some(p), Some(q)) = (coeffs(&n.num), coeffs(&n.den)) else { return Ok(None) };
        if p.iter().all(Q::is_zero) {
            return Ok(Some(L::Fin(Expr::int(0))));
        }
        match &self.point {
            Point::PosInf | Point::NegInf => {
                let (dp, dq) = (p.len() - 1, q.len() - 1);
                let lead = &p[dp] / &q[dq];
                Ok(Some(if dp < dq {
                    L::Fin(Expr::int(0))
                } else if dp == dq {
                    L::Fin(Expr::Num(lead))
                } else {
                    let odd = (dp - dq) % 2 == 1;
                    let neg_inf = matches!(self.point, Point::NegInf);
                    let s = if lead.is_positive() { 1 } else { -1 } * if odd && neg_inf { -1 } else { 1 };
                    Self::inf(s)
                }))
            }
            Point::At(a, _) => {
                let Expr::Num(a) = a else { return Ok(None) };
                // Taylor coefficients at a: shift the polynomials to t = x − a.
                let shift = |c: &[Q]| -> Vec<Q> {
                    let mut out = c.to_vec();
                    let n = out.len();
                    for i in 0..n {
                        for j in (i..n - 1).rev() {
                            let t = &out[j + 1] * a;
                            out[j] = &out[j] + &t;
                        }
                    }
                    out
                };
                let (ps, qs) = (shift(&p), shift(&q));
                let ord = |c: &[Q]| c.iter().position(|v| !v.is_zero()).unwrap_or(0);
                let (op, oq) = (ord(&ps), ord(&qs));
                let ratio = &ps[op] / &qs[oq];
                Ok(Some(match op.cmp(&oq) {
                    std::cmp::Ordering::Greater => L::Fin(Expr::int(0)),
                    std::cmp::Ordering::Equal => L::Fin(Expr::Num(ratio)),
                    std::cmp::Ordering::Less => {
                        let odd = (oq - op) % 2 == 1;
                        let s = if ratio.is_positive() { 1 } else { -1 } * if odd && self.side < 0 { -1 } else { 1 };
                        Self::inf(s)
                    }
                }))
            }
        }
    }

    fn lim(&mut self, e: &Expr) -> Result<L> {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            Ok(L::Unk("the expression is nested too deeply for the limit rules".into()))
        } else {
            self.lim_inner(e)
        };
        self.depth -= 1;
        r
    }

    fn lim_inner(&mut self, e: &Expr) -> Result<L> {
        if !e.free_symbols().contains(self.var) {
            return Ok(self.fin(e.clone()));
        }
        match e {
            Expr::Sym(_) => Ok(match &self.point {
                Point::At(a, _) => L::Fin(a.clone()),
                Point::PosInf => L::Pos,
                Point::NegInf => L::Neg,
            }),
            Expr::Add(v) => {
                let mut acc = Expr::int(0);
                let (mut pos, mut neg, mut bounded) = (false, false, false);
                for t in v {
                    match self.lim(t)? {
                        L::Unk(_) if is_bounded_term(t) => bounded = true,
                        L::Fin(c) => acc = Expr::add(acc, c),
                        L::Pos => pos = true,
                        L::Neg => neg = true,
                        L::Unk(w) => return Ok(L::Unk(w)),
                    }
                }
                if bounded && pos != neg {
                    // A bounded term does not stop a sum that grows without bound.
                    self.used("a bounded term added to one that grows without bound");
                    return Ok(Self::inf(if pos { 1 } else { -1 }));
                }
                if bounded {
                    return Ok(L::Unk(format!("{e} has an oscillating term")));
                }
                if pos && neg {
                    // A polynomial (or rational function) inside, e.g. the argument of
                    // log(x^2 − 2x + 2): its degrees decide.
                    if let Some(r) = self.rational(e)? {
                        return Ok(r);
                    }
                    if let Some(merged) = self.merge_logs(v) {
                        return self.lim(&merged);
                    }
                    if let Some(r) = self.conjugate(v) {
                        return Ok(r);
                    }
                }
                Ok(match (pos, neg) {
                    (true, true) => self.indeterminate(e, "∞ − ∞")?,
                    (true, false) => L::Pos,
                    (false, true) => L::Neg,
                    (false, false) => self.fin(acc),
                })
            }
            Expr::Mul(v) => {
                let mut acc = Expr::int(1);
                let mut inf_sign: Option<i8> = None;
                let mut zero = false;
                let mut bounded = false;
                for t in v {
                    match self.lim(t)? {
                        // sin u, cos u (and their positive powers) stay in [−1, 1]
                        // even where they oscillate: a squeeze if the rest vanishes.
                        L::Unk(_) if is_bounded(t) || matches!(t, Expr::Add(v) if v.iter().all(is_bounded_term)) => {
                            bounded = true
                        }
                        L::Fin(c) => {
                            if self.is_zero(&c) {
                                zero = true;
                            }
                            acc = Expr::mul(acc, c);
                        }
                        L::Pos => inf_sign = Some(inf_sign.unwrap_or(1)),
                        L::Neg => inf_sign = Some(-inf_sign.unwrap_or(1)),
                        L::Unk(w) => return Ok(L::Unk(w)),
                    }
                }
                if bounded {
                    let zero_rest = inf_sign.is_none() && self.is_zero(&acc);
                    if zero_rest {
                        self.used("squeeze: a bounded factor times one that tends to 0");
                        return Ok(L::Fin(Expr::int(0)));
                    }
                    return Ok(L::Unk(format!("{e} has an oscillating factor and the rest does not tend to 0")));
                }
                match inf_sign {
                    None => Ok(self.fin(acc)),
                    Some(_) if zero => self.indeterminate(e, "0 · ∞"),
                    Some(s) => match self.sign_of(&acc) {
                        Some(c) if c != 0 => Ok(Self::inf(s * c)),
                        _ => Ok(L::Unk(format!("the sign of {acc} is not known"))),
                    },
                }
            }
            Expr::Pow(b, x) => self.power(e, b, x),
            Expr::Func(f, a) => self.func(*f, a),
            _ => Ok(L::Unk(format!("no limit rule for {e}"))),
        }
    }

    fn power(&mut self, e: &Expr, b: &Expr, x: &Expr) -> Result<L> {
        let Some(n) = x.as_num().cloned() else {
            // b^u = exp(u · log b)
            let u = if matches!(b, Expr::E) {
                x.clone()
            } else {
                if self.sign_near(b) != Some(1) {
                    return Ok(L::Unk(format!("the base of {e} is not positive near the point")));
                }
                Expr::mul(x.clone(), Expr::func(Func::Log, b.clone()))
            };
            return self.func(Func::Exp, &u);
        };
        let lb = self.lim(b)?;
        let neg = n.is_negative();
        Ok(match lb {
            L::Unk(w) => L::Unk(w),
            L::Fin(c) => {
                if self.is_zero(&c) && neg {
                    // 1/0: the sign of b^n near the point decides.
                    match self.sign_near(e) {
                        Some(s) => Self::inf(s),
                        None => L::Unk(format!("{e} changes sign near the point")),
                    }
                } else {
                    self.fin(Expr::pow(c, Expr::Num(n)))
                }
            }
            L::Pos => {
                if neg {
                    L::Fin(Expr::int(0))
                } else if n.is_zero() {
                    L::Fin(Expr::int(1))
                } else {
                    L::Pos
                }
            }
            L::Neg => {
                if neg {
                    L::Fin(Expr::int(0))
                } else if n.is_integer() {
                    let odd = n.numer().bit(0);
                    if odd { L::Neg } else { L::Pos }
                } else {
                    match self.sign_near(e) {
                        Some(s) => Self::inf(s),
                        None => L::Unk(format!("{e} is not real near the point")),
                    }
                }
            }
        })
    }

    fn func(&mut self, f: Func, a: &Expr) -> Result<L> {
        let la = self.lim(a)?;
        Ok(match (f, la) {
            (_, L::Unk(w)) => L::Unk(w),
            (Func::Log, L::Fin(c)) if self.is_zero(&c) => {
                if self.sign_near(a) == Some(1) {
                    L::Neg
                } else {
                    L::Unk(format!("log({a}) is undefined near the point"))
                }
            }
            (f, L::Fin(c)) => {
                let v = Expr::func(f, c);
                if eval_f64(&v, &FloatEnv::new()).is_some() { self.fin(v) } else { L::Unk(format!("{v} is undefined")) }
            }
            (Func::Exp | Func::Log | Func::Abs, L::Pos) => L::Pos,
            (Func::Exp, L::Neg) => L::Fin(Expr::int(0)),
            (Func::Abs, L::Neg) => L::Pos,
            (Func::Atan, L::Pos) => L::Fin(Expr::mul(Expr::Num(crate::expr::qf(1, 2)), Expr::Pi)),
            (Func::Atan, L::Neg) => L::Fin(Expr::mul(Expr::Num(crate::expr::qf(-1, 2)), Expr::Pi)),
            (Func::Sin | Func::Cos, _) => {
                L::Unk(format!("{}({a}) oscillates: its argument grows without bound", f.name()))
            }
            (f, _) => L::Unk(format!("{}({a}) is undefined as its argument grows without bound", f.name())),
        })
    }

    /// `∞ − ∞` between logarithms: `Σ cᵢ log uᵢ` (every `uᵢ` positive near the point,
    /// every `cᵢ` a rational multiple `qᵢ` of `c₀`, which may hold the variable) is
    /// `c₀·(1/D)·log ∏ uᵢ^(qᵢ·D)` with `D` the common denominator, the product put in
    /// normal form (so `log x − log(x + 1)` becomes `log(x/(x + 1))`). The other terms
    /// are kept as they are. `None` unless two or more such terms.
    fn merge_logs(&mut self, terms: &[Expr]) -> Option<Expr> {
        fn flat(e: &Expr, out: &mut Vec<Expr>) {
            match e {
                Expr::Mul(v) => v.iter().for_each(|f| flat(f, out)),
                e => out.push(e.clone()),
            }
        }
        // (constant coefficient, argument) of each `c·log u`.
        let mut logs: Vec<(Expr, Expr)> = Vec::new();
        let mut rest = Vec::new();
        for t in terms {
            let mut v = Vec::new();
            flat(t, &mut v);
            let (ls, others): (Vec<Expr>, Vec<Expr>) =
                v.into_iter().partition(|f| matches!(f, Expr::Func(Func::Log, _)));
            match ls.as_slice() {
                [Expr::Func(_, u)] if u.free_symbols().contains(self.var) && self.sign_near(u) == Some(1) => {
                    logs.push((Expr::Mul(others), (**u).clone()));
                }
                _ => rest.push(t.clone()),
            }
        }
        if logs.len() < 2 {
            return None;
        }
        // Each coefficient a rational multiple qᵢ of the first: c₀·(1/D)·log ∏ uᵢ^(qᵢ·D).
        let c0 = logs[0].0.clone();
        let mut qs = Vec::new();
        for (c, _) in &logs {
            qs.push(self.nf(&Expr::mul(c.clone(), Expr::pow(c0.clone(), Expr::int(-1)))).ok()?.as_const()?);
        }
        let d = qs.iter().fold(num_bigint::BigInt::one(), |acc, q| num_integer::Integer::lcm(&acc, &q.denom()));
        let dq = Q::new(d, num_bigint::BigInt::one());
        let product =
            Expr::Mul(logs.iter().zip(&qs).map(|((_, u), q)| Expr::pow(u.clone(), Expr::Num(q * &dq))).collect());
        let product = self.nf(&product).ok()?.to_expr();
        self.used("logarithms combined: Σ cᵢ·log uᵢ = log ∏ uᵢ^cᵢ");
        rest.push(Expr::Mul(vec![c0, Expr::Num(dq.recip()), Expr::func(Func::Log, product)]));
        Some(Expr::Add(rest))
    }

    /// `∞ − ∞` with a square root at +∞ (`sqrt(x^2 + x) − x`): `s + r` is
    /// `(s² − r²)/(s − r)`, and the quotient's limit is read off the dominant terms
    /// (see [`dominant`]). `None` when the form does not fit or the dominant terms cancel.
    fn conjugate(&mut self, terms: &[Expr]) -> Option<L> {
        if !matches!(self.point, Point::PosInf) {
            return None;
        }
        let is_sqrt =
            |t: &Expr| matches!(t, Expr::Pow(_, x) if x.as_num().is_some_and(|q| *q == crate::expr::qf(1, 2)));
        let k = terms.iter().position(|t| {
            is_sqrt(t)
                || matches!(t, Expr::Mul(v) if v.iter().filter(|f| is_sqrt(f)).count() == 1
                && v.iter().filter(|f| !is_sqrt(f)).all(|f| !f.free_symbols().contains(self.var)))
        })?;
        let sq = terms[k].clone();
        let rest = Expr::Add(terms.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, t)| t.clone()).collect());
        let num =
            self.nf(&Expr::sub(Expr::pow(sq.clone(), Expr::int(2)), Expr::pow(rest.clone(), Expr::int(2)))).ok()?;
        let q = Expr::mul(num.to_expr(), Expr::pow(Expr::sub(sq, rest), Expr::int(-1)));
        let (c, p) = dominant(&q, self.var, self.limits)?;
        self.used("conjugate: s + r = (s² − r²)/(s − r), then the dominant terms");
        self.dominant_limit(&c, &p)
    }

    /// The limit at +∞ of a dominant term c·x^p: c when p = 0, 0 when p < 0, ±∞ by the
    /// sign of c when p > 0; `None` when that sign is not known.
    fn dominant_limit(&self, c: &Expr, p: &Q) -> Option<L> {
        Some(if p.is_zero() {
            self.fin(c.clone())
        } else if p.is_negative() {
            L::Fin(Expr::int(0))
        } else {
            match self.sign_of(c) {
                Some(sg) if sg != 0 => Self::inf(sg),
                _ => return None,
            }
        })
    }

    /// An indeterminate form: one denominator, or `I / (1/Z)` for a product, then
    /// L'Hôpital.
    fn indeterminate(&mut self, e: &Expr, form: &str) -> Result<L> {
        let n = match self.nf(e) {
            Ok(n) => n,
            Err(_) => return Ok(L::Unk(format!("an indeterminate form {form}"))),
        };
        if !n.den.is_one() {
            let (num, den) = split(&n);
            return self.hopital(num, den);
        }
        if let Expr::Mul(v) = e {
            // Split into the factors that vanish and the rest, written I / (1/Z).
            let mut zs = Vec::new();
            let mut rest = Vec::new();
            for t in v {
                match self.lim(t)? {
                    L::Fin(c) if self.is_zero(&c) => zs.push(t.clone()),
                    _ => rest.push(t.clone()),
                }
            }
            if !zs.is_empty() && !rest.is_empty() {
                // I / (1/Z) first (x·log x = log x / (1/x)), then Z / (1/I)
                // ((1 + 1/x)^x: log(1 + 1/x) / (1/x)), each with the full step budget.
                let (z, i) = (Expr::Mul(zs), Expr::Mul(rest));
                let recip = |lx: &Self, e: &Expr| {
                    let r = Expr::pow(e.clone(), Expr::int(-1));
                    lx.nf(&r).map(|d| d.to_expr()).unwrap_or(r)
                };
                let steps = self.steps;
                let first = self.hopital(i.clone(), recip(self, &z))?;
                if !matches!(first, L::Unk(_)) {
                    return Ok(first);
                }
                self.steps = steps;
                return self.hopital(z, recip(self, &i));
            }
        }
        Ok(L::Unk(format!("an indeterminate form {form} that no rule here resolves")))
    }

    /// `lim N/D` by L'Hôpital's rule, at most [`HOPITAL_STEPS`] times in all.
    fn hopital(&mut self, mut num: Expr, mut den: Expr) -> Result<L> {
        loop {
            let (ln, ld) = (self.lim(&num)?, self.lim(&den)?);
            let q = Expr::mul(num.clone(), Expr::pow(den.clone(), Expr::int(-1)));
            match (ln, ld) {
                (L::Unk(w), _) | (_, L::Unk(w)) => return Ok(L::Unk(w)),
                (L::Fin(n), L::Fin(d)) if !self.is_zero(&d) => {
                    return Ok(self.fin(Expr::mul(n, Expr::pow(d, Expr::int(-1)))));
                }
                (L::Pos | L::Neg, L::Fin(d)) if !self.is_zero(&d) => {
                    return Ok(match self.sign_near(&q) {
                        Some(s) => Self::inf(s),
                        None => L::Unk(format!("the sign of {q} is not known")),
                    });
                }
                (L::Fin(_), L::Pos | L::Neg) => return Ok(L::Fin(Expr::int(0))),
                (L::Fin(n), L::Fin(_)) if !self.is_zero(&n) => {
                    return Ok(match self.sign_near(&q) {
                        Some(s) => Self::inf(s),
                        None => L::Unk(format!("{q} changes sign near the point")),
                    });
                }
                (L::Pos | L::Neg, L::Fin(_)) => {
                    return Ok(match self.sign_near(&q) {
                        Some(s) => Self::inf(s),
                        None => L::Unk(format!("{q} changes sign near the point")),
                    });
                }
                _ => {
                    // 0/0 or ∞/∞.
                    self.steps += 1;
                    if self.steps > HOPITAL_STEPS {
                        return Ok(L::Unk(format!(
                            "L'Hôpital's rule did not settle the limit in {HOPITAL_STEPS} steps"
                        )));
                    }
                    self.used("L'Hôpital's rule");
                    let mut cx = Cx::new(*self.limits);
                    let dn = derivative(&normal_form(&num, &mut cx)?, self.var, &mut cx)?;
                    let dd = derivative(&normal_form(&den, &mut cx)?, self.var, &mut cx)?;
                    if dd.is_zero() {
                        return Ok(L::Unk("the denominator's derivative vanishes".into()));
                    }
                    let r = dn.div(&dd, &mut cx)?;
                    if r.den.is_one() || r.den.as_const().is_some() {
                        return self.lim(&r.to_expr());
                    }
                    (num, den) = split(&r);
                }
            }
        }
    }

    /// Evaluate ever closer to the point and demand the values approach `r`.
    fn confirm(&self, f: &Expr, r: &L) -> std::result::Result<String, String> {
        let ks: Vec<i32> = (1..=10).collect();
        let mut vals: Vec<(i32, f64)> = ks.iter().filter_map(|&k| self.probe(f, k).map(|v| (k, v))).collect();
        if !matches!(self.point, Point::At(..)) {
            // Also doubling steps from 10, which stay inside the floating-point range
            // where exp(x) does not (x^2/exp(x) at 10^3 is 0/inf).
            let sign = if matches!(self.point, Point::NegInf) { -1.0 } else { 1.0 };
            let mut pts: Vec<f64> =
                (0..7).map(|k| 10.0 * 2f64.powi(k)).chain((3..=10).map(|k| 10f64.powi(k))).collect();
            pts.sort_by(f64::total_cmp);
            vals = pts
                .iter()
                .enumerate()
                .filter_map(|(i, x)| {
                    eval_f64_with(f, &|n: &str| (n == self.var).then_some(sign * x)).map(|v| (i as i32, v))
                })
                .collect();
        }
        let where_ = match &self.point {
            Point::At(..) => format!("from {}", side_word(self.side)),
            _ => "at growing |x|".to_string(),
        };
        match r {
            L::Fin(c) => {
                if vals.len() < 3 {
                    return Err(format!("too few points {where_} were defined to check it numerically"));
                }
                let v = eval_f64(c, &FloatEnv::new()).unwrap_or(f64::NAN);
                let err = |x: f64| (x - v).abs();
                let tol = 1e-3 * v.abs().max(1.0);
                let best = vals.iter().skip(1).map(|(_, x)| err(*x)).fold(f64::INFINITY, f64::min);
                let first = err(vals[0].1);
                if best <= tol && (best <= first / 20.0 || first < 1e-12) {
                    Ok(format!("{} points {where_} approach {v:.6} (closest within {best:.1e})", vals.len()))
                } else {
                    Err(format!("the values {where_} do not approach {v:.6} (closest {best:.1e} away)"))
                }
            }
            L::Pos | L::Neg => {
                let s = if matches!(r, L::Pos) { 1.0 } else { -1.0 };
                // At infinity, doubling steps from 10 (exp(x) overflows past 10^3).
                let vals: Vec<(i32, f64)> = match self.point {
                    Point::At(..) => vals,
                    _ => (0..8)
                        .filter_map(|k| {
                            let x = 10.0 * 2f64.powi(k) * if matches!(self.point, Point::NegInf) { -1.0 } else { 1.0 };
                            eval_f64_with(f, &|n: &str| (n == self.var).then_some(x)).map(|v| (k, v))
                        })
                        .collect(),
                };
                if vals.len() < 3 {
                    return Err(format!("too few points {where_} were defined to check it numerically"));
                }
                let mags: Vec<f64> = vals.iter().take(6).map(|(_, x)| x * s).collect();
                let growing = mags.iter().all(|m| *m > 0.0) && mags.windows(2).all(|w| w[1] > w[0]);
                if growing {
                    Ok(format!("{} points {where_} grow {}", mags.len(), if s > 0.0 { "upward" } else { "downward" }))
                } else {
                    Err(format!("the values {where_} do not grow without bound"))
                }
            }
            L::Unk(_) => Err("nothing to check".into()),
        }
    }
}

/// `sin u`, `cos u` or a positive integer power of one: bounded by 1 in absolute value.
pub(crate) fn is_bounded(e: &Expr) -> bool {
    match e {
        Expr::Func(Func::Sin | Func::Cos, _) => true,
        Expr::Pow(b, x) => is_bounded(b) && x.as_num().is_some_and(|n| n.is_integer() && n.is_positive()),
        _ => false,
    }
}

/// A bounded term: a rational constant times products of bounded factors.
fn is_bounded_term(e: &Expr) -> bool {
    match e {
        Expr::Mul(v) => v.iter().all(|t| t.free_symbols().is_empty() || is_bounded_term(t)),
        e => is_bounded(e),
    }
}

fn split(n: &Nf) -> (Expr, Expr) {
    (Nf { num: n.num.clone(), den: Poly::one() }.to_expr(), Nf { num: n.den.clone(), den: Poly::one() }.to_expr())
}

/// Read `\lim_{x \to a} F`, `\lim_{x\to a^+} F`, `lim_{x->a} F` or `lim x->a F`:
/// `(F, x, a, side)`.
pub fn notation(text: &str) -> Option<(String, String, String, Option<&'static str>)> {
    let t = text.trim();
    let rest = t.strip_prefix("\\lim").or_else(|| t.strip_prefix("lim"))?;
    let rest = rest.trim_start();
    let (sub, body) = if let Some(r) = rest.strip_prefix("_{") {
        let close = matching(r)?;
        (&r[..close], &r[close + 1..])
    } else if let Some(r) = rest.strip_prefix('_') {
        let end = r.find(char::is_whitespace)?;
        (&r[..end], &r[end..])
    } else {
        return None;
    };
    let sub = sub.replace("\\rightarrow", "->").replace("\\to", "->").replace('→', "->");
    let (v, a) = sub.split_once("->")?;
    let v = v.trim();
    if v.is_empty() || !v.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let a = a.trim().replace("\\infty", "oo");
    let (a, side) = strip_side(&a);
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    Some((body.to_string(), v.to_string(), a, side))
}

/// `0^+`, `0^{-}`, `0+` → the point and the side.
pub fn strip_side(a: &str) -> (String, Option<&'static str>) {
    let a = a.trim();
    for (s, side) in [("^{+}", "right"), ("^{-}", "left"), ("^+", "right"), ("^-", "left")] {
        if let Some(p) = a.strip_suffix(s) {
            return (p.trim().to_string(), Some(side));
        }
    }
    if a.len() > 1 && !a.ends_with("oo") {
        if let Some(p) = a.strip_suffix('+') {
            return (p.trim().to_string(), Some("right"));
        }
        if let Some(p) = a.strip_suffix('-') {
            return (p.trim().to_string(), Some("left"));
        }
    }
    (a.to_string(), None)
}

/// The index of the `}` closing an opened `{` (the text starts just after it).
pub fn matching(s: &str) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lim(e: &str, to: &str, dir: Option<&str>) -> LimitResult {
        limit(e, None, to, dir, &Limits::default()).unwrap()
    }

    #[test]
    fn classic_limits() {
        let cases = [
            ("sin(x)/x", "0", "1"),
            ("(1 - cos(x))/x^2", "0", "1/2"),
            ("(exp(x) - 1)/x", "0", "1"),
            ("(x^2 - 1)/(x - 1)", "1", "2"),
            ("(3x^2 + 1)/(x^2 - 5)", "oo", "3"),
            ("x exp(-x)", "oo", "0"),
            ("(1 + 1/x)^x", "oo", "e"),
            ("x log(x)", "0+", "0"),
            ("1/x - 1/sin(x)", "0", "0"),
            ("atan(x)", "-oo", "-pi/2"),
            ("log(x)/x", "oo", "0"),
            ("tan(x)/x", "0", "1"),
            ("x^2/exp(x)", "oo", "0"),
            ("sin(x)/x", "oo", "0"),
            ("x^2 sin(1/x)", "0", "0"),
            ("log(x) - log(x + 1)", "oo", "0"),
            ("log(2x + 1) - log(x)", "oo", "log(2)"),
            ("log(x^2 + 1)/2 - log(x)", "oo", "0"),
            ("sqrt(x^2 + x) - x", "oo", "1/2"),
            ("sqrt(4x^2 + 3x) - 2x", "oo", "3/4"),
            ("x - sqrt(x^2 - 1)", "oo", "0"),
            ("sqrt(x^2 + x) + x", "-oo", "-1/2"),
            ("x/sqrt(x^2 + 1)", "-oo", "-1"),
            ("x/sqrt(x^2 + 1)", "oo", "1"),
            ("sqrt(4x^2 + 1)/(x + 1)", "-oo", "-2"),
            ("sqrt(x^2 - 3x) + x", "-oo", "3/2"),
            ("(2x + 1)/sqrt(9x^2 + x)", "-oo", "-2/3"),
            ("(x^2 atan(x) + x)/(x^2 + 1)", "oo", "pi/2"),
        ];
        for (e, to, want) in cases {
            let r = lim(e, to, None);
            assert_eq!(r.value.as_deref(), Some(want), "{e} at {to}: {r:?}");
            assert_eq!(r.status, LimitStatus::Finite, "{e}");
        }
    }

    #[test]
    fn infinite_missing_and_unknown() {
        let r = lim("1/x", "0", None);
        assert_eq!(r.status, LimitStatus::DoesNotExist, "{r:?}");
        assert_eq!((r.left.as_deref(), r.right.as_deref()), (Some("-oo"), Some("oo")));
        assert_eq!(lim("1/x^2", "0", None).value.as_deref(), Some("oo"));
        assert_eq!(lim("1/x", "0", Some("right")).value.as_deref(), Some("oo"));
        let a = lim("abs(x)/x", "0", None);
        assert_eq!(a.status, LimitStatus::DoesNotExist, "{a:?}");
        assert_eq!((a.left.as_deref(), a.right.as_deref()), (Some("-1"), Some("1")));
        assert_eq!(lim("sin(1/x)", "0", None).status, LimitStatus::Unknown);
        assert_eq!(lim("exp(x)", "oo", None).value.as_deref(), Some("oo"));
        assert_eq!(lim("x + sin(x)", "oo", None).value.as_deref(), Some("oo"));
        assert_eq!(lim("x sin(x)", "oo", None).status, LimitStatus::Unknown);
        assert_eq!(lim("x^3 - x", "-oo", None).value.as_deref(), Some("-oo"));
        assert_eq!(lim("sqrt(x)", "0", None).value.as_deref(), Some("0"));
    }

    #[test]
    fn latex_notation() {
        let (b, v, a, s) = notation("\\lim_{x \\to 0} \\frac{\\sin x}{x}").unwrap();
        assert_eq!((b.as_str(), v.as_str(), a.as_str(), s), ("\\frac{\\sin x}{x}", "x", "0", None));
        let (_, _, a, s) = notation("\\lim_{t\\to 0^+} t").unwrap();
        assert_eq!((a.as_str(), s), ("0", Some("right")));
        let (_, _, a, _) = notation("\\lim_{x\\to\\infty} 1/x").unwrap();
        assert_eq!(a, "oo");
    }
}
