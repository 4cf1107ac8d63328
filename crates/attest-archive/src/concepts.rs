//! Near-duplicate concepts merged by embeddings, when an embedding server is configured
//! (`EMBED_BASE_URL`); ingest calls [`merge_near_duplicates`] after tagging. Without a
//! server nothing here runs and the tables it uses stay empty.
//!
//! - **What is embedded**: each canonical concept name of the archive (a stored tag
//!   through [`attest_tags::concept_tags`] and the shipped alias table), hyphens read as
//!   spaces, once per name and model key, stored in `concept_vectors`; never an item's
//!   raw phrases. The [`attest_tags::merge::MERGE_MAX_CONCEPTS`] most used concepts are
//!   compared, and at most [`CONCEPT_EMBED_PER_RUN`] names missing a vector are embedded
//!   per run (a backlog fills over runs, most used first).
//! - **What merges**: [`attest_tags::merge::near_duplicates`] (cosine ≥
//!   [`attest_tags::merge::MERGE_COSINE`] and lexically related or sharing items). A
//!   merge rewrites every stored tag whose concept is the alias to the canonical name
//!   (keeping each row's origin; arXiv codes are never rewritten) and is recorded in
//!   `concept_aliases`, so the graph, the digest and search all see one concept, and a
//!   later item tagged with the alias is rewritten again without asking the server.
//! - **When the server fails**: no new merge (the answer is what it is without
//!   embeddings), earlier merges still apply, and `caveat` says why. Never an error for
//!   the server; only a database failure is one.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlx::Row as _;

use attest_tags::merge::{ConceptUse, MERGE_MAX_CONCEPTS, near_duplicates};

use crate::embed::{EmbedService, decode, encode};
use crate::{FeedStore, Result, model};

/// Concept names embedded at most per run (16 requests of 32 names).
pub const CONCEPT_EMBED_PER_RUN: usize = 512;
/// Longest `IN (…)` list per statement.
const CHUNK: usize = 500;

/// One merge of this run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MergedConcept {
    /// The concept that went.
    pub alias: String,
    /// The concept it is now part of.
    pub canonical: String,
    /// Cosine of the two names' vectors.
    pub cosine: f32,
    /// Why the pair was considered: `acronym`, `reworded` or `shared items`.
    pub relation: String,
    /// Stored tags rewritten.
    pub tags: usize,
}

/// What [`merge_near_duplicates`] did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConceptMerge {
    /// The model key vectors are stored under.
    pub model: String,
    /// Concepts compared (those with a vector, among the most used).
    pub compared: usize,
    /// Names embedded by this run (what the server was asked for).
    pub embedded: usize,
    /// Names whose stored vector was reused.
    pub cached: usize,
    /// New merges, by alias.
    pub merged: Vec<MergedConcept>,
    /// Stored tags rewritten by earlier merges (an alias met again on new items).
    pub reapplied: usize,
    /// Why no new merge was made, when the server failed.
    pub caveat: Option<String>,
}

/// Every stored tag as concepts: raw tag → its concepts, and whether the raw tag may be
/// rewritten (not an arXiv code).
struct Archive {
    /// concept → items carrying it.
    items: BTreeMap<String, BTreeSet<i64>>,
    /// concept → the stored spellings that stand for it alone (rewritable).
    spellings: BTreeMap<String, BTreeSet<String>>,
    /// item → its concepts.
    per_item: BTreeMap<i64, BTreeSet<String>>,
}

async fn read_archive(store: &FeedStore) -> Result<Archive> {
    let canon = attest_tags::Canon::builtin();
    let mut named: HashMap<String, (Vec<String>, bool)> = HashMap::new();
    let mut a = Archive { items: BTreeMap::new(), spellings: BTreeMap::new(), per_item: BTreeMap::new() };
    for t in store.item_tags().await? {
        let (concepts, rewritable) = named.entry(t.tag.clone()).or_insert_with(|| {
            let mapped = attest_tags::concept_tags(&t.tag);
            let code = mapped.len() != 1 || mapped[0] != t.tag;
            let concepts: Vec<String> = mapped.iter().map(|c| canon.canonical(c)).filter(|c| !c.is_empty()).collect();
            (concepts, !code)
        });
        for c in concepts.iter() {
            a.items.entry(c.clone()).or_default().insert(t.item_id);
            a.per_item.entry(t.item_id).or_default().insert(c.clone());
            if *rewritable {
                a.spellings.entry(c.clone()).or_default().insert(t.tag.clone());
            }
        }
    }
    Ok(a)
}

