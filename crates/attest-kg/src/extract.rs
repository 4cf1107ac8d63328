//! Arguments as "what is left": once a tool is decided, its required argument is read
//! from the sentence by taking away what is not the argument — the stated options
//! (limits, years, dates, tags, authors, sources, kinds, pages), where to look ("in my
//! archive", "from my feeds"), politeness and openers, the tool's own cue words and
//! function words at the edges — and, for two concepts, by splitting what is left on
//! the connective between them. Nothing is invented: an empty leftover, a pronoun or a
//! leftover of frame words alone is `None`, and the caller asks back.
//!
//! The functions are pure and work on `char` boundaries found by the regex engine only.

use std::sync::LazyLock;

use regex::Regex;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("extraction pattern compiles")
}

/// What kind of argument is being cut, which decides the cue words taken away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A topic searched in what was read (`feed.search`'s query).
    Search,
    /// Words searched in the references (`cite.search`'s query).
    References,
    /// One concept whose neighbourhood is asked for (`kg.neighbors`).
    Neighbors,
    /// What the library's works should relate to (`cite.related`).
    Related,
    /// Two concepts to connect (`kg.path`).
    Path,
}

/// Options a search question states, cut from it before the topic is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// How many results.
    pub limit: Option<i64>,
    /// A year or range of years: "2023", "2015-2020", "2019-", "-2010".
    pub year: Option<String>,
    /// A first day, `YYYY-MM-DD`.
    pub since: Option<String>,
    /// A last day, `YYYY-MM-DD`.
    pub until: Option<String>,
    /// A tag ("tagged cs.RO").
    pub tag: Option<String>,
    /// An author ("by Yann LeCun").
    pub author: Option<String>,
    /// A feed or source ("from arxiv", "from the bioRxiv feed").
    pub source: Option<String>,
    /// A kind of item ("preprints only", "surveys").
    pub kind: Option<String>,
    /// A page of results ("page 2", "second page").
    pub page: Option<i64>,
    /// The reader named ("for reader 'ingrid'", "user=alice").
    pub user: Option<String>,
}

/// `key=value` pairs written in a question ("concept=transformers limit=8").
static KV: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)\b(?P<k>[a-z_]+)\s*=\s*(?:"(?P<q>[^"]*)"|'(?P<s>[^']*)'|(?P<v>[^\s,;]+))"#));

/// The value of a `key=value` pair named `key`.
pub fn given(text: &str, keys: &[&str]) -> Option<String> {
    KV.captures_iter(text).find(|c| keys.contains(&c["k"].to_lowercase().as_str())).and_then(|c| {
        let v = c.name("q").or(c.name("s")).or(c.name("v"))?.as_str().trim().to_string();
        (!v.is_empty()).then_some(v)
    })
}

/// An arXiv category ("cs.RO", "q-bio.GN", "hep-lat" is not one): a tag wherever it is said.
static CATEGORY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(?:tagged(?:\s+with)?|with\s+(?:the\s+)?tag|under\s+the\s+tag|in|on|from|with|under)\s+)?(?P<c>(?:cs|math|stat|q-bio|q-fin|econ|eess|physics|astro-ph|cond-mat)\.[A-Za-z]{2,})\b(?:\s+(?:tag|category)(?:\s+only)?)?",
    )
});

/// The reader a question names.
static USER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:(?:ranked|sorted)\s+)?(?:for\s+)?(?:the\s+)?(?:reader|user)\s+["'‘]?(?P<u>[a-z][\w-]*)["'’]?(?:'s)?"#,
    )
});

const NUMBER_WORDS: &[(&str, i64)] = &[
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("fifteen", 15),
    ("twenty", 20),
    ("thirty", 30),
    ("fifty", 50),
];

fn number(s: &str) -> Option<i64> {
    let s = s.trim().to_lowercase();
    s.parse().ok().or_else(|| NUMBER_WORDS.iter().find(|(w, _)| *w == s).map(|(_, n)| *n))
}

const NUM: &str =
    r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty)";

