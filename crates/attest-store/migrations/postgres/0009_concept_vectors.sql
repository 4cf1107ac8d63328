-- PostgreSQL twin of sqlite/0009_concept_vectors.sql.
CREATE TABLE concept_vectors (
    name        TEXT NOT NULL,
    model       TEXT NOT NULL,
    dims        BIGINT NOT NULL,
    vector      BYTEA NOT NULL,
    embedded_at TEXT NOT NULL,
    PRIMARY KEY (name, model)
);

CREATE TABLE concept_aliases (
    alias     TEXT PRIMARY KEY,
    canonical TEXT NOT NULL,
    model     TEXT NOT NULL,
    cosine    DOUBLE PRECISION NOT NULL,
    relation  TEXT NOT NULL,
    merged_at TEXT NOT NULL
);
