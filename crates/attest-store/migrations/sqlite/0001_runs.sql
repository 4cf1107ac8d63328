-- The run ledger: one row per recognised artifact (a result file, a labelled CSV row,
-- a config recorded as a spec, a tracker run). Identity is (project, name); ids
-- survive rescans so they can be cited.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    project     TEXT NOT NULL,
    name        TEXT NOT NULL,
    family      TEXT,
    status      TEXT NOT NULL,                 -- 'recorded' | 'spec'
    adapter     TEXT NOT NULL DEFAULT 'generic', -- 'generic' | 'mlflow' | 'wandb'
    started     TEXT,
    source_path TEXT NOT NULL,                 -- absolute path of the file or run directory read
    source_hash TEXT,                          -- blake3 of the bytes read, at scan time
    config_json TEXT,
    notes       TEXT,
    corpus      TEXT,                          -- corpora.name, when the run says which data it saw
    caveats     TEXT,                          -- JSON array of {metric?, text}: what to know about its numbers
    scanned_at  TEXT NOT NULL,
    UNIQUE (project, name)
);
CREATE INDEX runs_by_family ON runs (family, project);

CREATE TABLE run_metrics (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    value  REAL NOT NULL,
    step   INTEGER,
    split  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX run_metrics_by_run ON run_metrics (run_id, metric);

-- Every project directory a scan looked at, where it was, and (when it yielded no run)
-- why. Lets compare find the research root's metric_directions.toml for a project.
CREATE TABLE projects (
    name       TEXT PRIMARY KEY,
    dir        TEXT NOT NULL,                  -- absolute directory
    root       TEXT NOT NULL,                  -- the research root it was scanned under
    n_runs     INTEGER NOT NULL,
    diagnostic TEXT,                           -- why it yielded nothing, when it did
    scanned_at TEXT NOT NULL
);

-- Corpora named by artifacts or by a corpora.toml manifest. A definition that two
-- sources disagree on is kept, and marked contested, rather than overwritten.
CREATE TABLE corpora (
    name       TEXT PRIMARY KEY,
    source     TEXT,
    config     TEXT,
    tokenizer  TEXT,
    vocab_size INTEGER,
    seq_len    INTEGER,
    contested  TEXT                            -- what sources disagree on, when they do
);
