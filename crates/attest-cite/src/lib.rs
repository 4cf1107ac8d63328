//! Citations for attest: find out whether a citation key, a DOI or an arXiv id names a
//! work the researcher actually has a record of, and show that record.
//!
//! Records come from three kinds of source, consulted in a fixed order:
//!
//! 1. a Zotero library (`zotero.sqlite`), opened read-only and immutable, when a path is
//!    configured or `~/Zotero/zotero.sqlite` exists ([`zotero`]);
//! 2. BibTeX files, through the `biblatex` parser, entry by entry so that one broken
//!    entry costs only itself ([`bibtex`]);
//! 3. the web (CrossRef), for DOIs only, and only when the resolver was built with
//!    `web: true` *and* the caller supplied a [`WebLookup`] ([`ResolverConfig`]). This
//!    crate has no network code: the CrossRef reader lives in `attest-crossref`, which
//!    only the programs that may go online link.
//!
//! The [`Resolver`] loads the local sources once, when it is built; lookups and searches
//! are then answered from memory. [`check::uncited`] is the claim lint (a `cite=` key no
//! source knows) and [`tools`] holds the `cite.*` catalogue entries. Nothing here depends
//! on the run ledger: the caller reads the claims (through `attest-claims`, as [`scan`]
//! does) and passes their keys in.
//!
//! [`library`] is the reference library in the attest database (works saved from
//! papers, feed items and `.bib` entries, deduplicated, exported as BibTeX) and
//! [`library_tools`] the `cite.save` / `cite.sync` / `cite.related` / `cite.export`
//! tools over it, with `cite.lookup` and `cite.search` asking the library first.
//!
//! The behaviour in detail, and where it differs from the original tool, is in
//! `specs/cite.md`.

#![warn(missing_docs)]

pub mod bibtex;
pub mod check;
pub mod library;
pub mod library_tools;
mod reference;
mod resolver;
pub mod scan;
pub mod tools;
pub mod zotero;

pub use check::{Uncited, uncited};
pub use reference::{Reference, Source, find_year, normalize_doi};
pub use resolver::{Resolver, ResolverConfig, SourceInfo, Sources, WebLookup};
