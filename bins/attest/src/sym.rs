//! `attest sym ...`: the symbolic tools at a terminal.
//!
//! Each subcommand calls the same catalogue tool the `attest-symbolic` MCP server serves
//! (`attest_sym::tools`), so the answer line, caveats and refusals are the same. The
//! computation runs in this process ([`attest_sym::tools::Inline`]): the library's input
//! and work limits hold, but there is no separate worker, wall-clock timeout or memory
//! cap (the user's own terminal, where Ctrl-C works).
//!
//! Exit codes: 0 for an answer (and, for `verify`/`check`, a proof); 1 for a refusal
//! or a refuted claim; 3 for `unknown`; 2 for usage errors.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use attest_core::Answer;
use attest_core::catalogue::JsonObject;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::print;

/// `attest sym <command>`.
#[derive(Debug, Subcommand)]
pub enum SymCommand {
    /// Is an identity true? Proved, proved where defined, refuted or unknown.
    ///
    /// `attest sym verify "(a+b)^2" "a^2+2ab+b^2"`, or one equation:
    /// `attest sym verify "sin(2t) = 2 sin(t) cos(t)"`. Exit 0 proved, 1 refuted, 3
    /// unknown.
    Verify {
        /// The left side, or the whole equation `lhs = rhs`.
        lhs: String,
        /// The right side.
        rhs: Option<String>,
    },
    /// Check a derivation, one step per line, from a file or stdin.
    ///
    /// Exit 0 when every step holds, 1 when one is refuted, 3 when some are unknown.
    Check {
        /// The file holding the steps (default: stdin).
        file: Option<PathBuf>,
    },
    /// Simplify an expression, and factor it over the rationals.
    ///
    /// `attest sym simplify "(x^2-1)/(x-1)"`, `attest sym simplify "x^4 + 4"`.
    Simplify {
        /// The expression.
        expr: String,
    },
    /// Solve an equation.
    ///
    /// `attest sym solve "x^2 - 5x + 6 = 0"`.
    Solve {
        /// The equation (an expression alone is solved `= 0`).
        expr: String,
        /// The unknown (default: the only variable).
        #[arg(long)]
        var: Option<String>,
        /// Only roots from here (with --to); a non-polynomial equation is scanned over the range.
        #[arg(long, requires = "to", allow_hyphen_values = true)]
        from: Option<String>,
        /// Only roots up to here (with --from).
        #[arg(long, requires = "from", allow_hyphen_values = true)]
        to: Option<String>,
    },
    /// Differentiate.
    ///
    /// `attest sym diff "x^2 sin(x)" --order 2`.
    #[command(alias = "differentiate")]
    Diff {
        /// The expression.
        expr: String,
        /// The variable (default: the only variable).
        #[arg(long)]
        var: Option<String>,
        /// The order, 1 to 20.
        #[arg(long, default_value_t = 1)]
        order: u32,
    },
    /// Integrate, indefinitely or over bounds.
    ///
    /// `attest sym integrate "x e^x"`, or definite: `attest sym integrate "sin(x)" --from 0 --to pi`.
    Integrate {
        /// The integrand.
        expr: String,
        /// The variable of integration (default: the only variable).
        #[arg(long)]
        var: Option<String>,
        /// The lower bound (with --to).
        #[arg(long, requires = "to", allow_hyphen_values = true)]
        from: Option<String>,
        /// The upper bound (with --from).
        #[arg(long, requires = "from", allow_hyphen_values = true)]
        to: Option<String>,
    },
    /// Show the steps of a derivative, an integral or a simplification.
    ///
    /// `attest sym steps "x^2 sin(x)" --op differentiate`.
    #[command(alias = "derivation")]
    Steps {
        /// The expression.
        expr: String,
        /// What to show the steps of.
        #[arg(long, value_enum, default_value_t = Op::Differentiate)]
        op: Op,
        /// The variable (default: the only variable).
        #[arg(long)]
        var: Option<String>,
    },
    /// Evaluate to a number, with values for the variables.
    ///
    /// `attest sym eval "sin(x)^2" --at x=pi/4`.
    #[command(alias = "evaluate")]
    Eval {
        /// The expression.
        expr: String,
        /// A value for a variable, `name=value`; repeat for each variable.
        #[arg(long = "at", value_name = "NAME=VALUE", allow_hyphen_values = true)]
        at: Vec<String>,
    },
    /// A limit, two-sided or one-sided, at a point or at ±oo.
    ///
    /// `attest sym limit "sin(x)/x" --to 0`, `attest sym limit "1/x" --to 0 --dir right`, or
    /// LaTeX: `attest sym limit '\lim_{x\to\infty} (1+1/x)^x'`. "Does not exist" is an
    /// answer (exit 0); exit 3 for unknown.
    Limit {
        /// The expression, or a whole `\lim_{x \to a} …`.
        expr: String,
        /// The point approached: a number, a constant, `oo` or `-oo`.
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// `left`, `right` or `both`.
        #[arg(long = "dir")]
        direction: Option<String>,
        /// The variable (default: the only variable).
        #[arg(long)]
        var: Option<String>,
    },
    /// A Taylor (or Laurent) series to order n about a point.
    ///
    /// `attest sym series "cos(x)" --order 6`, `attest sym series "sqrt(x)" --about 1`.
    Series {
        /// The expression.
        expr: String,
        /// The point expanded about (default 0).
        #[arg(long, allow_hyphen_values = true)]
        about: Option<String>,
        /// The order n: terms below (x - a)^n, remainder O((x - a)^n).
        #[arg(long)]
        order: Option<i64>,
        /// The variable (default: the only variable).
        #[arg(long)]
        var: Option<String>,
    },
    /// A finite sum in closed form, or a series' value or convergence.
    ///
    /// `attest sym sum "k^3" --to n`, `attest sym sum "1/k^2" --to oo`, or
    /// `attest sym sum '\sum_{k=1}^{n} k^2'`.
    Sum {
        /// The summand, or a whole `\sum_{k=a}^{b} …`.
        expr: String,
        /// The lower bound (default 1).
        #[arg(long, allow_hyphen_values = true)]
        from: Option<String>,
        /// The upper bound: an integer, an expression (`n`) or `oo`.
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// The index (default: the summand's variable).
        #[arg(long)]
        var: Option<String>,
    },
    /// Determinant, inverse, rank, transpose, product, eigenvalues and eigenvectors; entries may be symbols.
    ///
    /// `attest sym matrix "[[2, 1], [1, 1]]" --op inverse`; a product takes both:
    /// `attest sym matrix "[[1,2],[3,4]] * [[0,1],[1,0]]" --op product`.
    Matrix {
        /// The matrix (or matrices), `[[…], […]]` or LaTeX `pmatrix`/`bmatrix`.
        expr: String,
        /// determinant, inverse, rank, transpose, product, eigenvalues or summary.
        #[arg(long = "op")]
        operation: Option<String>,
    },
    /// Convert a quantity with units.
    ///
    /// `attest sym units "3.2 eV in joules"`.
    Units {
        /// The quantity and the target unit.
        text: String,
    },
    /// Ask in plain words; the router picks the tool.
    ///
    /// `attest sym ask "is sin(x)^2 + cos(x)^2 equal to 1?"`.
    Ask {
        /// The question.
        question: String,
        /// The expression, when it is not in the question.
        #[arg(long)]
        expr: Option<String>,
    },
}

