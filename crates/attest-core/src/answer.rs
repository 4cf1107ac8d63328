//! The one result shape every attest tool returns.
//!
//! A tool never invents a second shape for failure: a refusal is the same [`Answer`]
//! with `ok: false`, an actionable `answer` line and no `data`, so one output schema
//! covers both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::next::Next;

/// Something the answer rests on that the reader can follow up: an id, and a url when
/// there is one (`file://` for artifacts on disk, `https://` for papers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ref {
    /// A stable identifier, e.g. `run:speech-distill/kdsweep_t4` or `item:4043`.
    pub id: String,
    /// Where it lives. Show the url to the reader as a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Ref {
    /// A reference with an id and no url.
    pub fn id(id: impl Into<String>) -> Self {
        Ref { id: id.into(), url: None }
    }

    /// A reference with an id and a url.
    pub fn with_url(id: impl Into<String>, url: impl Into<String>) -> Self {
        Ref { id: id.into(), url: Some(url.into()) }
    }

    /// A reference to a file on disk, as a `file://` url.
    pub fn file(id: impl Into<String>, path: &std::path::Path) -> Self {
        Ref { id: id.into(), url: Some(format!("file://{}", path.display())) }
    }
}

/// What every tool answers with.
///
/// `answer` is one or two lines meant to be shown verbatim; `caveat` carries every
/// reason not to trust the answer and must be passed on whole; `data` holds the
/// tool-specific detail and is absent when `ok` is false.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Answer<T = serde_json::Value> {
    /// Whether the tool did what was asked. `false` for refusals, questions back and
    /// bad input; the `answer` then says what to do.
    pub ok: bool,
    /// One or two lines. Render verbatim; do not reformat.
    pub answer: String,
    /// Ids to follow up. Show the url as a link when there is one.
    #[serde(default)]
    pub refs: Vec<Ref>,
    /// Reasons not to trust the answer. Relay it whole; never drop or paraphrase it.
    #[serde(default)]
    pub caveat: Option<String>,
    /// Tools to choose between, when the answer is a question back.
    #[serde(default)]
    pub options: Vec<String>,
    /// Which tool answered.
    #[serde(default)]
    pub tool_used: Option<String>,
    /// The tool-specific detail behind the answer; absent when `ok` is false.
    #[serde(default)]
    pub data: Option<T>,
    /// The step a refusal offers, as data, so each audience can word it (the text
    /// holds the agent's wording). Never sent: see [`crate::next`].
    #[serde(skip)]
    #[schemars(skip)]
    pub next: Option<Next>,
}

impl<T> Answer<T> {
    /// A successful answer with its detail.
    pub fn ok(answer: impl Into<String>, data: T) -> Self {
        Answer {
            ok: true,
            answer: answer.into(),
            refs: Vec::new(),
            caveat: None,
            options: Vec::new(),
            tool_used: None,
            data: Some(data),
            next: None,
        }
    }

    /// A refusal or routine failure: `answer` must say what to do next.
    pub fn refuse(answer: impl Into<String>) -> Self {
        Answer {
            ok: false,
            answer: answer.into(),
            refs: Vec::new(),
            caveat: None,
            options: Vec::new(),
            tool_used: None,
            data: None,
            next: None,
        }
    }

    /// A question back, with the tools the caller can choose between.
    pub fn ask_back(question: impl Into<String>, options: Vec<String>) -> Self {
        Answer { options, ..Answer::refuse(question) }
    }

    /// Attach references.
    pub fn with_refs(mut self, refs: Vec<Ref>) -> Self {
        self.refs = refs;
        self
    }

    /// Attach caveats, joined with `"; "`. An empty list leaves `caveat` empty.
    pub fn with_caveats<I, S>(mut self, caveats: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut parts: Vec<String> = self.caveat.take().into_iter().collect();
        parts.extend(caveats.into_iter().map(|s| s.as_ref().to_string()).filter(|s| !s.is_empty()));
        self.caveat = if parts.is_empty() { None } else { Some(parts.join("; ")) };
        self
    }

    /// Attach options.
    pub fn with_options(mut self, options: Vec<String>) -> Self {
        self.options = options;
        self
    }

    /// Keep the step the answer line offers (written there with [`Next::for_agent`])
    /// as data, so another audience can word it its own way.
    pub fn with_next(mut self, next: Next) -> Self {
        self.next = Some(next);
        self
    }

    /// Say which tool answered.
    pub fn used(mut self, tool: impl Into<String>) -> Self {
        self.tool_used = Some(tool.into());
        self
    }

    /// The text a client shows: the answer line, then the caveat on its own line.
    pub fn render_text(&self) -> String {
        match &self.caveat {
            Some(c) if !c.is_empty() => format!("{}\nCaveat: {}", self.answer, c),
            _ => self.answer.clone(),
        }
    }

    /// Replace the detail with another type, keeping every other field.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Answer<U> {
        Answer {
            ok: self.ok,
            answer: self.answer,
            refs: self.refs,
            caveat: self.caveat,
            options: self.options,
            tool_used: self.tool_used,
            data: self.data.map(f),
            next: self.next,
        }
    }
}

impl<T: Serialize> Answer<T> {
    /// Erase the detail's type, for dispatch through a catalogue.
    pub fn into_value(self) -> Answer<serde_json::Value> {
        self.map(|d| serde_json::to_value(d).unwrap_or(serde_json::Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_has_the_same_keys_as_success() {
        let ok = serde_json::to_value(Answer::ok("fine", 3)).unwrap();
        let no = serde_json::to_value(Answer::<i32>::refuse("no")).unwrap();
        let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&ok), keys(&no));
        assert_eq!(no["data"], serde_json::Value::Null);
    }

    #[test]
    fn caveats_join_and_text_carries_them() {
        let a = Answer::ok("winner: a", ()).with_caveats(["small n", "", "single run"]);
        assert_eq!(a.caveat.as_deref(), Some("small n; single run"));
        assert_eq!(a.render_text(), "winner: a\nCaveat: small n; single run");
        let b = Answer::ok("x", ()).with_caveats(Vec::<String>::new());
        assert_eq!(b.caveat, None);
    }
}
