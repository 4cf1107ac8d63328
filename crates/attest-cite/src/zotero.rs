//! A Zotero library, read from its `zotero.sqlite` without ever writing to it or
//! taking a lock (read-only and immutable, so a running Zotero is not disturbed).
//!
//! Items in the trash, attachments, notes and annotations are left out. A library
//! this code cannot read (a missing table, a newer schema, a corrupt file) yields no
//! records and a reason, never an error that stops the resolver.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection, Row, SqliteConnection};

use crate::reference::{Reference, Source, find_arxiv_id, find_year, normalize_doi};

/// What reading a Zotero library yielded.
#[derive(Debug, Clone, Default)]
pub struct Library {
    /// The records, ordered by Zotero's item id.
    pub references: Vec<Reference>,
    /// What could not be read, in a few words each. Empty when all went well.
    pub problems: Vec<String>,
}

/// The library Zotero keeps by default: `~/Zotero/zotero.sqlite`, when it exists.
pub fn default_path() -> Option<PathBuf> {
    let p = dirs::home_dir()?.join("Zotero").join("zotero.sqlite");
    p.is_file().then_some(p)
}

/// Read every regular item of the library at `path`. `origin` is how records name it.
pub async fn read(path: &Path, origin: &str) -> Library {
    match read_inner(path, origin).await {
        Ok(lib) => lib,
        Err(e) => Library { references: Vec::new(), problems: vec![format!("could not read {origin}: {e}")] },
    }
}

async fn read_inner(path: &Path, origin: &str) -> Result<Library, String> {
    if !path.is_file() {
        return Err("no such file".into());
    }
    let opts = SqliteConnectOptions::new()
        .filename(path)
        .read_only(true)
        .immutable(true)
        .create_if_missing(false)
        .disable_statement_logging();
    let mut conn = SqliteConnection::connect_with(&opts).await.map_err(|e| e.to_string())?;
    let result = read_items(&mut conn, origin).await;
    let _ = conn.close().await;
    result
}

