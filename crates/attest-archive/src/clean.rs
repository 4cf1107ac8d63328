//! Turning feed text into plain text, and finding the identifiers that dedup rests on.
//!
//! HTML is flattened by a small tag stripper rather than a DOM parser: feed summaries
//! are fragments that only ever need to become one line of text, and an HTML5 parser
//! (html5ever, behind `scraper` or `html2text`) would add some twenty crates for that.
//! The stripper drops comments, `<script>`/`<style>` bodies and every tag (inline tags
//! such as `<sub>` vanish so `H<sub>2</sub>O` reads `H2O`; other tags become a space),
//! then decodes every HTML entity with `html-escape`, then collapses whitespace. A `<`
//! that cannot start a tag (`a < b`) is kept as text.

use std::sync::LazyLock;

use regex::Regex;

/// Tags that sit inside a word or sentence: removed without leaving a space.
const INLINE: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "font", "i", "kbd", "mark", "q", "s", "small", "span",
    "strong", "sub", "sup", "tt", "u", "var",
];

/// Elements whose content is never text for a reader.
const DROPPED: &[&str] = &["script", "style", "head", "template"];

/// Flatten an HTML fragment to plain text: tags removed, entities decoded, whitespace
/// collapsed, trimmed.
pub fn strip_html(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    let mut last = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &input[i..];
        if rest.starts_with("<!--") {
            out.push_str(&input[last..i]);
            let end = rest.find("-->").map(|e| i + e + 3).unwrap_or(bytes.len());
            out.push(' ');
            i = end;
            last = i;
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            out.push_str(&input[last..i]);
            let body_start = i + 9;
            let end = input[body_start..].find("]]>").map(|e| body_start + e).unwrap_or(bytes.len());
            out.push_str(&input[body_start..end]);
            i = (end + 3).min(bytes.len());
            last = i;
            continue;
        }
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        if !(next.is_ascii_alphabetic() || next == b'/' || next == b'!' || next == b'?') {
            i += 1;
            continue;
        }
        let Some(close) = tag_end(bytes, i + 1) else {
            // Never closed, so not a tag: plain text such as "p<q".
            i += 1;
            continue;
        };
        out.push_str(&input[last..i]);
        let name = tag_name(&input[i + 1..close]);
        let closing = next == b'/';
        i = close + 1;
        if !closing && DROPPED.contains(&name.as_str()) {
            let lower = input[i..].to_ascii_lowercase();
            let needle = format!("</{name}");
            i = lower.find(&needle).map(|e| i + e).unwrap_or(bytes.len());
            if let Some(gt) = input[i..].find('>') {
                i += gt + 1;
            }
            out.push(' ');
        } else if !INLINE.contains(&name.as_str()) {
            out.push(' ');
        }
        last = i;
    }
    if last < bytes.len() {
        out.push_str(&input[last..]);
    }
    collapse_ws(&html_escape::decode_html_entities(&out))
}

/// Index of the `>` closing a tag that starts before `from`, skipping quoted
/// attribute values.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (k, &b) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(k),
            None => {}
        }
    }
    None
}

fn tag_name(inner: &str) -> String {
    inner
        .trim_start_matches(['/', '!', '?'])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Collapse whitespace runs (including non-breaking spaces) to single spaces and trim.
pub fn collapse_ws(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c == '\u{a0}').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

static PREAMBLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)^\s*arxiv:\s*(\S+?)\s+announce\s+type:\s*[\w-]+\s+abstract:\s*").expect("valid regex")
});

/// Remove the arXiv listing preamble (`arXiv:2501.01234v1 Announce Type: new
/// Abstract: …`), case-insensitively, returning the text after it and the arXiv id
/// the preamble named (normalised).
pub fn strip_arxiv_preamble(text: &str) -> (String, Option<String>) {
    match PREAMBLE.captures(text) {
        Some(c) => {
            let id = find_arxiv_id(&format!("arXiv:{}", &c[1]));
            (text[c.get(0).map(|m| m.end()).unwrap_or(0)..].trim().to_string(), id)
        }
        None => (text.trim().to_string(), None),
    }
}

static TITLE_SUFFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\.?\s*\(arxiv:\s*([^\s\[\)]+)\s*(?:\[([^\]]*)\])?[^)]*\)\s*$").expect("valid regex")
});

