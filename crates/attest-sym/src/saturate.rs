//! The last prover before "unknown": egg equality saturation over a small library of
//! trig/exp/log rules that the normal form cannot express, each valid wherever both
//! of its sides are defined. Deterministic (egg's `deterministic` feature, iteration
//! and node limits; the time limit is only a safety stop), with the rewrite chain as
//! the explanation.

use std::time::Duration;

use egg::{Analysis, DidMerge, EGraph, Id, PatternAst, RecExpr, Rewrite, Runner, Subst, rewrite as rw};
use num_traits::{Signed, ToPrimitive, Zero};

use crate::expr::{Expr, Func, Q};

mod lang {
    #![allow(missing_docs)]
    use super::Q;
    use egg::{Id, Symbol, define_language};

    define_language! {
        /// The expression language of the saturation stage.
        pub enum Math {
            "+" = Add([Id; 2]),
            "*" = Mul([Id; 2]),
            "^" = Pow([Id; 2]),
            "sin" = Sin(Id),
            "cos" = Cos(Id),
            "tan" = Tan(Id),
            "sec" = Sec(Id),
            "csc" = Csc(Id),
            "cot" = Cot(Id),
            "asin" = Asin(Id),
            "acos" = Acos(Id),
            "atan" = Atan(Id),
            "sinh" = Sinh(Id),
            "cosh" = Cosh(Id),
            "tanh" = Tanh(Id),
            "exp" = Exp(Id),
            "log" = Log(Id),
            "abs" = Abs(Id),
            Num(Q),
            Symbol(Symbol),
        }
    }
}

pub use lang::Math;

/// Constant folding over exact rationals; records a conflict instead of panicking if
/// two different constants are ever merged (then no proof is reported).
#[derive(Default)]
pub struct Fold {
    /// Set when two different constants were merged.
    pub conflict: bool,
}

type Graph = EGraph<Math, Fold>;

impl Analysis<Math> for Fold {
    type Data = Option<(Q, PatternAst<Math>)>;

    fn make(egraph: &mut Graph, enode: &Math, _id: Id) -> Self::Data {
        let c = |i: &Id| egraph[*i].data.as_ref().map(|d| d.0.clone());
        let (value, pattern) = match enode {
            Math::Num(n) => (n.clone(), n.to_string()),
            Math::Add([a, b]) => (c(a)? + c(b)?, format!("(+ {} {})", c(a)?, c(b)?)),
            Math::Mul([a, b]) => (c(a)? * c(b)?, format!("(* {} {})", c(a)?, c(b)?)),
            Math::Pow([a, b]) => {
                let (base, exp) = (c(a)?, c(b)?);
                let e = exp.to_integer().to_i32().filter(|e| exp.is_integer() && e.abs() <= 64)?;
                if (base.is_zero() && e < 0) || base.numer().bits() + base.denom().bits() > 256 {
                    return None;
                }
                (num_traits::Pow::pow(&base, e), format!("(^ {base} {exp})"))
            }
            _ => return None,
        };
        Some((value, pattern.parse().ok()?))
    }

    fn merge(&mut self, to: &mut Self::Data, from: Self::Data) -> DidMerge {
        match (to.as_ref(), from) {
            (None, Some(f)) => {
                *to = Some(f);
                DidMerge(true, false)
            }
            (Some(t), Some(f)) => {
                if t.0 != f.0 {
                    self.conflict = true;
                }
                DidMerge(false, true)
            }
            (Some(_), None) => DidMerge(false, true),
            (None, None) => DidMerge(false, false),
        }
    }

    fn modify(egraph: &mut Graph, id: Id) {
        if let Some((c, pattern)) = egraph[id].data.clone() {
            let Ok(leaf) = c.to_string().parse::<PatternAst<Math>>() else { return };
            egraph.union_instantiations(&pattern, &leaf, &Subst::default(), "constant folding");
        }
    }
}

