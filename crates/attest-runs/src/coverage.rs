//! Claim coverage: the decimals written in a draft's prose that no claim backs.
//!
//! A number is covered when some well-formed claim in the same file has the same
//! value (within the claim's `tol=`, at least 1e-9), wherever in the file that claim
//! is. Integers never count (section numbers, layer counts, sample sizes written
//! bare), and neither does anything that is not prose: HTML comments (the claims
//! themselves), fenced and inline code, YAML front matter, URLs, semantic versions and
//! ISO dates. `2,400` counts (as 2400) and so does a Unicode minus.
//!
//! LaTeX sources are masked by [`attest_claims::latex::non_prose`] (comments,
//! verbatim, the preamble, formulas, labels, references, citations, lengths, headings,
//! `Section 3.2`-style numbers); notebooks by the Markdown rules, cell by cell, over
//! their Markdown cells only. Lines are the source file's (a notebook's: the `.ipynb`
//! file's, with the cell beside).

use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use attest_claims::{Cell, Claim, Format, Skipped, latex, markdown, notebook};

use crate::LedgerError;
use crate::claims;

/// One decimal in the prose that no claim covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Uncovered {
    /// The draft.
    pub file: String,
    /// The line the number is on (in a notebook, the `.ipynb` file's line).
    pub line: usize,
    /// In a notebook, the cell and the line within it; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
    /// The number's value (`1,000` is 1000).
    pub value: f64,
    /// The number as written.
    pub written: String,
    /// The start of its line, trimmed, at most 120 characters.
    pub context: String,
}

/// The coverage of the drafts under a path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Coverage {
    /// Decimals found in the prose.
    pub numbers: usize,
    /// How many of them a claim in the same file covers.
    pub covered: usize,
    /// The rest, by file and line.
    pub uncovered: Vec<Uncovered>,
    /// How many drafts were read.
    pub files: usize,
    /// Drafts found but not read, and why.
    pub skipped: Vec<Skipped>,
}

impl Coverage {
    /// `12/21 numbers covered by a claim across 1 file`.
    pub fn summary(&self) -> String {
        format!(
            "{}/{} covered by a claim across {}",
            self.covered,
            attest_core::text::plural(self.numbers, "number", "numbers"),
            attest_core::text::plural(self.files, "file", "files")
        )
    }
}

static SEMVER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bv?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.\-]+)?").expect("valid regex"));
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:https?|ftp|file)://\S+|\bwww\.\S+").expect("valid regex"));
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?").expect("valid regex"));
static GROUPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-\u{2212}]?\d{1,3}(?:,\d{3})+(?:\.\d+)?").expect("valid regex"));
static DECIMAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[-\u{2212}]?\d+\.\d+(?:[eE][+-]?\d+)?").expect("valid regex"));

