-- Where each tag came from, so a better tagger can replace a worse one without
-- touching what the publisher said:
--   feed      the feed carried it (RSS/Atom category, arXiv category);
--   keyphrase attest-tags' deterministic extractor (ingest, `attest tag`);
--   chat      the optional chat-model tagger (`attest tag --chat`).
-- Rows written before this migration are marked `feed`: an archive tagged by an
-- earlier `attest tag` cannot tell them apart, and `attest tag` treats an item with
-- no keyphrase or chat tag as not yet tagged, so at worst it adds keyphrases again.
ALTER TABLE item_tags ADD COLUMN origin TEXT NOT NULL DEFAULT 'feed'
    CHECK (origin IN ('feed', 'keyphrase', 'chat'));
