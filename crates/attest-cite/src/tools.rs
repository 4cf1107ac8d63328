//! The citation tools as catalogue entries: `cite.lookup`, `cite.search` and
//! `cite.sources`, plain async functions over a shared [`Resolver`] with no MCP in them.
//!
//! `cite.check` needs the claim reader, which lives in `attest-runs`; the binary that
//! links both wraps [`check_answer`] as that tool.

use std::sync::Arc;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Catalogue, Fault, Hints, NoArgs, Ref, Tool, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::{Uncited, miss_message, uncited};
pub use crate::scan::check_tool;
use crate::{Reference, Resolver, Source, SourceInfo, Sources};

/// Most results `cite.search` returns at once.
pub const MAX_SEARCH: i64 = 25;
/// Results `cite.search` returns by default.
pub const DEFAULT_SEARCH: i64 = 5;
/// Most authors a row lists (the count says how many there are).
pub const MAX_AUTHORS: usize = 6;
/// Most problems listed per source by `cite.sources`.
pub const MAX_PROBLEMS: usize = 5;
/// Most uncited claims listed by [`check_answer`].
pub const MAX_UNCITED: usize = 20;

/// A reference as the tools show it: authors cut to the first few.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// The citation key.
    pub key: String,
    /// The title (`(untitled)` when the source has none).
    pub title: String,
    /// The first authors, `Family, Given`.
    pub authors: Vec<String>,
    /// How many authors there are in all.
    pub n_authors: usize,
    /// Year of publication.
    pub year: Option<i32>,
    /// DOI, bare.
    pub doi: Option<String>,
    /// arXiv id.
    pub arxiv_id: Option<String>,
    /// A link to the work.
    pub url: Option<String>,
    /// Which kind of source it came from.
    pub source: Source,
    /// The file or service it came from.
    pub origin: String,
    /// For web records, the date it was fetched.
    pub fetched_at: Option<String>,
}

impl From<&Reference> for Row {
    fn from(r: &Reference) -> Row {
        Row {
            key: r.key.clone(),
            title: clip(r.title_or_untitled(), 300),
            authors: r.authors.iter().take(MAX_AUTHORS).map(|a| clip(a, 80)).collect(),
            n_authors: r.authors.len(),
            year: r.year,
            doi: r.doi.clone(),
            arxiv_id: r.arxiv_id.clone(),
            url: r.link(),
            source: r.source,
            origin: r.origin.clone(),
            fetched_at: r.fetched_at.clone(),
        }
    }
}

pub(crate) fn reference_ref(r: &Reference) -> Ref {
    match r.link() {
        Some(url) => Ref::with_url(format!("cite:{}", r.key), url),
        None => Ref::id(format!("cite:{}", r.key)),
    }
}

/// Arguments of `cite.lookup`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupArgs {
    /// A citation key (`vaswani2017attention`), a DOI (`10.48550/arXiv.1706.03762`, a
    /// doi.org link works too) or an arXiv id (`1706.03762`).
    pub key: String,
}

/// What `cite.lookup` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LookupData {
    /// The record found.
    pub reference: Row,
}

/// Arguments of `cite.search`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// A few words: author names, title words, a year or a key. May be left out when a
    /// filter is given (then every record the filters keep is listed).
    #[serde(default)]
    pub query: String,
    /// Only works with an author of this name (a family name is enough; accents and
    /// case do not matter).
    #[serde(default)]
    pub author: Option<String>,
    /// Only works from this year (`2017`) or range of years (`2015-2019`, `2015-`, `-2019`).
    #[serde(default)]
    pub year: Option<String>,
    /// Only library entries tagged with this concept (any spelling: `GNN`, `graph neural networks`).
    #[serde(default)]
    pub tag: Option<String>,
    /// How many results to show, 1 to 25 (default 5).
    #[serde(default)]
    #[schemars(range(min = 1, max = 25))]
    pub limit: Option<i64>,
}

/// What `cite.search` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SearchData {
    /// The best matches, best first.
    pub references: Vec<Row>,
    /// How many records matched in all (more than shown when the list was cut).
    pub matches: usize,
}

/// One source as `cite.sources` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SourceRow {
    /// The `.bib` file or Zotero database as shown, or `crossref`.
    pub name: String,
    /// Which kind of source it is.
    pub kind: Source,
    /// Whether asking it reaches the network.
    pub network: bool,
    /// How many records it holds.
    pub records: usize,
    /// How many problems it has in all (entries skipped, tables missing).
    pub n_problems: usize,
    /// The first few problems.
    pub problems: Vec<String>,
}

