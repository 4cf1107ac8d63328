-- Concept merging by embeddings, used only when an embedding server is configured
-- (EMBED_BASE_URL); without one these tables stay empty.
--
-- concept_vectors: one vector per canonical concept name and model key (model name
-- plus truncation, as item_vectors), computed once: a name's text never changes, so a
-- re-ingest reuses it and never asks the server again. `vector` holds little-endian
-- f32 components, unit length.
CREATE TABLE concept_vectors (
    name        TEXT NOT NULL,
    model       TEXT NOT NULL,
    dims        INTEGER NOT NULL,
    vector      BLOB NOT NULL,
    embedded_at TEXT NOT NULL,
    PRIMARY KEY (name, model)
);

-- concept_aliases: near-duplicate concepts merged (specs/feed.md §10): every stored
-- tag whose concept is `alias` was rewritten to `canonical`, and a tag of that name
-- on a later item is rewritten the same way without asking the server. `model` and
-- `cosine` say what decided it.
CREATE TABLE concept_aliases (
    alias     TEXT PRIMARY KEY,
    canonical TEXT NOT NULL,
    model     TEXT NOT NULL,
    cosine    REAL NOT NULL,
    relation  TEXT NOT NULL,
    merged_at TEXT NOT NULL
);
