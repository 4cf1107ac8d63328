-- The reference library: works the researcher chose to keep (`cite.save`, `cite.sync`),
-- whatever they came from: a paper found by `feed.research`, an item of the feed
-- archive, an entry of a .bib file or of Zotero, a CrossRef record. One row per work:
-- a DOI, an arXiv id or (failing both) a normalised title + first author + year names
-- at most one row, checked by attest-cite before every write (`library::duplicate_of`);
-- the two unique indexes below make a DOI or arXiv id twice impossible even so.
--
-- Lists are JSON text (portable): `authors` as "Family, Given", `tags` as canonical
-- concept names (attest-tags), `cites` as the DOIs, arXiv ids or keys the work cites.
CREATE TABLE library (
    id          INTEGER PRIMARY KEY,
    key         TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL DEFAULT 'misc',
    title       TEXT NOT NULL,
    authors     TEXT NOT NULL DEFAULT '[]',
    year        INTEGER,
    venue       TEXT,
    doi         TEXT,
    arxiv_id    TEXT,
    url         TEXT,
    abstract    TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '[]',
    cites       TEXT NOT NULL DEFAULT '[]',
    origin      TEXT NOT NULL CHECK (origin IN ('paper', 'item', 'bibtex', 'zotero', 'crossref')),
    origin_ref  TEXT NOT NULL DEFAULT '',
    item_id     INTEGER REFERENCES items (id) ON DELETE SET NULL,
    match_key   TEXT NOT NULL,
    added       TEXT NOT NULL,
    updated     TEXT NOT NULL
);
CREATE UNIQUE INDEX library_by_doi ON library (doi) WHERE doi IS NOT NULL;
CREATE UNIQUE INDEX library_by_arxiv ON library (arxiv_id) WHERE arxiv_id IS NOT NULL;
CREATE INDEX library_by_match ON library (match_key);
