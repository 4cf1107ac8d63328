-- The reading feed: subscriptions, the item archive, readers (personas), their clicks
-- and engagement, and a full-text index over the archive.
--
-- Times are TEXT in one fixed UTC form, 'YYYY-MM-DDTHH:MM:SSZ', written by the code
-- (never by a database default), so they compare correctly as strings on any backend.

-- Readers ("personas"). `name` keeps the spelling given at creation; `name_key` is its
-- Unicode-lowercased form, computed by the code, and makes names unique regardless of
-- case (portable, unlike COLLATE NOCASE, and not limited to ASCII).
CREATE TABLE readers (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    name_key   TEXT NOT NULL UNIQUE,
    interests  TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);

-- Subscriptions. `etag` / `last_modified` are the validators of the last 200 answer,
-- sent back as a conditional request; `last_error` is the last failure (NULL after a
-- success).
CREATE TABLE feeds (
    id            INTEGER PRIMARY KEY,
    url           TEXT NOT NULL UNIQUE,
    title         TEXT,
    etag          TEXT,
    last_modified TEXT,
    last_fetched  TEXT,
    last_error    TEXT,
    added_at      TEXT NOT NULL
);

-- Key/value facts about the feed data, e.g. 'seeded_at' once a feeds file has seeded
-- this database (after which the database, not the file, is the truth).
CREATE TABLE feed_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The archive. `feed_id` becomes NULL when the feed is unsubscribed (the item and its
-- clicks stay). `published` is the feed's date, or `first_seen` when the feed gives
-- none; it is never rewritten, so a re-dated entry does not resurface.
-- `content_hash` is blake3 over the normalised title and summary; `doi` and `arxiv_id`
-- are normalised (lowercase, no arXiv version suffix).
CREATE TABLE items (
    id           INTEGER PRIMARY KEY,
    feed_id      INTEGER REFERENCES feeds (id) ON DELETE SET NULL,
    guid         TEXT NOT NULL,
    title        TEXT NOT NULL,
    url          TEXT,
    summary      TEXT NOT NULL DEFAULT '',
    published    TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    doi          TEXT,
    arxiv_id     TEXT,
    first_seen   TEXT NOT NULL,
    UNIQUE (feed_id, guid)
);
CREATE INDEX items_by_hash ON items (content_hash);
CREATE INDEX items_by_doi ON items (doi) WHERE doi IS NOT NULL;
CREATE INDEX items_by_arxiv ON items (arxiv_id) WHERE arxiv_id IS NOT NULL;
CREATE INDEX items_by_published ON items (published);

-- Categories the feed itself carries (including arXiv primary and cross-list
-- categories), normalised to lowercase with spaces as hyphens.
CREATE TABLE item_tags (
    item_id INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    tag     TEXT NOT NULL,
    PRIMARY KEY (item_id, tag)
);
CREATE INDEX item_tags_by_tag ON item_tags (tag, item_id);

-- A reader's verdict on an item, with where it came from. One per reader and item:
-- rating again overwrites. The source vocabulary is enforced here as well as in code.
CREATE TABLE clicks (
    reader_id INTEGER NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
    item_id   INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    useful    INTEGER NOT NULL CHECK (useful IN (0, 1)),
    source    TEXT NOT NULL CHECK (source IN ('ui', 'agent', 'implicit', 'simulated', 'bootstrap')),
    at        TEXT NOT NULL,
    PRIMARY KEY (reader_id, item_id)
);
CREATE INDEX clicks_by_item ON clicks (item_id);

-- What a reader did with an item short of rating it (opened it, asked why it was
-- shown). Idempotent per (reader, item, kind); `at` is the first time.
CREATE TABLE engagement (
    reader_id INTEGER NOT NULL REFERENCES readers (id) ON DELETE CASCADE,
    item_id   INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('read', 'explain')),
    at        TEXT NOT NULL,
    PRIMARY KEY (reader_id, item_id, kind)
);

-- Full-text index over title and summary (SQLite FTS5, external content: the text
-- lives once, in `items`). Kept in sync by the triggers below; only
-- attest-feed's search.rs queries it. A PostgreSQL backend replaces this block with a
-- tsvector column and its own search.rs.
CREATE VIRTUAL TABLE items_fts USING fts5 (
    title,
    summary,
    content = 'items',
    content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;
CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, summary) VALUES ('delete', old.id, old.title, old.summary);
END;
CREATE TRIGGER items_fts_update AFTER UPDATE OF title, summary ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, title, summary) VALUES ('delete', old.id, old.title, old.summary);
    INSERT INTO items_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;