/// Split an old-style arXiv listing title (`Title. (arXiv:2501.01234v1 [cs.LG]
/// UPDATED)`) into the bare title, the arXiv id and the categories named in brackets.
/// Other titles come back unchanged with no id and no categories.
pub fn split_arxiv_title(title: &str) -> (String, Option<String>, Vec<String>) {
    match TITLE_SUFFIX.captures(title) {
        Some(c) => {
            let id = find_arxiv_id(&format!("arXiv:{}", &c[1]));
            let cats = c
                .get(2)
                .map(|m| m.as_str().split([' ', ',']).filter(|s| !s.is_empty()).map(str::to_string).collect())
                .unwrap_or_default();
            let bare = title[..c.get(0).map(|m| m.start()).unwrap_or(title.len())].trim().to_string();
            (bare, id, cats)
        }
        None => (title.to_string(), None, Vec::new()),
    }
}

static DOI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#"(?i)\b(10\.\d{4,9}/[^\s"'<>]+)"#).expect("valid regex"));

/// The first DOI in `s` (a link, an id or text), lowercased, with trailing sentence
/// punctuation and unbalanced closing brackets removed.
pub fn find_doi(s: &str) -> Option<String> {
    let m = DOI.captures(s)?;
    Some(tidy_doi(&m[1]))
}

fn tidy_doi(raw: &str) -> String {
    let mut d = raw.trim_end_matches(['.', ',', ';', ':']).to_string();
    loop {
        let opens = d.matches('(').count() + d.matches('[').count();
        let closes = d.matches(')').count() + d.matches(']').count();
        if closes > opens && (d.ends_with(')') || d.ends_with(']')) {
            d.pop();
            d = d.trim_end_matches(['.', ',', ';', ':']).to_string();
        } else {
            break;
        }
    }
    d.to_lowercase()
}

static LABELLED_DOI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:\bdoi:\s*|\bdoi\s+|doi\.org/)(10\.\d{4,9}/[^\s"'<>]+)"#).expect("valid regex")
});

/// A DOI the text labels as its own (`doi:10.…`, `DOI 10.…`, `doi.org/10.…`), only
/// when exactly one distinct DOI is labelled: a summary citing several papers names
/// none of them as itself.
pub fn labelled_doi(text: &str) -> Option<String> {
    let mut found: Vec<String> = LABELLED_DOI.captures_iter(text).map(|c| tidy_doi(&c[1])).collect();
    found.sort();
    found.dedup();
    if found.len() == 1 { found.pop() } else { None }
}

static ARXIV: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)arxiv(?:\.org/(?:abs|pdf|html)/|\.org:|:)\s*(\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?",
    )
    .expect("valid regex")
});

/// The arXiv id in `s` (`arxiv.org/abs/…`, `oai:arXiv.org:…`, `arXiv:…`), without
/// its version suffix. Old-style ids (`hep-th/9901001`) are lowercased.
pub fn find_arxiv_id(s: &str) -> Option<String> {
    ARXIV.captures(s).map(|c| c[1].to_lowercase())
}

/// The arXiv id behind an arXiv DOI (`10.48550/arxiv.2501.01234`).
pub fn arxiv_from_doi(doi: &str) -> Option<String> {
    let rest = doi.to_lowercase();
    let id = rest.strip_prefix("10.48550/arxiv.")?;
    find_arxiv_id(&format!("arXiv:{id}"))
}

/// blake3 (hex) over the title and summary, each lowercased with whitespace
/// collapsed, so the same text syndicated with different spacing or case is one item.
pub fn content_hash(title: &str, summary: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(collapse_ws(title).to_lowercase().as_bytes());
    h.update(b"\n");
    h.update(collapse_ws(summary).to_lowercase().as_bytes());
    h.finalize().to_hex().to_string()
}

/// Normalise a category into a tag: trimmed, lowercased, whitespace runs as single
/// hyphens, at most 64 characters. `None` if nothing is left.
pub fn normalise_tag(raw: &str) -> Option<String> {
    let t = collapse_ws(&strip_html(raw)).to_lowercase().replace(' ', "-");
    let t: String = t.chars().take(64).collect();
    let t = t.trim_matches('-').to_string();
    if t.is_empty() { None } else { Some(t) }
}

/// Most authors kept per item (a collaboration paper can list thousands).
pub const MAX_AUTHORS: usize = 50;