static DATE_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\(?\b(?:from\s+|between\s+)?(?P<a>\d{4}-\d\d-\d\d)\s*(?:to|until|till|and|–|-)\s*(?P<b>\d{4}-\d\d-\d\d)\b\)?",
    )
});
static SINCE_DATE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:since|after|from)\s+(?P<d>\d{4}-\d\d-\d\d)\b(?:\s+on(?:wards?)?)?"));
static UNTIL_DATE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:before|until|till|up\s+to)\s+(?P<d>\d{4}-\d\d-\d\d)\b"));
static YEAR_RANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:(?:from|between|in)\s+)?(?P<a>(?:19|20)\d\d)\s*(?:-|–|to|and|until)\s*(?P<b>(?:19|20)\d\d)\b")
});
static YEAR_FROM: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(?:since|from|after)\s+)?(?P<a>(?:19|20)\d\d)(?:\s*-(?:\s|$|[,.;?!])|\s+(?:onwards?\b|on(?:\s*$|\s*[,.;?!])|or\s+later\b|and\s+later\b|and\s+after\b))|\b(?:since|after)\s+(?P<s>(?:19|20)\d\d)\b",
    )
});
static YEAR_UNTIL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:\b(?:before|until|till|up\s+to|prior\s+to)\s+|(?:^|\s)-)(?P<b>(?:19|20)\d\d)\b"));
static YEAR_ONE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:(?:from|in|of|published\s+in)\s+)?(?P<y>(?:19|20)\d\d)\b(?:\s+or\s+so)?"));
static LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:top|first|best|limit(?:ed)?(?:\s+to)?|up\s+to|at\s+most|max(?:imum)?|just|only|show\s+me)\s+(?P<n>{NUM})\b(?:\s+(?:results?|hits?|items?|entries|works|refs?|references|papers|of\s+them))?|\b(?P<m>{NUM})\s+(?:max|at\s+most|results?|hits?|of\s+them|of\s+em|entries|please|only|(?:library\s+)?works|refs|references|papers|items|(?:most\s+often\s+\w+\s+|related\s+|closest\s+|nearest\s+|most\s+)?(?:concepts|topics|neighbou?rs|ideas))\b|\b(?:nearest|closest|show|return|list|give\s+me)\s+(?P<k>{NUM})\b|,\s*(?P<e>{NUM})\s*[?.!]*\s*$|^\s*(?P<f>{NUM})\s*[?.!]*\s*$"
    ))
});
static PAGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bpage\s*=?\s*(?P<n>\d{1,3}|two|three|four|five)\b(?:\s+of\s+(?:the\s+)?(?:hits|results))?|\b(?P<o>second|third|fourth|fifth|next)\s+page(?:\s+of\s+(?:the\s+)?(?:hits|results))?(?:\s+(?:for|of))?",
    )
});
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:tagged(?:\s+with)?|with\s+(?:the\s+)?tag|under\s+the\s+tag|tag)\s+(?:["'‘“](?P<q>[^"'’”]+)["'’”]|(?P<t>[\w.+#-]+(?:\s+[\w+#-]+){0,3}))|\b(?P<u>[\w.+#-]*[.][\w.+#-]+|[\w-]+)\s+tag\s+only\b"#,
    )
});
static AUTHOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:\b(?:[Bb]y|[Oo]f|[Aa]uthor)\s*(?:,\s*uh,\s*)?|\bauthor\s*=\s*)(?P<a>\p{Lu}[\p{L}'’-]+(?:\s+(?:\p{Lu}\.\s*)?\p{Lu}[\p{L}'’-]+){0,2})\b|\bauthor\s*=\s*(?P<b>[\p{L}'’-]+)",
    )
});
static SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:only\s+)?(?:from|via|through)\s+(?:the\s+)?(?P<s>[a-z][\w.-]*(?-i:(?:\s+[A-Z][\w.-]*)*))(?:\s+(?:feeds?|source|blog))?(?:\s+only)?\b",
    )
});
static KIND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\b(?P<n>not|no)\s+(?:blog\s+)?)?(?:\b(?P<o>only)\s+)?\b(?P<w>preprints?|surveys?|posts?|releases?|papers?)\b(?:\s+(?P<k>only)\b)?",
    )
});

/// "by bengio": one lower-case name after "by", when a name is all that follows.
static AUTHOR_LOWER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(?:by|did)\s+(?P<a>[\p{L}][\p{L}'’-]+)(?:\s+author\b|\s*(?:$|[,;?!.]|\s+(?:on|about|from|in|since|before|\d)))",
    )
});

/// Words after "by" that are not names.
const NOT_AUTHOR: &[&str] =
    &["year", "date", "relevance", "hand", "default", "far", "topic", "tag", "title", "degree", "betweenness", "name"];

/// Words that end an unquoted tag.
const TAG_STOP: &[&str] = &[
    "about", "on", "from", "since", "before", "in", "with", "for", "by", "and", "or", "only", "limit", "up", "top",
    "page", "the", "items", "papers", "after", "until", "which", "that", "as", "to", "into", "please", "pls",
];

/// Words a source never is.
const NOT_SOURCE: &[&str] = &[
    "my",
    "what",
    "their",
    "our",
    "his",
    "her",
    "your",
    "the",
    "a",
    "an",
    "archive",
    "feeds",
    "feed",
    "reading",
    "before",
    "after",
    "one",
    "it",
    "them",
    "all",
    "any",
    "all",
    "here",
    "there",
    "which",
    "this",
    "that",
    "these",
    "those",
    "last",
    "user",
    "users",
    "reader",
    "library",
    "references",
    "refs",
    "bib",
    "zotero",
    "graph",
    "now",
    "time",
    "papers",
    "items",
    "stuff",
    "things",
    "everything",
    "each",
    "lately",
    "recently",
    "today",
    "yesterday",
    "then",
];

