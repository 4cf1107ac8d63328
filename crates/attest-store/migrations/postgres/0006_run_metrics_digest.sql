-- PostgreSQL twin of sqlite/0006_run_metrics_digest.sql.
ALTER TABLE runs ADD COLUMN metrics_digest TEXT;
