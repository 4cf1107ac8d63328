//! The citation lint: claims whose `cite=` key no configured source knows.
//!
//! Reading drafts and finding claims belongs to the pure claim crate (`attest-claims`,
//! which [`crate::scan`] calls); this module takes the claims' locations and keys as
//! plain data, so it serves any caller (the claim checker in `attest-runs` passes its
//! own). It is a lint on the key only, never a judgement of what the cited work says.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Resolver;

/// A claim whose citation key resolves nowhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Uncited {
    /// The key as the claim wrote it.
    pub key: String,
    /// The draft, as the caller named it.
    pub file: String,
    /// The claim's line, from 1.
    pub line: usize,
    /// Why, with what to do.
    pub why: String,
}

impl Uncited {
    /// `file:line`, as editors and terminals link it.
    pub fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The claims (`(file, line, key)`, in draft order) whose key no source of `resolver`
/// resolves, in the same order. Empty keys are not linted. Each distinct key is looked
/// up once, however many claims cite it.
pub fn uncited(claims: &[(String, usize, String)], resolver: &Resolver) -> Vec<Uncited> {
    let mut known: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let sources = resolver.source_names();
    let mut out = Vec::new();
    for (file, line, key) in claims {
        let key = key.trim();
        if key.is_empty() {
            continue;
        }
        let hit = *known.entry(key.to_lowercase()).or_insert_with(|| resolver.resolves(key));
        if !hit {
            out.push(Uncited {
                key: key.to_string(),
                file: file.clone(),
                line: *line,
                why: miss_message(key, &sources),
            });
        }
    }
    out
}

/// The line for a key no source has: what was checked and what to do.
pub fn miss_message(key: &str, sources: &str) -> String {
    format!(
        "no configured source has '{key}' (checked: {sources}); add it to a .bib file or configure Zotero, or correct the key"
    )
}