/// Cut a stated span from the text, keeping the rest joined by a space.
fn cut(text: &mut String, start: usize, end: usize) {
    let mut out = String::with_capacity(text.len());
    out.push_str(text[..start].trim_end());
    out.push(' ');
    out.push_str(text[end..].trim_start());
    *text = out.trim().to_string();
}

/// Read the options a search states and take them out of the text. `feed` says whether
/// feed options (dates, sources, kinds, pages) are read, else the references' (years).
pub fn options(text: &str, feed: bool) -> (String, Options) {
    let mut t = text.to_string();
    // Pairs written as key=value are the options as given; they leave the text.
    let fed = |keys: &[&str]| if feed { given(&t, keys) } else { None };
    let mut o = Options {
        limit: given(&t, &["limit", "n", "top"]).and_then(|v| number(&v)),
        page: given(&t, &["page"]).and_then(|v| number(&v)),
        tag: given(&t, &["tag"]),
        author: given(&t, &["author"]),
        year: given(&t, &["year"]),
        user: given(&t, &["user"]),
        since: fed(&["since"]),
        until: fed(&["until"]),
        source: fed(&["source"]),
        kind: fed(&["kind"]),
    };
    t = KV
        .replace_all(&t, |c: &regex::Captures<'_>| {
            if ["limit", "n", "top", "page", "tag", "author", "year", "user", "since", "until", "source", "kind"]
                .contains(&c["k"].to_lowercase().as_str())
            {
                " ".to_string()
            } else {
                c[0].to_string()
            }
        })
        .to_string();
    if feed
        && o.user.is_none()
        && let Some(c) = USER.captures(&t)
        && !FRAME.contains(&c["u"].to_lowercase().as_str())
    {
        o.user = Some(c["u"].to_string());
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    }
    if feed && let Some(c) = CATEGORY.captures(&t) {
        o.tag = Some(c["c"].to_string());
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    }
    if feed {
        if let Some(c) = DATE_RANGE.captures(&t) {
            o.since = Some(c["a"].to_string());
            o.until = Some(c["b"].to_string());
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
        if let Some(c) = SINCE_DATE.captures(&t) {
            o.since = Some(c["d"].to_string());
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
        if let Some(c) = UNTIL_DATE.captures(&t) {
            o.until = Some(c["d"].to_string());
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
    }
    if o.year.is_some() {
    } else if let Some(c) = YEAR_RANGE.captures(&t) {
        o.year = Some(format!("{}-{}", &c["a"], &c["b"]));
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    } else if let Some(c) = YEAR_UNTIL.captures(&t) {
        if feed {
            o.until = Some(format!("{}-01-01", &c["b"]));
        } else {
            o.year = Some(format!("-{}", &c["b"]));
        }
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    } else if let Some(c) = YEAR_FROM.captures(&t) {
        o.year = Some(format!("{}-", c.name("a").or(c.name("s")).map_or("", |m| m.as_str())));
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    } else if let Some(c) = YEAR_ONE.captures(&t) {
        o.year = Some(c["y"].to_string());
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    }
    if let Some(c) = PAGE.captures(&t) {
        o.page = c.name("n").and_then(|n| number(n.as_str())).or_else(|| {
            match c.name("o").map(|m| m.as_str().to_lowercase()).as_deref() {
                Some("second") => Some(2),
                Some("third") => Some(3),
                Some("fourth") => Some(4),
                Some("fifth") => Some(5),
                _ => None,
            }
        });
        if feed && o.page.is_some() {
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        } else {
            o.page = None;
        }
    }
    // A number right after "item", "page", "id" or "#" counts nothing.
    let counted = LIMIT.captures_iter(&t).find(|c| {
        let before = t[..c.get(0).expect("whole match").start()].trim_end().to_lowercase();
        !["item", "page", "id", "#", "arxiv", "no", "number"].iter().any(|w| before.ends_with(w))
    });
    if o.limit.is_none()
        && let Some(c) = counted
    {
        o.limit = ["n", "m", "k", "e", "f"].iter().find_map(|g| c.name(g)).and_then(|n| number(n.as_str()));
        if o.limit.is_some() {
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
    }
    if let Some(c) = TAG.captures(&t) {
        let whole = c.get(0).expect("whole match").range();
        // An unquoted tag runs over its words up to a word that starts something else.
        let (tag, end) = match c.name("t") {
            Some(m) => {
                let mut end = m.start();
                for w in m.as_str().split_whitespace() {
                    if TAG_STOP.contains(&w.to_lowercase().as_str()) {
                        break;
                    }
                    let at = t[end..].find(w).map_or(end, |i| end + i);
                    end = at + w.len();
                }
                (t[m.start()..end].to_string(), end)
            }
            None => (c.name("q").or(c.name("u")).map_or(String::new(), |m| m.as_str().to_string()), whole.end),
        };
        let tag = tag.trim().trim_end_matches(['.', ',']).to_string();
        if !tag.is_empty() && !is_pronoun(&tag) {
            o.tag = Some(tag);
            cut(&mut t, whole.start, end.max(whole.start));
        }
    }
    if o.author.is_some() {
    } else if let Some(c) = AUTHOR.captures(&t) {
        let a = c.name("a").or(c.name("b")).map(|m| m.as_str().to_string()).unwrap_or_default();
        let first = a.split_whitespace().next().unwrap_or_default().to_lowercase();
        if !a.is_empty() && !FRAME.contains(&first.as_str()) && !NOT_SOURCE.contains(&first.as_str()) {
            o.author = Some(a);
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
    }
    if o.author.is_none()
        && let Some(c) = AUTHOR_LOWER.captures(&t)
        && !FRAME.contains(&c["a"].to_lowercase().as_str())
        && !NOT_SOURCE.contains(&c["a"].to_lowercase().as_str())
        && !NOT_AUTHOR.contains(&c["a"].to_lowercase().as_str())
    {
        o.author = Some(c["a"].to_string());
        let r = c.get(0).expect("whole match").range();
        cut(&mut t, r.start, r.end);
    }
    if feed && o.source.is_none() {
        if let Some(c) = SOURCE.captures(&t) {
            let s = c["s"].to_string();
            let first = s.split_whitespace().next().unwrap_or_default().to_lowercase();
            let year = s.chars().all(|c| c.is_ascii_digit() || c == '-');
            if !NOT_SOURCE.contains(&first.as_str()) && !FRAME.contains(&first.as_str()) && !year {
                o.source = Some(s);
                let r = c.get(0).expect("whole match").range();
                cut(&mut t, r.start, r.end);
            }
        }
        // A kind said ("preprints on …", "surveys only"); papers only when "only"
        // says so, and never a kind negated ("not blog posts").
        let said = KIND.captures_iter(&t).find(|c| {
            let only = c.name("o").is_some() || c.name("k").is_some();
            c.name("n").is_none() && (only || !c["w"].to_lowercase().starts_with("paper"))
        });
        if o.kind.is_none()
            && let Some(c) = said
        {
            o.kind = Some(c["w"].to_lowercase().trim_end_matches('s').to_string());
            let r = c.get(0).expect("whole match").range();
            cut(&mut t, r.start, r.end);
        }
    }
    (t, o)
}

/// Openers, politeness, question words and function words: never an argument's edge.
const FRAME: &[&str] = &[
    "a",
    "an",
    "the",
    "some",
    "any",
    "all",
    "every",
    "each",
    "other",
    "others",
    "else",
    "more",
    "most",
    "of",
    "for",
    "about",
    "on",
    "to",
    "with",
    "in",
    "into",
    "at",
    "as",
    "from",
    "regarding",
    "concerning",
    "re",
    "what",
    "whats",
    "what's",
    "which",
    "who",
    "where",
    "when",
    "how",
    "hw",
    "wat",
    "why",
    "whether",
    "if",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "do",
    "does",
    "did",
    "have",
    "has",
    "had",
    "got",
    "get",
    "i",
    "i'm",
    "i've",
    "i'd",
    "me",
    "my",
    "mine",
    "we",
    "our",
    "us",
    "you",
    "your",
    "user",
    "user's",
    "users",
    "their",
    "they",
    "them",
    "researcher",
    "please",
    "pls",
    "plz",
    "kindly",
    "could",
    "can",
    "would",
    "will",
    "should",
    "might",
    "may",
    "mind",
    "so",
    "kind",
    "like",
    "love",
    "want",
    "wants",
    "need",
    "needs",
    "asks",
    "ask",
    "asking",
    "know",
    "tell",
    "show",
    "give",
    "list",
    "find",
    "fetch",
    "pull",
    "up",
    "return",
    "see",
    "look",
    "looking",
    "dig",
    "out",
    "quick",
    "hey",
    "hi",
    "hello",
    "dear",
    "assistant",
    "thanks",
    "thank",
    "just",
    "also",
    "now",
    "then",
    "okay",
    "ok",
    "there",
    "there's",
    "it",
    "this",
    "that",
    "these",
    "those",
    "and",
    "or",
    "anything",
    "something",
    "everything",
    "stuff",
    "things",
    "thing",
    "else",
    "grateful",
    "curious",
    "wonder",
    "wondering",
    "interested",
    "agent",
    "gimme",
    "lemme",
    "let",
    "let's",
    "remind",
    "bring",
    "help",
    "any",
    "by",
    "only",
    "just",
    "usually",
    "often",
    "typically",
    "generally",
    "tend",
    "tends",
    "am",
    "i'll",
    "ya",
    "yeah",
    "hmm",
    "uh",
    "um",
    "again",
    "currently",
    "actually",
    "really",
    "here",
    "say",
    "trying",
    "try",
    "explain",
    "describe",
    "same",
    "one",
    "ones",
    "sorry",
    "trouble",
    "bother",
    "somewhere",
    "w",
    "w/",
    "keep",
    "seeing",
    "noticed",
    "notice",
    "published",
    "written",
    "thru",
    "via",
    "wait",
    "no",
    "yes",
    "ah",
    "oh",
    "hm",
    "quickly",
    "briefly",
    "maybe",
    "perhaps",
    "possibly",
    "literature",
    "talking",
    "talk",
    "talks",
    "discussing",
    "remember",
    "recall",
    "reading",
    "read",
    "mentioned",
    "earlier",
    "above",
    "previous",
    "previously",
    "before",
    "said",
    "asked",
];

/// Cue words of each kind of argument, taken away at the argument's edges.
fn cues(kind: Kind) -> &'static [&'static str] {
    match kind {
        Kind::Search => &[
            "search",
            "searching",
            "searched",
            "read",
            "reading",
            "readings",
            "reads",
            "archive",
            "archived",
            "feed",
            "feeds",
            "item",
            "items",
            "paper",
            "papers",
            "article",
            "articles",
            "post",
            "posts",
            "hits",
            "hit",
            "results",
            "result",
            "collected",
            "collect",
            "came",
            "come",
            "through",
            "across",
            "covered",
            "cover",
            "covering",
            "covers",
            "mention",
            "mentions",
            "mentioned",
            "mentioning",
            "discuss",
            "discusses",
            "discussing",
            "talk",
            "talks",
            "saved",
            "seen",
            "encountered",
            "found",
            "went",
            "gone",
            "entries",
            "news",
            "ever",
            "already",
            "lately",
            "recently",
            "recent",
            "stored",
            "material",
            "materials",
            "documents",
            "docs",
            "coming",
            "arrived",
            "write-ups",
            "writeups",
            "pieces",
            "touch",
            "touches",
            "touching",
        ],
        Kind::References => &[
            "search",
            "searching",
            "references",
            "reference",
            "refs",
            "ref",
            "library",
            "bib",
            "bibs",
            "bibtex",
            "bibliography",
            "entries",
            "entry",
            "items",
            "item",
            "works",
            "work",
            "papers",
            "paper",
            "zotero",
            "records",
            "record",
            "saved",
            "save",
            "title",
            "titled",
            "titles",
            "mention",
            "mentions",
            "mentioning",
            "word",
            "words",
            "collection",
            "manager",
            "cite",
            "citations",
            "citation",
            "possess",
            "own",
            "hits",
            "results",
            "written",
            "wrote",
            "authored",
            "year",
            "years",
            "date",
            "relevance",
            "recency",
        ],
        Kind::Neighbors => &[
            "concepts",
            "concept",
            "topics",
            "topic",
            "ideas",
            "idea",
            "terms",
            "term",
            "neighbours",
            "neighbors",
            "neighbour",
            "neighbor",
            "neighbourhood",
            "neighborhood",
            "nbrs",
            "near",
            "nearby",
            "nearest",
            "close",
            "closest",
            "closer",
            "adjacent",
            "next",
            "around",
            "surround",
            "surrounds",
            "surrounding",
            "sit",
            "sits",
            "sitting",
            "together",
            "alongside",
            "beside",
            "besides",
            "co-occur",
            "co-occurs",
            "co-occurring",
            "cooccur",
            "cooccurs",
            "co-read",
            "occur",
            "occurs",
            "appear",
            "appears",
            "appearing",
            "show",
            "shows",
            "showing",
            "turn",
            "turns",
            "come",
            "comes",
            "coming",
            "accompany",
            "accompanies",
            "travel",
            "travels",
            "cluster",
            "clusters",
            "orbit",
            "orbits",
            "related",
            "relate",
            "relates",
            "associated",
            "linked",
            "connected",
            "go",
            "goes",
            "going",
            "hand",
            "read",
            "reading",
            "neighbouring",
            "neighboring",
            "same",
            "papers",
            "along",
            "first",
            "picked",
            "pick",
        ],
        Kind::Related => &[
            "related",
            "relate",
            "relates",
            "relevant",
            "similar",
            "close",
            "closest",
            "connected",
            "connects",
            "akin",
            "share",
            "shares",
            "sharing",
            "concepts",
            "concept",
            "citations",
            "cite",
            "cites",
            "citing",
            "works",
            "work",
            "entries",
            "entry",
            "references",
            "reference",
            "refs",
            "library",
            "saved",
            "papers",
            "paper",
            "bibliography",
            "items",
            "tie",
            "ties",
            "same",
            "support",
            "supports",
            "kept",
        ],
        Kind::Path => &[
            "connect",
            "connects",
            "connected",
            "connecting",
            "connection",
            "connections",
            "link",
            "links",
            "linked",
            "linking",
            "chain",
            "chains",
            "path",
            "paths",
            "route",
            "routes",
            "shortest",
            "trace",
            "tracing",
            "bridge",
            "bridges",
            "bridging",
            "between",
            "btw",
            "hop",
            "hops",
            "steps",
            "step",
            "relationship",
            "relation",
            "relate",
            "relates",
            "related",
            "tie",
            "ties",
            "tied",
            "meet",
            "meets",
            "lead",
            "leads",
            "way",
            "through",
            "via",
            "intermediate",
            "concepts",
            "concept",
            "reach",
            "gets",
            "go",
            "goes",
            "travel",
            "join",
            "joins",
            "together",
            "up",
            "back",
            "somehow",
            "at",
            "all",
            "two",
            "both",
            "each",
            "along",
        ],
    }
}

/// A phrase that points back at something named before ("the thing I mentioned",
/// "the one you showed"): a pronoun, never a concept.
static ANAPHOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:the|that|this|those|these)\s+(?:thing|one|concept|topic|idea|paper|term|stuff|item)s?\s+(?:that\s+|which\s+)?(?:i|you|we|i've|you've)\b",
    )
});

