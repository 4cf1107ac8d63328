//! Ranking a reader's feed with no model at all.
//!
//! Three terms place an item, each turned into a percentile rank (0 = best, 1 = worst,
//! ties share their average rank so a block of equal scores adds no noise):
//!
//! 1. **Interests** (always on): BM25 of the reader's interests text against each
//!    item's title (counted twice), summary and tags. When an embedding server is
//!    configured and answering, the cosine between the interests and the item's stored
//!    vector joins this term (the mean of the two percentiles).
//! 2. **Click classifier** (once the reader's evidence holds both classes): logistic
//!    regression on L2-normalised TF-IDF vectors of the clicked items, class-balanced,
//!    L2-regularised, fitted by a fixed number of full-batch gradient steps (so the
//!    same clicks always give the same weights).
//! 3. **Feature preference** (once the reader has said "not useful" at least once):
//!    per key (`tag:`, `type:`, `source:`), the Laplace-smoothed share of useful clicks;
//!    an item scores the mean over its keys (0.5, neutral, when it has none).
//!
//! The click terms are averaged and blended with the interests term by the weight
//! `n / (n + 5)`, where `n` counts the reader's evidence clicks. Bootstrap labels are
//! never evidence: they are thresholds on the same interests score, so training on
//! them would only teach the ranker to agree with itself.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::model::{Click, Item};

mod data;

pub use data::ReaderData;

// ---------------------------------------------------------------------------------
// Text

/// Words that carry no topic beyond [`attest_tags::words::FUNCTION_WORDS`]: pronouns
/// and contractions, the phrasing people use to state interests ("I'm interested in
/// papers about …") and academic boilerplate.
const OWN_STOPWORDS: &[&str] = &[
    "down",
    "eg",
    "al",
    "etc",
    "he",
    "her",
    "hers",
    "him",
    "his",
    "ie",
    "me",
    "my",
    "now",
    "off",
    "once",
    "own",
    "she",
    "too",
    "until",
    "us",
    "whom",
    "your",
    "yours",
    "i'm",
    "im",
    "it's",
    "we're",
    "they're",
    "don't",
    "doesn't",
    "isn't",
    "aren't",
    "can't",
    "won't",
    "like",
    "want",
    "wants",
    "interested",
    "interest",
    "interests",
    "especially",
    "particularly",
    "mostly",
    "mainly",
    "things",
    "stuff",
    "topics",
    "topic",
    "anything",
    "everything",
    "working",
    "papers",
    "article",
    "articles",
    "preprint",
    "arxiv",
    "abstract",
    "announce",
    "type",
    "cross",
    "replace",
    "presented",
    "shown",
    "demonstrates",
    "result",
    "approaches",
    "studies",
    "paper's",
    "three",
    "might",
    "different",
    "various",
    "often",
    "therefore",
    "since",
    "though",
    "given",
    "make",
    "makes",
    "made",
    "find",
    "found",
    "provide",
    "provides",
    "including",
    "include",
    "includes",
    "toward",
    "lately",
    "recent",
    "recently",
    "today",
    "read",
    "reading",
];

static STOPWORD_SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| OWN_STOPWORDS.iter().copied().collect());

fn is_stopword(w: &str) -> bool {
    attest_tags::words::is_function_word(w) || STOPWORD_SET.contains(w)
}

/// Reduce a lower-case word to a light stem: plurals, `-ing` and `-ed` endings, a
/// doubled final consonant and a final `e` are removed, so "networks", "network";
/// "folding", "folded", "fold"; "sampling", "samples", "sample" meet. Short words
/// are left alone ("bias", "string", "need").
pub fn stem(word: &str) -> String {
    let mut w = word.to_string();
    if w.chars().any(|c| !c.is_ascii_alphabetic()) {
        return w;
    }
    // Plurals.
    if w.len() > 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses")
        || (w.len() > 4 && (w.ends_with("ches") || w.ends_with("shes") || w.ends_with("xes") || w.ends_with("zes")))
    {
        w.truncate(w.len() - 2);
    } else if w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
        && !w.ends_with("as")
        && !w.ends_with("ous")
    {
        w.truncate(w.len() - 1);
    }
    // Verb endings, only when a stem of four letters or more remains.
    let mut cut = false;
    for suffix in ["ing", "ed"] {
        if w.ends_with(suffix) && w.len() >= suffix.len() + 4 {
            let stem_part = &w[..w.len() - suffix.len()];
            if stem_part.chars().any(|c| "aeiouy".contains(c)) {
                w.truncate(w.len() - suffix.len());
                cut = true;
            }
            break;
        }
    }
    if cut {
        let b = w.as_bytes();
        let n = b.len();
        if n >= 2 && b[n - 1] == b[n - 2] && !b"lsz".contains(&b[n - 1]) && !b"aeiou".contains(&b[n - 1]) {
            w.truncate(n - 1);
        }
    }
    if w.len() > 4 && w.ends_with('e') && !w.ends_with("ee") {
        w.truncate(w.len() - 1);
    }
    w
}

/// Split text into index terms: lower-cased runs of letters and digits, stopwords
/// and one-character words dropped, each word stemmed with [`stem`]. Hyphenated
/// words ("graph-neural-networks") become their parts.
pub fn tokenize(text: &str) -> Vec<String> {
    raw_words(text).filter_map(word_term).map(|(stem, _)| stem).collect()
}

/// [`tokenize`], keeping each term's surface form (the lower-cased word it came from).
pub fn tokens_with_surface(text: &str) -> Vec<(String, String)> {
    raw_words(text).filter_map(word_term).collect()
}

fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty())
}

/// The (stem, surface) of one raw word, or `None` for a stopword, a number or a
/// one-character word.
fn word_term(raw: &str) -> Option<(String, String)> {
    let word = raw.trim_matches('\'').to_lowercase();
    if word.chars().count() < 2 || is_stopword(&word) || word.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let word = word.strip_suffix("'s").map(str::to_string).unwrap_or(word);
    if word.contains('\'') {
        return None;
    }
    Some((stem(&word), word))
}

