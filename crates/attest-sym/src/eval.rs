//! Evaluation at a point: in floating point (fast), exactly in rationals (when the
//! value is rational), and in interval arithmetic with outward rounding (to confirm a
//! floating-point disagreement before calling it a counterexample).

use std::collections::BTreeMap;

use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::expr::{Expr, Func, Q, qadd, qmul};
use crate::nf::exact_root_q;

/// Values of variables, as floats.
pub type FloatEnv = BTreeMap<String, f64>;
/// Values of variables, as exact rationals.
pub type ExactEnv = BTreeMap<String, Q>;

/// A rational as a float.
pub fn q_to_f64(c: &Q) -> f64 {
    if let Some((n, d)) = c.small() {
        return n as f64 / d as f64;
    }
    match (c.numer().to_f64(), c.denom().to_f64()) {
        (Some(n), Some(d)) if n.is_finite() && d.is_finite() => n / d,
        _ => c.to_f64().unwrap_or(f64::NAN),
    }
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// The value in floating point; `None` where the expression is undefined (division
/// by zero, log of a non-positive number, even root of a negative number, overflow).
pub fn eval_f64(e: &Expr, env: &FloatEnv) -> Option<f64> {
    eval_f64_with(e, &|s| env.get(s).copied())
}

/// [`eval_f64`] with the variables' values given by a lookup (no map to build).
pub fn eval_f64_with<F: Fn(&str) -> Option<f64>>(e: &Expr, env: &F) -> Option<f64> {
    match e {
        Expr::Num(c) if c.is_integer() => match c.numer_i64() {
            Some(n) if n.unsigned_abs() < 1 << 53 => Some(n as f64),
            _ => finite(q_to_f64(c)),
        },
        Expr::Num(c) => finite(q_to_f64(c)),
        Expr::Sym(s) => env(s),
        Expr::Pi => Some(std::f64::consts::PI),
        Expr::E => Some(std::f64::consts::E),
        Expr::Add(v) => finite(v.iter().map(|t| eval_f64_with(t, env)).sum::<Option<f64>>()?),
        Expr::Mul(v) => finite(v.iter().map(|t| eval_f64_with(t, env)).product::<Option<f64>>()?),
        Expr::Pow(b, x) => {
            let bv = eval_f64_with(b, env)?;
            if let Expr::Num(r) = x.as_ref() {
                return pow_rational(bv, r);
            }
            let xv = eval_f64_with(x, env)?;
            match bv {
                b if b > 0.0 => finite(b.powf(xv)),
                b if b == 0.0 && xv > 0.0 => Some(0.0),
                _ => None,
            }
        }
        Expr::Func(f, a) => apply_f64(*f, eval_f64_with(a, env)?),
        Expr::Deriv(..) => None,
    }
}

/// An expression compiled for evaluation in floating point at many points: constants
/// converted once, variables looked up by index, no recursion. It gives exactly what
/// [`eval_f64_with`] gives (same operations in the same order).
#[derive(Debug, Clone)]
pub struct FloatProgram {
    ops: Vec<Op>,
}

#[derive(Debug, Clone, Copy)]
enum Op {
    /// A constant; `None` when it is not a finite float (the expression is undefined).
    Const(Option<f64>),
    /// The variable at this index of the compile-time list; `usize::MAX` for an
    /// unknown one (undefined).
    Var(usize),
    /// Sum of the top `n` values, left to right.
    Add(usize),
    /// Product of the top `n` values, left to right.
    Mul(usize),
    /// Base on top, raised to an integer power (`None`: too large, undefined).
    PowInt(Option<i32>),
    /// Base on top, raised to `p/k` (`None`: too large, undefined).
    PowRatio(Option<(i64, i64)>),
    /// Base, then exponent, on top.
    Pow,
    /// A function of the top value.
    Func(Func),
}

impl FloatProgram {
    /// Compile `e`; `vars` fixes the order of the values [`FloatProgram::eval`] takes.
    pub fn new(e: &Expr, vars: &[String]) -> FloatProgram {
        let mut ops = Vec::with_capacity(e.size());
        compile(e, vars, &mut ops);
        FloatProgram { ops }
    }

    /// The value at `values` (one per variable, in the compile-time order); `None`
    /// where the expression is undefined. `stack` is scratch space, reused by callers
    /// that evaluate many points.
    pub fn eval(&self, values: &[f64], stack: &mut Vec<f64>) -> Option<f64> {
        stack.clear();
        for op in &self.ops {
            let v = match *op {
                Op::Const(c) => c?,
                Op::Var(i) => *values.get(i)?,
                Op::Add(n) => {
                    let at = stack.len() - n;
                    let s = stack[at..].iter().fold(-0.0, |a, b| a + b);
                    stack.truncate(at);
                    finite(s)?
                }
                Op::Mul(n) => {
                    let at = stack.len() - n;
                    let s = stack[at..].iter().fold(1.0, |a, b| a * b);
                    stack.truncate(at);
                    finite(s)?
                }
                Op::PowInt(n) => {
                    let (b, n) = (stack.pop()?, n?);
                    if b == 0.0 && n < 0 {
                        return None;
                    }
                    finite(b.powi(n))?
                }
                Op::PowRatio(r) => pow_ratio(stack.pop()?, r?)?,
                Op::Pow => {
                    let (xv, bv) = (stack.pop()?, stack.pop()?);
                    match bv {
                        b if b > 0.0 => finite(b.powf(xv))?,
                        b if b == 0.0 && xv > 0.0 => 0.0,
                        _ => return None,
                    }
                }
                Op::Func(f) => apply_f64(f, stack.pop()?)?,
            };
            stack.push(v);
        }
        stack.pop()
    }
}

fn compile(e: &Expr, vars: &[String], ops: &mut Vec<Op>) {
    match e {
        Expr::Num(c) => ops.push(Op::Const(match c.numer_i64() {
            Some(n) if c.is_integer() && n.unsigned_abs() < 1 << 53 => Some(n as f64),
            _ => finite(q_to_f64(c)),
        })),
        Expr::Sym(s) => ops.push(Op::Var(vars.iter().position(|v| v == s).unwrap_or(usize::MAX))),
        Expr::Pi => ops.push(Op::Const(Some(std::f64::consts::PI))),
        Expr::E => ops.push(Op::Const(Some(std::f64::consts::E))),
        Expr::Add(v) | Expr::Mul(v) => {
            v.iter().for_each(|t| compile(t, vars, ops));
            ops.push(if matches!(e, Expr::Add(_)) { Op::Add(v.len()) } else { Op::Mul(v.len()) });
        }
        Expr::Pow(b, x) => {
            compile(b, vars, ops);
            match x.as_ref() {
                Expr::Num(r) if r.is_integer() => {
                    ops.push(Op::PowInt(r.numer_i64().and_then(|v| i32::try_from(v).ok())))
                }
                Expr::Num(r) => ops.push(Op::PowRatio(r.numer_i64().zip(r.denom_i64()))),
                x => {
                    compile(x, vars, ops);
                    ops.push(Op::Pow);
                }
            }
        }
        Expr::Func(f, a) => {
            compile(a, vars, ops);
            ops.push(Op::Func(*f));
        }
        Expr::Deriv(..) => ops.push(Op::Const(None)),
    }
}

fn pow_rational(b: f64, r: &Q) -> Option<f64> {
    if r.is_integer() {
        let n = r.numer_i64().and_then(|v| i32::try_from(v).ok())?;
        if b == 0.0 && n < 0 {
            return None;
        }
        return finite(b.powi(n));
    }
    pow_ratio(b, (r.numer_i64()?, r.denom_i64()?))
}

/// `b^(p/k)` for a non-integer `p/k` in lowest terms: a real odd root of a negative
/// base, undefined for an even one.
fn pow_ratio(b: f64, (p, k): (i64, i64)) -> Option<f64> {
    if b < 0.0 {
        if k % 2 == 0 {
            return None;
        }
        let m = (-b).powf(p as f64 / k as f64);
        return finite(if p % 2 == 0 { m } else { -m });
    }
    if b == 0.0 && p < 0 {
        return None;
    }
    finite(b.powf(p as f64 / k as f64))
}

fn apply_f64(f: Func, x: f64) -> Option<f64> {
    let nz = |v: f64| (v != 0.0).then_some(v);
    finite(match f {
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.sin() / nz(x.cos())?,
        Func::Sec => 1.0 / nz(x.cos())?,
        Func::Csc => 1.0 / nz(x.sin())?,
        Func::Cot => x.cos() / nz(x.sin())?,
        Func::Asin if x.abs() <= 1.0 => x.asin(),
        Func::Acos if x.abs() <= 1.0 => x.acos(),
        Func::Asin | Func::Acos => return None,
        Func::Atan => x.atan(),
        Func::Sinh => x.sinh(),
        Func::Cosh => x.cosh(),
        Func::Tanh => x.tanh(),
        Func::Exp => x.exp(),
        Func::Log if x > 0.0 => x.ln(),
        Func::Log => return None,
        Func::Abs => x.abs(),
    })
}

/// The exact value, when it is a rational number that plain arithmetic can reach
/// (no π, no irrational roots, functions only at their trivial points).
pub fn eval_exact(e: &Expr, env: &ExactEnv) -> Option<Q> {
    match e {
        Expr::Num(c) => Some(c.clone()),
        Expr::Sym(s) => env.get(s).cloned(),
        Expr::Pi | Expr::E | Expr::Deriv(..) => None,
        Expr::Add(v) => v.iter().try_fold(Q::zero(), |acc, t| Some(qadd(&acc, &eval_exact(t, env)?))),
        Expr::Mul(v) => v.iter().try_fold(Q::one(), |acc, t| Some(qmul(&acc, &eval_exact(t, env)?))),
        Expr::Pow(b, x) => {
            let bv = eval_exact(b, env)?;
            let r = x.as_num()?;
            let p = r.numer_i64().and_then(|v| i32::try_from(v).ok()).filter(|p| p.abs() <= 64)?;
            let k = r.denom_i64().and_then(|v| u32::try_from(v).ok()).filter(|k| *k <= 64)?;
            let root = if k == 1 { bv } else { exact_root_q(&bv, k)? };
            if root.is_zero() && p < 0 {
                return None;
            }
            Some(match p {
                1 => root,
                -1 => root.recip(),
                _ => num_traits::Pow::pow(&root, p),
            })
        }
        Expr::Func(f, a) => {
            let v = eval_exact(a, env)?;
            match f {
                Func::Abs => Some(v.abs()),
                Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh if v.is_zero() => {
                    Some(Q::zero())
                }
                Func::Cos | Func::Cosh | Func::Exp | Func::Sec if v.is_zero() => Some(Q::one()),
                Func::Log | Func::Acos if v.is_one() => Some(Q::zero()),
                _ => None,
            }
        }
    }
}

/// A closed interval of reals, with endpoints rounded outwards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

const SLACK: f64 = 8.0 * f64::EPSILON;

fn widen(lo: f64, hi: f64) -> Option<Interval> {
    let lo = lo - lo.abs() * SLACK - 1e-300;
    let hi = hi + hi.abs() * SLACK + 1e-300;
    (lo.is_finite() && hi.is_finite() && lo <= hi).then_some(Interval { lo, hi })
}

impl Interval {
    fn point(v: f64) -> Option<Interval> {
        widen(v, v)
    }

    /// Whether two intervals share no point.
    pub fn disjoint(&self, other: &Interval) -> bool {
        self.hi < other.lo || other.hi < self.lo
    }

    fn add(self, o: Interval) -> Option<Interval> {
        widen(self.lo + o.lo, self.hi + o.hi)
    }

    fn mul(self, o: Interval) -> Option<Interval> {
        let ps = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi];
        widen(ps.iter().copied().fold(f64::INFINITY, f64::min), ps.iter().copied().fold(f64::NEG_INFINITY, f64::max))
    }

    fn recip(self) -> Option<Interval> {
        if self.lo <= 0.0 && self.hi >= 0.0 {
            return None;
        }
        widen(1.0 / self.hi, 1.0 / self.lo)
    }

    fn monotone(self, f: fn(f64) -> f64) -> Option<Interval> {
        let (a, b) = (f(self.lo), f(self.hi));
        widen(a.min(b), a.max(b))
    }

    fn lipschitz(self, f: fn(f64) -> f64) -> Option<Interval> {
        let mid = 0.5 * (self.lo + self.hi);
        let rad = 0.5 * (self.hi - self.lo);
        let v = f(mid);
        widen((v - rad - 1e-15).max(-1.0), (v + rad + 1e-15).min(1.0))
    }

    fn powi(self, n: i32) -> Option<Interval> {
        if n < 0 {
            return self.powi(-n)?.recip();
        }
        let f = |x: f64| x.powi(n);
        let slack = n as f64 * SLACK;
        let (lo, hi) = if n % 2 == 0 && self.lo < 0.0 && self.hi > 0.0 {
            (0.0, f(self.lo.abs().max(self.hi)))
        } else if n % 2 == 0 && self.hi <= 0.0 {
            (f(self.hi), f(self.lo))
        } else {
            (f(self.lo), f(self.hi))
        };
        let lo = lo - lo.abs() * slack;
        let hi = hi + hi.abs() * slack;
        widen(lo, hi)
    }

    fn pow_rational(self, r: f64, odd_root: bool, odd_power: bool) -> Option<Interval> {
        if self.lo >= 0.0 {
            if r < 0.0 && self.lo == 0.0 {
                return None;
            }
            return self.monotone_pow(r);
        }
        if self.hi < 0.0 && odd_root {
            let m = Interval { lo: -self.hi, hi: -self.lo }.monotone_pow(r)?;
            return Some(if odd_power { Interval { lo: -m.hi, hi: -m.lo } } else { m });
        }
        None
    }

    fn monotone_pow(self, r: f64) -> Option<Interval> {
        let (a, b) = (self.lo.powf(r), self.hi.powf(r));
        widen(a.min(b), a.max(b))
    }
}