/// Cue nouns that may also open a concept's name.
const SOFT: &[&str] =
    &["topic", "idea", "term", "item", "paper", "post", "feed", "result", "work", "record", "reading"];

/// Words that introduce what a search is about.
const INTRODUCERS: &[&str] = &["about", "regarding", "concerning", "on"];

/// Where to look, said after or before the argument: "in my archive", "from my feeds",
/// "in what I've read", "according to my reading".
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:in|from|within|across|among|amongst|inside|through|thru|throughout|according\s+to|out\s+of|of|going\s+by|based\s+on)\s+(?:all\s+)?(?:(?:my|the|our|their|his|her|your|the\s+user's|user's|this)\s+)?(?:own\s+)?(?:\.?bib(?:tex)?\s+files?|reading\s+(?:archive|graph|list)|feed\s+archive|reference\s+(?:library|manager)|concept\s+graph|saved\s+(?:library|references|refs|papers)|attest\s+library|archived\s+feed\s+items|(?:archive|archives|feeds?|reading|readings|reads|library|bib|bibliography|references|refs|zotero|graph|papers|collection|items|corpus|notes|stuff|things)\b)(?:\s+(?:or|and|/)\s+(?:zotero|the\s+bib|bib\s+files|\.bib\s+files|library))?|\b(?:in|from|among|of|across|through|according\s+to)\s+(?:the\s+)?(?:what|everything|all|things|stuff|papers|items|the\s+papers)\s+(?:i|i've|i'd|they|they've|the\s+user|the\s+user's|user)(?:\s+(?:have|has|had|ve))?(?:\s+(?:been|gone|ever))?\s+(?:read(?:ing)?|saved|collected|seen|gone\s+through|come\s+across)\b|\b(?:that\s+|which\s+)?(?:i|i've|they|they've)(?:\s+have|\s+had)?\s+(?:read|saved|come\s+across|gone\s+through|collected|seen)\b",
    )
});