/// The merges recorded so far: alias → canonical.
pub async fn stored_aliases(store: &FeedStore) -> Result<BTreeMap<String, String>> {
    let rows =
        sqlx::query("SELECT alias, canonical FROM concept_aliases ORDER BY alias").fetch_all(store.pool()).await?;
    let direct: BTreeMap<String, String> = rows.iter().map(|r| (r.get("alias"), r.get("canonical"))).collect();
    // Follow a chain left by an older database (`a → b`, `b → c`) to its end.
    let end = |start: &String| -> String {
        let mut c = start.clone();
        for _ in 0..direct.len() {
            match direct.get(&c) {
                Some(next) if *next != c => c = next.clone(),
                _ => break,
            }
        }
        c
    };
    let out = direct.iter().map(|(a, c)| (a.clone(), end(c))).collect();
    Ok(out)
}

/// Stored vectors of these concept names under `key`.
pub async fn stored_concept_vectors(
    store: &FeedStore,
    key: &str,
    names: &[String],
) -> Result<HashMap<String, Vec<f32>>> {
    let mut out = HashMap::new();
    for chunk in names.chunks(CHUNK) {
        let marks: Vec<String> = (0..chunk.len()).map(|i| format!("${}", i + 2)).collect();
        let sql =
            format!("SELECT name, vector FROM concept_vectors WHERE model = $1 AND name IN ({})", marks.join(", "));
        let mut q = sqlx::query(&sql).bind(key);
        for n in chunk {
            q = q.bind(n);
        }
        for r in q.fetch_all(store.pool()).await? {
            if let Some(v) = decode(&r.get::<Vec<u8>, _>("vector")) {
                out.insert(r.get("name"), v);
            }
        }
    }
    Ok(out)
}

/// How many concept vectors are stored under `key`.
pub async fn concept_vector_count(store: &FeedStore, key: &str) -> Result<i64> {
    Ok(sqlx::query("SELECT count(*) AS n FROM concept_vectors WHERE model = $1")
        .bind(key)
        .fetch_one(store.pool())
        .await?
        .get("n"))
}

