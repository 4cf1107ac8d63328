//! Integration: linearity, the power rule, exponentials, sin/cos (with the reduction
//! formula for powers of sin), substitution `u = a·x + b`, integration by parts for
//! `x^n·e^x`, `x^n·sin x`, `x^n·cos x`, `x^n·log x`, and rational functions with
//! denominators of degree ≤ 2. Every antiderivative is checked by differentiating it
//! back; anything else is an honest "cannot integrate".

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::expr::{Expr, Func, Q, q};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, abs, apply, derivative, normal_form, power, root};
use crate::ops::resolve_var;
use crate::parse::parse_expr;
use crate::poly::{Mono, Poly};

/// One rule applied to one term.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct IntegrationStep {
    /// The rule, e.g. `power rule`, `by parts`.
    pub rule: String,
    /// The term integrated.
    pub integrand: String,
    /// Its antiderivative.
    pub result: String,
}

/// The answer of [`integrate`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Integral {
    /// The input as read.
    pub input: String,
    /// The variable of integration.
    pub variable: String,
    /// An antiderivative (no constant added).
    pub antiderivative: String,
    /// The bounds, when definite.
    pub bounds: Option<[String; 2]>,
    /// The exact value of the definite integral.
    pub value: Option<String>,
    /// Its numeric value.
    pub numeric: Option<f64>,
    /// How the result was checked (differentiating the antiderivative back).
    pub checked: String,
    /// The rules used, term by term.
    pub steps: Vec<IntegrationStep>,
}

/// Integrate `text` with respect to `var` (the only variable when omitted), over
/// `bounds` when given.
pub fn integrate(text: &str, var: Option<&str>, bounds: Option<(&str, &str)>, limits: &Limits) -> Result<Integral> {
    let e = parse_expr(text, limits)?;
    let v = resolve_var(&e, var)?;
    let mut cx = Cx::new(*limits);
    let f = normal_form(&e, &mut cx)?;
    let mut it = Integrator { v: v.clone(), steps: Vec::new() };
    let anti = it.anti(&f, &mut cx)?;
    let back = derivative(&anti, &v, &mut cx)?.sub(&f, &mut cx)?;
    if !back.is_zero() {
        return Err(SymError::unsupported(format!(
            "cannot integrate {e}: the candidate antiderivative did not differentiate back to the integrand"
        )));
    }
    let mut out = Integral {
        input: e.to_string(),
        variable: v.clone(),
        antiderivative: anti.to_string(),
        bounds: None,
        value: None,
        numeric: None,
        checked: "the derivative of the antiderivative equals the integrand (exact normal forms)".into(),
        steps: it.steps,
    };
    if let Some((a, b)) = bounds {
        definite(&mut out, &e, &anti, (a, b), limits)?;
    }
    Ok(out)
}

fn definite(out: &mut Integral, integrand: &Expr, anti: &Nf, (a, b): (&str, &str), limits: &Limits) -> Result<()> {
    let v = out.variable.clone();
    let (ea, eb) = (parse_expr(a, limits)?, parse_expr(b, limits)?);
    for (s, e) in [(a, &ea), (b, &eb)] {
        if !e.free_symbols().is_empty() {
            return Err(SymError::input(format!("the bound '{s}' must be a number")));
        }
    }
    let fa = eval_f64(&ea, &FloatEnv::new()).ok_or_else(|| SymError::input(format!("the bound '{a}' is undefined")))?;
    let fb = eval_f64(&eb, &FloatEnv::new()).ok_or_else(|| SymError::input(format!("the bound '{b}' is undefined")))?;
    let lowered = crate::verify::lower(integrand, limits)?;
    let others: Vec<String> = lowered.free_symbols().into_iter().filter(|s| *s != v).collect();
    if others.is_empty() {
        for i in 0..=200 {
            let x = fa + (fb - fa) * i as f64 / 200.0;
            let env: FloatEnv = [(v.clone(), x)].into();
            if eval_f64(&lowered, &env).is_none() {
                return Err(SymError::unsupported(format!(
                    "the integrand is undefined at {v} ≈ {} within the bounds: this is an improper integral, which is not evaluated",
                    attest_core::text::fmt_g(x)
                )));
            }
        }
    }
    let at = |bound: &Expr| -> Result<Nf> {
        let s = anti.to_expr().substitute(&|n| (n == v).then(|| bound.clone()));
        normal_form(&s, &mut Cx::new(*limits))
    };
    let value = at(&eb)?.sub(&at(&ea)?, &mut Cx::new(*limits))?;
    out.numeric = eval_f64(&value.to_expr(), &FloatEnv::new());
    out.value = Some(value.to_string());
    out.bounds = Some([ea.to_string(), eb.to_string()]);
    Ok(())
}