/// What `attest sym steps` shows.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Op {
    /// The derivative.
    Differentiate,
    /// The antiderivative.
    Integrate,
    /// The simplification.
    Simplify,
}

/// Run one `attest sym` subcommand: print the answer (or, with `json`, the whole
/// [`Answer`]) and return the exit code.
pub async fn run(command: SymCommand, json: bool) -> anyhow::Result<ExitCode> {
    let (tool, args) = match request(command) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("attest: {e:#}");
            return Ok(ExitCode::from(2));
        }
    };
    let catalogue =
        attest_sym::tools::catalogue(Arc::new(attest_sym::tools::Inline)).with_budget(attest_core::Budget::Whole);
    let args: JsonObject = args.as_object().cloned().unwrap_or_default();
    let answer = catalogue.call(tool, args).await.map_err(|f| anyhow::anyhow!("{f}"))?;
    if json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&answer)?)?;
    } else {
        print::answer(&mut anstream::stdout().lock(), &answer)?;
    }
    Ok(exit_code(&answer))
}

/// The tool and its arguments for a subcommand.
fn request(command: SymCommand) -> anyhow::Result<(&'static str, Value)> {
    Ok(match command {
        SymCommand::Verify { lhs, rhs: Some(rhs) } => ("sym.verify", json!({ "lhs": lhs, "rhs": rhs })),
        SymCommand::Verify { lhs, rhs: None } => ("sym.verify", json!({ "equation": lhs })),
        SymCommand::Check { file } => {
            let mut text = String::new();
            match file.filter(|f| f.as_os_str() != "-") {
                Some(f) => {
                    text = std::fs::read_to_string(&f).with_context(|| format!("cannot read {}", f.display()))?
                }
                None => {
                    std::io::stdin().read_to_string(&mut text).context("cannot read the derivation from stdin")?;
                }
            }
            ("sym.check", json!({ "lines": text }))
        }
        SymCommand::Simplify { expr } => ("sym.simplify", json!({ "expr": expr })),
        SymCommand::Solve { expr, var, from, to } => {
            let range = from.zip(to).map(|(a, b)| json!([a, b]));
            ("sym.solve", json!({ "expr": expr, "var": var, "range": range }))
        }
        SymCommand::Diff { expr, var, order } => {
            ("sym.differentiate", json!({ "expr": expr, "var": var, "order": order }))
        }
        SymCommand::Integrate { expr, var, from, to } => {
            let bounds = from.zip(to).map(|(a, b)| json!([a, b]));
            ("sym.integrate", json!({ "expr": expr, "var": var, "bounds": bounds }))
        }
        SymCommand::Steps { expr, op, var } => {
            let op = match op {
                Op::Differentiate => "differentiate",
                Op::Integrate => "integrate",
                Op::Simplify => "simplify",
            };
            ("sym.derivation", json!({ "expr": expr, "operation": op, "var": var }))
        }
        SymCommand::Eval { expr, at } => {
            let mut subs = BTreeMap::new();
            for pair in &at {
                let Some((k, v)) = pair.split_once('=') else {
                    bail!("--at '{pair}' should be name=value, e.g. --at x=pi/4");
                };
                subs.insert(k.trim().to_string(), v.trim().to_string());
            }
            ("sym.evaluate", json!({ "expr": expr, "subs": subs }))
        }
        SymCommand::Units { text } => ("sym.evaluate", json!({ "units": text })),
        SymCommand::Limit { expr, to, direction, var } => {
            ("sym.limit", json!({ "expr": expr, "to": to, "direction": direction, "var": var }))
        }
        SymCommand::Series { expr, about, order, var } => {
            ("sym.series", json!({ "expr": expr, "about": about, "order": order, "var": var }))
        }
        SymCommand::Sum { expr, from, to, var } => {
            ("sym.sum", json!({ "expr": expr, "lower": from, "upper": to, "var": var }))
        }
        SymCommand::Matrix { expr, operation } => ("sym.matrix", json!({ "expr": expr, "operation": operation })),
        SymCommand::Ask { question, expr } => {
            ("sym.ask", json!({ "question": question, "expr": expr.unwrap_or_default() }))
        }
    })
}