/// The text a concept name is embedded as: its words (`graph neural networks`).
pub fn concept_text(name: &str) -> String {
    name.split('-').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Embed the archive's concept names that lack a vector (at most
/// [`CONCEPT_EMBED_PER_RUN`]), then merge near-duplicates onto one name (see the
/// module). A server that fails gives a `caveat` and no new merge, never an error.
pub async fn merge_near_duplicates(store: &FeedStore, service: &EmbedService) -> Result<ConceptMerge> {
    let key = service.key().to_string();
    let mut report = ConceptMerge { model: key.clone(), ..ConceptMerge::default() };
    let archive = read_archive(store).await?;
    let aliases = stored_aliases(store).await?;
    // (stored spelling, new name, merge it came from: None for an earlier one)
    let mut renames: Vec<(String, String, Option<usize>)> = Vec::new();
    for (alias, canonical) in &aliases {
        for s in archive.spellings.get(alias).into_iter().flatten() {
            if s != canonical {
                renames.push((s.clone(), canonical.clone(), None));
            }
        }
    }

    // The concepts compared: the most used (ties by name), earlier aliases left out.
    let mut concepts: Vec<ConceptUse> = archive
        .items
        .iter()
        .filter(|(c, _)| !aliases.contains_key(*c))
        .map(|(c, items)| ConceptUse { name: c.clone(), items: items.len() })
        .collect();
    concepts.sort_by(|a, b| b.items.cmp(&a.items).then_with(|| a.name.cmp(&b.name)));
    concepts.truncate(MERGE_MAX_CONCEPTS);
    let names: Vec<String> = concepts.iter().map(|c| c.name.clone()).collect();
    let mut vectors = stored_concept_vectors(store, &key, &names).await?;
    report.cached = vectors.len();
    let missing: Vec<&String> =
        names.iter().filter(|n| !vectors.contains_key(*n)).take(CONCEPT_EMBED_PER_RUN).collect();
    let mut merges = Vec::new();
    match service.embed_documents(missing.iter().map(|n| concept_text(n)).collect()).await {
        Err(why) => {
            report.caveat = Some(format!(
                "concepts were not compared by embeddings this time ({why}); the tags stand as words chose them"
            ));
        }
        Ok(new) => {
            let now = model::now_stamp();
            let rows: Vec<(&String, Vec<f32>)> = missing.iter().copied().zip(new).collect();
            if !rows.is_empty() {
                let mut tx = store.write_tx().await?;
                for (name, v) in &rows {
                    sqlx::query(
                        "INSERT INTO concept_vectors (name, model, dims, vector, embedded_at) VALUES ($1, $2, $3, $4, $5) \
                         ON CONFLICT (name, model) DO NOTHING",
                    )
                    .bind(name)
                    .bind(&key)
                    .bind(v.len() as i64)
                    .bind(encode(v))
                    .bind(&now)
                    .execute(&mut *tx)
                    .await?;
                }
                tx.commit().await?;
            }
            report.embedded = rows.len();
            vectors.extend(rows.into_iter().map(|(n, v)| (n.clone(), v)));
            let slots: Vec<Option<&[f32]>> = names.iter().map(|n| vectors.get(n).map(Vec::as_slice)).collect();
            report.compared = slots.iter().filter(|s| s.is_some()).count();
            let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i)).collect();
            let mut shared = BTreeSet::new();
            for cs in archive.per_item.values() {
                let ids: Vec<usize> = cs.iter().filter_map(|c| index.get(c.as_str()).copied()).collect();
                for (x, &a) in ids.iter().enumerate() {
                    for &b in &ids[x + 1..] {
                        shared.insert((a.min(b), a.max(b)));
                    }
                }
            }
            merges = near_duplicates(&concepts, &slots, &shared);
            // A name earlier merges kept stays: merges never chain across runs either.
            let kept: BTreeSet<&String> = aliases.values().collect();
            merges.retain(|m| !kept.contains(&m.alias));
            for (m, merge) in merges.iter().enumerate() {
                for s in archive.spellings.get(&merge.alias).into_iter().flatten() {
                    renames.push((s.clone(), merge.canonical.clone(), Some(m)));
                }
            }
        }
    }
    if renames.is_empty() && merges.is_empty() {
        return Ok(report);
    }

    // One transaction: the tags rewritten and the merges recorded, or nothing.
    let now = model::now_stamp();
    let mut counts = vec![0usize; merges.len()];
    let mut tx = store.write_tx().await?;
    for (spelling, canonical, from) in &renames {
        sqlx::query(
            "INSERT INTO item_tags (item_id, tag, origin) SELECT item_id, $2, origin FROM item_tags WHERE tag = $1 \
             ON CONFLICT DO NOTHING",
        )
        .bind(spelling)
        .bind(canonical)
        .execute(&mut *tx)
        .await?;
        let gone = sqlx::query("DELETE FROM item_tags WHERE tag = $1").bind(spelling).execute(&mut *tx).await?;
        let n = gone.rows_affected() as usize;
        match from {
            Some(m) => counts[*m] += n,
            None => report.reapplied += n,
        }
    }
    for m in &merges {
        sqlx::query(
            "INSERT INTO concept_aliases (alias, canonical, model, cosine, relation, merged_at) \
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (alias) DO UPDATE SET canonical = excluded.canonical, \
             model = excluded.model, cosine = excluded.cosine, relation = excluded.relation, merged_at = excluded.merged_at",
        )
        .bind(&m.alias)
        .bind(&m.canonical)
        .bind(&key)
        .bind(f64::from(m.cosine))
        .bind(m.relation.as_str())
        .bind(&now)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    report.merged = merges
        .into_iter()
        .zip(counts)
        .map(|(m, tags)| MergedConcept {
            alias: m.alias,
            canonical: m.canonical,
            cosine: m.cosine,
            relation: m.relation.as_str().to_string(),
            tags,
        })
        .collect();
    Ok(report)
}