impl From<SourceInfo> for SourceRow {
    fn from(s: SourceInfo) -> SourceRow {
        SourceRow {
            name: s.name,
            kind: s.kind,
            network: s.network,
            records: s.records,
            n_problems: s.problems.len(),
            problems: s.problems.into_iter().take(MAX_PROBLEMS).map(|p| clip(&p, 200)).collect(),
        }
    }
}

/// What `cite.sources` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SourcesData {
    /// Every source, in the order lookups ask them.
    pub sources: Vec<SourceRow>,
    /// True when no source reaches the network.
    pub offline: bool,
}

/// What `cite.check` returns (built by [`check_answer`]).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct CheckData {
    /// How many claims were read.
    pub n_claims: usize,
    /// How many of them carry `cite=`.
    pub n_cited: usize,
    /// The claims whose key no source has, the first few.
    pub uncited: Vec<Uncited>,
    /// How many uncited claims there are in all.
    pub n_uncited: usize,
    /// Annotations that could not be read as claims, the first few.
    pub malformed: Vec<String>,
}

/// `cite.lookup`: the record a key, DOI or arXiv id names.
pub async fn lookup(resolver: &Arc<Resolver>, args: LookupArgs) -> Result<Answer<LookupData>, Fault> {
    let key = args.key.trim().to_string();
    if key.is_empty() {
        return Ok(Answer::refuse(
            "cite.lookup needs a key: a citation key, a DOI or an arXiv id (e.g. key=\"vaswani2017attention\"). To find one by words, use cite.search.",
        ));
    }
    if key.chars().count() > 500 {
        return Ok(Answer::refuse("that key is over 500 characters; pass one citation key, DOI or arXiv id"));
    }
    let found = if resolver.online() {
        let r = Arc::clone(resolver);
        let k = key.clone();
        tokio::task::spawn_blocking(move || r.lookup(&k)).await.map_err(|e| Fault::new("cite.lookup", e))?
    } else {
        resolver.lookup(&key)
    };
    Ok(match found {
        Some(r) => Answer::ok(r.line(), LookupData { reference: Row::from(&r) }).with_refs(vec![reference_ref(&r)]),
        None => Answer::refuse(miss_message(&clip(&key, 120), &resolver.source_names()))
            .with_options(vec!["cite.search".into(), "cite.sources".into()]),
    })
}

/// `cite.search`: records matching a few words, from the sources on disk.
pub async fn search(resolver: &Arc<Resolver>, args: SearchArgs) -> Result<Answer<SearchData>, Fault> {
    Ok(search_in(resolver, &[], args))
}

/// A year or a range of years, as `cite.search` takes it.
fn years(text: &str) -> Option<(i32, i32)> {
    let t = text.trim().replace("..", "-").replace(['\u{2013}', '\u{2014}'], "-");
    let y = |s: &str| -> Option<Option<i32>> {
        let s = s.trim();
        if s.is_empty() {
            return Some(None);
        }
        s.parse::<i32>().ok().filter(|y| (1000..=2999).contains(y)).map(Some)
    };
    match t.split_once('-') {
        None => y(&t)?.map(|v| (v, v)),
        Some((a, b)) => {
            let (a, b) = (y(a)?, y(b)?);
            if a.is_none() && b.is_none() {
                return None;
            }
            Some((a.unwrap_or(i32::MIN), b.unwrap_or(i32::MAX))).filter(|(a, b)| a <= b)
        }
    }
}

