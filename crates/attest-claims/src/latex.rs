//! LaTeX: claims are `%` comments, `% claim: project/run metric=… value=…`; and what of
//! a LaTeX source is not prose, for coverage.
//!
//! This is not a LaTeX parser. It knows what comments, claims and coverage need:
//! where a comment starts (an unescaped `%`), which environments hold verbatim text,
//! where math is, and which commands take arguments that are not prose (labels,
//! references, citations, lengths, file names).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::markdown::{claim_start, inside};
use crate::{Annotation, Lines};

/// Environments whose content LaTeX does not read as text: a `%` in them is not a
/// comment, and a claim in them is an example.
pub const VERBATIM_ENVS: &[&str] =
    &["verbatim", "verbatim*", "Verbatim", "Verbatim*", "lstlisting", "minted", "comment", "BVerbatim", "LVerbatim"];

/// Display math environments (and their starred forms).
pub const MATH_ENVS: &[&str] =
    &["equation", "align", "gather", "multline", "flalign", "alignat", "eqnarray", "math", "displaymath", "dmath"];

/// Commands whose arguments are not prose, with how many `{…}` arguments to hide
/// (`usize::MAX`: every argument that follows). Optional `[…]` arguments of any
/// command are always hidden.
pub const NON_PROSE_COMMANDS: &[(&str, usize)] = &[
    // References, labels and citations.
    ("ref", 1),
    ("eqref", 1),
    ("autoref", 1),
    ("cref", 1),
    ("Cref", 1),
    ("cpageref", 1),
    ("pageref", 1),
    ("nameref", 1),
    ("label", 1),
    ("url", 1),
    ("href", 1),
    ("hyperref", 1),
    // Files.
    ("input", 1),
    ("include", 1),
    ("includeonly", 1),
    ("includegraphics", 1),
    ("includepdf", 1),
    ("bibliography", 1),
    ("addbibresource", 1),
    ("bibliographystyle", 1),
    ("usepackage", 1),
    ("RequirePackage", 1),
    ("documentclass", 1),
    ("graphicspath", 1),
    // Lengths, boxes, layout and counters.
    ("vspace", 1),
    ("vspace*", 1),
    ("hspace", 1),
    ("hspace*", 1),
    ("setlength", 2),
    ("addtolength", 2),
    ("settowidth", 2),
    ("rule", 2),
    ("resizebox", 2),
    ("resizebox*", 2),
    ("scalebox", 1),
    ("raisebox", 1),
    ("parbox", 1),
    ("linespread", 1),
    ("setcounter", 2),
    ("addtocounter", 2),
    ("setstretch", 1),
    ("fontsize", 2),
    ("definecolor", usize::MAX),
    ("color", 1),
    ("textcolor", 1),
    ("colorbox", 1),
    ("cellcolor", 1),
    ("rowcolor", 1),
    ("captionsetup", usize::MAX),
    ("hypersetup", 1),
    ("geometry", 1),
    ("multicolumn", 2),
    ("multirow", 2),
    ("cline", 1),
    ("cmidrule", 1),
    ("arrayrulecolor", 1),
    // Definitions.
    ("newcommand", usize::MAX),
    ("renewcommand", usize::MAX),
    ("providecommand", usize::MAX),
    ("newenvironment", usize::MAX),
    ("renewenvironment", usize::MAX),
    ("DeclareMathOperator", usize::MAX),
    ("newlength", 1),
    ("newcounter", 1),
    // Environments: `\begin{tabular}{lcc}`, `\begin{minipage}{0.5\linewidth}`.
    ("begin", usize::MAX),
    ("end", 1),
    // Headings name parts of the paper; they do not report results.
    ("part", 1),
    ("chapter", 1),
    ("section", 1),
    ("subsection", 1),
    ("subsubsection", 1),
    ("paragraph", 1),
    ("subparagraph", 1),
];

/// The comments and verbatim text of a LaTeX source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structure {
    /// Each comment, from its `%` to the end of its line (the newline excluded).
    pub comments: Vec<Range<usize>>,
    /// Verbatim-like environments (see [`VERBATIM_ENVS`]), `\begin` to `\end`,
    /// `\verb` spans, and the address of `\url{…}` and `\href{…}` (to the `}` on the
    /// same line).
    pub verbatim: Vec<Range<usize>>,
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |i| from + i)
}

