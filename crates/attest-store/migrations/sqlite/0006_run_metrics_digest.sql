-- A digest of each run's metric rows as last written (blake3 over metric, value bits,
-- step and split, in order). A rescan rewrites a run's metric rows only when it
-- changed, so rescanning long, unchanged curves costs a comparison, not a rewrite.
-- NULL (every run before this migration) means "unknown": the next scan rewrites it.
ALTER TABLE runs ADD COLUMN metrics_digest TEXT;