fn is_integer(var: &'static str) -> impl Fn(&mut Graph, Id, &Subst) -> bool {
    let v = var.parse().expect("a pattern variable");
    move |g, _, s| g[s[v]].data.as_ref().is_some_and(|d| d.0.is_integer())
}

fn rules() -> Vec<Rewrite<Math, Fold>> {
    let mut r: Vec<Rewrite<Math, Fold>> = vec![
        rw!("commute +"; "(+ ?a ?b)" => "(+ ?b ?a)"),
        rw!("commute *"; "(* ?a ?b)" => "(* ?b ?a)"),
        rw!("associate +"; "(+ ?a (+ ?b ?c))" => "(+ (+ ?a ?b) ?c)"),
        rw!("associate *"; "(* ?a (* ?b ?c))" => "(* (* ?a ?b) ?c)"),
        rw!("a + 0 = a"; "(+ ?a 0)" => "?a"),
        rw!("a·1 = a"; "(* ?a 1)" => "?a"),
        rw!("a^1 = a"; "(^ ?a 1)" => "?a"),
        rw!("distribute"; "(* ?a (+ ?b ?c))" => "(+ (* ?a ?b) (* ?a ?c))"),
        rw!("factor"; "(+ (* ?a ?b) (* ?a ?c))" => "(* ?a (+ ?b ?c))"),
        rw!("a^b·a^c = a^(b+c)"; "(* (^ ?a ?b) (^ ?a ?c))" => "(^ ?a (+ ?b ?c))"),
        rw!("(a^b)^n = a^(b·n), n integer"; "(^ (^ ?a ?b) ?c)" => "(^ ?a (* ?b ?c))" if is_integer("?c")),
        rw!("e^a = exp a"; "(^ e ?a)" => "(exp ?a)"),
        rw!("exp(a)^n = exp(a·n)"; "(^ (exp ?a) ?n)" => "(exp (* ?a ?n))"),
        rw!("exp(log a) = a"; "(exp (log ?a))" => "?a"),
        rw!("log(exp a) = a"; "(log (exp ?a))" => "?a"),
        rw!("log(a·b) = log a + log b"; "(log (* ?a ?b))" => "(+ (log ?a) (log ?b))"),
        rw!("log(a^n) = n·log a"; "(log (^ ?a ?n))" => "(* ?n (log ?a))"),
        rw!("sin² + cos² = 1"; "(+ (^ (sin ?a) 2) (^ (cos ?a) 2))" => "1"),
        rw!("sin 2a = 2 sin a cos a"; "(sin (* 2 ?a))" => "(* 2 (* (sin ?a) (cos ?a)))"),
        rw!("tan = sin/cos"; "(tan ?a)" => "(* (sin ?a) (^ (cos ?a) -1))"),
        rw!("sin(asin a) = a"; "(sin (asin ?a))" => "?a"),
        rw!("cos(acos a) = a"; "(cos (acos ?a))" => "?a"),
        rw!("tan(atan a) = a"; "(tan (atan ?a))" => "?a"),
        rw!("asin a + acos a = π/2"; "(+ (asin ?a) (acos ?a))" => "(* pi 1/2)"),
        rw!("cos(asin a) = √(1−a²)"; "(cos (asin ?a))" => "(^ (+ 1 (* -1 (^ ?a 2))) 1/2)"),
        rw!("sin(acos a) = √(1−a²)"; "(sin (acos ?a))" => "(^ (+ 1 (* -1 (^ ?a 2))) 1/2)"),
        rw!("cos(atan a) = 1/√(1+a²)"; "(cos (atan ?a))" => "(^ (+ 1 (^ ?a 2)) -1/2)"),
        rw!("sin(atan a) = a/√(1+a²)"; "(sin (atan ?a))" => "(* ?a (^ (+ 1 (^ ?a 2)) -1/2))"),
    ];
    r.extend(rw!("exp(a+b) = exp a · exp b"; "(exp (+ ?a ?b))" <=> "(* (exp ?a) (exp ?b))"));
    r
}

