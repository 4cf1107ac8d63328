//! BibTeX files, read through the `biblatex` parser without letting one bad entry cost
//! the rest of the file.
//!
//! `biblatex` parses a whole file or nothing: one unbalanced brace, one undefined
//! `@string` macro or one repeated key and the whole bibliography is an error. Real
//! `.bib` files are messy, so this module first splits the text into its top-level
//! `@…{…}` blocks itself (a single linear pass over the bytes), hands each block to the
//! parser on its own, and resolves the good ones together. Every block that cannot be
//! read is reported as a [`Problem`] with its line and the reason; nothing is dropped
//! silently, and nothing can make the reader loop or recurse without bound.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use biblatex::{Bibliography, ChunksExt, Field, Pair, RawBibliography, RawChunk, RawEntry, Spanned};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::reference::{Reference, Source, find_arxiv_id, find_year, normalize_doi};

/// Something wrong with one block of a `.bib` file: usually an entry that yielded no
/// record, sometimes one kept with a defect (`kept`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Problem {
    /// The line (from 1) the block starts on; 0 for a problem of no one block.
    pub line: usize,
    /// The entry's key, when it got that far.
    pub key: Option<String>,
    /// What is wrong, in a few words.
    pub reason: String,
    /// Whether the entry was still read (true) or skipped (false).
    pub kept: bool,
}

/// What one `.bib` file yielded.
#[derive(Debug, Clone, Default)]
pub struct BibFile {
    /// The records, in file order.
    pub references: Vec<Reference>,
    /// What was wrong, in file order: skipped entries and defects of kept ones.
    pub problems: Vec<Problem>,
    /// What a record leaves out, one per record, in the same order as `references`
    /// (what the reference library keeps and exports beside the record).
    pub details: Vec<Details>,
}

/// The parts of an entry a [`Reference`] leaves out, read for the reference library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Details {
    /// The BibTeX entry type, lower-case (`article`, `inproceedings`, `misc`).
    pub kind: String,
    /// The journal, proceedings or publisher's series (`journal`, `journaltitle`,
    /// `booktitle`, else `howpublished`).
    pub venue: Option<String>,
    /// The abstract, as plain text.
    pub abstract_text: String,
    /// The `keywords` field, split at commas and semicolons.
    pub keywords: Vec<String>,
    /// Works it names as cited or related (`cites`, `references`, `related` fields):
    /// keys, DOIs or arXiv ids, split at commas, semicolons and whitespace.
    pub cites: Vec<String>,
}

impl BibFile {
    /// How many blocks yielded no record.
    pub fn skipped(&self) -> usize {
        self.problems.iter().filter(|p| !p.kept).count()
    }
}

/// Read a `.bib` file from disk. Bytes that are not UTF-8 are replaced rather than
/// refused (older files are often Latin-1). `origin` is how records name the file.
pub fn read(path: &Path, origin: &str) -> std::io::Result<BibFile> {
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(parse(&text, origin))
}

/// A top-level block: `@kind{…}` or `@kind(…)`.
#[derive(Debug)]
struct Block<'a> {
    kind: &'a str,
    text: &'a str,
    line: usize,
    /// False when the block never closed (end of file, or a new entry began inside it).
    closed: bool,
}

/// Split `text` into top-level blocks. Text between blocks is a comment, as in BibTeX.
///
/// A block ends at its matching closing delimiter. A block that has not closed when a
/// new line starts with `@word{` or `@word(` is taken to be truncated: it is cut there
/// and the new block starts, so one missing brace costs one entry, not the rest of the
/// file.
fn blocks(text: &str) -> Vec<Block<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
            i += 1;
            continue;
        }
        if b != b'@' {
            i += 1;
            continue;
        }
        let Some((kind, open_at)) = block_head(bytes, i) else {
            i += 1;
            continue;
        };
        let start = i;
        let start_line = line;
        // Count the newlines of the head.
        line += bytes[i..open_at].iter().filter(|&&c| c == b'\n').count();
        let round = bytes[open_at] == b'(';
        let mut depth: usize = if round { 0 } else { 1 };
        let mut j = open_at + 1;
        let mut closed = false;
        while j < bytes.len() {
            match bytes[j] {
                b'{' => depth += 1,
                b'}' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 && !round {
                        closed = true;
                        j += 1;
                        break;
                    }
                }
                b')' if round && depth == 0 => {
                    closed = true;
                    j += 1;
                    break;
                }
                b'\n' => {
                    // A new entry starting on this line means the current one is truncated.
                    let mut k = j + 1;
                    while k < bytes.len() && (bytes[k] == b' ' || bytes[k] == b'\t') {
                        k += 1;
                    }
                    if k < bytes.len() && bytes[k] == b'@' && block_head(bytes, k).is_some() {
                        j += 1;
                        line += 1;
                        break;
                    }
                    line += 1;
                }
                _ => {}
            }
            j += 1;
        }
        let end = j.min(bytes.len());
        out.push(Block { kind, text: &text[start..end], line: start_line, closed });
        // If the loop stopped at a new line's `@`, continue from there (the newline was
        // counted already).
        i = end;
    }
    out
}