/// The name of the environment `\begin{` opens at `at` (which points at the `\`), and
/// the offset just after its `}`.
fn env_at(text: &str, at: usize, kw: &str) -> Option<(String, usize)> {
    let rest = text[at..].strip_prefix(kw)?;
    let close = rest.find('}')?;
    let name = &rest[..close];
    (!name.is_empty() && name.len() <= 40 && !name.contains(['\n', '{', '\\']))
        .then(|| (name.to_string(), at + kw.len() + close + 1))
}

/// Find the comments and verbatim text. `%` preceded by a backslash is a percent sign
/// (`\\%` is a line break and then a comment); inside verbatim environments and
/// `\verb|…|` nothing is a comment.
pub fn structure(text: &str) -> Structure {
    let b = text.as_bytes();
    let mut out = Structure::default();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let end = line_end(text, i);
                out.comments.push(i..end);
                i = end;
            }
            b'\\' => {
                let rest = &text[i + 1..];
                if let Some(after) = rest.strip_prefix("verb") {
                    let after = after.strip_prefix('*').unwrap_or(after);
                    let start_delim = text.len() - after.len();
                    if let Some(d) = after.chars().next().filter(|c| !c.is_alphabetic() && !c.is_whitespace()) {
                        let body = start_delim + d.len_utf8();
                        let end = text[body..line_end(text, body)]
                            .find(d)
                            .map_or(line_end(text, body), |j| body + j + d.len_utf8());
                        out.verbatim.push(i..end);
                        i = end;
                        continue;
                    }
                }
                if let Some((name, after)) = env_at(text, i, "\\begin{")
                    && VERBATIM_ENVS.contains(&name.as_str())
                {
                    let end_tag = format!("\\end{{{name}}}");
                    let end = text[after..].find(&end_tag).map_or(text.len(), |j| after + j + end_tag.len());
                    out.verbatim.push(i..end);
                    i = end;
                    continue;
                }
                // A URL's `%` is part of the address (`\url{a%20b}`, `\href{a%20b}{…}`).
                if let Some(kw) = ["url{", "href{"].into_iter().find(|kw| rest.starts_with(kw)) {
                    let open = i + 1 + kw.len();
                    let end = text[open..line_end(text, open)].find('}').map_or(line_end(text, open), |j| open + j + 1);
                    out.verbatim.push(i..end);
                    i = end;
                    continue;
                }
                // Skip the escaped character (`\%`, `\\`, `\$`); a non-ASCII one is
                // left for the next round, which ignores it.
                i += if b.get(i + 1).is_some_and(u8::is_ascii) { 2 } else { 1 };
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether the comment at `r` is the only thing on its line (whitespace before it).
fn whole_line(text: &str, r: &Range<usize>) -> bool {
    let start = text[..r.start].rfind('\n').map_or(0, |p| p + 1);
    text[start..r.start].trim().is_empty()
}

/// The text of a comment after its `%` signs.
fn comment_text<'t>(text: &'t str, r: &Range<usize>) -> &'t str {
    text[r.clone()].trim_start_matches('%')
}

/// The claim comments of a LaTeX source.
///
/// A claim is a comment whose text, after its `%` signs and spaces, starts with
/// `claim:` (any case); the body runs to the end of the line. It may follow text on
/// the same line (`0.0719 % claim: …`). The Markdown form inside a comment,
/// `% <!-- claim: … -->`, is read too, and may continue over the next lines when each
/// is a comment alone on its line, up to the `-->`. Comments inside verbatim
/// environments are not comments. A `<!-- claim: … -->` in the text itself (not in a
/// comment) is reported as malformed: LaTeX would print it.
pub fn annotations(text: &str) -> Vec<Annotation> {
    let s = structure(text);
    let mut lines = Lines::new(text);
    let mut out = Vec::new();
    let mut k = 0;
    while k < s.comments.len() {
        let r = &s.comments[k];
        k += 1;
        let c = comment_text(text, r);
        let line = lines.of(r.start);
        if let Some(at) = claim_start(c) {
            out.push(Annotation { line, cell: None, body: Ok(c[at..].trim().to_string()) });
            continue;
        }
        let Some(html) = c.trim_start().strip_prefix("<!--") else { continue };
        let Some(at) = claim_start(html) else { continue };
        let mut body = html[at..].to_string();
        // Continue over whole-line comments on the lines that follow, up to `-->`.
        let mut last = r.clone();
        loop {
            if let Some(end) = body.find("-->") {
                body.truncate(end);
                out.push(Annotation { line, cell: None, body: Ok(body.trim().to_string()) });
                break;
            }
            let next =
                s.comments.get(k).filter(|n| whole_line(text, n) && text[last.end..n.start].matches('\n').count() == 1);
            let Some(n) = next else {
                out.push(Annotation {
                    line,
                    cell: None,
                    body: Err(format!(
                        "this claim comment is never closed: its comment lines end at line {} before any `-->`; end the claim with `-->`, or write it as `% claim: …` on one line",
                        line + text[r.start..last.end].matches('\n').count()
                    )),
                });
                break;
            };
            body.push(' ');
            body.push_str(comment_text(text, n).trim());
            last = n.clone();
            k += 1;
        }
    }
    // A Markdown claim in the text itself would be typeset, and LaTeX does not read it
    // as a comment: report it rather than drop it.
    let mut hidden: Vec<Range<usize>> = s.comments.iter().chain(&s.verbatim).cloned().collect();
    hidden.sort_by_key(|r| r.start);
    let mut typeset = text
        .match_indices("<!--")
        .filter(|(at, _)| !inside(&hidden, *at) && claim_start(&text[at + 4..]).is_some())
        .map(|(at, _)| Annotation {
            line: lines.of(at),
            cell: None,
            body: Err("a Markdown claim comment in LaTeX text is typeset, not hidden; write it as a LaTeX comment, `% claim: …`".to_string()),
        })
        .peekable();
    if typeset.peek().is_some() {
        out.extend(typeset);
        out.sort_by_key(|a| a.line);
    }
    out
}

