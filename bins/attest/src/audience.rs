//! Answers worded for a person at a terminal.
//!
//! The tools word their next steps for an agent ("Call runs.record again with
//! confirm=true"). A refusal that offers a step carries it as data
//! ([`attest_core::Next`]); this module words it as the command and flags a person
//! types ("Run the same command with --yes"), from one table: [`COMMANDS`], tool →
//! command, argument → flag. Tool names the text mentions without a structured step
//! (`feed.source_add(url)`, `feed.search`) are replaced by their commands from the same
//! table, and a question back's options become commands too.

use attest_core::{Answer, Next};
use serde_json::Value;

/// How a tool's argument is given on the command line.
#[derive(Clone, Copy)]
enum Flag {
    /// `--name VALUE` (or a switch, for `true`).
    Long(&'static str),
    /// A positional argument, shown as its placeholder when not given.
    Positional(&'static str),
    /// Implied by the command (`runs.scan`'s `confirm`): not written.
    Implied,
}

/// A tool and the command a person types for it.
struct Command {
    tool: &'static str,
    /// The command with its placeholders, e.g. `attest feed add URL`.
    usage: &'static str,
    /// How each argument is given.
    args: &'static [(&'static str, Flag)],
}

use Flag::{Implied, Long, Positional};

/// Every tool a person reaches from the command line, with its command and flags.
const COMMANDS: &[Command] = &[
    Command {
        tool: "runs.scan",
        usage: "attest runs scan",
        args: &[("confirm", Implied), ("project", Long("--project"))],
    },
    Command {
        tool: "runs.list",
        usage: "attest runs list",
        args: &[("project", Long("--project")), ("family", Long("--family")), ("limit", Long("--limit"))],
    },
    Command {
        tool: "runs.compare",
        usage: "attest runs compare FAMILY",
        args: &[("family", Positional("FAMILY")), ("metric", Long("--metric")), ("project", Long("--project"))],
    },
    Command {
        tool: "runs.detail",
        usage: "attest runs show NAME",
        args: &[("name", Positional("NAME")), ("project", Long("--project"))],
    },
    Command {
        tool: "runs.record",
        usage: "attest runs record FAMILY --project PROJECT --arm NAME:metric=value",
        args: &[("confirm", Long("--yes")), ("family", Positional("FAMILY")), ("project", Long("--project"))],
    },
    Command {
        tool: "runs.claims_check",
        usage: "attest claims PATH",
        args: &[("path", Positional("PATH")), ("verdict", Long("--verdict"))],
    },
    Command {
        tool: "runs.claims_coverage",
        usage: "attest claims PATH --coverage",
        args: &[("path", Positional("PATH"))],
    },
    Command {
        tool: "feed.list",
        usage: "attest feed list",
        args: &[("user", Long("--user")), ("limit", Long("--limit")), ("days", Long("--days"))],
    },
    Command {
        tool: "feed.search",
        usage: "attest feed search QUERY",
        args: &[
            ("query", Positional("QUERY")),
            ("user", Long("--user")),
            ("tag", Long("--tag")),
            ("since", Long("--since")),
        ],
    },
    Command { tool: "feed.read", usage: "attest feed read ITEM", args: &[("item_id", Positional("ITEM"))] },
    Command { tool: "feed.rate", usage: "attest feed rate ITEM", args: &[("item_id", Positional("ITEM"))] },
    Command { tool: "feed.explain", usage: "attest feed explain ITEM", args: &[("item_id", Positional("ITEM"))] },
    Command { tool: "feed.digest", usage: "attest feed digest", args: &[("days", Long("--days"))] },
    Command { tool: "feed.sources", usage: "attest feed sources", args: &[] },
    Command { tool: "feed.source_add", usage: "attest feed add URL", args: &[("url", Positional("URL"))] },
    Command { tool: "feed.source_remove", usage: "attest feed remove FEED", args: &[("url", Positional("FEED"))] },
    Command { tool: "feed.source_preview", usage: "attest feed preview URL", args: &[("url", Positional("URL"))] },
    Command {
        tool: "feed.persona_create",
        usage: "attest feed personas create NAME \"INTERESTS\"",
        args: &[("name", Positional("NAME")), ("interests", Positional("\"INTERESTS\""))],
    },
    Command {
        tool: "feed.persona_update",
        usage: "attest feed personas update NAME \"INTERESTS\"",
        args: &[("name", Positional("NAME")), ("interests", Positional("\"INTERESTS\""))],
    },
    Command { tool: "feed.persona_status", usage: "attest feed personas status NAME", args: &[] },
    Command {
        tool: "feed.persona_reset",
        usage: "attest feed personas reset NAME",
        args: &[("confirm", Long("--yes"))],
    },
    Command {
        tool: "feed.persona_delete",
        usage: "attest feed personas delete NAME",
        args: &[("confirm", Long("--yes"))],
    },
    Command { tool: "feed.persona_suggest_interests", usage: "attest feed personas suggest", args: &[] },
    Command { tool: "cite.sync", usage: "attest cite sync", args: &[("import", Long("--import"))] },
    Command { tool: "cite.export", usage: "attest cite export", args: &[("tag", Long("--tag"))] },
    Command { tool: "sym.verify", usage: "attest sym verify LHS RHS", args: &[] },
    Command { tool: "sym.check", usage: "attest sym check FILE", args: &[] },
    Command { tool: "sym.simplify", usage: "attest sym simplify EXPR", args: &[] },
    Command { tool: "sym.solve", usage: "attest sym solve EQUATION", args: &[] },
    Command { tool: "sym.differentiate", usage: "attest sym diff EXPR", args: &[] },
    Command { tool: "sym.integrate", usage: "attest sym integrate EXPR", args: &[] },
    Command { tool: "sym.derivation", usage: "attest sym steps EXPR", args: &[] },
    Command { tool: "sym.evaluate", usage: "attest sym eval EXPR", args: &[] },
    Command { tool: "sym.limit", usage: "attest sym limit EXPR", args: &[] },
    Command { tool: "sym.series", usage: "attest sym series EXPR", args: &[] },
    Command { tool: "sym.sum", usage: "attest sym sum EXPR", args: &[] },
    Command { tool: "sym.matrix", usage: "attest sym matrix EXPR", args: &[] },
];