/// Words that stand for something already named, never an argument themselves.
const PRONOUNS: &[&str] = &[
    "it",
    "this",
    "that",
    "them",
    "these",
    "those",
    "they",
    "anything",
    "anything else",
    "something",
    "everything",
    "one",
    "the other",
    "the two",
    "both",
    "each other",
    "one another",
    "each",
    "here",
    "there",
    "him",
    "her",
    "stuff",
    "things",
    "this one",
    "that one",
    "those two",
    "these two",
    "this paper",
    "that paper",
    "it all",
];

fn is_pronoun(s: &str) -> bool {
    PRONOUNS.contains(&s.trim().to_lowercase().as_str())
}

/// Spans in quotes in a text.
fn quoted(text: &str) -> Vec<String> {
    static Q: LazyLock<Regex> = LazyLock::new(|| {
        re(r#"(?:^|[\s(:,])(?:"(?P<a>[^"]+)"|“(?P<b>[^”]+)”|'(?P<c>[^']+)'|‘(?P<d>[^’]+)’|`(?P<e>[^`]+)`)"#)
    });
    Q.captures_iter(text)
        .filter_map(|c| c.name("a").or(c.name("b")).or(c.name("c")).or(c.name("d")).or(c.name("e")))
        .map(|m| m.as_str().trim().to_string())
        .filter(|s| !s.is_empty() && s.chars().count() <= 80)
        .collect()
}

/// A word cleaned for comparison with the word lists.
fn bare(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').to_lowercase()
}

/// Whether a word is frame (function, opener, cue) for this kind.
fn framing(w: &str, kind: Kind) -> bool {
    let b = bare(w);
    b.is_empty() || FRAME.contains(&b.as_str()) || cues(kind).contains(&b.as_str())
}

/// Take the frame words away from both edges of a span; `None` when nothing is left,
/// or what is left is a pronoun.
fn trim_frame(span: &str, kind: Kind) -> Option<String> {
    if ANAPHOR.is_match(span) {
        return None;
    }
    let words: Vec<&str> = span.split_whitespace().collect();
    // A singular noun that can open a name ("topic modelling", "term frequency") is
    // frame only when frame follows it ("topic of …").
    let soft =
        |i: usize| SOFT.contains(&bare(words[i]).as_str()) && words.get(i + 1).is_some_and(|n| !framing(n, kind));
    let start = (0..words.len()).find(|&i| !framing(words[i], kind) || soft(i))?;
    let end = words.iter().rposition(|w| !framing(w, kind))?;
    // "… feed item about grokking": what follows "about" (or "on", "regarding") is the
    // argument when cue or frame words stand before it.
    let inner = &words[start..=end];
    let start = inner
        .iter()
        .position(|w| INTRODUCERS.contains(&bare(w).as_str()))
        .filter(|&i| i > 0 && i + 1 < inner.len() && inner[..i].iter().any(|w| framing(w, kind)))
        .map_or(start, |i| start + i + 1);
    let out = words[start..=end].join(" ");
    let out = out.strip_suffix("'s").or_else(|| out.strip_suffix("’s")).unwrap_or(&out).to_string();
    let out = out
        .trim_matches(|c: char| {
            matches!(c, ',' | ';' | ':' | '?' | '!' | '.' | '(' | ')' | '-' | '–' | '—' | '<' | '>')
                || c.is_whitespace()
        })
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '`' | '“' | '”' | '‘' | '’'))
        .trim()
        .to_string();
    (!out.is_empty() && !is_pronoun(&out) && out.split_whitespace().count() <= 8).then_some(out)
}