static CROSS_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:\b(?:sections?|secs?\.|sects?\.|tables?|tabs?\.|figures?|figs?\.|eqs?\.|equations?|appendix|appendices|apps?\.|chapters?|chs?\.|algorithms?|algs?\.|lines?|theorems?|thms?\.|lemmas?|definitions?|defs?\.|propositions?|props?\.|corollary|corollaries|examples?|listings?|steps?|parts?|versions?)|§§?|\\S\b)(?:\s|~|\\,|\\ )*\(?\d+(?:\.\d+)+",
    )
    .expect("valid regex")
});
/// A fraction of a page dimension (`0.45\linewidth`), anywhere.
static RELATIVE_LENGTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"[-+]?(?:\d+\.?\d*|\.\d+)\s*\\(?:textwidth|linewidth|columnwidth|textheight|paperwidth|paperheight|hsize|vsize|baselineskip|parindent|parskip|tabcolsep|unitlength)\b",
    )
    .expect("valid regex")
});
/// A length right after a control word: `\vskip 0.5em`, `\parskip=6pt`, `\kern-0.2em`.
/// (A length in prose, `0.3mm`, may be a measured result and is kept.)
static ASSIGNED_LENGTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\[A-Za-z]+\s*=?\s*[-+]?(?:\d+\.?\d*|\.\d+)\s*(?:pt|em|ex|cm|mm|in|bp|pc|sp|mu|dd|cc)\b")
        .expect("valid regex")
});

/// The index just past a `{…}` group opening at `at` (which holds `{`), braces
/// balanced and `\{`/`\}` skipped; the end of the text when it never closes.
fn group_end(text: &str, at: usize, open: u8, close: u8) -> usize {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    text.len()
}

/// Whether a math span is a typeset number (`$0.81 \pm 0.02$`, `$\mathbf{71.9}\%$`,
/// `$3.2\,\mathrm{ms}$`) rather than a formula (`$\beta_1 = 0.9$`, `$x^{0.5}$`): once
/// `\text{…}`/`\mathrm{…}` units and the commands that only format a number are
/// removed, nothing but digits, signs, brackets and spacing is left.
fn is_typeset_number(math: &str) -> bool {
    const UNIT: &[&str] = &["text", "mathrm", "textrm", "mbox", "textnormal", "operatorname"];
    const FORMAT: &[&str] = &[
        "pm",
        "mp",
        "times",
        "cdot",
        "%",
        ",",
        ";",
        ":",
        "!",
        " ",
        "mathbf",
        "bm",
        "boldsymbol",
        "textbf",
        "underline",
        "mathit",
        "emph",
        "phantom",
        "left",
        "right",
        "big",
        "Big",
        "bigl",
        "bigr",
        "approx",
        "sim",
    ];
    let b = math.as_bytes();
    let mut i = 0;
    let mut digits = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            let name_len = math[i + 1..].bytes().take_while(u8::is_ascii_alphabetic).count().max(1);
            let name = math.get(i + 1..i + 1 + name_len).unwrap_or("");
            let next = i + 1 + name.len();
            if UNIT.contains(&name) {
                i = if math.as_bytes().get(next) == Some(&b'{') { group_end(math, next, b'{', b'}') } else { next };
                continue;
            }
            if !FORMAT.contains(&name) {
                return false;
            }
            i = next;
            continue;
        }
        if c.is_ascii_digit() {
            digits = true;
        } else if !b" \t\r\n.,+-()[]{}^_~/|".contains(&c) {
            // `−` (U+2212) and `±` are fine too.
            let ch = math[i..].chars().next().unwrap_or(' ');
            if !matches!(ch, '\u{2212}' | '±' | '×') {
                return false;
            }
            i += ch.len_utf8();
            continue;
        }
        i += 1;
    }
    digits
}

