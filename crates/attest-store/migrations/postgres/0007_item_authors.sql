-- PostgreSQL twin of sqlite/0007_item_authors.sql.
ALTER TABLE items ADD COLUMN authors TEXT NOT NULL DEFAULT '[]';