/// If an entry head `@word{` / `@word (` starts at `at`, its kind and the offset of
/// the opening delimiter.
fn block_head(bytes: &[u8], at: usize) -> Option<(&str, usize)> {
    let mut k = at + 1;
    let word_start = k;
    while k < bytes.len() && (bytes[k].is_ascii_alphanumeric() || bytes[k] == b'_' || bytes[k] == b'-') {
        k += 1;
    }
    if k == word_start {
        return None;
    }
    let kind = std::str::from_utf8(&bytes[word_start..k]).ok()?;
    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
        k += 1;
    }
    if k < bytes.len() && (bytes[k] == b'{' || bytes[k] == b'(') { Some((kind, k)) } else { None }
}

fn line_of(block: &Block<'_>, offset: usize) -> usize {
    let offset = offset.min(block.text.len());
    block.line + block.text.as_bytes()[..offset].iter().filter(|&&c| c == b'\n').count()
}

fn reason(e: &biblatex::ParseError) -> String {
    use biblatex::ParseErrorKind as K;
    match &e.kind {
        K::UnexpectedEof => "the entry ends before its closing brace".into(),
        K::UnknownAbbreviation(a) => format!("uses @string macro '{a}', which is not defined"),
        K::MalformedCommand => "a LaTeX command in a field is malformed".into(),
        K::DuplicateKey(k) => format!("key '{k}' appears twice"),
        K::Unexpected(t) => format!("unexpected {t:?} in the entry"),
        K::Expected(t) => format!("expected {t:?}"),
        other => format!("{other}"),
    }
}

/// Parse the text of a `.bib` file. `origin` is how records name the file.
pub fn parse(text: &str, origin: &str) -> BibFile {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut file = BibFile::default();
    let blocks = blocks(text);

    // `biblatex` reads only `@type{…}`; BibTeX also allows `@type(…)`. Rewrite the
    // delimiters of those (an owned copy, kept alive here while entries borrow it).
    let rewritten: Vec<Option<String>> = blocks.iter().map(paren_to_brace).collect();

    // 1. @string macros, each parsed on its own.
    let mut macros: Vec<Pair<'_>> = Vec::new();
    for (b, own) in blocks.iter().zip(&rewritten).filter(|(b, _)| b.kind.eq_ignore_ascii_case("string")) {
        if !b.closed {
            file.problems.push(Problem { kept: false, line: b.line, key: None, reason: "@string never closes".into() });
            continue;
        }
        match RawBibliography::parse(own.as_deref().unwrap_or(b.text)) {
            Ok(raw) => macros.extend(raw.abbreviations),
            Err(e) => file.problems.push(Problem {
                kept: false,
                line: line_of(b, e.span.start),
                key: None,
                reason: format!("@string: {}", reason(&e)),
            }),
        }
    }
    drop_cyclic_macros(&mut macros, &mut file.problems);

    // 2. Entries, each parsed on its own; keys deduplicated (the first one wins, as in
    //    BibTeX itself).
    let mut entries: Vec<(usize, Spanned<RawEntry<'_>>)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (b, own) in blocks.iter().zip(&rewritten) {
        let src: &str = own.as_deref().unwrap_or(b.text);
        let kind = b.kind.to_ascii_lowercase();
        if matches!(kind.as_str(), "string" | "comment" | "preamble") {
            continue;
        }
        if !b.closed {
            file.problems.push(Problem {
                kept: false,
                line: b.line,
                key: guess_key(b.text),
                reason: "truncated: the entry never closes before the next entry or the end of the file".into(),
            });
            continue;
        }
        let raw = match RawBibliography::parse(src) {
            Ok(raw) => raw,
            Err(e) => {
                file.problems.push(Problem {
                    kept: false,
                    line: line_of(b, e.span.start),
                    key: guess_key(b.text),
                    reason: reason(&e),
                });
                continue;
            }
        };
        for entry in raw.entries {
            let key = entry.v.key.v.to_string();
            let lower = key.to_lowercase();
            if let Some(first) = seen.get(&lower) {
                file.problems.push(Problem {
                    kept: false,
                    line: b.line,
                    key: Some(key),
                    reason: format!("duplicate key (first defined on line {first}); the first one is kept"),
                });
                continue;
            }
            seen.insert(lower, b.line);
            entries.push((b.line, entry));
        }
    }

    // 3. Resolve macros and cross-references: all together when that works, halving the
    //    batch around whatever fails otherwise.
    let mut resolved: Vec<(usize, biblatex::Entry)> = Vec::new();
    resolve(entries, &macros, &mut resolved, &mut file.problems);
    resolved.sort_by_key(|(line, _)| *line);
    file.problems.sort_by_key(|s| s.line);
    file.details = resolved.iter().map(|(_, e)| details(e)).collect();
    file.references = resolved.into_iter().map(|(_, e)| to_reference(&e, origin)).collect();
    file
}