fn add(e: &Expr, out: &mut RecExpr<Math>) -> Id {
    let fold = |out: &mut RecExpr<Math>, v: &[Expr], make: fn([Id; 2]) -> Math| {
        let ids: Vec<Id> = v.iter().map(|t| add(t, out)).collect();
        let mut it = ids.into_iter();
        let first = match it.next() {
            Some(id) => id,
            None => out.add(Math::Num(Q::zero())),
        };
        it.fold(first, |acc, id| out.add(make([acc, id])))
    };
    match e {
        Expr::Num(n) => out.add(Math::Num(n.clone())),
        Expr::Sym(s) => out.add(Math::Symbol(s.as_str().into())),
        Expr::Pi => out.add(Math::Symbol("pi".into())),
        Expr::E => out.add(Math::Symbol("e".into())),
        Expr::Add(v) => fold(out, v, Math::Add),
        Expr::Mul(v) if v.is_empty() => out.add(Math::Num(num_traits::One::one())),
        Expr::Mul(v) => fold(out, v, Math::Mul),
        Expr::Pow(a, b) => {
            let (x, y) = (add(a, out), add(b, out));
            out.add(Math::Pow([x, y]))
        }
        Expr::Func(f, a) => {
            let x = add(a, out);
            out.add(match f {
                Func::Sin => Math::Sin(x),
                Func::Cos => Math::Cos(x),
                Func::Tan => Math::Tan(x),
                Func::Sec => Math::Sec(x),
                Func::Csc => Math::Csc(x),
                Func::Cot => Math::Cot(x),
                Func::Asin => Math::Asin(x),
                Func::Acos => Math::Acos(x),
                Func::Atan => Math::Atan(x),
                Func::Sinh => Math::Sinh(x),
                Func::Cosh => Math::Cosh(x),
                Func::Tanh => Math::Tanh(x),
                Func::Exp => Math::Exp(x),
                Func::Log => Math::Log(x),
                Func::Abs => Math::Abs(x),
            })
        }
        Expr::Deriv(..) => out.add(Math::Symbol("unsupported".into())),
    }
}

/// The expression in egg's language.
pub fn to_rec(e: &Expr) -> RecExpr<Math> {
    let mut out = RecExpr::default();
    add(e, &mut out);
    out
}

/// Try to prove `l = r` by saturation; on success, the rewrite chain (at most 40 lines).
pub fn prove(l: &Expr, r: &Expr) -> Option<Vec<String>> {
    if l.size() + r.size() > 400 {
        return None;
    }
    let (le, re) = (to_rec(l), to_rec(r));
    let mut runner = Runner::<Math, Fold>::default()
        .with_explanations_enabled()
        .with_iter_limit(8)
        .with_node_limit(2_500)
        .with_time_limit(Duration::from_millis(200))
        .with_expr(&le)
        .with_expr(&re)
        .run(&rules());
    let (a, b) = (runner.roots[0], runner.roots[1]);
    if runner.egraph.analysis.conflict || runner.egraph.find(a) != runner.egraph.find(b) {
        return None;
    }
    let mut steps = runner.explain_equivalence(&le, &re).get_flat_strings();
    if steps.len() > 40 {
        let n = steps.len();
        steps.truncate(40);
        steps.push(format!("… {} more rewrite steps", n - 40));
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_expr;

    fn p(s: &str) -> Expr {
        parse_expr(s, &crate::Limits::default()).unwrap()
    }

    #[test]
    fn proves_what_the_normal_form_cannot() {
        assert!(prove(&p("exp(x/2)^2"), &p("exp(x)")).is_some());
        assert!(prove(&p("cos(asin(x))"), &p("sqrt(1 - x^2)")).is_some());
        assert!(prove(&p("sin(x)"), &p("cos(x)")).is_none());
    }
}
