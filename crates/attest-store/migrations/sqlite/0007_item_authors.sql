-- The people a feed names as an item's authors (RSS author / dc:creator, Atom author,
-- JSON Feed authors), cleaned and in the feed's order, as a JSON array of names
-- (portable, like library.authors). '[]' when the feed names nobody, and for items
-- stored before this migration until their feed shows the entry again.
ALTER TABLE items ADD COLUMN authors TEXT NOT NULL DEFAULT '[]';
