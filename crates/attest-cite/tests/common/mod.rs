//! Shared test helpers: a tiny Zotero library built with the few tables the reader
//! queries (Zotero's real names and columns), written to a temporary directory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

pub fn fixture_bib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tricky.bib")
}

/// Items: 1 Hinton's distillation paper (citationKey field), 2 a paper pinned by
/// "Citation Key:" in Extra with an arXiv url, 3 a trashed item, 4 an attachment,
/// 5 an item with only Zotero's own key.
pub async fn make_zotero(path: &Path) {
    let opts = SqliteConnectOptions::new().filename(path).create_if_missing(true);
    let mut c = SqliteConnection::connect_with(&opts).await.unwrap();
    for sql in [
        "CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT)",
        "CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT, libraryID INT, key TEXT)",
        "CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT)",
        "CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE)",
        "CREATE TABLE itemData (itemID INT, fieldID INT, valueID INT, PRIMARY KEY (itemID, fieldID))",
        "CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT)",
        "CREATE TABLE itemCreators (itemID INT, creatorID INT, creatorTypeID INT, orderIndex INT)",
        "CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted TEXT)",
        "INSERT INTO itemTypes VALUES (1, 'journalArticle'), (2, 'preprint'), (3, 'attachment'), (4, 'note')",
        "INSERT INTO items VALUES (1, 1, 1, 'AAAA1111'), (2, 2, 1, 'BBBB2222'), (3, 1, 1, 'CCCC3333'), (4, 3, 1, 'DDDD4444'), (5, 1, 1, 'EEEE5555')",
        "INSERT INTO fields VALUES (1, 'title'), (2, 'date'), (3, 'DOI'), (4, 'url'), (5, 'extra'), (6, 'citationKey'), (7, 'abstractNote')",
        "INSERT INTO itemDataValues VALUES (1, 'Distilling the Knowledge in a Neural Network'), (2, '2015-03-09 2015-03-09'), (3, '10.48550/arXiv.1503.02531'), (4, 'hinton2015distilling'), \
         (5, 'LoRA: Low-Rank Adaptation of Large Language Models'), (6, '2021'), (7, 'https://arxiv.org/abs/2106.09685v2'), (8, 'tex.note: x\nCitation Key: hu2021lora'), \
         (9, 'A Paper in the Trash'), (10, 'Full Text PDF'), (11, 'Sequence to Sequence Learning with Neural Networks'), (12, 2014), (13, 'trashed2020')",
        "INSERT INTO itemData VALUES (1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 6, 4), (2, 1, 5), (2, 2, 6), (2, 4, 7), (2, 5, 8), (3, 1, 9), (3, 6, 13), (4, 1, 10), (5, 1, 11), (5, 2, 12)",
        "INSERT INTO creators VALUES (1, 'Geoffrey', 'Hinton', 0), (2, 'Oriol', 'Vinyals', 0), (3, 'Jeff', 'Dean', 0), (4, 'Edward J.', 'Hu', 0), (5, '', 'OpenAI', 1)",
        "INSERT INTO itemCreators VALUES (1, 1, 1, 0), (1, 3, 1, 2), (1, 2, 1, 1), (2, 4, 1, 0), (2, 5, 1, 1)",
        "INSERT INTO deletedItems VALUES (3, '2024-01-01')",
    ] {
        sqlx::query(sql).execute(&mut c).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    c.close().await.unwrap();
}