fn command(tool: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.tool == tool)
}

/// A flag's value as typed.
fn shell_word(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    if s.is_empty() || s.contains(|c: char| c.is_whitespace() || "\"'$`\\*?".contains(c)) {
        format!("\"{}\"", s.replace('"', "\\\""))
    } else {
        s
    }
}

/// The step as a person types it, or `None` when the tool has no command.
pub fn step(next: &Next) -> Option<String> {
    let cmd = command(&next.tool)?;
    let flags: Vec<String> = next
        .args
        .iter()
        .filter_map(|(k, v)| match cmd.args.iter().find(|(a, _)| a == k).map(|(_, f)| *f) {
            Some(Implied) => None,
            Some(Long(flag)) => Some(match v {
                Value::Bool(true) => flag.to_string(),
                Value::Null => format!("{flag} {}", k.to_uppercase()),
                v => format!("{flag} {}", shell_word(v)),
            }),
            Some(Positional(p)) => Some(if v.is_null() { p.to_string() } else { shell_word(v) }),
            None => Some(format!("--{} {}", k.replace('_', "-"), shell_word(v))),
        })
        .filter(|f| !f.is_empty())
        .collect();
    if next.again {
        return Some(if flags.is_empty() {
            "the same command again".into()
        } else {
            format!("the same command with {}", flags.join(" "))
        });
    }
    // Positional values replace the usage's placeholders in order; flags follow.
    let mut usage = cmd.usage.to_string();
    let mut rest = Vec::new();
    for ((k, v), f) in next.args.iter().zip(&flags) {
        match cmd.args.iter().find(|(a, _)| a == k).map(|(_, f)| *f) {
            Some(Positional(p)) if !v.is_null() && usage.contains(p) => usage = usage.replacen(p, f, 1),
            Some(Positional(p)) if usage.contains(p) => {}
            _ => rest.push(f.clone()),
        }
    }
    if !rest.is_empty() {
        usage = format!("{usage} {}", rest.join(" "));
    }
    Some(format!("`{usage}`"))
}