/// A small, fast, non-cryptographic hasher for the index's own maps (the keys are
/// the archive's words and ids, never attacker-chosen in a way that matters here).
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(v as u64);
    }
    fn finish(&self) -> u64 {
        // The multiply leaves the low bits depending only on the low bits of the last
        // word written (for a string, the 0xff terminator), and the table indexes
        // buckets by the low bits: rotate the well-mixed high bits down (as rustc-hash
        // does), or every spelling of a word lands in a few dozen buckets.
        self.0.rotate_left(26)
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

// ---------------------------------------------------------------------------------
// Inputs

/// An item as ranking sees it: text, the keys of the preference term, and an
/// optional stored embedding.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankItem {
    /// The item's id in the archive.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its summary or abstract, already cleaned of HTML.
    pub summary: String,
    /// The feed it came from, as shown to the reader.
    pub source: String,
    /// The feed's id (the preference key `source:<id>`), when it still has a feed.
    pub source_id: Option<i64>,
    /// Its topic tags.
    pub tags: Vec<String>,
    /// Its content type (paper, survey, release, blog, announcement, other), if known.
    pub content_type: Option<String>,
    /// When it was published (ISO 8601); newer wins a tie.
    pub published: Option<String>,
    /// Its stored embedding, if the archive has one.
    pub vector: Option<Vec<f32>>,
}

impl From<&Item> for RankItem {
    fn from(it: &Item) -> Self {
        RankItem {
            id: it.id,
            title: it.title.clone(),
            summary: it.summary.clone(),
            source: it.source.clone().unwrap_or_default(),
            source_id: it.feed_id,
            tags: it.tags.clone(),
            content_type: None,
            published: Some(it.published.clone()),
            vector: None,
        }
    }
}

// ---------------------------------------------------------------------------------
// Embeddings (optional)

/// What an embedding request is for: the two sides are prompted differently by
/// asymmetric embedding models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedKind {
    /// An interests text or a search query.
    Query,
    /// An item's title and summary.
    Document,
}

/// An embedding server could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedError(pub String);

impl std::fmt::Display for EmbedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmbedError {}

/// A source of embeddings (an OpenAI-compatible `/embeddings` endpoint named by
/// `EMBED_BASE_URL`, or a test double). Ranking never needs one.
pub trait Embedder: Send + Sync {
    /// Embed texts, one vector per text, unit length.
    fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// A short name for notes ("nomic-embed-text at http://localhost:11434/v1").
    fn describe(&self) -> String;
}

/// Whether the embedding term can take part in one ranking.
#[derive(Debug, Clone, PartialEq)]
pub enum Embeddings {
    /// No embedding server is configured.
    Off,
    /// One is configured but did not answer; the reason is reported.
    Unavailable(String),
    /// The reader's interests vector, unit length.
    On(Vec<f32>),
}

impl Embeddings {
    /// Ask an embedder (if any) for the interests vector; a failure degrades to
    /// [`Embeddings::Unavailable`], never to an error.
    pub fn for_interests(embedder: Option<&dyn Embedder>, interests: &str) -> Embeddings {
        let Some(e) = embedder else { return Embeddings::Off };
        if interests.trim().is_empty() {
            return Embeddings::Unavailable("the reader has no interests text to embed".into());
        }
        match e.embed(&[interests.to_string()], EmbedKind::Query) {
            Ok(mut v) if v.len() == 1 && !v[0].is_empty() => Embeddings::On(normalize(v.remove(0))),
            Ok(_) => Embeddings::Unavailable(format!("{} returned no vector", e.describe())),
            Err(err) => Embeddings::Unavailable(format!("{}: {err}", e.describe())),
        }
    }
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

// ---------------------------------------------------------------------------------
// The corpus index

/// The items ranking may touch (candidates and the reader's clicked items), indexed
/// once: a vocabulary, each item's term counts, document frequencies and the keys
/// of the preference term. Build it once per archive state and rank many times.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    items: Vec<RankItem>,
    by_id: FastMap<i64, usize>,
    vocab: FastMap<String, u32>,
    terms: Vec<String>,
    /// CSR layout: item `d`'s terms are `doc_terms[offsets[d]..offsets[d+1]]`.
    offsets: Vec<u32>,
    doc_terms: Vec<u32>,
    doc_tfs: Vec<f32>,
    /// Each entry's TF-IDF weight, already divided by the item's norm.
    doc_w: Vec<f32>,
    doc_len: Vec<f32>,
    /// 1 / L2 norm of the item's TF-IDF vector (0 for an empty item).
    inv_norm: Vec<f32>,
    df: Vec<u32>,
    /// The item count term weights are computed with (`items.len()`, or the base's
    /// for an index built with [`Corpus::build_against`]).
    stats_n: usize,
    avg_len: f32,
    keys: HashMap<String, u32>,
    key_names: Vec<String>,
    doc_keys: Vec<Vec<u32>>,
}

/// Title words count this many times against summary words.
const TITLE_WEIGHT: f32 = 2.0;

impl Corpus {
    /// Index items. Duplicate ids keep the first.
    pub fn build(items: Vec<RankItem>) -> Corpus {
        let mut c = Corpus::default();
        c.index(items);
        c.stats_n = c.items.len();
        let n = c.items.len().max(1) as f32;
        c.avg_len = c.doc_len.iter().sum::<f32>() / n;
        c.weigh();
        c
    }

    /// Index items to be scored against `base` without changing it: the new index
    /// takes `base`'s statistics (item count, each word's document frequency, mean
    /// length), so an item of `base` gets the term weights it has there (to float
    /// rounding) and any other item those it would get as a query-time document of
    /// `base` (a word `base` never saw counts as occurring in no item). A model
    /// fitted on `base` carries over with [`ReaderModel::transfer`]. Duplicate ids
    /// keep the first.
    pub fn build_against(base: &Corpus, items: Vec<RankItem>) -> Corpus {
        let mut c = Corpus::default();
        c.index(items);
        c.stats_n = base.stats_n;
        c.avg_len = base.avg_len;
        for (t, term) in c.terms.iter().enumerate() {
            c.df[t] = base.vocab.get(term).map_or(0, |&b| base.df[b as usize]);
        }
        c.weigh();
        c
    }

