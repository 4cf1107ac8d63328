-- Item embeddings, written only when an embedding server is configured
-- (EMBED_BASE_URL). Vectors are stored per model key (model name plus truncation),
-- with the content hash of the text they were computed from: a vector whose item
-- was edited since is ignored and recomputed, and a different model's vectors are
-- never mixed in. `vector` holds little-endian f32 components, unit length.
CREATE TABLE item_vectors (
    item_id      INTEGER NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    model        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    dims         INTEGER NOT NULL,
    vector       BLOB NOT NULL,
    embedded_at  TEXT NOT NULL,
    PRIMARY KEY (item_id, model)
);