/// Whether `c` continues a tool name.
fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `text` with each mention of a tool that has a command replaced by the command
/// (`feed.source_add(url)` → `` `attest feed add URL` ``), and "call"/"use" before it
/// turned into "run".
fn mentions(text: &str) -> String {
    let mut out = text.to_string();
    for cmd in COMMANDS {
        let mut from = 0;
        while let Some(found) = out[from..].find(cmd.tool) {
            let at = from + found;
            let end = at + cmd.tool.len();
            let before_ok = out[..at].chars().next_back().is_none_or(|c| !name_char(c) && c != '.' && c != '`');
            let after = &out[end..];
            if !before_ok || after.starts_with(name_char) {
                from = end;
                continue;
            }
            let end = if after.starts_with('(') { after.find(')').map_or(end, |p| end + p + 1) } else { end };
            let usage = format!("`{}`", cmd.usage);
            out.replace_range(at..end, &usage);
            from = at + usage.len();
        }
    }
    verbs(&out)
}

/// "Call `attest …`" reads wrong for a command: "Run `attest …`".
fn verbs(text: &str) -> String {
    let mut out = text.to_string();
    for (agent, person) in [
        ("raise limit", "raise --limit"),
        ("is in refs", "is listed below"),
        ("Call `", "Run `"),
        ("call `", "run `"),
        ("Call the same", "Run the same"),
        ("call the same", "run the same"),
        ("use `", "run `"),
        ("Use `", "Run `"),
    ] {
        out = out.replace(agent, person);
    }
    out
}

/// The answer line worded for a person: its step as a command, every tool it mentions
/// as a command.
pub fn line(a: &Answer<Value>) -> String {
    let text = match &a.next {
        Some(next) => match step(next).and_then(|s| next.render_in(&a.answer, &s)) {
            Some(t) => t,
            None => a.answer.clone(),
        },
        None => a.answer.clone(),
    };
    mentions(&text)
}

/// Any text a tool wrote (a caveat), with tool names as commands.
pub fn text(s: &str) -> String {
    mentions(s)
}

/// A question back's options as commands (tools without one keep their names).
pub fn options(a: &Answer<Value>) -> Vec<String> {
    // The step the line already words is not offered twice.
    let worded = a.next.as_ref().map(|n| n.tool.as_str());
    a.options
        .iter()
        .filter(|o| Some(o.as_str()) != worded)
        .map(|o| command(o).map_or_else(|| o.clone(), |c| c.usage.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: String, next: Next) -> Answer<Value> {
        Answer::refuse(text).with_next(next)
    }

    #[test]
    fn steps_become_commands_and_flags() {
        let n = Next::again("runs.record").with("confirm", true);
        let a = refusal(format!("would write 2 new files. Call {} to write them.", n.for_agent()), n);
        assert_eq!(line(&a), "would write 2 new files. Run the same command with --yes to write them.");
        let n = Next::call("runs.scan").with("confirm", true);
        let a = refusal(format!("the ledger is empty. Call {} to read them.", n.for_agent()), n);
        assert_eq!(line(&a), "the ledger is empty. Run `attest runs scan` to read them.");
        let n = Next::call("feed.persona_create").blank("name").blank("interests");
        let a = refusal(format!("unknown reader 'bo'; create one with {}", n.for_agent()), n);
        assert_eq!(line(&a), "unknown reader 'bo'; create one with `attest feed personas create NAME \"INTERESTS\"`");
        let n = Next::call("runs.compare").with("family", "kd alpha").with("metric", "wer");
        assert_eq!(step(&n).unwrap(), "`attest runs compare \"kd alpha\" --metric wer`");
    }

    #[test]
    fn mentioned_tools_become_commands() {
        assert_eq!(
            text("the archive is empty: subscribe with feed.source_add(url), or use feed.search for older items"),
            "the archive is empty: subscribe with `attest feed add URL`, or run `attest feed search QUERY` for older items"
        );
        // Not a tool: left alone.
        assert_eq!(text("see feed.sources_x and myfeed.list"), "see feed.sources_x and myfeed.list");
    }
}