fn resolve<'a>(
    entries: Vec<(usize, Spanned<RawEntry<'a>>)>,
    macros: &[Pair<'a>],
    out: &mut Vec<(usize, biblatex::Entry)>,
    skipped: &mut Vec<Problem>,
) {
    if entries.is_empty() {
        return;
    }
    let raw = RawBibliography {
        preamble: String::new(),
        entries: entries.iter().map(|(_, e)| e.clone()).collect(),
        abbreviations: macros.to_vec(),
    };
    match Bibliography::from_raw(raw) {
        Ok(bib) => {
            let lines: HashMap<&str, usize> = entries.iter().map(|(l, e)| (e.v.key.v, *l)).collect();
            for e in bib.into_vec() {
                let line = lines.get(e.key.as_str()).copied().unwrap_or(0);
                out.push((line, e));
            }
        }
        Err(err) if entries.len() == 1 => {
            let (line, e) = &entries[0];
            // BibTeX itself reads an undefined macro as empty and goes on; so do we,
            // saying so, rather than losing the whole entry over one field.
            if let biblatex::ParseErrorKind::UnknownAbbreviation(name) = &err.kind
                && let Some(name) = macro_use(&e.v, name)
                && macros.len() < 100_000
                && !macros.iter().any(|m| m.key.v == name)
            {
                let mut more = macros.to_vec();
                more.push(Pair::new(Spanned::detached(name), Spanned::detached(Vec::new())));
                let before = out.len();
                resolve(entries.clone(), &more, out, skipped);
                if out.len() > before {
                    skipped.push(Problem {
                        kept: true,
                        line: *line,
                        key: Some(e.v.key.v.to_string()),
                        reason: format!("@string macro '{name}' is not defined; read as empty"),
                    });
                }
                return;
            }
            skipped.push(Problem { kept: false, line: *line, key: Some(e.v.key.v.to_string()), reason: reason(&err) });
        }
        Err(_) => {
            let mut left = entries;
            let right = left.split_off(left.len() / 2);
            resolve(left, macros, out, skipped);
            resolve(right, macros, out, skipped);
        }
    }
}

/// The entry's own spelling of macro `name`, borrowed from the file's text.
fn macro_use<'a>(e: &RawEntry<'a>, name: &str) -> Option<&'a str> {
    e.fields.iter().flat_map(|p| p.value.v.iter()).find_map(|c| match c.v {
        RawChunk::Abbreviation(a) if a == name => Some(a),
        _ => None,
    })
}

