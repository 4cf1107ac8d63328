-- PostgreSQL twin of sqlite/0004_tag_origin.sql.
ALTER TABLE item_tags ADD COLUMN origin TEXT NOT NULL DEFAULT 'feed'
    CHECK (origin IN ('feed', 'keyphrase', 'chat'));