struct Integrator {
    v: String,
    steps: Vec<IntegrationStep>,
}

fn depends(a: &Atom, v: &str) -> bool {
    Nf::atom(a.clone()).free_symbols().contains(v)
}

fn poly_depends(p: &Poly, v: &str) -> bool {
    p.atoms().iter().any(|a| depends(a, v))
}

fn cannot(what: impl std::fmt::Display) -> SymError {
    SymError::unsupported(format!(
        "cannot integrate {what}: no rule here applies (this library integrates polynomials, exp, sin, cos, log, linear substitutions, parts for x^n times e^x, sin, cos or log, and rational functions with denominators of degree ≤ 2)"
    ))
}

impl Integrator {
    fn step(&mut self, rule: &str, integrand: String, result: &Nf) {
        self.steps.push(IntegrationStep { rule: rule.into(), integrand, result: result.to_string() });
    }

    fn x(&self) -> Nf {
        Nf::atom(Atom::Sym(self.v.as_str().into()))
    }

    fn anti(&mut self, f: &Nf, cx: &mut Cx) -> Result<Nf> {
        if poly_depends(&f.den, &self.v) {
            return self.rational(f, cx);
        }
        let inv_den = Nf::make(Poly::one(), f.den.clone(), cx)?;
        let mut total = Nf::zero();
        for (m, c) in &f.num.0 {
            let t = self.term(m, c, cx)?;
            total = total.add(&t, cx)?;
        }
        if f.num.len() > 1 {
            self.steps.push(IntegrationStep {
                rule: "linearity".into(),
                integrand: f.to_string(),
                result: "sum of the terms' integrals".into(),
            });
        }
        total.mul(&inv_den, cx)
    }

    fn term(&mut self, m: &Mono, c: &Q, cx: &mut Cx) -> Result<Nf> {
        let (dep, free): (Mono, Mono) = m.iter().cloned().partition(|(a, _)| depends(a, &self.v));
        let k = Nf { num: Poly::term(free, c.clone()), den: Poly::one() };
        let shown = Nf { num: Poly::term(m.clone(), c.clone()), den: Poly::one() };
        let (rule, r) = self.dependent(&dep, cx).map_err(|e| match e {
            SymError::Unsupported { .. } => cannot(&shown),
            other => other,
        })?;
        let out = k.mul(&r, cx)?;
        self.step(rule, shown.to_string(), &out);
        Ok(out)
    }

    /// The antiderivative of a product of atoms that all depend on the variable.
    fn dependent(&mut self, dep: &Mono, cx: &mut Cx) -> Result<(&'static str, Nf)> {
        let x = self.x();
        let is_x = |a: &Atom| matches!(a, Atom::Sym(s) if **s == *self.v);
        match dep.as_slice() {
            [] => Ok(("constant rule", x)),
            [(a, n)] if is_x(a) => {
                let k = q(*n as i64 + 1);
                Ok(("power rule", x.pow_int(*n as i64 + 1, cx)?.scale(&k.recip())))
            }
            [(a, k)] => self.single(a, *k, cx),
            [(a, n), (b, k)] if is_x(a) => self.parts(*n, b, *k, cx),
            [(Atom::Fn(Func::Sin, u), m), (Atom::Fn(Func::Cos, w), 1)] if u == w => {
                let (a, _) = self.linear(u).ok_or_else(|| cannot("sin·cos of a non-linear argument"))?;
                let s = apply(Func::Sin, u, cx)?;
                let k = Nf::constant(q(*m as i64 + 1));
                Ok(("substitution u = sin", s.pow_int(*m as i64 + 1, cx)?.div(&k.mul(&a, cx)?, cx)?))
            }
            _ => Err(cannot("this product")),
        }
    }