/// Inline mathematics and urls are never part of a topic: "$…$" spans are cut.
static MATH: LazyLock<Regex> = LazyLock::new(|| re(r"\$\$?[^$]*\$\$?|\\\(.*?\\\)"));

/// A clause that opens with a negation.
static NEGATED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^\s*(?:just\s+)?(?:don't|dont|do\s+not|not|never|without|no\s+need)\b"));

/// A time said in words ("last spring", "two weeks ago"): when, never what.
static WHEN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:last|this|past|previous)\s+(?:spring|summer|autumn|fall|winter|year|month|week|term|semester|quarter)\b|\b(?:a\s+few|\d+|two|three|several)\s+(?:days|weeks|months|years)\s+ago\b|\b(?:yesterday|today|lately|recently)\b",
    )
});

/// An aside in brackets, or a bracket left open at the end.
static PAREN: LazyLock<Regex> = LazyLock::new(|| re(r"\([^()]*\)|\([^()]*$"));

/// The clauses of a text: split at sentence ends, semicolons, dashes and commas.
static CLAUSE: LazyLock<Regex> = LazyLock::new(|| re(r"[?!;]+|\.\s+|\.$|\s[-–—]+\s|—|,\s*"));

/// The parts of a text without the places it names and inline mathematics.
fn plain(text: &str) -> String {
    let t = MATH.replace_all(text, " ");
    let t = PAREN.replace_all(&t, " ");
    let t = WHEN.replace_all(&t, " ");
    PLACE.replace_all(&t, " ").to_string()
}

