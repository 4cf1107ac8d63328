//! Claims: the numbers in a draft, tied to the run that produced them.
//!
//! A **claim** is an annotation written next to a number in a paper, invisible when the
//! paper is rendered, that says which run and metric the number comes from:
//!
//! ```text
//! Markdown, Quarto, R Markdown, notebook Markdown cells:
//!   The distilled model reaches a WER of 0.0719 <!-- claim: asr-distill/kdalpha_50 metric=wer value=0.0719 -->
//! LaTeX:
//!   The distilled model reaches a WER of 0.0719. % claim: asr-distill/kdalpha_50 metric=wer value=0.0719
//! ```
//!
//! The body is the same in every format: `project/run` first (a trailing `*` selects
//! runs by prefix), then `key=value` fields ([`KEYS`]): `metric=` and `value=` are
//! required; `tol=`, `split=`, `step=`, `as_of=` and `cite=` are optional. An
//! annotation that cannot be read is [`Malformed`], reported with its line and what to
//! fix, never dropped. Claims in code (fenced blocks, inline code, LaTeX verbatim) are
//! examples and are not read.
//!
//! Formats ([`Format`]): Markdown (`.md`, `.markdown`), Quarto (`.qmd`) and R Markdown
//! (`.Rmd`) use the HTML comment; LaTeX (`.tex`) the `%` comment; Jupyter notebooks
//! (`.ipynb`) the HTML comment in Markdown cells. A claim's line is always the source
//! file's (a notebook's claims also say their [`Cell`]).
//!
//! This crate is the pure part, shared by the claim checker (`attest-runs`, which gives
//! each claim a verdict against the run ledger) and the citation lint (`attest-cite`,
//! which reads `cite=` keys with [`cite_key`]): the grammar ([`claim_of`], [`parse`],
//! [`parse_as`]), where each format keeps its claims ([`annotations`], and the modules
//! [`markdown`], [`latex`], [`notebook`], which also say what of a text is code or is
//! not prose) and how drafts are found and read ([`drafts`], [`read_draft`],
//! [`read_claims`]), and [`confine`]: the one check, shared with the ledger and the
//! citation tools, that a path a tool is given resolves inside the research root. It
//! reads files but depends on no database, network or protocol crate.
//!
//! The syntax, line numbers per format and the coverage rules are in `specs/claims.md`.

#![warn(missing_docs)]

pub mod confine;
mod drafts;
mod grammar;
pub mod latex;
pub mod markdown;
pub mod notebook;

use std::path::Path;

pub use drafts::{Found, MAX_DRAFT_BYTES, SKIPPED_DIRS, Skipped, drafts, label, read_claims, read_draft};
pub use grammar::{
    Cell, Claim, DEFAULT_TOL, EXAMPLE, KEYS, LATEX_EXAMPLE, Malformed, Parsed, cite_key, claim_of, parse_number,
};

/// How a draft is written, which decides where its claims are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Markdown (`.md`, `.markdown`), Quarto (`.qmd`) and R Markdown (`.Rmd`):
    /// `<!-- claim: … -->` comments.
    Markdown,
    /// LaTeX (`.tex`): `% claim: …` comments.
    Latex,
    /// Jupyter (`.ipynb`): Markdown claims in Markdown cells.
    Notebook,
}

impl Format {
    /// The format of a file by its extension (any case); `None` when it is not a
    /// draft format (a directory walk reads only these).
    pub fn of(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "md" | "markdown" | "qmd" | "rmd" => Some(Format::Markdown),
            "tex" => Some(Format::Latex),
            "ipynb" => Some(Format::Notebook),
            _ => None,
        }
    }

    /// [`Format::of`], reading any other file named explicitly as Markdown.
    pub fn of_or_markdown(path: &Path) -> Format {
        Format::of(path).unwrap_or(Format::Markdown)
    }

    /// Its name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "Markdown",
            Format::Latex => "LaTeX",
            Format::Notebook => "Jupyter notebook",
        }
    }
}

/// One claim annotation as found, before its fields are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The source file's line it opens on, from 1.
    pub line: usize,
    /// In a notebook, the cell and the line within it.
    pub cell: Option<Cell>,
    /// The body (what follows `claim:`, without a closing `-->`), or, for an
    /// annotation that never closes, what is wrong.
    pub body: Result<String, String>,
}

/// The claim annotations of a text in a format. `Err` only for a notebook that is not
/// nbformat 4 JSON, saying why.
pub fn annotations(format: Format, text: &str) -> Result<Vec<Annotation>, String> {
    Ok(match format {
        Format::Markdown => markdown::annotations(text, &|l| l),
        Format::Latex => latex::annotations(text),
        Format::Notebook => notebook::annotations(text)?,
    })
}

/// Read every claim of a text in a format. `file` is how the text is named in claims
/// and problems. `Err` only for a notebook that cannot be read, saying why.
pub fn parse_as(format: Format, text: &str, file: &str) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    for a in annotations(format, text)? {
        let read = a.body.and_then(|body| claim_of(&body, file, a.line));
        // Say how to write it in the draft's own syntax.
        let read = match format {
            Format::Latex => read.map_err(|p| p.replace(EXAMPLE, LATEX_EXAMPLE)),
            _ => read,
        };
        match read {
            Ok(mut claim) => {
                claim.cell = a.cell;
                out.claims.push(claim);
            }
            Err(problem) => out.malformed.push(Malformed { file: file.into(), line: a.line, cell: a.cell, problem }),
        }
    }
    Ok(out)
}

/// Read every claim comment of a Markdown text (see [`markdown::annotations`]).
pub fn parse(text: &str, file: &str) -> Parsed {
    parse_as(Format::Markdown, text, file).unwrap_or_default()
}

/// Counts lines incrementally, for many ascending offsets into one text.
#[derive(Debug, Clone)]
pub struct Lines<'t> {
    text: &'t str,
    at: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    /// A counter at the start of `text`.
    pub fn new(text: &'t str) -> Self {
        Lines { text, at: 0, line: 1 }
    }

    /// The 1-based line of byte offset `pos`; cheapest when positions do not decrease
    /// between calls.
    pub fn of(&mut self, pos: usize) -> usize {
        if pos < self.at {
            self.at = 0;
            self.line = 1;
        }
        let pos = pos.min(self.text.len());
        self.line += self.text.as_bytes()[self.at..pos].iter().filter(|&&b| b == b'\n').count();
        self.at = pos;
        self.line
    }
}