/// The authors of an entry from the names its feed gives (RSS `author` /
/// `dc:creator`, Atom `author`, JSON Feed `authors`), cleaned, in order, without
/// repeats: HTML removed; an RSS `email (Name)` is the name, a bare address nothing;
/// one field listing several people (`A. One, B. Two and C. Three`, `One; Two`) is
/// split, but a single inverted name (`Curie, Marie`: one comma, one word either side)
/// becomes `Marie Curie`; `et al.`, `and others` and `Anonymous` are not names. At most
/// [`MAX_AUTHORS`], each at most 100 characters.
pub fn authors<'a>(raw: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for field in raw {
        let text = collapse_ws(&strip_html(field));
        for name in split_names(&text) {
            let name: String = name.chars().take(100).collect();
            if out.len() < MAX_AUTHORS && seen.insert(name.to_lowercase()) {
                out.push(name);
            }
        }
    }
    out
}

/// The names one author field holds (see [`authors`]).
fn split_names(text: &str) -> Vec<String> {
    let mut text = text.trim().to_string();
    // `jane@example.org (Jane Doe)`: the name in brackets; a bare address is no name.
    if text.contains('@') {
        match (text.find('('), text.rfind(')')) {
            (Some(a), Some(b)) if a < b => text = text[a + 1..b].trim().to_string(),
            _ => return Vec::new(),
        }
    }
    // What is left of `jane@example.org (Jane Doe)` once the address is taken off.
    if text.starts_with('(') && text.ends_with(')') {
        text = text[1..text.len() - 1].trim().to_string();
    }
    // `… et al.` ends the list.
    if let Some(at) = text.to_lowercase().find("et al") {
        text.truncate(at);
    }
    let words_in = |s: &str| s.split_whitespace().count();
    let suffix = |s: &str| matches!(s.trim_end_matches('.').to_lowercase().as_str(), "jr" | "sr" | "ii" | "iii" | "iv");
    let mut parts: Vec<String> = Vec::new();
    for field in text.split(';') {
        let commas: Vec<&str> = field.split(',').map(str::trim).collect();
        match commas.as_slice() {
            // `Curie, Marie` is one person; `King, Jr.` keeps its suffix.
            [family, given] if words_in(family) == 1 && words_in(given) == 1 => {
                parts.push(if suffix(given) { format!("{family} {given}") } else { format!("{given} {family}") });
            }
            _ => parts.extend(commas.iter().map(|s| s.to_string())),
        }
    }
    let mut names = Vec::new();
    for part in parts {
        // `A. One and B. Two`, `A. One & B. Two`.
        let mut cur: Vec<&str> = Vec::new();
        for w in part.split_whitespace().chain(std::iter::once("&")) {
            if w.eq_ignore_ascii_case("and") || w == "&" {
                let name = cur.join(" ");
                let lower = name.to_lowercase();
                let no_name = matches!(lower.as_str(), "" | "others" | "anonymous" | "unknown" | "n/a")
                    || !name.chars().any(char::is_alphabetic);
                if !no_name {
                    names.push(name);
                }
                cur.clear();
            } else {
                cur.push(w);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authors_are_names_in_order_however_the_feed_writes_them() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["A. Author, B. Author"], &["A. Author", "B. Author"]),
            (&["Ada Lovelace and Charles Babbage"], &["Ada Lovelace", "Charles Babbage"]),
            (
                &["Ada Lovelace, Charles Babbage and Mary Somerville"],
                &["Ada Lovelace", "Charles Babbage", "Mary Somerville"],
            ),
            (&["Curie, Marie"], &["Marie Curie"]),
            (&["Curie, Marie; Curie, Pierre"], &["Marie Curie", "Pierre Curie"]),
            (&["editor@journal.example (Jane Doe)"], &["Jane Doe"]),
            (&["(Jane Doe)"], &["Jane Doe"]),
            (&["noreply@journal.example"], &[]),
            (&["<b>Émilie du Châtelet</b>"], &["Émilie du Châtelet"]),
            (&["Li Wei et al."], &["Li Wei"]),
            (&["Ada Lovelace", "ada lovelace", "Anonymous", "  "], &["Ada Lovelace"]),
            (&["King, Jr."], &["King Jr."]),
        ];
        for (raw, want) in cases {
            assert_eq!(authors(raw.iter().copied()), *want, "{raw:?}");
        }
        let many: Vec<String> = (0..80).map(|i| format!("Person {i}")).collect();
        assert_eq!(authors(many.iter().map(String::as_str)).len(), MAX_AUTHORS);
    }

    #[test]
    fn strips_tags_and_decodes_entities() {
        assert_eq!(
            strip_html("<p>Water (H<sub>2</sub>O) &amp; ice</p><p>next&nbsp;para</p>"),
            "Water (H2O) & ice next para"
        );
        assert_eq!(strip_html("a < b and c>d"), "a < b and c>d");
        assert_eq!(strip_html("x<script>alert('<p>')</script>y"), "x y");
        assert_eq!(strip_html("<!-- hidden -->shown<br/>line"), "shown line");
        assert_eq!(strip_html("<a href=\"x>y\">link</a> text"), "link text");
        assert_eq!(strip_html("&lt;b&gt; is a tag"), "<b> is a tag");
        assert_eq!(strip_html("p<q holds"), "p<q holds");
        assert_eq!(strip_html("caf&#233; &#x2014; &eacute;"), "café — é");
    }

    #[test]
    fn removes_the_arxiv_preamble() {
        let (t, id) = strip_arxiv_preamble("arXiv:2501.01234v2 Announce Type: replace-cross \nAbstract: We study X.");
        assert_eq!(t, "We study X.");
        assert_eq!(id.as_deref(), Some("2501.01234"));
        let (t, id) = strip_arxiv_preamble("We study arXiv: things. Abstract: no");
        assert_eq!(t, "We study arXiv: things. Abstract: no");
        assert_eq!(id, None);
    }

    #[test]
    fn splits_old_arxiv_titles() {
        let (t, id, cats) = split_arxiv_title("Fast things. (arXiv:2501.01234v1 [cs.LG stat.ML] UPDATED)");
        assert_eq!((t.as_str(), id.as_deref()), ("Fast things", Some("2501.01234")));
        assert_eq!(cats, vec!["cs.LG".to_string(), "stat.ML".into()]);
        let (t, id, _) = split_arxiv_title("A plain (parenthetical) title");
        assert_eq!((t.as_str(), id), ("A plain (parenthetical) title", None));
    }

    #[test]
    fn finds_dois() {
        assert_eq!(find_doi("https://doi.org/10.1038/S41557-025-0001-X").as_deref(), Some("10.1038/s41557-025-0001-x"));
        assert_eq!(find_doi("(see 10.1000/xyz.)").as_deref(), Some("10.1000/xyz"));
        assert_eq!(find_doi("10.1002/(sici)1097(199901)").as_deref(), Some("10.1002/(sici)1097(199901)"));
        assert_eq!(find_doi("no doi 10.12/abc"), None);
        assert_eq!(labelled_doi("Published as doi:10.5555/abc. Compare 10.5555/zzz.").as_deref(), Some("10.5555/abc"));
        assert_eq!(labelled_doi("doi:10.5555/a and doi:10.5555/b"), None);
    }

    #[test]
    fn finds_arxiv_ids() {
        assert_eq!(find_arxiv_id("https://arxiv.org/abs/2501.01234v3").as_deref(), Some("2501.01234"));
        assert_eq!(find_arxiv_id("oai:arXiv.org:2501.12345v1").as_deref(), Some("2501.12345"));
        assert_eq!(find_arxiv_id("http://arxiv.org/pdf/hep-th/9901001v2").as_deref(), Some("hep-th/9901001"));
        assert_eq!(find_arxiv_id("https://example.org/abs/2501.01234"), None);
        assert_eq!(arxiv_from_doi("10.48550/arXiv.2501.01234").as_deref(), Some("2501.01234"));
    }

    #[test]
    fn hashes_ignore_case_and_spacing() {
        assert_eq!(content_hash("A  Title", "Body\ntext"), content_hash("a title", "body text"));
        assert_ne!(content_hash("a", "b c"), content_hash("a b", "c"));
    }

    #[test]
    fn tags_normalise() {
        assert_eq!(normalise_tag("  Organic  Chemistry ").as_deref(), Some("organic-chemistry"));
        assert_eq!(normalise_tag("cs.LG").as_deref(), Some("cs.lg"));
        assert_eq!(normalise_tag("  "), None);
    }
}