/// The value as an interval guaranteed (up to libm's sub-ulp accuracy, covered by
/// the slack) to contain the true value; `None` when undefined or undecidable here.
pub fn eval_interval(e: &Expr, env: &ExactEnv) -> Option<Interval> {
    match e {
        Expr::Num(c) => Interval::point(q_to_f64(c)),
        Expr::Sym(s) => Interval::point(q_to_f64(env.get(s)?)),
        Expr::Pi => Interval::point(std::f64::consts::PI),
        Expr::E => Interval::point(std::f64::consts::E),
        Expr::Add(v) => {
            let mut acc = Interval { lo: 0.0, hi: 0.0 };
            for t in v {
                acc = acc.add(eval_interval(t, env)?)?;
            }
            Some(acc)
        }
        Expr::Mul(v) => {
            let mut acc = Interval { lo: 1.0, hi: 1.0 };
            for t in v {
                acc = acc.mul(eval_interval(t, env)?)?;
            }
            Some(acc)
        }
        Expr::Pow(b, x) => {
            let bv = eval_interval(b, env)?;
            match x.as_ref() {
                Expr::Num(r) if r.is_integer() => bv.powi(r.to_integer().to_i32()?),
                Expr::Num(r) => {
                    let (p, k) = (r.numer_i64()?, r.denom_i64()?);
                    bv.pow_rational(q_to_f64(r), k % 2 == 1, p % 2 != 0)
                }
                other => {
                    let xv = eval_interval(other, env)?;
                    if bv.lo <= 0.0 {
                        return None;
                    }
                    xv.mul(bv.monotone(f64::ln)?)?.monotone(f64::exp)
                }
            }
        }
        Expr::Func(f, a) => apply_interval(*f, eval_interval(a, env)?),
        Expr::Deriv(..) => None,
    }
}

