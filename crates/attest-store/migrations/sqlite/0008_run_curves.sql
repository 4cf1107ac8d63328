-- Metric rows as curves: one row per run, metric and split, holding its points in the
-- order they were recorded, instead of one row per point (a first scan of 600
-- framework runs wrote 2,000,000 rows, most of its time). `points` is text:
-- `step:value` pairs separated by commas, the step empty when there is none
-- (`100:1.9,200:1.5,:1.2`); `n` counts them. Values are written so they read back to
-- the same bits: quote() writes a REAL with 15 digits when that reads back exactly,
-- else with 21. attest-runs' `ledger::curve` reads and writes the format.
CREATE TABLE run_curves (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    metric TEXT NOT NULL,
    split  TEXT NOT NULL DEFAULT '',
    n      INTEGER NOT NULL,
    points TEXT NOT NULL
);
CREATE INDEX run_curves_by_run ON run_curves (run_id, metric);

-- The rows already recorded become curves, in the order they were written.
INSERT INTO run_curves (run_id, metric, split, n, points)
SELECT run_id, metric, split, count(*),
       group_concat(coalesce(CAST(step AS TEXT), '') || ':' || quote(value), ',' ORDER BY rowid)
FROM run_metrics
GROUP BY run_id, metric, split
ORDER BY min(rowid);

DROP TABLE run_metrics;