/// A closed `@type(…)` block rewritten as `@type{…}`; `None` for every other block.
fn paren_to_brace(b: &Block<'_>) -> Option<String> {
    if !b.closed {
        return None;
    }
    let open = b.text.find(['{', '('])?;
    if b.text.as_bytes()[open] != b'(' || !b.text.ends_with(')') {
        return None;
    }
    let inner = &b.text[open + 1..b.text.len() - 1];
    Some(format!("{}{{{}}}", &b.text[..open], inner))
}

/// Remove `@string` macros that refer to themselves through a chain (`a = b`, `b = a`),
/// which would make macro expansion recurse forever.
fn drop_cyclic_macros(macros: &mut Vec<Pair<'_>>, skipped: &mut Vec<Problem>) {
    let map: HashMap<&str, &Field<'_>> = macros.iter().map(|p| (p.key.v, &p.value.v)).collect();
    let refs = |f: &Field<'_>| -> Vec<String> {
        f.iter()
            .filter_map(|c| match c.v {
                RawChunk::Abbreviation(a) => Some(a.to_string()),
                RawChunk::Normal(_) => None,
            })
            .collect()
    };
    // Everything each macro can reach by expansion (a plain search per macro: macro
    // tables are small, and this cannot loop).
    let reach = |from: &str| -> HashSet<String> {
        let mut seen = HashSet::new();
        let mut todo: Vec<String> = map.get(from).map(|f| refs(f)).unwrap_or_default();
        while let Some(n) = todo.pop() {
            if seen.insert(n.clone())
                && let Some(f) = map.get(n.as_str())
            {
                todo.extend(refs(f));
            }
        }
        seen
    };
    let reachable: HashMap<&str, HashSet<String>> = map.keys().map(|k| (*k, reach(k))).collect();
    let cyclic: HashSet<&str> = reachable.iter().filter(|(k, r)| r.contains(**k)).map(|(k, _)| *k).collect();
    let bad: HashSet<String> = reachable
        .iter()
        .filter(|(k, r)| cyclic.contains(**k) || r.iter().any(|n| cyclic.contains(n.as_str())))
        .map(|(k, _)| k.to_string())
        .collect();
    let before = macros.len();
    macros.retain(|p| {
        let bad = bad.contains(p.key.v);
        if bad {
            skipped.push(Problem {
                kept: false,
                line: 0,
                key: Some(p.key.v.to_string()),
                reason: "@string macro refers to itself through a chain of macros".into(),
            });
        }
        !bad
    });
    debug_assert!(macros.len() <= before);
}

/// The key of an entry the parser could not read, for the report: the text between
/// the opening delimiter and the first comma, when it looks like a key.
fn guess_key(text: &str) -> Option<String> {
    let open = text.find(['{', '('])?;
    let rest = &text[open + 1..];
    let end = rest.find([',', '\n', '}'])?;
    let key = rest[..end].trim();
    (!key.is_empty() && !key.contains(char::is_whitespace) && key.len() <= 200).then(|| key.to_string())
}

fn field(e: &biblatex::Entry, name: &str) -> Option<String> {
    let v = e.get(name)?.format_verbatim();
    let v = clean(&v);
    (!v.is_empty()).then_some(v)
}