async fn tables(conn: &mut SqliteConnection) -> Result<Vec<String>, String> {
    let rows = sqlx::query("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
        .fetch_all(&mut *conn)
        .await
        .map_err(|e| format!("not a readable SQLite database ({e})"))?;
    Ok(rows.iter().filter_map(|r| r.try_get::<String, _>(0).ok()).collect())
}

async fn read_items(conn: &mut SqliteConnection, origin: &str) -> Result<Library, String> {
    let tables = tables(conn).await?;
    let has = |t: &str| tables.iter().any(|n| n == t);
    let missing: Vec<&str> =
        ["items", "itemData", "itemDataValues", "fields"].into_iter().filter(|t| !has(t)).collect();
    if !missing.is_empty() {
        return Err(format!("not a Zotero library this code understands (no table {})", missing.join(", ")));
    }
    let mut problems = Vec::new();

    // Which items count: not in the trash, and not an attachment, note or annotation.
    let mut filter = String::new();
    if has("deletedItems") {
        filter.push_str(" AND i.itemID NOT IN (SELECT itemID FROM deletedItems)");
    } else {
        problems.push("no trash table (deletedItems): trashed items cannot be told apart".into());
    }
    if has("itemTypes") {
        filter.push_str(
            " AND i.itemTypeID NOT IN (SELECT itemTypeID FROM itemTypes WHERE typeName IN ('attachment', 'note', 'annotation'))",
        );
    }

    let sql = format!(
        "SELECT i.itemID, i.key, f.fieldName, v.value FROM items i \
         JOIN itemData d ON d.itemID = i.itemID \
         JOIN fields f ON f.fieldID = d.fieldID \
         JOIN itemDataValues v ON v.valueID = d.valueID \
         WHERE f.fieldName IN ('title', 'date', 'DOI', 'url', 'extra', 'citationKey', 'archiveID', 'publicationTitle', 'repository') {filter} \
         ORDER BY i.itemID"
    );
    let rows = sqlx::query(&sql).fetch_all(&mut *conn).await.map_err(|e| format!("reading items failed ({e})"))?;

    let mut order: Vec<i64> = Vec::new();
    let mut items: HashMap<i64, (String, HashMap<String, String>)> = HashMap::new();
    for r in &rows {
        let (Ok(id), Ok(key), Ok(field)) =
            (r.try_get::<i64, _>(0), r.try_get::<String, _>(1), r.try_get::<String, _>(2))
        else {
            continue;
        };
        // Values are stored with SQLite's dynamic typing: a number is not a string.
        let value = r
            .try_get::<String, _>(3)
            .or_else(|_| r.try_get::<i64, _>(3).map(|n| n.to_string()))
            .or_else(|_| r.try_get::<f64, _>(3).map(|n| n.to_string()))
            .unwrap_or_default();
        let entry = items.entry(id).or_insert_with(|| {
            order.push(id);
            (key, HashMap::new())
        });
        entry.1.insert(field, value);
    }

    let mut creators: HashMap<i64, Vec<String>> = HashMap::new();
    if has("itemCreators") && has("creators") {
        let sql = "SELECT ic.itemID, c.firstName, c.lastName FROM itemCreators ic \
                   JOIN creators c ON c.creatorID = ic.creatorID ORDER BY ic.itemID, ic.orderIndex";
        match sqlx::query(sql).fetch_all(&mut *conn).await {
            Ok(rows) => {
                for r in rows {
                    let Ok(id) = r.try_get::<i64, _>(0) else { continue };
                    let first: String = r.try_get::<Option<String>, _>(1).ok().flatten().unwrap_or_default();
                    let last: String = r.try_get::<Option<String>, _>(2).ok().flatten().unwrap_or_default();
                    let name = match (last.trim(), first.trim()) {
                        ("", "") => continue,
                        (l, "") => l.to_string(),
                        ("", f) => f.to_string(),
                        (l, f) => format!("{l}, {f}"),
                    };
                    creators.entry(id).or_default().push(name);
                }
            }
            Err(e) => problems.push(format!("authors could not be read ({e})")),
        }
    } else {
        problems.push("no creator tables: records have no authors".into());
    }

    let references = order
        .into_iter()
        .filter_map(|id| {
            let (item_key, fields) = items.remove(&id)?;
            let get = |n: &str| fields.get(n).map(|s| s.trim()).filter(|s| !s.is_empty());
            let key = get("citationKey")
                .map(str::to_string)
                .or_else(|| get("extra").and_then(citation_key_in_extra))
                .unwrap_or(item_key);
            let url = get("url").map(str::to_string);
            let arxiv_id = get("archiveID")
                .and_then(find_arxiv_id)
                .or_else(|| url.as_deref().filter(|u| u.contains("arxiv.org/")).and_then(find_arxiv_id))
                .or_else(|| {
                    ["publicationTitle", "repository", "extra"]
                        .into_iter()
                        .filter_map(&get)
                        .find(|v| v.to_lowercase().contains("arxiv"))
                        .and_then(find_arxiv_id)
                });
            Some(Reference {
                key,
                title: get("title").unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "),
                authors: creators.remove(&id).unwrap_or_default(),
                year: get("date").and_then(find_year),
                doi: get("DOI").and_then(normalize_doi),
                arxiv_id,
                url,
                source: Source::Zotero,
                fetched_at: None,
                origin: origin.to_string(),
            })
        })
        .collect();
    Ok(Library { references, problems })
}

/// A `Citation Key: …` line in Zotero's Extra field (how Better BibTeX pins keys).
fn citation_key_in_extra(extra: &str) -> Option<String> {
    extra.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        let name = name.trim().to_ascii_lowercase();
        (name == "citation key" || name == "bibtex").then(|| value.trim().to_string()).filter(|v| !v.is_empty())
    })
}