/// One argument of `kind` as what is left of the text: the first clause with a word
/// that is not frame, stripped of frame at its edges. A single span in quotes in that
/// clause is the argument as quoted.
pub fn one(text: &str, kind: Kind) -> Option<String> {
    if let Some(v) = given(text, &["concept", "query", "q", "to", "topic", "words"]) {
        return Some(v);
    }
    let text = plain(text);
    if let [only] = quoted(&text).as_slice()
        && !is_pronoun(only)
    {
        return Some(only.clone());
    }
    // A clause that says what not to do ("don't export anything") names nothing.
    let clauses: Vec<&str> = CLAUSE.split(&text).filter(|c| !NEGATED.is_match(c)).collect();
    // The clause that carries a cue of the kind first ("sorry to trouble you — could
    // you search … for X"), then any clause.
    let cued = |c: &&&str| c.split_whitespace().any(|w| cues(kind).contains(&bare(w).as_str()));
    clauses.iter().filter(cued).chain(clauses.iter()).find_map(|c| trim_frame(c, kind))
}

/// One side of two concepts, or one concept, as a pattern captured it: the frame at its
/// edges taken away ("shortest path mixture of experts" is "mixture of experts").
pub fn tidy(span: &str, kind: Kind) -> Option<String> {
    let span = plain(span);
    let first = CLAUSE.split(&span).next().unwrap_or_default();
    trim_frame(first, kind)
}

/// Connectives between two concepts, strongest first.
static ARROW: LazyLock<Regex> = LazyLock::new(|| re(r"\s*(?:<->|<=>|-->|->|→|=>|⟶|↔)\s*"));
static TO: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\s+(?:to|into|towards|onto)\s+"));
static AND: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\s+(?:and|&|with|vs\.?|versus|und|plus)\s+|\s*&\s*"));