fn blank(text: &str, masks: impl IntoIterator<Item = Range<usize>>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for r in masks {
        bytes[r].fill(b' ');
    }
    // Every masked range starts and ends on a character boundary, so this is UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

fn shared_masks(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    [&*URL, &*SEMVER, &*DATE].into_iter().flat_map(move |re| re.find_iter(text).map(|m| m.range()))
}

/// The Markdown text with everything that is not prose replaced by spaces, byte for
/// byte, so offsets (and lines) are unchanged.
pub fn prose(text: &str) -> String {
    let code = markdown::code_ranges(text);
    let mut masks: Vec<Range<usize>> = markdown::comment_ranges(text, &code);
    masks.extend(code);
    masks.extend(markdown::front_matter(text));
    masks.extend(shared_masks(text));
    blank(text, masks)
}

/// The LaTeX source with everything that is not prose replaced by spaces, byte for
/// byte (see [`attest_claims::latex::non_prose`]).
pub fn latex_prose(text: &str) -> String {
    let mut masks = latex::non_prose(text);
    masks.extend(shared_masks(text));
    blank(text, masks)
}

/// The decimals of prose text, as `(byte offset, written, value)`. A number counts when
/// no letter, digit, `_` or `.` touches its start, nor a hyphen that follows a letter
/// or digit (the version in a name: `GPT-3.5`, `Llama-3.1-8B`), no digit follows it,
/// and it has a decimal point or thousands separators.
pub fn decimals(prose: &str) -> Vec<(usize, String, f64)> {
    let mut out = Vec::new();
    let mut prev: Option<char> = None;
    let mut prev2: Option<char> = None;
    let mut skip_to = 0;
    for (i, c) in prose.char_indices() {
        let (before, before2) = (prev, prev2);
        prev2 = prev;
        prev = Some(c);
        if i < skip_to || !(c.is_ascii_digit() || c == '-' || c == '\u{2212}') {
            continue;
        }
        if before.is_some_and(|b| b.is_alphanumeric() || b == '_' || b == '.') {
            continue;
        }
        if c.is_ascii_digit() && before == Some('-') && before2.is_some_and(char::is_alphanumeric) {
            continue;
        }
        let rest = &prose[i..];
        let found = [&*GROUPED, &*DECIMAL].into_iter().find_map(|re| {
            let m = re.find(rest)?;
            let next = rest[m.end()..].chars().next();
            (!next.is_some_and(|n| n.is_ascii_digit())).then_some(m.as_str())
        });
        if let Some(written) = found {
            let value = written.replace('\u{2212}', "-").replace(',', "").parse::<f64>();
            if let Ok(v) = value.map_err(|_| ()).and_then(|v| if v.is_finite() { Ok(v) } else { Err(()) }) {
                out.push((i, written.to_string(), v));
                skip_to = i + written.len();
            }
        }
    }
    out
}

fn is_covered(claims: &[Claim], value: f64) -> bool {
    claims.iter().any(|c| (value - c.value).abs() <= c.tolerance().max(claims::DEFAULT_TOL))
}

/// Whether the text right after a number makes it a percentage: `%`, `\%` or the word
/// `percent`, after optional spaces, `~` or `\,`. A claim's value is a metric's own
/// scale (`accuracy=0.812`) while prose often writes it as `81.2%`.
fn is_percent(after: &str) -> bool {
    let mut rest = after;
    loop {
        let t = rest.trim_start_matches([' ', '~', '}', '\u{a0}', '\u{202f}']);
        match t.strip_prefix("\\,") {
            Some(r) => rest = r,
            None => {
                rest = t;
                break;
            }
        }
    }
    rest.starts_with('%') || rest.starts_with("\\%") || rest.get(..7).is_some_and(|w| w.eq_ignore_ascii_case("percent"))
}

/// The uncovered decimals of one masked text; `place` maps a line of `text` to the
/// file's line and cell.
fn uncovered_in(
    text: &str,
    masked: &str,
    claims: &[Claim],
    file: &str,
    place: &dyn Fn(usize) -> (usize, Option<Cell>),
) -> (usize, Vec<Uncovered>) {
    let nums = decimals(masked);
    let mut lines = claims::Lines::new(text);
    let mut uncovered = Vec::new();
    for (at, written, value) in &nums {
        let percent = is_percent(&masked[at + written.len()..]);
        if is_covered(claims, *value) || (percent && is_covered(claims, value / 100.0)) {
            continue;
        }
        let (line, cell) = place(lines.of(*at));
        let start = text[..*at].rfind('\n').map_or(0, |p| p + 1);
        let end = text[*at..].find('\n').map_or(text.len(), |p| at + p);
        let context: String = text[start..end].trim().chars().take(120).collect();
        uncovered.push(Uncovered {
            file: file.to_string(),
            line,
            cell,
            value: *value,
            written: written.clone(),
            context,
        });
    }
    (nums.len(), uncovered)
}

/// The coverage of one Markdown text: `(numbers found, uncovered ones)`.
pub fn of_text(text: &str, file: &str) -> (usize, Vec<Uncovered>) {
    let parsed = claims::parse(text, file);
    uncovered_in(text, &prose(text), &parsed.claims, file, &|l| (l, None))
}

/// The coverage of one text in a format: `(numbers found, uncovered ones)`, or why a
/// notebook cannot be read.
pub fn of_text_as(format: Format, text: &str, file: &str) -> Result<(usize, Vec<Uncovered>), String> {
    let parsed = claims::parse_as(format, text, file)?;
    Ok(match format {
        Format::Markdown => uncovered_in(text, &prose(text), &parsed.claims, file, &|l| (l, None)),
        Format::Latex => uncovered_in(text, &latex_prose(text), &parsed.claims, file, &|l| (l, None)),
        Format::Notebook => {
            let mut n = 0;
            let mut un = Vec::new();
            for cell in notebook::cells(text)?.iter().filter(|c| c.kind == "markdown") {
                let place = |l: usize| (cell.file_line(l), Some(cell.cell(l)));
                let (k, u) = uncovered_in(&cell.text, &prose(&cell.text), &parsed.claims, file, &place);
                n += k;
                un.extend(u);
            }
            (n, un)
        }
    })
}

/// The coverage of the drafts at `path` (relative to the research root; `None` for the
/// whole root), each read in its format. A path that does not exist or lies outside
/// the root is refused.
pub fn coverage(root: &Path, path: Option<&Path>) -> Result<Coverage, LedgerError> {
    let (root, target) = claims::resolve_target(root, path)?;
    let mut out = Coverage::default();
    for file in claims::drafts(&target) {
        let name = claims::label(&file, &root);
        let format = Format::of_or_markdown(&file);
        match claims::read_draft(&file).and_then(|text| of_text_as(format, &text, &name)) {
            Ok((n, un)) => {
                out.files += 1;
                out.numbers += n;
                out.covered += n - un.len();
                out.uncovered.extend(un);
            }
            Err(reason) => out.skipped.push(Skipped { file: name, reason }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<f64> {
        decimals(&prose(text)).into_iter().map(|(_, _, v)| v).collect()
    }

    #[test]
    fn counts_decimals_and_grouped_integers_only() {
        assert_eq!(values("12 layers, 2,400 items, 0.5 and 11.5% and 1e-3 and 8e-4"), [2400.0, 0.5, 11.5]);
        assert_eq!(values("a drop of \u{2212}0.3 and -1.25e2"), [-0.3, -125.0]);
        assert_eq!(values("1,234,567.5 but not 1,2345 or 12,34"), [1234567.5]);
    }

    #[test]
    fn masks_what_is_not_prose() {
        let text = "v0.1.0 and 1.2.3 on 2026-11-28 at https://x.org/a/1.5 see `lr=0.001` <!-- claim: p/r metric=m value=0.25 -->\n```\nx = 3.14\n```\nkept 0.75";
        assert_eq!(values(text), [0.75]);
    }

    #[test]
    fn words_and_dotted_names_do_not_start_numbers() {
        assert_eq!(values("t4.5 x_1.5 a.1.5 (0.9) -0.2"), [0.9, -0.2]);
        assert_eq!(values("GPT-3.5 and Llama-3.1-8B, 2-1.5 but a drop of -0.4"), [-0.4]);
    }

    #[test]
    fn claims_cover_anywhere_in_the_file_within_tolerance() {
        let text = "At 0.0719 and 0.066 and 0.07 and 1.0.\n<!-- claim: p/r metric=wer value=0.0719 -->\n<!-- claim: p/s metric=wer value=0.0655 tol=0.001 -->\n<!-- claim: p/s metric=wer value=high -->";
        let (n, un) = of_text(text, "d.md");
        assert_eq!(n, 4);
        assert_eq!(un.iter().map(|u| u.value).collect::<Vec<_>>(), [0.07, 1.0]);
        assert_eq!(un[0].line, 1);
        assert!(un[0].context.starts_with("At 0.0719"));
    }

    #[test]
    fn a_percentage_is_covered_by_a_claim_of_the_fraction() {
        // Each line: the prose, and whether the claim of 0.812 covers its number.
        let cases = [
            ("reaches 81.2% accuracy", true),
            ("reaches 81.2 % accuracy", true),
            ("reaches 81.2 percent accuracy", true),
            ("reaches 81.2 points of accuracy", false),
            ("reaches 0.812 accuracy", true),
            ("reaches 8.12% accuracy", false),
        ];
        for (prose, covered) in cases {
            let text = format!("{prose}\n<!-- claim: p/r metric=accuracy value=0.812 -->");
            let (n, un) = of_text(&text, "d.md");
            assert_eq!((n, un.is_empty()), (1, covered), "{prose}");
        }
        let tex = "\\begin{document}\nWe reach 81.2\\% and $\\mathbf{81.2}\\,\\%$. % claim: p/r metric=accuracy value=0.812\n\\end{document}";
        let (n, un) = of_text_as(Format::Latex, tex, "p.tex").unwrap();
        assert_eq!((n, un.len()), (2, 0), "{un:?}");
    }

    fn latex_values(text: &str) -> Vec<f64> {
        decimals(&latex_prose(text)).into_iter().map(|(_, _, v)| v).collect()
    }

    #[test]
    fn latex_prose_keeps_results_and_drops_the_rest() {
        // Kept: prose, table cells, typeset numbers in math, \num{}, a length in prose.
        assert_eq!(
            latex_values("0.81 & 0.79 \\\\ $0.5 \\pm 0.02$ \\num{3.5} \\textbf{1.25} error of 0.3mm"),
            [0.81, 0.79, 0.5, 0.02, 3.5, 1.25, 0.3]
        );
        // Dropped: formulas, display math, references, citations, labels, lengths,
        // optional arguments, headings, cross-references, comments, the preamble.
        let dropped = "\\usepackage[scale=0.9]{x}\n\\begin{document}\n$\\beta_1=0.9$ \\[ x = 0.5 \\] \\begin{align} y &= 1.5 \\end{align} \\ref{s:1.2} \\cite[p.~2.5]{k} \\label{t:3.1} \\vspace{0.5em} \\hspace*{-1.5cm} \\\\[2.5pt] \\includegraphics[width=0.45\\linewidth]{f.pdf} 0.3\\textwidth \\section{Ablation 2.0} Section~3.2, Table 4.1, Eq.~(2.3), \\S 1.1 \\vskip 1.5em \\begin{tabular}{p{0.3cm}l} % 0.7 here\n\\iffalse 0.6 \\fi";
        assert_eq!(latex_values(dropped), Vec::<f64>::new());
    }

    #[test]
    fn latex_claims_cover_numbers_and_lines_are_the_files() {
        let text = "\\begin{document}\nWER 0.0719 % claim: p/r metric=wer value=0.0719\nand 0.08.\n";
        let (n, un) = of_text_as(Format::Latex, text, "p.tex").unwrap();
        assert_eq!(n, 2);
        assert_eq!((un[0].line, un[0].written.as_str(), un[0].cell), (3, "0.08", None));
    }

    #[test]
    fn markdown_front_matter_is_not_prose() {
        assert_eq!(values("---\nfig-width: 6.5\n---\nkept 0.5"), [0.5]);
        assert_eq!(values("no front matter\n---\n0.5\n---"), [0.5]);
    }
}