/// `cite.search` over the reference library (`library`, asked first) and the sources on
/// disk, with the author, year and tag filters.
pub fn search_in(resolver: &Resolver, library: &[crate::library::Entry], args: SearchArgs) -> Answer<SearchData> {
    let query = clip(args.query.trim(), 300);
    let author = args.author.as_deref().map(crate::library::fold).filter(|a| !a.is_empty());
    let tag = args.tag.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let year_text = args.year.as_deref().map(str::trim).filter(|y| !y.is_empty());
    if query.is_empty() && author.is_none() && tag.is_none() && year_text.is_none() {
        return Answer::refuse(
            "cite.search needs a few words (an author, title words, a year or a key, e.g. query=\"vaswani attention 2017\") or a filter: author, year or tag",
        );
    }
    let limit = args.limit.unwrap_or(DEFAULT_SEARCH);
    if !(1..=MAX_SEARCH).contains(&limit) {
        return Answer::refuse(format!("limit must be between 1 and {MAX_SEARCH}; got {limit}"));
    }
    let span = match year_text.map(|y| (y, years(y))) {
        Some((y, None)) => {
            return Answer::refuse(format!(
                "year: '{}' is not a year or a range; write 2017, 2015-2019, 2015- or -2019",
                clip(y, 40)
            ));
        }
        Some((_, Some(span))) => Some(span),
        None => None,
    };
    // A tag names library entries only: resolve it against the library's own concepts.
    let tag_keys: Option<std::collections::HashSet<String>> = match tag {
        None => None,
        Some(t) => {
            let wanted = crate::library::canonical_tags(&[t.to_string()]);
            let fold_of = |s: &str| attest_tags::fold_key(s);
            let wanted: Vec<String> = wanted.iter().map(|w| fold_of(w)).collect();
            let keys: std::collections::HashSet<String> = library
                .iter()
                .filter(|e| e.tags.iter().any(|g| wanted.contains(&fold_of(g))))
                .map(|e| e.key.to_lowercase())
                .collect();
            if keys.is_empty() {
                let near = crate::library::nearest_tags(t, library, 5);
                let hint = if near.is_empty() {
                    format!(
                        "no library entry has a tag yet: save works with cite.save (they are tagged with the concepts of your archive), or import your .bib files: {}",
                        crate::library_tools::import_step().for_agent()
                    )
                } else {
                    format!("tags in your library nearest to it: {}", near.join(", "))
                };
                return Answer::refuse(format!("no entry of your library is tagged '{}'; {hint}", clip(t, 80)))
                    .with_options(vec!["cite.search".into(), "cite.related".into()]);
            }
            Some(keys)
        }
    };
    let keep = |r: &Reference| -> bool {
        if let Some(keys) = &tag_keys
            && (r.source != Source::Library || !keys.contains(&r.key.to_lowercase()))
        {
            return false;
        }
        if let Some((a, b)) = span
            && !r.year.is_some_and(|y| a <= y && y <= b)
        {
            return false;
        }
        if let Some(want) = &author {
            let names: Vec<String> = r.authors.iter().map(|n| crate::library::fold(n)).collect();
            let all: Vec<&str> = names.iter().flat_map(|n| n.split(' ')).collect();
            if !want.split(' ').all(|w| all.contains(&w)) {
                return false;
            }
        }
        true
    };
    let first: Vec<Reference> = library.iter().map(crate::library::Entry::reference).collect();
    let found = resolver.search_with(&query, limit as usize, &first, &keep);
    let mut filters = Vec::new();
    if let Some(a) = &args.author {
        filters.push(format!("by {}", clip(a.trim(), 60)));
    }
    if let Some((a, b)) = span {
        filters.push(match (a, b) {
            (a, b) if a == b => format!("from {a}"),
            (a, i32::MAX) => format!("from {a} on"),
            (i32::MIN, b) => format!("up to {b}"),
            (a, b) => format!("from {a} to {b}"),
        });
    }
    if let Some(t) = tag {
        filters.push(format!("tagged {}", clip(t, 60)));
    }
    let miss = if filters.is_empty() { format!("'{query}'") } else { format!("({})", filters.join(", ")) };
    let miss = if query.is_empty() || filters.is_empty() { miss } else { format!("'{query}' {miss}") };
    let mut what = if query.is_empty() { Vec::new() } else { vec![format!("for '{query}'")] };
    what.extend(filters);
    let what = what.join(" ");
    let searched =
        if library.is_empty() { resolver.source_names() } else { format!("your library, {}", resolver.source_names()) };
    if found.matches == 0 {
        return Answer::refuse(format!(
            "nothing in {searched} matches {miss}; try fewer or other words (an author's family name, a title word), drop a filter, or add the reference to a .bib file"
        ));
    }
    let top = &found.references[0];
    let head = if found.matches > found.references.len() {
        format!("{} {what}, showing the best {}", plural(found.matches, "match", "matches"), found.references.len())
    } else {
        format!("{} {what}", plural(found.matches, "match", "matches"))
    };
    let answer = format!("{head}. Best: {}", top.line());
    let refs = found.references.iter().map(reference_ref).collect();
    let data = SearchData { references: found.references.iter().map(Row::from).collect(), matches: found.matches };
    Answer::ok(answer, data).with_refs(refs)
}