/// Plain text from what the parser leaves of a LaTeX value: stray braces removed,
/// unknown commands dropped to their argument, `~` as a space, whitespace collapsed.
pub fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' => {}
            '~' => out.push(' '),
            '\\' => {
                // A command the parser did not evaluate: drop its name, keep what follows.
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphabetic() {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if name.is_empty() {
                    // An escaped character (`\&`, `\%`, `\_`): keep the character.
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if name == "and" {
                    out.push('&');
                }
            }
            c => out.push(c),
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn authors(e: &biblatex::Entry) -> Vec<String> {
    let people =
        e.author().ok().filter(|p| !p.is_empty()).or_else(|| {
            e.editors().ok().and_then(|eds| eds.into_iter().next().map(|(p, _)| p)).filter(|p| !p.is_empty())
        });
    match people {
        Some(people) => people
            .into_iter()
            .filter(|p| !(p.name.eq_ignore_ascii_case("others") && p.given_name.is_empty()))
            .map(|p| {
                let mut family = [p.prefix.as_str(), p.name.as_str()]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                family = clean(&family);
                let given = clean(&p.given_name);
                let suffix = clean(&p.suffix);
                let mut s = family;
                if !given.is_empty() {
                    s = format!("{s}, {given}");
                }
                if !suffix.is_empty() {
                    s = format!("{s} {suffix}");
                }
                s
            })
            .filter(|s| !s.is_empty())
            .collect(),
        None => field(e, "author")
            .map(|a| a.split(" and ").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
            .unwrap_or_default(),
    }
}

fn to_reference(e: &biblatex::Entry, origin: &str) -> Reference {
    let title = field(e, "title").unwrap_or_default();
    let year = field(e, "year").and_then(|y| find_year(&y)).or_else(|| field(e, "date").and_then(|d| find_year(&d)));
    let url = field(e, "url");
    let doi = field(e, "doi")
        .and_then(|d| normalize_doi(&d))
        .or_else(|| url.as_deref().filter(|u| u.contains("doi.org/")).and_then(normalize_doi));
    let arxiv_id = arxiv(e, url.as_deref());
    Reference {
        key: e.key.clone(),
        title,
        authors: authors(e),
        year,
        doi,
        arxiv_id,
        url,
        source: Source::Bibtex,
        fetched_at: None,
        origin: origin.to_string(),
    }
}

fn details(e: &biblatex::Entry) -> Details {
    let list = |name: &str, split: &[char]| -> Vec<String> {
        field(e, name)
            .map(|v| v.split(split).map(str::trim).filter(|w| !w.is_empty()).map(str::to_string).collect())
            .unwrap_or_default()
    };
    let venue = ["journal", "journaltitle", "booktitle", "howpublished"].iter().find_map(|n| field(e, n));
    let mut cites = Vec::new();
    for name in ["cites", "references", "related"] {
        cites.extend(list(name, &[',', ';', ' ', '\n', '\t']));
    }
    Details {
        kind: e.entry_type.to_bibtex().to_string().to_lowercase(),
        venue,
        abstract_text: field(e, "abstract").unwrap_or_default(),
        keywords: list("keywords", &[',', ';']),
        cites,
    }
}

fn arxiv(e: &biblatex::Entry, url: Option<&str>) -> Option<String> {
    let archive = field(e, "eprinttype").or_else(|| field(e, "archiveprefix")).unwrap_or_default().to_lowercase();
    if let Some(ep) = field(e, "eprint")
        && (archive.is_empty() || archive == "arxiv")
        && let Some(id) = find_arxiv_id(&ep)
    {
        return Some(id);
    }
    for name in ["journal", "journaltitle", "note", "howpublished", "booktitle"] {
        if let Some(v) = field(e, name)
            && v.to_lowercase().contains("arxiv")
            && let Some(id) = find_arxiv_id(&v)
        {
            return Some(id);
        }
    }
    url.filter(|u| u.contains("arxiv.org/")).and_then(find_arxiv_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_split_and_recover_from_a_missing_brace() {
        let text = "junk @ not an entry\n@article{a, title={A}\n@book{b, title={B}}\n@misc(c, title={C})\n";
        let bs = blocks(text);
        assert_eq!(bs.len(), 3, "{bs:?}");
        assert!(!bs[0].closed);
        assert_eq!(bs[1].line, 3);
        assert!(bs[1].closed && bs[2].closed);
        assert_eq!(bs[2].kind, "misc");
    }

    #[test]
    fn cyclic_macros_are_dropped_not_followed() {
        let text = "@string{a = b}\n@string{b = a}\n@string{ok = \"fine\"}\n@article{k, title = ok # a}\n@article{j, title = ok}\n";
        let f = parse(text, "x.bib");
        // `a` is dropped, so `k` reads it as an undefined macro: kept, with the defect noted.
        assert_eq!(f.references.len(), 2);
        assert!(f.references.iter().all(|r| r.title == "fine"));
        assert_eq!(f.problems.iter().filter(|s| s.reason.contains("refers to itself")).count(), 2);
        assert!(f.problems.iter().any(|s| s.key.as_deref() == Some("k") && s.kept));
    }

    #[test]
    fn clean_drops_leftover_markup() {
        assert_eq!(
            clean("{BERT}: Pre-training of  {Deep}~Bidirectional \\emph{Transformers} \\& more"),
            "BERT: Pre-training of Deep Bidirectional Transformers & more"
        );
    }
}