    /// Tokenize and count items into the index (vocabulary, term counts, document
    /// frequencies, lengths, keys); [`Corpus::weigh`] then derives the weights.
    fn index(&mut self, items: Vec<RankItem>) {
        let c = self;
        // Raw word -> term id (u32::MAX for a word that is not a term): each distinct
        // spelling is lower-cased, checked and stemmed once.
        let mut words: FastMap<String, u32> = FastMap::default();
        let mut entries: Vec<(u32, f32)> = Vec::new();
        c.offsets.push(0);
        for item in items {
            if c.by_id.contains_key(&item.id) {
                continue;
            }
            entries.clear();
            let mut add = |c: &mut Corpus, text: &str, weight: f32| {
                for raw in raw_words(text) {
                    let id = match words.get(raw) {
                        Some(&id) => id,
                        None => {
                            let id = match word_term(raw) {
                                None => u32::MAX,
                                Some((t, _)) => match c.vocab.get(&t) {
                                    Some(&id) => id,
                                    None => {
                                        let id = c.terms.len() as u32;
                                        c.vocab.insert(t.clone(), id);
                                        c.terms.push(t);
                                        c.df.push(0);
                                        id
                                    }
                                },
                            };
                            words.insert(raw.to_string(), id);
                            id
                        }
                    };
                    if id != u32::MAX {
                        entries.push((id, weight));
                    }
                }
            };
            add(&mut *c, &item.title, TITLE_WEIGHT);
            add(&mut *c, &item.summary, 1.0);
            for tag in &item.tags {
                add(&mut *c, tag, 1.0);
            }
            entries.sort_unstable_by_key(|e| e.0);
            let mut len = 0.0;
            let mut i = 0;
            while i < entries.len() {
                let t = entries[i].0;
                let mut n = 0.0;
                while i < entries.len() && entries[i].0 == t {
                    n += entries[i].1;
                    i += 1;
                }
                len += n;
                c.df[t as usize] += 1;
                c.doc_terms.push(t);
                c.doc_tfs.push(n);
            }
            c.offsets.push(c.doc_terms.len() as u32);
            c.doc_len.push(len);
            let keys = item_keys(&item).into_iter().map(|k| c.intern_key(k)).collect();
            c.doc_keys.push(keys);
            c.by_id.insert(item.id, c.items.len());
            c.items.push(item);
        }
    }

    /// Each item's TF-IDF norm and normalised weights, from the statistics.
    fn weigh(&mut self) {
        let c = self;
        // The same values as `tfidf`, with each term's idf computed once.
        let idf: Vec<f32> = (0..c.terms.len() as u32).map(|t| c.idf_smooth(t)).collect();
        let raw: Vec<f32> =
            c.doc_terms.iter().zip(&c.doc_tfs).map(|(&t, &tf)| (1.0 + tf.ln()) * idf[t as usize]).collect();
        c.inv_norm = (0..c.items.len())
            .map(|d| {
                let s: f32 = raw[c.offsets[d] as usize..c.offsets[d + 1] as usize].iter().map(|w| w.powi(2)).sum();
                if s > 0.0 { 1.0 / s.sqrt() } else { 0.0 }
            })
            .collect();
        c.doc_w = Vec::with_capacity(c.doc_terms.len());
        for d in 0..c.items.len() {
            let inv = c.inv_norm[d];
            let (a, b) = (c.offsets[d] as usize, c.offsets[d + 1] as usize);
            c.doc_w.extend(raw[a..b].iter().map(|w| w * inv));
        }
    }

    fn intern_key(&mut self, k: String) -> u32 {
        if let Some(&id) = self.keys.get(&k) {
            return id;
        }
        let id = self.key_names.len() as u32;
        self.keys.insert(k.clone(), id);
        self.key_names.push(k);
        id
    }

    /// How many items are indexed.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The item at an index position.
    pub fn item(&self, doc: usize) -> &RankItem {
        &self.items[doc]
    }

    /// Every indexed item, in index order.
    pub fn items(&self) -> &[RankItem] {
        &self.items
    }

    /// Attach a stored embedding to an indexed item (the text index is unchanged).
    /// Returns whether the item is in the index.
    pub fn set_vector(&mut self, id: i64, vector: Vec<f32>) -> bool {
        match self.by_id.get(&id) {
            Some(&d) => {
                self.items[d].vector = Some(vector);
                true
            }
            None => false,
        }
    }

    /// The index position of an item id.
    pub fn position(&self, id: i64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The term ids and weighted counts of one item.
    fn doc(&self, d: usize) -> impl Iterator<Item = (u32, f32)> + '_ {
        let (a, b) = (self.offsets[d] as usize, self.offsets[d + 1] as usize);
        self.doc_terms[a..b].iter().copied().zip(self.doc_tfs[a..b].iter().copied())
    }

    /// Whether an item contains a term (by term id).
    fn doc_has(&self, d: usize, term: u32) -> Option<f32> {
        let (a, b) = (self.offsets[d] as usize, self.offsets[d + 1] as usize);
        let slice = &self.doc_terms[a..b];
        slice.binary_search(&term).ok().map(|i| self.doc_tfs[a + i])
    }

    fn idf_smooth(&self, t: u32) -> f32 {
        let n = self.stats_n as f32;
        ((n + 1.0) / (self.df[t as usize] as f32 + 1.0)).ln() + 1.0
    }

    fn idf_bm25(&self, t: u32) -> f32 {
        let n = self.stats_n as f32;
        let df = self.df[t as usize] as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn tfidf(&self, t: u32, tf: f32) -> f32 {
        (1.0 + tf.ln()) * self.idf_smooth(t)
    }

    /// The term string for a term id.
    fn term(&self, t: u32) -> &str {
        &self.terms[t as usize]
    }

    /// The preference keys of an item (`tag:…`, `type:…`, `source:…`).
    pub fn keys_of(&self, doc: usize) -> Vec<&str> {
        self.doc_keys[doc].iter().map(|&k| self.key_names[k as usize].as_str()).collect()
    }
}

/// The preference-term keys of an item.
pub fn item_keys(item: &RankItem) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for t in &item.tags {
        let t = t.trim().to_lowercase();
        if !t.is_empty() {
            keys.push(format!("tag:{t}"));
        }
    }
    if let Some(ct) = item.content_type.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        keys.push(format!("type:{}", ct.to_lowercase()));
    }
    if let Some(id) = item.source_id {
        keys.push(format!("source:{id}"));
    }
    keys.sort();
    keys.dedup();
    keys
}