    /// `u = a·x + b` with `a`, `b` free of the variable.
    fn linear(&self, u: &Nf) -> Option<(Nf, Nf)> {
        let xa = Atom::Sym(self.v.as_str().into());
        if poly_depends(&u.den, &self.v) || u.num.degree_in(&xa) != 1 {
            return None;
        }
        let cs = u.num.coeffs_in(&xa);
        if cs.values().any(|p| poly_depends(p, &self.v)) {
            return None;
        }
        let den = Nf { num: u.den.clone(), den: Poly::one() };
        let mut cx = Cx::new(Limits::default());
        let a = Nf::make(cs.get(&1).cloned().unwrap_or_default(), den.num.clone(), &mut cx).ok()?;
        let b = Nf::make(cs.get(&0).cloned().unwrap_or_default(), den.num, &mut cx).ok()?;
        (!a.is_zero()).then_some((a, b))
    }

    fn single(&mut self, atom: &Atom, k: u32, cx: &mut Cx) -> Result<(&'static str, Nf)> {
        let me = Nf::atom(atom.clone());
        let lin = |u: &Nf| self.linear(u).ok_or_else(|| cannot(format!("{me}: its argument is not linear")));
        match atom {
            Atom::Fn(Func::Exp, u) => {
                let (a, _) = lin(u)?;
                let r = me.pow_int(k as i64, cx)?.div(&a.scale(&q(k as i64)), cx)?;
                Ok(("exponential rule", r))
            }
            Atom::Fn(Func::Sin, u) => {
                let (a, _) = lin(u)?;
                Ok(("sine rule (reduction formula for powers)", self.sin_power(u, &a, k, cx)?))
            }
            Atom::Fn(Func::Cos, u) if k == 1 => {
                let (a, _) = lin(u)?;
                Ok(("cosine rule", apply(Func::Sin, u, cx)?.div(&a, cx)?))
            }
            Atom::Fn(Func::Log, u) if k == 1 => {
                let (a, _) = lin(u)?;
                let r = u.as_ref().mul(&me, cx)?.sub(u, cx)?.div(&a, cx)?;
                Ok(("logarithm rule (by parts)", r))
            }
            Atom::Fn(Func::Atan, u) if k == 1 => {
                let (a, _) = lin(u)?;
                let one_u2 = Nf::one().add(&u.mul(u, cx)?, cx)?;
                let l = apply(Func::Log, &one_u2, cx)?.scale(&crate::expr::qf(1, 2));
                Ok(("arctangent rule (by parts)", u.mul(&me, cx)?.sub(&l, cx)?.div(&a, cx)?))
            }
            Atom::Root(u, r) => {
                let (a, _) = lin(u)?;
                let e = Q::new(k.into(), (*r).into()) + Q::from_integer(1.into());
                let p = power(u, &Nf::constant(e.clone()), cx)?;
                Ok(("power rule with u = a·x + b", p.div(&a.scale(&e), cx)?))
            }
            _ => Err(cannot(me)),
        }
    }

    fn sin_power(&mut self, u: &Nf, a: &Nf, n: u32, cx: &mut Cx) -> Result<Nf> {
        match n {
            0 => Ok(self.x()),
            1 => apply(Func::Cos, u, cx)?.neg().div(a, cx),
            _ => {
                // ∫ s^n = -s^(n-1) c / (n a) + (n-1)/n ∫ s^(n-2)
                let s = apply(Func::Sin, u, cx)?;
                let c = apply(Func::Cos, u, cx)?;
                let head = s.pow_int(n as i64 - 1, cx)?.mul(&c, cx)?.neg().div(&a.scale(&q(n as i64)), cx)?;
                let tail = self.sin_power(u, a, n - 2, cx)?.scale(&Q::new((n as i64 - 1).into(), (n as i64).into()));
                head.add(&tail, cx)
            }
        }
    }