/// Two concepts as what is left of the text, split on the connective between them:
/// an arrow, else "to", else "and"/"with" (each said once in what is left). Both sides
/// must be concepts (not pronouns, not frame alone) and differ.
pub fn two(text: &str) -> Option<(String, String)> {
    if let (Some(a), Some(b)) = (given(text, &["source", "from", "a"]), given(text, &["target", "to", "b"])) {
        return Some((a, b));
    }
    let text = plain(text);
    // Two quoted spans in the text are the two concepts.
    if let [a, b] = quoted(&text).as_slice()
        && !is_pronoun(a)
        && !is_pronoun(b)
        && a.to_lowercase() != b.to_lowercase()
    {
        return Some((a.clone(), b.clone()));
    }
    // Clauses, but an arrow's sides are kept together.
    let clauses: Vec<&str> = CLAUSE.split(&text).collect();
    for clause in clauses {
        let clause = clause.trim();
        for sep in [&*ARROW, &*TO, &*AND] {
            let parts: Vec<&str> = sep.split(clause).collect();
            if parts.len() != 2 {
                continue;
            }
            let (Some(a), Some(b)) = (trim_frame(parts[0], Kind::Path), trim_frame(parts[1], Kind::Path)) else {
                continue;
            };
            if a.to_lowercase() == b.to_lowercase()
                || a.split_whitespace().count() > 6
                || b.split_whitespace().count() > 6
            {
                continue;
            }
            return Some((a, b));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_concept_is_what_is_left() {
        let cases = [
            ("nearby concepts for CRISPR", Kind::Neighbors, Some("CRISPR")),
            ("what do I tend to read together with optical tweezers?", Kind::Neighbors, Some("optical tweezers")),
            ("neighbours: speaker diarization", Kind::Neighbors, Some("speaker diarization")),
            ("neighbours: topic modelling", Kind::Neighbors, Some("topic modelling")),
            ("concepts near term frequency", Kind::Neighbors, Some("term frequency")),
            ("what surrounds score distillation in my graph", Kind::Neighbors, Some("score distillation")),
            ("which ideas travel with 'sparse coding' in my reading?", Kind::Neighbors, Some("sparse coding")),
            ("what is near that?", Kind::Neighbors, None),
            ("what is related to the thing I mentioned?", Kind::Neighbors, None),
            ("what sits next to it in my graph", Kind::Neighbors, None),
            ("search my feeds for protein language models", Kind::Search, Some("protein language models")),
            ("anything in my archive on 'ocean heat content'?", Kind::Search, Some("ocean heat content")),
            ("search for it", Kind::Search, None),
            ("search my references for 'wasserstein gan'", Kind::References, Some("wasserstein gan")),
            ("look through my bib for tropical cyclones", Kind::References, Some("tropical cyclones")),
            ("search my library", Kind::References, None),
        ];
        for (q, kind, want) in cases {
            assert_eq!(one(q, kind).as_deref(), want, "{q}");
        }
    }

    #[test]
    fn two_concepts_are_split_on_their_connective() {
        let cases = [
            (
                "Is there a chain linking soil carbon and crop yields in my reading?",
                Some(("soil carbon", "crop yields")),
            ),
            ("trace label smoothing to knowledge distillation", Some(("label smoothing", "knowledge distillation"))),
            ("what bridges graph rewiring and oversquashing?", Some(("graph rewiring", "oversquashing"))),
            ("connect monetary policy -> housing prices", Some(("monetary policy", "housing prices"))),
            ("how do they connect?", None),
            ("is there a path between them?", None),
            ("connect this to that", None),
        ];
        for (q, want) in cases {
            let got = two(q);
            assert_eq!(got.as_ref().map(|(a, b)| (a.as_str(), b.as_str())), want, "{q}");
        }
    }

    #[test]
    fn options_are_read_and_cut() {
        let (rest, o) = options("items tagged cs.RO about legged robots since 2025-02-01, top 5", true);
        assert_eq!(o.tag.as_deref(), Some("cs.RO"));
        assert_eq!(o.since.as_deref(), Some("2025-02-01"));
        assert_eq!(o.limit, Some(5));
        assert_eq!(one(&rest, Kind::Search).as_deref(), Some("legged robots"));
        let (rest, o) = options("what have I read from arxiv about PPO since 2024-06-01", true);
        assert_eq!(o.source.as_deref(), Some("arxiv"));
        assert_eq!(one(&rest, Kind::Search).as_deref(), Some("PPO"));
        let (rest, o) = options("bibs before 2010 on kernel methods", false);
        assert_eq!(o.year.as_deref(), Some("-2010"));
        assert_eq!(one(&rest, Kind::References).as_deref(), Some("kernel methods"));
        let (rest, o) = options("everything by Doudna", false);
        assert_eq!(o.author.as_deref(), Some("Doudna"));
        assert_eq!(one(&rest, Kind::References), None);
        let (_, o) = options("library entries tagged GNN, limit 20", false);
        assert_eq!((o.tag.as_deref(), o.limit), (Some("GNN"), Some(20)));
        let (rest, o) = options("surveys on continual learning from 2019 onwards", true);
        assert_eq!((o.kind.as_deref(), o.year.as_deref()), (Some("survey"), Some("2019-")));
        assert_eq!(one(&rest, Kind::Search).as_deref(), Some("continual learning"));
    }
}