fn apply_interval(f: Func, x: Interval) -> Option<Interval> {
    let sin = || x.lipschitz(f64::sin);
    let cos = || x.lipschitz(f64::cos);
    match f {
        Func::Sin => sin(),
        Func::Cos => cos(),
        Func::Tan => sin()?.mul(cos()?.recip()?),
        Func::Sec => cos()?.recip(),
        Func::Csc => sin()?.recip(),
        Func::Cot => cos()?.mul(sin()?.recip()?),
        Func::Asin | Func::Acos if x.lo < -1.0 || x.hi > 1.0 => None,
        Func::Asin => x.monotone(f64::asin),
        Func::Acos => x.monotone(f64::acos),
        Func::Atan => x.monotone(f64::atan),
        Func::Sinh => x.monotone(f64::sinh),
        Func::Tanh => x.monotone(f64::tanh),
        Func::Cosh if x.lo < 0.0 && x.hi > 0.0 => widen(1.0, x.lo.abs().max(x.hi).cosh()),
        Func::Cosh => x.monotone(f64::cosh),
        Func::Exp => x.monotone(f64::exp),
        Func::Log if x.lo <= 0.0 => None,
        Func::Log => x.monotone(f64::ln),
        Func::Abs if x.lo < 0.0 && x.hi > 0.0 => widen(0.0, x.lo.abs().max(x.hi)),
        Func::Abs => x.monotone(f64::abs),
    }
}

/// A float env from an exact one.
pub fn to_float_env(env: &ExactEnv) -> FloatEnv {
    env.iter().map(|(k, v)| (k.clone(), q_to_f64(v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::q;
    use crate::parse::parse_expr;

    #[test]
    fn three_evaluators_agree() {
        let l = crate::Limits::default();
        let e = parse_expr("sqrt(x^2) + 1/x", &l).unwrap();
        let env: ExactEnv = [("x".to_string(), q(-2))].into();
        assert_eq!(eval_exact(&e, &env), Some(crate::expr::qf(3, 2)));
        assert_eq!(eval_f64(&e, &to_float_env(&env)), Some(1.5));
        let iv = eval_interval(&e, &env).unwrap();
        assert!(iv.lo <= 1.5 && iv.hi >= 1.5 && iv.hi - iv.lo < 1e-12);
        let s = parse_expr("sin(x)", &l).unwrap();
        let iv = eval_interval(&s, &env).unwrap();
        let t = (-2f64).sin();
        assert!(iv.lo <= t && t <= iv.hi);
        assert_eq!(eval_f64(&parse_expr("log(x)", &l).unwrap(), &to_float_env(&env)), None);
    }
}