    fn parts(&mut self, n: u32, b: &Atom, k: u32, cx: &mut Cx) -> Result<(&'static str, Nf)> {
        let x = self.x();
        match b {
            Atom::Fn(Func::Exp, u) => {
                let (a, _) = self.linear(u).ok_or_else(|| cannot("x^n·exp of a non-linear argument"))?;
                let w = a.scale(&q(k as i64));
                let ek = Nf::atom(b.clone()).pow_int(k as i64, cx)?;
                let mut sum = Nf::zero();
                let mut falling = Q::from_integer(1.into());
                for j in 0..=n {
                    let t = x.pow_int((n - j) as i64, cx)?.scale(&falling).div(&w.pow_int(j as i64 + 1, cx)?, cx)?;
                    sum = if j % 2 == 0 { sum.add(&t, cx)? } else { sum.sub(&t, cx)? };
                    falling *= Q::from_integer(((n - j) as i64).into());
                }
                Ok(("by parts (x^n·e^x)", ek.mul(&sum, cx)?))
            }
            Atom::Fn(f @ (Func::Sin | Func::Cos), u) if k == 1 => {
                let (a, _) = self.linear(u).ok_or_else(|| cannot("x^n·sin of a non-linear argument"))?;
                Ok(("by parts (x^n·sin, x^n·cos)", self.x_trig(n, *f == Func::Sin, u, &a, cx)?))
            }
            Atom::Fn(Func::Log, u) if k == 1 && **u == x => {
                let m = q(n as i64 + 1);
                let xn1 = x.pow_int(n as i64 + 1, cx)?;
                let r = xn1.mul(&Nf::atom(b.clone()), cx)?.scale(&m.recip()).sub(&xn1.scale(&(&m * &m).recip()), cx)?;
                Ok(("by parts (x^n·log x)", r))
            }
            _ => Err(cannot("this product")),
        }
    }

    fn x_trig(&mut self, n: u32, sine: bool, u: &Nf, a: &Nf, cx: &mut Cx) -> Result<Nf> {
        let s = apply(Func::Sin, u, cx)?;
        let c = apply(Func::Cos, u, cx)?;
        let xn = self.x().pow_int(n as i64, cx)?;
        // ∫ x^n sin = -x^n cos/a + (n/a) ∫ x^(n-1) cos ; ∫ x^n cos = x^n sin/a - (n/a) ∫ x^(n-1) sin
        let head = if sine { xn.mul(&c, cx)?.neg().div(a, cx)? } else { xn.mul(&s, cx)?.div(a, cx)? };
        if n == 0 {
            return Ok(head);
        }
        let rest = self.x_trig(n - 1, !sine, u, a, cx)?.scale(&q(n as i64)).div(a, cx)?;
        if sine { head.add(&rest, cx) } else { head.sub(&rest, cx) }
    }

