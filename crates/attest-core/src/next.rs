//! The step a refusal offers, written once and rendered for each audience.
//!
//! "Call runs.record again with confirm=true to write them" is right for an agent and
//! wrong for a person at a terminal, whose flag is `--yes`. So a refusal that offers a
//! next step names it as data, a [`Next`] (a tool and its arguments), and its text
//! holds the agent's rendering of that step ([`Next::for_agent`]). An answer carries
//! the step in [`Answer::next`](crate::Answer::next) (never serialized: the wire shape
//! is unchanged); a surface that speaks to someone else (the command line) replaces
//! the agent's rendering in the text with its own ([`Next::render_in`]), from one table
//! of its commands and flags.

use serde_json::Value;

/// A tool to call next, with the arguments that matter.
#[derive(Debug, Clone, PartialEq)]
pub struct Next {
    /// The tool, e.g. `runs.record`.
    pub tool: String,
    /// Its arguments in order; a `null` value is a placeholder the caller fills in
    /// (`feed.persona_create(name, interests)`).
    pub args: Vec<(String, Value)>,
    /// The same call again (with the arguments changed), rather than a new one.
    pub again: bool,
}

impl Next {
    /// A call of `tool`.
    pub fn call(tool: impl Into<String>) -> Next {
        Next { tool: tool.into(), args: Vec::new(), again: false }
    }

    /// The same call of `tool` again, with the arguments given next.
    pub fn again(tool: impl Into<String>) -> Next {
        Next { again: true, ..Next::call(tool) }
    }

    /// An argument with its value.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Value>) -> Next {
        self.args.push((name.into(), value.into()));
        self
    }

    /// An argument the caller supplies (rendered by its name).
    pub fn blank(mut self, name: impl Into<String>) -> Next {
        self.args.push((name.into(), Value::Null));
        self
    }

    /// The step as an agent reads it: `runs.record again with confirm=true`,
    /// `runs.scan with confirm=true`, `feed.persona_create(name, interests)`,
    /// `runs.list`.
    pub fn for_agent(&self) -> String {
        self.render(&self.tool)
    }

    /// The step with the tool spelled `name` (a server that serves `runs_record`).
    pub fn render(&self, name: &str) -> String {
        let again = if self.again { " again" } else { "" };
        if !self.args.is_empty() && self.args.iter().all(|(_, v)| v.is_null()) {
            let names: Vec<&str> = self.args.iter().map(|(k, _)| k.as_str()).collect();
            return format!("{name}{again}({})", names.join(", "));
        }
        let given: Vec<String> = self
            .args
            .iter()
            .map(|(k, v)| match v {
                Value::Null => k.clone(),
                Value::String(s) => format!("{k}={s}"),
                v => format!("{k}={v}"),
            })
            .collect();
        if given.is_empty() { format!("{name}{again}") } else { format!("{name}{again} with {}", given.join(" and ")) }
    }

    /// `text` with this step's agent rendering replaced by `other` (its first
    /// occurrence); `None` when the text does not hold it (a message cut short).
    pub fn render_in(&self, text: &str, other: &str) -> Option<String> {
        let agent = self.for_agent();
        text.find(&agent).map(|at| format!("{}{other}{}", &text[..at], &text[at + agent.len()..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_agent_reads_tool_names_and_arguments() {
        assert_eq!(Next::again("runs.record").with("confirm", true).for_agent(), "runs.record again with confirm=true");
        assert_eq!(Next::call("runs.scan").with("confirm", true).for_agent(), "runs.scan with confirm=true");
        assert_eq!(
            Next::call("feed.persona_create").blank("name").blank("interests").for_agent(),
            "feed.persona_create(name, interests)"
        );
        assert_eq!(Next::call("runs.list").for_agent(), "runs.list");
        assert_eq!(
            Next::call("runs.compare").with("family", "kdalpha").render("runs_compare"),
            "runs_compare with family=kdalpha"
        );
    }

    #[test]
    fn another_audience_replaces_the_step_in_place() {
        let n = Next::again("runs.record").with("confirm", true);
        let text = format!("would write 2 new files. Call {} to write them.", n.for_agent());
        assert_eq!(
            n.render_in(&text, "the same command with --yes").as_deref(),
            Some("would write 2 new files. Call the same command with --yes to write them.")
        );
        assert_eq!(n.render_in("cut sh…", "x"), None);
    }
}