// ---------------------------------------------------------------------------------
// BM25 over the interests text

const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

/// The interests text as a weighted query over the corpus vocabulary.
#[derive(Debug, Clone, Default)]
pub struct InterestQuery {
    /// (term id, query weight, surface word) for words the corpus knows.
    terms: Vec<(u32, f32, String)>,
    /// Interest words no indexed item contains (stems).
    pub unknown: Vec<String>,
}

impl InterestQuery {
    /// Parse an interests text against a corpus.
    pub fn new(corpus: &Corpus, interests: &str) -> InterestQuery {
        let mut q = InterestQuery::default();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (stem, surface) in tokens_with_surface(interests) {
            if let Some(&i) = seen.get(&stem) {
                if i < q.terms.len() {
                    q.terms[i].1 += 1.0;
                }
                continue;
            }
            match corpus.vocab.get(&stem) {
                Some(&t) => {
                    seen.insert(stem, q.terms.len());
                    q.terms.push((t, 1.0, surface));
                }
                None => {
                    seen.insert(stem.clone(), usize::MAX);
                    q.unknown.push(surface);
                }
            }
        }
        // A repeated word counts, but sub-linearly.
        for t in &mut q.terms {
            t.1 = 1.0 + t.1.ln();
        }
        q
    }

    /// Whether no interest word occurs in the corpus.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// BM25 score of one item.
    pub fn score(&self, corpus: &Corpus, d: usize) -> f32 {
        self.contributions(corpus, d).map(|(_, s)| s).sum()
    }

