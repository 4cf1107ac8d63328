-- PostgreSQL twin of sqlite/0003_item_vectors.sql.
CREATE TABLE item_vectors (
    item_id      BIGINT NOT NULL REFERENCES items (id) ON DELETE CASCADE,
    model        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    dims         BIGINT NOT NULL,
    vector       BYTEA NOT NULL,
    embedded_at  TEXT NOT NULL,
    PRIMARY KEY (item_id, model)
);
