//! Markdown (and Quarto, R Markdown, notebook Markdown cells): claims are HTML
//! comments, `<!-- claim: … -->`; code is fenced blocks and inline spans.

use std::ops::Range;

use crate::{Annotation, Lines};

/// Byte ranges of fenced code blocks (``` or ~~~, to the closing fence or the end) and
/// single-line inline code spans. Claims and numbers inside them are examples, not
/// prose. Quarto and R Markdown chunks (```` ```{r} ````) are fenced blocks.
pub fn code_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize, usize)> = None; // (char, length, start byte)
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        let run_of = |c: u8| body.bytes().take_while(|&b| b == c).count();
        let marker = [b'`', b'~'].into_iter().map(|c| (c, run_of(c))).find(|&(_, n)| n >= 3 && indent <= 3);
        match (fence, marker) {
            (None, Some((c, n))) => {
                // A backtick fence's info string may not contain backticks.
                if c == b'`' && body[n..].contains('`') {
                    out.extend(inline_code(line, start));
                } else {
                    fence = Some((c, n, start));
                }
            }
            (Some((c, n, s)), Some((c2, n2))) if c == c2 && n2 >= n && body[n2..].trim().is_empty() => {
                out.push(s..pos);
                fence = None;
            }
            (Some(_), _) => {}
            (None, None) => out.extend(inline_code(line, start)),
        }
    }
    if let Some((_, _, s)) = fence {
        out.push(s..text.len());
    }
    out
}

/// Inline code spans of one line: a run of n backticks up to the next run of exactly n.
fn inline_code(line: &str, offset: usize) -> Vec<Range<usize>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let open = i;
        while i < b.len() && b[i] == b'`' {
            i += 1;
        }
        let n = i - open;
        let mut j = i;
        let mut closed = None;
        while j < b.len() {
            if b[j] == b'`' {
                let s = j;
                while j < b.len() && b[j] == b'`' {
                    j += 1;
                }
                if j - s == n {
                    closed = Some(j);
                    break;
                }
            } else {
                j += 1;
            }
        }
        if let Some(end) = closed {
            out.push(offset + open..offset + end);
            i = end;
        }
    }
    out
}

/// Whether `pos` lies in one of `ranges` (sorted by start, not overlapping).
pub fn inside(ranges: &[Range<usize>], pos: usize) -> bool {
    let i = ranges.partition_point(|r| r.start <= pos);
    i > 0 && ranges[i - 1].contains(&pos)
}

/// Byte ranges of HTML comments outside code, each to its first `-->` (or to the end of
/// the text when it never closes, as a renderer would hide it).
pub fn comment_ranges(text: &str, code: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("<!--").map(|i| i + from) {
        if inside(code, at) {
            from = at + 4;
            continue;
        }
        let end = text[at + 4..].find("-->").map_or(text.len(), |i| at + 4 + i + 3);
        out.push(at..end);
        from = end;
    }
    out
}

/// The YAML front matter of a document (Quarto, R Markdown, Jekyll and Pandoc all
/// write it): a first line `---`, up to the next line that is `---` or `...`. `None`
/// when the text does not open with one.
pub fn front_matter(text: &str) -> Option<Range<usize>> {
    let first = text.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut pos = first.len();
    for line in text[pos..].split_inclusive('\n') {
        pos += line.len();
        if matches!(line.trim_end(), "---" | "...") {
            return Some(0..pos);
        }
    }
    None
}

/// Whether the text after `<!--` (or `%`) opens a claim: optional whitespace, then
/// `claim:` in any case. Returns the body's offset into `rest` when it does.
pub(crate) fn claim_start(rest: &str) -> Option<usize> {
    let head = rest.trim_start();
    let is_claim = head.len() >= 6 && head.is_char_boundary(6) && head[..6].eq_ignore_ascii_case("claim:");
    is_claim.then(|| rest.len() - head.len() + 6)
}

/// The claim comments of a Markdown text, each at the line `line_of` maps its opening
/// `<!--` line to (the identity for a file; a notebook maps a cell's lines to the
/// file's).
///
/// A claim comment is `<!--`, optional space, `claim:` (any case), the body, `-->`; it
/// may span lines. Comments inside fenced or inline code are examples and are not
/// read. A claim comment with no `-->` before the next `<!--` or the end of the text
/// is reported (as `Err`) at the line it opens on.
pub fn annotations(text: &str, line_of: &dyn Fn(usize) -> usize) -> Vec<Annotation> {
    let code = code_ranges(text);
    let mut lines = Lines::new(text);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("<!--").map(|i| i + from) {
        let after = at + 4;
        if inside(&code, at) {
            from = after;
            continue;
        }
        let rest = &text[after..];
        let start = claim_start(rest);
        let close = rest.find("-->");
        let next_open = rest.find("<!--");
        let here = lines.of(at);
        let line = line_of(here);
        match close {
            Some(c) if next_open.is_none_or(|n| n > c) => {
                from = after + c + 3;
                if let Some(s) = start {
                    let body = if s <= c { rest[s..c].trim().to_string() } else { String::new() };
                    out.push(Annotation { line, cell: None, body: Ok(body) });
                }
            }
            _ => {
                from = after;
                if start.is_some() {
                    let problem = match next_open {
                        Some(n) => format!(
                            "this claim comment is never closed: the next comment opens at line {} before any `-->`; end the claim with `-->`",
                            line_of(here + rest[..n].matches('\n').count())
                        ),
                        None => {
                            "this claim comment is never closed: there is no `-->` after it; end the claim with `-->`"
                                .to_string()
                        }
                    };
                    out.push(Annotation { line, cell: None, body: Err(problem) });
                }
            }
        }
    }
    out
}