    fn rational(&mut self, f: &Nf, cx: &mut Cx) -> Result<Nf> {
        let xa = Atom::Sym(self.v.as_str().into());
        let dc = f.den.coeffs_in(&xa);
        let consts: Option<Vec<(u32, Q)>> = dc.iter().map(|(e, p)| Some((*e, p.as_const()?))).collect();
        let Some(dcs) = consts.filter(|_| f.den.atoms().len() == 1) else {
            return Err(cannot(f));
        };
        let nc = f.num.coeffs_in(&xa);
        if nc.values().any(|p| poly_depends(p, &self.v)) {
            return Err(cannot(f));
        }
        let shown = f.to_string();
        if dcs.len() == 1 {
            // c·x^k in the denominator: term-by-term power rule, log for x^-1.
            let (k, c) = dcs[0].clone();
            let mut total = Nf::zero();
            for (j, p) in nc {
                let coef = Nf::make(p, Poly::one(), cx)?.scale(&c.recip());
                let e = j as i64 - k as i64;
                let t = if e == -1 {
                    apply(Func::Log, &abs(&self.x(), cx)?, cx)?
                } else {
                    self.x().pow_int(e + 1, cx)?.scale(&q(e + 1).recip())
                };
                total = total.add(&coef.mul(&t, cx)?, cx)?;
            }
            self.step("power rule (negative powers)", shown, &total);
            return Ok(total);
        }
        let deg = dcs.last().map_or(0, |d| d.0);
        if deg > 2 {
            return Err(cannot(format!("{f} (denominator of degree {deg})")));
        }
        // Long division: num = quot·den + rem.
        let den = Nf { num: f.den.clone(), den: Poly::one() };
        let mut rem = Nf { num: f.num.clone(), den: Poly::one() };
        let mut quot = Nf::zero();
        let lc = dcs.last().expect("non-empty").1.clone();
        loop {
            let rd = rem.num.degree_in(&xa);
            if rem.is_zero() || rd < deg {
                break;
            }
            let lead = rem.num.coeffs_in(&xa).remove(&rd).unwrap_or_default();
            let t = Nf { num: lead, den: Poly::one() }
                .scale(&lc.recip())
                .mul(&self.x().pow_int((rd - deg) as i64, cx)?, cx)?;
            quot = quot.add(&t, cx)?;
            rem = rem.sub(&t.mul(&den, cx)?, cx)?;
        }
        let mut total = if quot.is_zero() { Nf::zero() } else { self.anti(&quot, cx)? };
        let coef = |e: u32| dcs.iter().find(|d| d.0 == e).map_or(Q::from_integer(0.into()), |d| d.1.clone());
        let (d2, d1, d0) = (coef(2), coef(1), coef(0));
        let rc = rem.num.coeffs_in(&xa);
        let r1 = Nf { num: rc.get(&1).cloned().unwrap_or_default(), den: Poly::one() };
        let r0 = Nf { num: rc.get(&0).cloned().unwrap_or_default(), den: Poly::one() };
        let log_den = apply(Func::Log, &abs(&den, cx)?, cx)?;
        if deg == 1 {
            total = total.add(&r0.scale(&d1.recip()).mul(&log_den, cx)?, cx)?;
            self.step("logarithm rule: ∫ c/(a·x + b) = (c/a)·log|a·x + b|", shown, &total);
            return Ok(total);
        }
        let two_d2 = &d2 * q(2);
        total = total.add(&r1.scale(&two_d2.recip()).mul(&log_den, cx)?, cx)?;
        let s = r0.sub(&r1.scale(&(&d1 / &two_d2)), cx)?;
        let disc = &d1 * &d1 - q(4) * &d2 * &d0;
        let x = self.x();
        let lin = x.scale(&two_d2).add(&Nf::constant(d1.clone()), cx)?;
        let part = if disc < q(0) {
            let m = root(&Nf::constant(-disc), 2, cx)?;
            let at = apply(Func::Atan, &lin.div(&m, cx)?, cx)?;
            at.scale(&q(2)).div(&m, cx)?
        } else if disc == q(0) {
            lin.inv(cx)?.scale(&(q(-2)))
        } else {
            let r = root(&Nf::constant(disc), 2, cx)?;
            let lp = apply(Func::Log, &abs(&lin.sub(&r, cx)?, cx)?, cx)?;
            let lm = apply(Func::Log, &abs(&lin.add(&r, cx)?, cx)?, cx)?;
            lp.sub(&lm, cx)?.div(&r, cx)?
        };
        total = total.add(&s.mul(&part, cx)?, cx)?;
        self.step("partial fractions (denominator of degree 2)", shown, &total);
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anti(s: &str) -> String {
        integrate(s, None, None, &Limits::default()).unwrap_or_else(|e| panic!("{s}: {e}")).antiderivative
    }

    #[test]
    fn basic_antiderivatives() {
        assert_eq!(anti("x^2"), "x^3/3");
        assert_eq!(anti("3x^2 + 2x + 1"), "x^3 + x^2 + x");
        assert_eq!(anti("cos(x)"), "sin(x)");
        assert_eq!(anti("exp(2x)"), "exp(2*x)/2");
        assert_eq!(anti("1/x"), "log(abs(x))");
        assert_eq!(anti("1/(x^2+1)"), "atan(x)");
        for s in [
            "x exp(x)",
            "x^2 sin(x)",
            "x cos(x)",
            "sin(x)^3",
            "log(x)",
            "x log(x)",
            "sin(2x)",
            "sqrt(x)",
            "1/(x^2-1)",
            "(x^3+1)/(x+2)",
            "1/x^3",
            "sin(3x+1)",
        ] {
            anti(s);
        }
    }

    #[test]
    fn definite_and_honest_refusals() {
        let l = Limits::default();
        let r = integrate("x^2", None, Some(("0", "1")), &l).unwrap();
        assert_eq!(r.value.as_deref(), Some("1/3"));
        let s = integrate("sin(x)", None, Some(("0", "pi")), &l).unwrap();
        assert_eq!(s.value.as_deref(), Some("2"));
        assert!(matches!(integrate("exp(x^2)", None, None, &l), Err(SymError::Unsupported { .. })));
        assert!(matches!(integrate("1/x", None, Some(("-1", "1")), &l), Err(SymError::Unsupported { .. })));
    }
}