/// `cite.sources`: where references come from, and whether anything reaches the network.
pub async fn sources(resolver: &Arc<Resolver>) -> Result<Answer<SourcesData>, Fault> {
    let all = resolver.sources();
    let offline = !all.iter().any(|s| s.network);
    let records: usize = all.iter().map(|s| s.records).sum();
    let problems: usize = all.iter().map(|s| s.problems.len()).sum();
    let answer = if all.is_empty() {
        "no citation source is configured: add .bib files (or a folder of them) to the configuration, or install Zotero; web lookups are off".to_string()
    } else {
        let names: Vec<String> = all.iter().map(|s| format!("{} ({})", s.name, s.records)).collect();
        format!(
            "{} from {}: {}; {}",
            plural(records, "reference", "references"),
            plural(all.len(), "source", "sources"),
            names.join(", "),
            if offline { "nothing is looked up online" } else { "DOIs not found on disk are looked up on CrossRef" }
        )
    };
    let mut a = Answer::ok(answer, SourcesData { sources: all.into_iter().map(SourceRow::from).collect(), offline });
    if problems > 0 {
        a = a.with_caveats([format!(
            "{} could not be read (see each source's problems); those references are missing",
            plural(problems, "entry or table", "entries or tables")
        )]);
    }
    Ok(a)
}

/// The `cite.check` answer for claims already read: `claims` are `(file, line, key)` of
/// the claims that carry `cite=`, `n_claims` counts every claim read and `malformed`
/// the annotations that could not be read. A caller with the claim reader wraps this
/// as the `cite.check` tool.
pub fn check_answer(
    claims: &[(String, usize, String)],
    n_claims: usize,
    malformed: Vec<String>,
    resolver: &Resolver,
) -> Answer<CheckData> {
    let found = uncited(claims, resolver);
    let n_cited = claims.iter().filter(|c| !c.2.trim().is_empty()).count();
    let answer = if n_claims == 0 {
        "no claims found; a claim is written <!-- claim: project/run metric=NAME value=NUMBER cite=KEY -->".to_string()
    } else if n_cited == 0 {
        format!("none of the {} carries cite=, so there is nothing to check", plural(n_claims, "claim", "claims"))
    } else if found.is_empty() {
        format!(
            "every cited key resolves ({} with cite=, checked: {})",
            plural(n_cited, "claim", "claims"),
            resolver.source_names()
        )
    } else {
        let first = &found[0];
        format!(
            "{} of {} with cite= {} a key no source has; first: {} cite={}. Add the references to a .bib file or Zotero, or correct the keys",
            found.len(),
            plural(n_cited, "claim", "claims"),
            if found.len() == 1 { "names" } else { "name" },
            first.place(),
            first.key
        )
    };
    let n_uncited = found.len();
    let refs = found.iter().take(MAX_UNCITED).map(|u| Ref::id(u.place())).collect();
    let data = CheckData {
        n_claims,
        n_cited,
        uncited: found.into_iter().take(MAX_UNCITED).collect(),
        n_uncited,
        malformed: malformed.into_iter().take(5).map(|m| clip(&m, 200)).collect(),
    };
    let mut a = Answer::ok(answer, data).with_refs(refs);
    if n_uncited > MAX_UNCITED {
        a = a.with_caveats([format!("{} more uncited claims are not listed", n_uncited - MAX_UNCITED)]);
    }
    a
}

/// The citation tools over `sources` (loaded on the first call). All only read;
/// `cite.lookup` reaches the network only when the sources enable the web.
pub fn tools(sources: Arc<Sources>) -> Catalogue {
    let mut c = Catalogue::new();
    let lookup_hints = Hints { open_world: sources.online(), ..Hints::READ };
    let r = Arc::clone(&sources);
    c.push(Tool::new(
        ToolSpec::new(
            "cite.lookup",
            "Look up a reference",
            "Look up one reference by its citation key, DOI or arXiv id, in your .bib files and Zotero library.\n\nCase does not matter; a doi.org link or arXiv url works too. CrossRef is asked only when web lookups are enabled.",
            lookup_hints,
        ),
        move |a: LookupArgs| {
            let r = Arc::clone(&r);
            async move { lookup(&r.get().await, a).await.map(Answer::into_value) }
        },
    ));
    let r = Arc::clone(&sources);
    c.push(Tool::new(
        ToolSpec::new(
            "cite.search",
            "Find references by words",
            "Find references in your .bib files and Zotero library by author, title words, year or key.\n\nNever searches online. Best matches first.",
            Hints::READ,
        ),
        move |a: SearchArgs| {
            let r = Arc::clone(&r);
            async move { search(&r.get().await, a).await.map(Answer::into_value) }
        },
    ));
    let r = Arc::clone(&sources);
    c.push(Tool::new(
        ToolSpec::new(
            "cite.sources",
            "Where references come from",
            "List where references come from (.bib files, Zotero, CrossRef), how many each holds, what could not be read, and whether anything goes online.",
            Hints::READ,
        ),
        move |_: NoArgs| {
            let r = Arc::clone(&r);
            async move { self::sources(&r.get().await).await.map(Answer::into_value) }
        },
    ));
    c
}