/// The inside of a math span: without its `$`, `$$`, `\[…\]` or `\(…\)` delimiters
/// (an environment keeps its `\begin`, so it is never a typeset number).
fn math_body(span: &str) -> &str {
    for (open, close) in [("$$", "$$"), ("$", "$"), ("\\[", "\\]"), ("\\(", "\\)")] {
        if let Some(inner) = span.strip_prefix(open) {
            return inner.strip_suffix(close).unwrap_or(inner);
        }
    }
    span
}

/// Byte ranges of math: display environments ([`MATH_ENVS`], starred too),
/// `\[…\]`, `\(…\)`, `$$…$$` and `$…$`, skipping `ignore` (comments, verbatim). A `$`
/// with no partner before a blank line opens nothing.
pub fn math_ranges(text: &str, ignore: &[Range<usize>]) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if inside(ignore, i) {
            i += 1;
            continue;
        }
        match b[i] {
            b'\\' => {
                if let Some((name, after)) = env_at(text, i, "\\begin{")
                    && MATH_ENVS.contains(&name.trim_end_matches('*'))
                {
                    let end_tag = format!("\\end{{{name}}}");
                    let end = text[after..].find(&end_tag).map_or(text.len(), |j| after + j + end_tag.len());
                    out.push(i..end);
                    i = end;
                    continue;
                }
                let close = match b.get(i + 1) {
                    Some(b'[') => Some("\\]"),
                    Some(b'(') => Some("\\)"),
                    _ => None,
                };
                if let Some(close) = close {
                    let end = text[i + 2..].find(close).map_or(text.len(), |j| i + 2 + j + 2);
                    out.push(i..end);
                    i = end;
                    continue;
                }
                i += if b.get(i + 1).is_some_and(u8::is_ascii) { 2 } else { 1 };
            }
            b'$' => {
                let display = b.get(i + 1) == Some(&b'$');
                let open = if display { 2 } else { 1 };
                let delim = if display { "$$" } else { "$" };
                let mut j = i + open;
                let mut end = None;
                while j < b.len() {
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j..].starts_with(delim.as_bytes()) {
                        end = Some(j + open);
                        break;
                    }
                    if !display && b[j..].starts_with(b"\n\n") {
                        break;
                    }
                    j += 1;
                }
                match end {
                    Some(e) => {
                        out.push(i..e);
                        i = e;
                    }
                    None => i += open,
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// Byte ranges of a LaTeX source that are not prose, for coverage:
///
/// - comments (the claims among them) and verbatim text ([`structure`]);
/// - the preamble, up to and including `\begin{document}` (when there is one: a chapter
///   file read by `\input` has none and is all body), and `\iffalse … \fi`;
/// - math, unless the span is a typeset number: `$0.81 \pm 0.02$` is a result,
///   `$\beta_1 = 0.9$` and every display equation that holds a formula are not;
/// - the arguments of [`NON_PROSE_COMMANDS`] (`\ref{…}`, `\cite{…}`, `\label{…}`,
///   `\vspace{0.5em}`, `\begin{tabular}{…}`, headings, …) and every `[…]` optional
///   argument (`\includegraphics[width=0.45\linewidth]`, `\\[2pt]`);
/// - lengths: a fraction of a page dimension anywhere (`0.3\textwidth`), and a length
///   right after a control word (`\vskip 0.5em`, `\parskip=6pt`);
/// - numbers that name a part of a paper: `Section 3.2`, `Table~4.1`, `Eq. 2.3`, `§2.1`,
///   `\\S 2.1`.
pub fn non_prose(text: &str) -> Vec<Range<usize>> {
    let s = structure(text);
    let mut ignore: Vec<Range<usize>> = s.comments.iter().chain(&s.verbatim).cloned().collect();
    ignore.sort_by_key(|r| r.start);
    let mut out = ignore.clone();
    let visible = |at: usize| !inside(&ignore, at);
    if let Some(m) = text.match_indices("\\begin{document}").find(|(at, _)| visible(*at)) {
        out.push(0..m.0 + m.1.len());
    }
    let mut from = 0;
    while let Some(at) = text[from..].find("\\iffalse").map(|i| from + i) {
        let end = text[at..].find("\\fi").map_or(text.len(), |j| at + j + 3);
        if visible(at) {
            out.push(at..end);
        }
        from = end.max(at + 8);
    }
    for m in math_ranges(text, &ignore) {
        if !is_typeset_number(math_body(&text[m.clone()])) {
            out.push(m);
        }
    }
    out.extend(command_args(text, &ignore));
    for re in [&*RELATIVE_LENGTH, &*ASSIGNED_LENGTH, &*CROSS_REF] {
        out.extend(re.find_iter(text).map(|m| m.range()).filter(|r| visible(r.start)));
    }
    out.sort_by_key(|r| r.start);
    out
}

/// The commands of [`NON_PROSE_COMMANDS`] with their hidden arguments, and every
/// optional argument that directly follows a command.
fn command_args(text: &str, ignore: &[Range<usize>]) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || inside(ignore, i) {
            i += 1;
            continue;
        }
        let letters = text[i + 1..].bytes().take_while(u8::is_ascii_alphabetic).count();
        let symbol = text[i + 1..].chars().next().map_or(0, char::len_utf8);
        let mut end = i + 1 + if letters > 0 { letters } else { symbol };
        if letters > 0 && b.get(end) == Some(&b'*') {
            end += 1;
        }
        let name = &text[i + 1..end];
        let hide = NON_PROSE_COMMANDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, k)| k)
            .or_else(|| name.to_ascii_lowercase().contains("cite").then_some(usize::MAX));
        let mut groups = 0;
        let start = i;
        loop {
            match b.get(end) {
                Some(b'[') => end = group_end(text, end, b'[', b']'),
                Some(b'(') if name == "cmidrule" => end = group_end(text, end, b'(', b')'),
                Some(b'{') if hide.is_some_and(|k| groups < k) => {
                    end = group_end(text, end, b'{', b'}');
                    groups += 1;
                }
                _ => break,
            }
        }
        if hide.is_some() {
            out.push(start..end);
        } else if end > start + 1 + name.len() {
            out.push(start + 1 + name.len()..end);
        }
        i = end.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(text: &str) -> Vec<(usize, Result<String, String>)> {
        annotations(text).into_iter().map(|a| (a.line, a.body)).collect()
    }

    #[test]
    fn comments_start_at_unescaped_percent() {
        let t =
            "50\\% of it % a note\n\\\\% after a break\n\\verb|%x| y\n\\begin{verbatim}\n% no\n\\end{verbatim}\n%end";
        let s = structure(t);
        let got: Vec<&str> = s.comments.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(got, ["% a note", "% after a break", "%end"]);
        assert_eq!(s.verbatim.len(), 2);
    }

    #[test]
    fn claims_are_comments_on_one_line_or_html_over_comment_lines() {
        let t = "A 0.0719 % claim: p/r metric=wer value=0.0719\n%% CLAIM:p/s metric=m value=1\n% <!-- claim: p/t\n%   metric=m value=2 -->\n% <!-- claim: p/u metric=m\ntext\n% claimed: not one\n";
        let got = bodies(t);
        assert_eq!(got[0], (1, Ok("p/r metric=wer value=0.0719".into())));
        assert_eq!(got[1], (2, Ok("p/s metric=m value=1".into())));
        assert_eq!(got[2], (3, Ok("p/t metric=m value=2".into())));
        assert_eq!(got[3].0, 5);
        assert!(got[3].1.as_ref().unwrap_err().contains("line 5"), "{:?}", got[3]);
        assert_eq!(got.len(), 4);
    }

    #[test]
    fn typeset_numbers_are_results_and_formulas_are_not() {
        assert_eq!(math_body("$\\pm 0.02$"), "\\pm 0.02");
        assert_eq!(math_body("\\[0.5\\]"), "0.5");
        for yes in
            ["0.81 \\pm 0.02", "\\pm 0.02", "\\mathbf{71.9}\\%", "3.2\\,\\mathrm{ms}", "-0.5", "0.81_{\\pm 0.02}"]
        {
            assert!(is_typeset_number(yes), "{yes}");
        }
        for no in ["\\beta_1 = 0.9", "x^{0.5}", "p < 0.05", "\\lambda", ""] {
            assert!(!is_typeset_number(no), "{no}");
        }
    }
}