    /// Each matching interest word's share of an item's score (surface word, score).
    pub fn contributions<'a>(&'a self, corpus: &'a Corpus, d: usize) -> impl Iterator<Item = (&'a str, f32)> + 'a {
        let len_norm = 1.0 - BM25_B + BM25_B * corpus.doc_len[d] / corpus.avg_len.max(1e-6);
        self.terms.iter().filter_map(move |(t, w, surface)| {
            corpus.doc_has(d, *t).map(|tf| {
                let s = corpus.idf_bm25(*t) * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * len_norm);
                (surface.as_str(), w * s)
            })
        })
    }

    /// BM25 of the given items, by walking each item's terms once.
    fn score_docs(&self, corpus: &Corpus, docs: &[usize]) -> Vec<f32> {
        let mut qw = vec![0.0f32; corpus.terms.len()];
        for (t, w, _) in &self.terms {
            qw[*t as usize] = *w * corpus.idf_bm25(*t);
        }
        let inv_avg = 1.0 / corpus.avg_len.max(1e-6);
        docs.iter()
            .map(|&d| {
                if self.terms.is_empty() {
                    return 0.0;
                }
                let len_norm = 1.0 - BM25_B + BM25_B * corpus.doc_len[d] * inv_avg;
                let (a, b) = (corpus.offsets[d] as usize, corpus.offsets[d + 1] as usize);
                let mut s = 0.0;
                for i in a..b {
                    let w = qw[corpus.doc_terms[i] as usize];
                    if w != 0.0 {
                        let tf = corpus.doc_tfs[i];
                        s += w * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * len_norm);
                    }
                }
                s
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------
// The click classifier

/// Inverse regularisation strength, as in the usual `C` of logistic regression:
/// the penalty is `||w||² / (2 C n)` against the mean weighted loss.
const CLASSIFIER_C: f32 = 1.0;
const CLASSIFIER_STEPS: usize = 300;
const CLASSIFIER_STEP_SIZE: f32 = 2.0;

/// Logistic regression on the reader's clicked items (sparse TF-IDF), both classes
/// weighted equally whatever their counts.
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    /// Dense weights over the corpus vocabulary.
    weights: Vec<f32>,
    bias: f32,
}

impl Classifier {
    /// Fit on labelled items (index positions). `None` unless both classes occur.
    pub fn fit(corpus: &Corpus, examples: &[(usize, bool)]) -> Option<Classifier> {
        let pos = examples.iter().filter(|e| e.1).count();
        let neg = examples.len() - pos;
        if pos == 0 || neg == 0 {
            return None;
        }
        let n = examples.len() as f32;
        // Balanced class weights: each class carries half the total weight.
        let wp = n / (2.0 * pos as f32);
        let wn = n / (2.0 * neg as f32);
        // Only features that occur in a clicked item can leave zero: fit over those,
        // numbered densely, then scatter back into the vocabulary.
        let mut local: HashMap<u32, u32> = HashMap::new();
        let mut features: Vec<u32> = Vec::new();
        // (features, label, class weight) per rated item.
        type Row = (Vec<(u32, f32)>, f32, f32);
        let rows: Vec<Row> = examples
            .iter()
            .map(|&(d, y)| {
                let (a, b) = (corpus.offsets[d] as usize, corpus.offsets[d + 1] as usize);
                let x = (a..b)
                    .map(|i| {
                        let t = corpus.doc_terms[i];
                        let j = *local.entry(t).or_insert_with(|| {
                            features.push(t);
                            (features.len() - 1) as u32
                        });
                        (j, corpus.doc_w[i])
                    })
                    .collect();
                (x, if y { 1.0 } else { 0.0 }, if y { wp } else { wn })
            })
            .collect();
        let lambda = 1.0 / (CLASSIFIER_C * n);
        let m = features.len();
        let mut wl = vec![0.0f32; m];
        let mut grad = vec![0.0f32; m];
        let mut b = 0.0f32;
        for _ in 0..CLASSIFIER_STEPS {
            grad.iter_mut().zip(&wl).for_each(|(g, w)| *g = lambda * w);
            let mut gb = 0.0f32;
            for (x, y, cw) in &rows {
                let z: f32 = b + x.iter().map(|(j, v)| wl[*j as usize] * v).sum::<f32>();
                let g = cw * (sigmoid(z) - y) / n;
                gb += g;
                for (j, v) in x {
                    grad[*j as usize] += g * v;
                }
            }
            wl.iter_mut().zip(&grad).for_each(|(w, g)| *w -= CLASSIFIER_STEP_SIZE * g);
            b -= CLASSIFIER_STEP_SIZE * gb;
        }
        let mut w = vec![0.0f32; corpus.terms.len()];
        for (j, &t) in features.iter().enumerate() {
            w[t as usize] = wl[j];
        }
        Some(Classifier { weights: w, bias: b })
    }

    /// The same weights over another index's vocabulary (a word `to` has and `from`
    /// had not weighs nothing, as it would have in `from`).
    fn transfer(&self, from: &Corpus, to: &Corpus) -> Classifier {
        let weights = to.terms.iter().map(|t| from.vocab.get(t).map_or(0.0, |&b| self.weight(b))).collect();
        Classifier { weights, bias: self.bias }
    }

    /// The log-odds of "useful" for one item.
    pub fn logit(&self, corpus: &Corpus, d: usize) -> f32 {
        let inv = corpus.inv_norm[d];
        self.bias + corpus.doc(d).map(|(t, tf)| self.weight(t) * corpus.tfidf(t, tf) * inv).sum::<f32>()
    }

    fn weight(&self, t: u32) -> f32 {
        self.weights.get(t as usize).copied().unwrap_or(0.0)
    }

    /// The terms of an item that push it up most (term, contribution), best first.
    pub fn top_terms<'a>(&self, corpus: &'a Corpus, d: usize, k: usize) -> Vec<(&'a str, f32)> {
        let inv = corpus.inv_norm[d];
        let mut v: Vec<(&str, f32)> =
            corpus.doc(d).map(|(t, tf)| (corpus.term(t), self.weight(t) * corpus.tfidf(t, tf) * inv)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(k);
        v.retain(|e| e.1 > 0.0);
        v
    }

    /// Log-odds of the given items.
    fn logit_docs(&self, corpus: &Corpus, docs: &[usize]) -> Vec<f32> {
        docs.iter()
            .map(|&d| {
                let (a, b) = (corpus.offsets[d] as usize, corpus.offsets[d + 1] as usize);
                let mut s = 0.0;
                for i in a..b {
                    s += self.weights[corpus.doc_terms[i] as usize] * corpus.doc_w[i];
                }
                self.bias + s
            })
            .collect()
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

// ---------------------------------------------------------------------------------
// The feature-preference term

/// How often a key occurred in the reader's useful and not-useful clicks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCounts {
    /// Useful clicks carrying the key.
    pub useful: u32,
    /// Not-useful clicks carrying the key.
    pub not_useful: u32,
}

impl KeyCounts {
    /// Laplace-smoothed share of useful clicks: 0.5 with no evidence.
    pub fn score(self) -> f64 {
        (self.useful as f64 + 1.0) / (self.useful as f64 + self.not_useful as f64 + 2.0)
    }
}

/// Per-key preference counts for one reader.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preferences {
    /// Counts per key (`tag:…`, `type:…`, `source:…`), sorted by key.
    pub keys: Vec<(String, KeyCounts)>,
    by_key: HashMap<u32, KeyCounts>,
}

impl Preferences {
    /// Count keys over labelled items.
    pub fn count(corpus: &Corpus, examples: &[(usize, bool)]) -> Preferences {
        let mut by_key: HashMap<u32, KeyCounts> = HashMap::new();
        for &(d, useful) in examples {
            for &k in &corpus.doc_keys[d] {
                let e = by_key.entry(k).or_default();
                if useful {
                    e.useful += 1;
                } else {
                    e.not_useful += 1;
                }
            }
        }
        let mut keys: Vec<(String, KeyCounts)> =
            by_key.iter().map(|(&k, &c)| (corpus.key_names[k as usize].clone(), c)).collect();
        keys.sort_by(|a, b| a.0.cmp(&b.0));
        Preferences { keys, by_key }
    }

    /// The same counts keyed by another index's key ids.
    fn transfer(&self, to: &Corpus) -> Preferences {
        let by_key = self.keys.iter().filter_map(|(k, c)| to.keys.get(k).map(|&id| (id, *c))).collect();
        Preferences { keys: self.keys.clone(), by_key }
    }

    /// Smoothed scores of every key of the corpus, indexed by key id.
    fn dense(&self, corpus: &Corpus) -> Vec<f32> {
        (0..corpus.key_names.len() as u32)
            .map(|k| self.by_key.get(&k).copied().unwrap_or_default().score() as f32)
            .collect()
    }

    /// The mean smoothed score over an item's keys; 0.5 when it has none.
    pub fn score(&self, corpus: &Corpus, d: usize) -> f64 {
        let keys = &corpus.doc_keys[d];
        if keys.is_empty() {
            return 0.5;
        }
        keys.iter().map(|k| self.by_key.get(k).copied().unwrap_or_default().score()).sum::<f64>() / keys.len() as f64
    }

    /// Keys scoring above neutral, best first (at most `k`).
    pub fn liked(&self, k: usize) -> Vec<(String, KeyCounts)> {
        let mut v: Vec<_> = self.keys.iter().filter(|e| e.1.score() > 0.5).cloned().collect();
        v.sort_by(|a, b| b.1.score().total_cmp(&a.1.score()).then(a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }

    /// Keys scoring below neutral, worst first (at most `k`).
    pub fn disliked(&self, k: usize) -> Vec<(String, KeyCounts)> {
        let mut v: Vec<_> = self.keys.iter().filter(|e| e.1.score() < 0.5).cloned().collect();
        v.sort_by(|a, b| a.1.score().total_cmp(&b.1.score()).then(a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }

    /// Counts for one key string.
    pub fn get(&self, key: &str) -> Option<KeyCounts> {
        self.keys.binary_search_by(|e| e.0.as_str().cmp(key)).ok().map(|i| self.keys[i].1)
    }
}

// ---------------------------------------------------------------------------------
// The reader model and the blend

/// Clicks at which the click terms and the interests term weigh the same.
pub const BLEND_HALF_POINT: f64 = 5.0;

/// The blend weight of the click terms after `n` evidence clicks: `n / (n + 5)`.
pub fn blend_weight(n: usize) -> f64 {
    n as f64 / (n as f64 + BLEND_HALF_POINT)
}

/// Everything ranking learned about one reader over one corpus.
#[derive(Debug, Clone)]
pub struct ReaderModel {
    /// The interests text as a query.
    pub query: InterestQuery,
    /// The click classifier, when the evidence holds both classes.
    pub classifier: Option<Classifier>,
    /// Key preferences counted from evidence clicks (always counted, for status and
    /// explanations; used in ranking only when [`ReaderModel::preference_active`]).
    pub preferences: Preferences,
    /// Whether the preference term takes part: at least one not-useful evidence click.
    /// An all-useful history never turns it on, because Laplace smoothing can then
    /// only lift the keys that were clicked and never push anything below neutral.
    pub preference_active: bool,
    /// Evidence clicks (every source but bootstrap), the `n` of the blend.
    pub evidence: usize,
    /// Evidence clicks whose item is not in the corpus (counted in `n`, not trained on).
    pub evidence_unindexed: usize,
    /// Item ids the reader has clicked (any source), for "unread" filters.
    pub clicked: HashSet<i64>,
    /// The same, as index positions.
    clicked_docs: HashSet<usize>,
}

impl ReaderModel {
    /// Learn a reader's model over a corpus.
    pub fn fit(corpus: &Corpus, interests: &str, clicks: &[Click]) -> ReaderModel {
        let query = InterestQuery::new(corpus, interests);
        let mut last: HashMap<i64, bool> = HashMap::new();
        let mut evidence = 0;
        for c in clicks.iter().filter(|c| c.source.counts_as_evidence()) {
            // A re-rating overwrites: the last verdict on an item wins.
            if last.insert(c.item_id, c.useful).is_none() {
                evidence += 1;
            }
        }
        let mut examples: Vec<(usize, bool)> =
            last.iter().filter_map(|(id, &y)| corpus.position(*id).map(|d| (d, y))).collect();
        examples.sort_unstable();
        let evidence_unindexed = evidence - examples.len();
        let classifier = Classifier::fit(corpus, &examples);
        let preferences = Preferences::count(corpus, &examples);
        let preference_active = last.values().any(|&y| !y);
        ReaderModel {
            query,
            classifier,
            preferences,
            preference_active,
            evidence,
            evidence_unindexed,
            clicked: clicks.iter().map(|c| c.item_id).collect(),
            clicked_docs: clicks.iter().filter_map(|c| corpus.position(c.item_id)).collect(),
        }
    }

    /// This model, fitted on `from`, carried over to `to`, an index built with
    /// [`Corpus::build_against`] `from`: the classifier keeps its weights on the shared
    /// words, the preference counts follow the shared keys, the evidence counts stay
    /// those of the fit, and the interests text is read against `to`. Ranking `to`
    /// with it scores each item as the fit on `from` would (no refit).
    pub fn transfer(&self, from: &Corpus, to: &Corpus, interests: &str) -> ReaderModel {
        ReaderModel {
            query: InterestQuery::new(to, interests),
            classifier: self.classifier.as_ref().map(|c| c.transfer(from, to)),
            preferences: self.preferences.transfer(to),
            preference_active: self.preference_active,
            evidence: self.evidence,
            evidence_unindexed: self.evidence_unindexed,
            clicked: self.clicked.clone(),
            clicked_docs: self.clicked.iter().filter_map(|id| to.position(*id)).collect(),
        }
    }

    /// The weight of the click terms in the blend.
    pub fn blend_weight(&self) -> f64 {
        if self.classifier.is_none() && !self.preference_active { 0.0 } else { blend_weight(self.evidence) }
    }

    /// Rank a corpus for this reader.
    pub fn rank(&self, corpus: &Corpus, opts: &RankOptions, embeddings: &Embeddings) -> Ranking {
        let keep = |d: &usize| !(opts.exclude_clicked && self.clicked_docs.contains(d));
        let cand: Vec<usize> = match &opts.only {
            Some(only) => {
                let mut v: Vec<usize> = only.iter().filter_map(|id| corpus.position(*id)).filter(keep).collect();
                v.sort_unstable();
                v
            }
            None => (0..corpus.len()).filter(keep).collect(),
        };
        let n = cand.len();
        let lexical = self.query.score_docs(corpus, &cand);
        let mut profile = percentiles(&lexical);
        let mut cosine: Vec<Option<f32>> = vec![None; n];
        let mut embedding_used = false;
        if let Embeddings::On(p) = embeddings {
            let sims: Vec<Option<f32>> = cand
                .iter()
                .map(|&d| corpus.items[d].vector.as_ref().filter(|v| v.len() == p.len()).map(|v| dot(v, p)))
                .collect();
            let present: Vec<usize> = (0..n).filter(|&i| sims[i].is_some()).collect();
            if !present.is_empty() {
                embedding_used = true;
                let vals: Vec<f32> = present.iter().map(|&i| sims[i].unwrap_or(0.0)).collect();
                let pct = percentiles(&vals);
                for (j, &i) in present.iter().enumerate() {
                    profile[i] = (profile[i] + pct[j]) / 2.0;
                    cosine[i] = sims[i];
                }
            }
        }
        let w = self.blend_weight();
        let mut click_pct: Vec<f64> = vec![0.0; n];
        let mut n_click_terms = 0.0;
        let mut p_useful: Vec<Option<f32>> = vec![None; n];
        if let Some(clf) = &self.classifier {
            let z = clf.logit_docs(corpus, &cand);
            for (i, zi) in z.iter().enumerate() {
                p_useful[i] = Some(sigmoid(*zi));
            }
            for (acc, p) in click_pct.iter_mut().zip(percentiles(&z)) {
                *acc += p;
            }
            n_click_terms += 1.0;
        }
        let mut pref: Vec<Option<f64>> = vec![None; n];
        if self.preference_active {
            let dense = self.preferences.dense(corpus);
            let s: Vec<f32> = cand
                .iter()
                .map(|&d| {
                    let keys = &corpus.doc_keys[d];
                    if keys.is_empty() {
                        0.5
                    } else {
                        keys.iter().map(|&k| dense[k as usize]).sum::<f32>() / keys.len() as f32
                    }
                })
                .collect();
            for (i, v) in s.iter().enumerate() {
                pref[i] = Some(*v as f64);
            }
            for (acc, p) in click_pct.iter_mut().zip(percentiles(&s)) {
                *acc += p;
            }
            n_click_terms += 1.0;
        }
        let scored: Vec<(f64, usize)> = (0..n)
            .map(|i| {
                let click = if n_click_terms > 0.0 { click_pct[i] / n_click_terms } else { 0.0 };
                (w * click + (1.0 - w) * profile[i], i)
            })
            .collect();
        let order = |a: &(f64, usize), b: &(f64, usize)| {
            a.0.total_cmp(&b.0).then_with(|| {
                let (ia, ib) = (&corpus.items[cand[a.1]], &corpus.items[cand[b.1]]);
                ib.published.cmp(&ia.published).then(ib.id.cmp(&ia.id))
            })
        };
        let mut scored = scored;
        let keep = opts.limit.unwrap_or(n).min(n);
        if keep < n && keep > 0 {
            scored.select_nth_unstable_by(keep - 1, order);
            scored.truncate(keep);
        } else if keep == 0 {
            scored.clear();
        }
        scored.sort_unstable_by(order);
        let items = scored
            .into_iter()
            .map(|(score, i)| {
                let d = cand[i];
                Ranked {
                    id: corpus.items[d].id,
                    doc: d,
                    score,
                    lexical: lexical[i],
                    cosine: cosine[i],
                    p_useful: p_useful[i],
                    preference: pref[i],
                }
            })
            .collect();
        Ranking {
            items,
            candidates: n,
            terms: ActiveTerms {
                interests: !self.query.is_empty(),
                embeddings: match embeddings {
                    Embeddings::Off => EmbeddingStatus::Off,
                    Embeddings::Unavailable(why) => EmbeddingStatus::Unavailable(why.clone()),
                    Embeddings::On(_) if embedding_used => EmbeddingStatus::Used,
                    Embeddings::On(_) => EmbeddingStatus::NoVectors,
                },
                classifier: self.classifier.is_some(),
                preference: self.preference_active,
                blend_weight: w,
            },
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Percentile ranks, 0 for the highest score and 1 for the lowest; ties share the
/// mean of their positions. One item gets 0.
pub fn percentiles(scores: &[f32]) -> Vec<f64> {
    let n = scores.len();
    // Sort (descending score, index) packed into one integer: the high half is the
    // score's bits mapped so that integer order is the reverse of float order.
    let mut keyed: Vec<u64> = scores
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let b = x.to_bits();
            let ascending = if b >> 31 == 1 { !b } else { b | 0x8000_0000 };
            (((!ascending) as u64) << 32) | i as u64
        })
        .collect();
    keyed.sort_unstable();
    let idx: Vec<u32> = keyed.iter().map(|k| *k as u32).collect();
    let mut out = vec![0.0; n];
    let denom = (n.max(2) - 1) as f64;
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && scores[idx[j] as usize] == scores[idx[i] as usize] {
            j += 1;
        }
        let avg = (i + j - 1) as f64 / 2.0 / denom;
        for &k in &idx[i..j] {
            out[k as usize] = avg;
        }
        i = j;
    }
    out
}

/// Which rows of the corpus to rank and how many to return.
#[derive(Debug, Clone, Default)]
pub struct RankOptions {
    /// Leave out items the reader has already rated (the feed list does; search does not).
    pub exclude_clicked: bool,
    /// Rank only these item ids (a search's hits, a time window); `None` ranks all.
    pub only: Option<HashSet<i64>>,
    /// Return only the best this many; `None` returns every candidate in order.
    pub limit: Option<usize>,
}

/// One ranked item with the evidence that placed it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// The item's id.
    pub id: i64,
    /// Its index position in the corpus.
    pub doc: usize,
    /// The blended percentile (0 best). Comparable only within one ranking.
    pub score: f64,
    /// BM25 of the interests text against the item.
    pub lexical: f32,
    /// Cosine to the interests vector, when embeddings took part.
    pub cosine: Option<f32>,
    /// The classifier's probability of "useful", when it is active.
    pub p_useful: Option<f32>,
    /// The preference term's score (0.5 neutral), when it is active.
    pub preference: Option<f64>,
}

/// Whether embeddings took part in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", content = "reason", rename_all = "snake_case")]
pub enum EmbeddingStatus {
    /// Not configured.
    Off,
    /// Configured but not answering; ranked without them.
    Unavailable(String),
    /// Configured, but no candidate has a stored vector of the right size.
    NoVectors,
    /// Cosine similarity joined the interests term.
    Used,
}

/// Which terms took part in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActiveTerms {
    /// Some interest word occurs in the corpus.
    pub interests: bool,
    /// The embedding state.
    pub embeddings: EmbeddingStatus,
    /// The click classifier ran.
    pub classifier: bool,
    /// The preference term ran.
    pub preference: bool,
    /// Weight of the click terms against the interests term.
    pub blend_weight: f64,
}

/// A ranked list and what produced it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    /// Best first, cut to the requested limit.
    pub items: Vec<Ranked>,
    /// How many candidates were ranked.
    pub candidates: usize,
    /// Which terms took part.
    pub terms: ActiveTerms,
}

/// Fit a reader's model and rank in one call.
pub fn rank(
    corpus: &Corpus,
    interests: &str,
    clicks: &[Click],
    opts: &RankOptions,
    embeddings: &Embeddings,
) -> Ranking {
    ReaderModel::fit(corpus, interests, clicks).rank(corpus, opts, embeddings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClickSource;

    fn click(item_id: i64, useful: bool, source: ClickSource) -> Click {
        Click { reader_id: 1, item_id, useful, source, at: String::new() }
    }

    pub(crate) fn item(id: i64, title: &str, summary: &str, tags: &[&str], source: i64) -> RankItem {
        RankItem {
            id,
            title: title.into(),
            summary: summary.into(),
            source: format!("feed {source}"),
            source_id: Some(source),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            content_type: Some("paper".into()),
            published: Some(format!("2026-01-{:02}T00:00:00", (id % 28) + 1)),
            vector: None,
        }
    }

    #[test]
    fn stems_meet() {
        for (a, b) in [
            ("networks", "network"),
            ("folding", "fold"),
            ("folded", "fold"),
            ("samples", "sampling"),
            ("studies", "study"),
            ("molecules", "molecule"),
            ("embedded", "embed"),
            ("processes", "process"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
        for w in ["bias", "string", "need", "corpus", "analysis", "gpt4"] {
            assert_eq!(stem(w), w.trim_end_matches('e'), "{w}");
        }
    }

    #[test]
    fn tokenize_drops_stopwords_and_splits_hyphens() {
        assert_eq!(
            tokenize("I'm interested in graph-neural networks and the protein's folding"),
            ["graph", "neural", "network", "protein", "fold"]
        );
    }

    #[test]
    fn percentiles_share_ties() {
        let p = percentiles(&[3.0, 1.0, 1.0, 0.0]);
        assert_eq!(p, vec![0.0, 0.5, 0.5, 1.0]);
        assert_eq!(percentiles(&[2.0]), vec![0.0]);
    }

    fn corpus() -> Corpus {
        Corpus::build(vec![
            item(1, "Protein folding with diffusion", "We fold proteins using diffusion models.", &["protein"], 1),
            item(2, "Graph neural networks for molecules", "Message passing on molecular graphs.", &["gnn"], 1),
            item(3, "A new GPU driver release", "Drivers and firmware updates.", &["hardware"], 2),
            item(4, "Sparse attention in transformers", "Efficient long-context language models.", &["llm"], 2),
            item(5, "Cryo-EM structure of a membrane protein", "Protein structure determination.", &["protein"], 3),
            item(6, "Stock market prediction with LSTMs", "Finance time series.", &["finance"], 3),
        ])
    }

    fn ids(r: &Ranking) -> Vec<i64> {
        r.items.iter().map(|x| x.id).collect()
    }

    #[test]
    fn interests_alone_rank_matching_items_first() {
        let c = corpus();
        let r = rank(&c, "protein structure and folding", &[], &RankOptions::default(), &Embeddings::Off);
        let mut top = ids(&r)[..2].to_vec();
        top.sort();
        assert_eq!(top, [1, 5]);
        assert_eq!(r.items.last().map(|x| x.lexical), Some(0.0));
        assert!(!r.terms.classifier && !r.terms.preference);
        assert_eq!(r.terms.blend_weight, 0.0);
    }

    #[test]
    fn clicks_move_items_and_bootstrap_does_not() {
        let c = corpus();
        let clicks = |source| {
            vec![click(4, true, source), click(2, true, source), click(1, false, source), click(5, false, source)]
        };
        let model = ReaderModel::fit(&c, "protein", &clicks(ClickSource::Ui));
        assert!(model.classifier.is_some() && model.preference_active);
        assert_eq!(model.evidence, 4);
        let model = ReaderModel::fit(&c, "protein", &clicks(ClickSource::Bootstrap));
        assert!(model.classifier.is_none() && !model.preference_active);
        assert_eq!(model.evidence, 0);
        assert_eq!(model.blend_weight(), 0.0);
    }

    #[test]
    fn all_upvotes_never_activate_preference() {
        let c = corpus();
        let clicks: Vec<Click> = (1..=6).map(|id| click(id, true, ClickSource::Ui)).collect();
        let m = ReaderModel::fit(&c, "", &clicks);
        assert!(!m.preference_active && m.classifier.is_none());
        assert_eq!(m.blend_weight(), 0.0);
    }

    #[test]
    fn classifier_learns_from_text() {
        let c = corpus();
        let examples = vec![(c.position(2).unwrap(), true), (c.position(6).unwrap(), false)];
        let clf = Classifier::fit(&c, &examples).unwrap();
        assert!(clf.logit(&c, c.position(2).unwrap()) > clf.logit(&c, c.position(6).unwrap()));
        let again = Classifier::fit(&c, &examples).unwrap();
        assert_eq!(clf.weights, again.weights);
    }

    #[test]
    fn exclude_clicked_and_limit() {
        let c = corpus();
        let opts = RankOptions { exclude_clicked: true, limit: Some(2), only: None };
        let r = rank(&c, "protein", &[click(5, true, ClickSource::Ui)], &opts, &Embeddings::Off);
        assert_eq!(r.items.len(), 2);
        assert_eq!(r.items[0].id, 1);
        assert!(!ids(&r).contains(&5));
        assert_eq!(r.candidates, 5);
    }

    struct Fixed(Result<Vec<f32>, EmbedError>);
    impl Embedder for Fixed {
        fn embed(&self, texts: &[String], _: EmbedKind) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.0.clone().map(|v| texts.iter().map(|_| v.clone()).collect())
        }
        fn describe(&self) -> String {
            "fixed".into()
        }
    }

    #[test]
    fn embeddings_join_and_failures_degrade() {
        let mut items = corpus().items().to_vec();
        for it in &mut items {
            it.vector = Some(if it.id == 6 { vec![1.0, 0.0] } else { vec![0.0, 1.0] });
        }
        let c = Corpus::build(items);
        let e = Embeddings::for_interests(Some(&Fixed(Ok(vec![2.0, 0.0]))), "finance");
        assert_eq!(e, Embeddings::On(vec![1.0, 0.0]));
        let r = rank(&c, "finance", &[], &RankOptions::default(), &e);
        assert_eq!(r.items[0].id, 6);
        assert_eq!(r.terms.embeddings, EmbeddingStatus::Used);
        let down = Embeddings::for_interests(Some(&Fixed(Err(EmbedError("refused".into())))), "finance");
        assert!(matches!(down, Embeddings::Unavailable(ref s) if s.contains("refused")));
        let r2 = rank(&c, "finance", &[], &RankOptions::default(), &down);
        assert_eq!(r2.items[0].id, 6);
        assert!(matches!(r2.terms.embeddings, EmbeddingStatus::Unavailable(_)));
    }
}