/// 0 for an answer or a proof, 1 for a refusal or a refutation, 3 for unknown.
fn exit_code(answer: &Answer<Value>) -> ExitCode {
    if !answer.ok {
        return ExitCode::FAILURE;
    }
    let data = answer.data.as_ref().unwrap_or(&Value::Null);
    let verdict = data.get("verdict").and_then(Value::as_str);
    let refuted = verdict == Some("refuted") || data.get("first_refuted").is_some_and(|r| !r.is_null());
    let unknown =
        verdict == Some("unknown") || data.get("unknown_steps").and_then(Value::as_u64).is_some_and(|n| n > 0);
    if refuted {
        ExitCode::FAILURE
    } else if unknown {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        command: SymCommand,
    }

    fn parse(args: &[&str]) -> (&'static str, Value) {
        let cli = Cli::try_parse_from(std::iter::once("sym").chain(args.iter().copied())).unwrap();
        request(cli.command).unwrap()
    }

    #[test]
    fn subcommands_map_to_tools() {
        assert_eq!(
            parse(&["verify", "(a+b)^2", "a^2+2ab+b^2"]),
            ("sym.verify", json!({"lhs": "(a+b)^2", "rhs": "a^2+2ab+b^2"}))
        );
        assert_eq!(parse(&["verify", "x = x"]).1, json!({"equation": "x = x"}));
        assert_eq!(parse(&["integrate", "x", "--from", "-1", "--to", "2"]).1["bounds"], json!(["-1", "2"]));
        assert_eq!(parse(&["diff", "x^3", "--order", "2"]).1["order"], 2);
        assert_eq!(parse(&["eval", "x y", "--at", "x=2", "--at", "y=-1"]).1["subs"], json!({"x": "2", "y": "-1"}));
        assert_eq!(parse(&["units", "60 mph to km/h"]), ("sym.evaluate", json!({"units": "60 mph to km/h"})));
        assert_eq!(parse(&["steps", "x e^x", "--op", "integrate"]).1["operation"], "integrate");
    }

    #[test]
    fn exit_codes_follow_the_verdict() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let run = |args: &[&str]| {
            let (tool, args) = parse(args);
            let c = attest_sym::tools::catalogue(Arc::new(attest_sym::tools::Inline));
            rt.block_on(c.call(tool, args.as_object().cloned().unwrap())).unwrap()
        };
        assert_eq!(exit_code(&run(&["verify", "(a+b)^2", "a^2+2ab+b^2"])), ExitCode::SUCCESS);
        assert_eq!(exit_code(&run(&["verify", "sqrt(x^2) = x"])), ExitCode::FAILURE);
        assert_eq!(exit_code(&run(&["verify", "atan(x) = asin(x/sqrt(1+x^2))"])), ExitCode::from(3));
        assert_eq!(exit_code(&run(&["simplify", "x + * 2"])), ExitCode::FAILURE);
    }
}
