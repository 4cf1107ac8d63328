//! Finding the drafts under a path and reading their claims.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::grammar::{Claim, Malformed, parse};
use crate::LedgerError;

/// Drafts larger than this are skipped (and listed as skipped), not read.
pub const MAX_DRAFT_BYTES: u64 = 16 * 1024 * 1024;

/// A file that was found but not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// The file.
    pub file: String,
    /// Why it was not read.
    pub reason: String,
}

/// The claims of every draft under a path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// Well-formed claims, by file then line.
    pub claims: Vec<Claim>,
    /// Unreadable claim comments, by file then line.
    pub malformed: Vec<Malformed>,
    /// How many drafts were read.
    pub files: usize,
    /// Drafts found but not read (too large, not UTF-8).
    pub skipped: Vec<Skipped>,
}

/// Canonicalize the research root and a path (relative paths are read from the root;
/// none means the root itself), refusing a path that does not exist or lies outside
/// the root. Returns `(root, target)`, both canonical.
pub fn resolve_target(root: &Path, path: Option<&Path>) -> Result<(PathBuf, PathBuf), LedgerError> {
    let root_c = root.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "the research root {} does not exist; set RESEARCH_ROOT (or pass --root) to the directory that holds your projects and drafts",
            root.display()
        ))
    })?;
    let wanted = match path {
        None => root_c.clone(),
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => root_c.join(p),
    };
    let target = wanted.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "no such file or directory: {} (a relative path is read from the research root {})",
            wanted.display(),
            root_c.display()
        ))
    })?;
    if !target.starts_with(&root_c) {
        return Err(LedgerError::refused(format!(
            "{} is outside the research root {}; attest reads drafts only inside the root. Move the draft under it, or set RESEARCH_ROOT (or --root) to a directory that contains it",
            target.display(),
            root_c.display()
        )));
    }
    Ok((root_c, target))
}

/// How a file is named in claims and reports: relative to `base` when inside it.
pub fn label(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn is_draft(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// The drafts at `target`: the file itself, or every `*.md` / `*.markdown` file under
/// the directory, sorted, skipping hidden files and directories and `node_modules`
/// below it (the target itself may sit under a hidden directory). Symlinked
/// directories are not followed.
pub fn drafts(target: &Path) -> Vec<PathBuf> {
    if !target.is_dir() {
        return vec![target.to_path_buf()];
    }
    let walk = walkdir::WalkDir::new(target).sort_by_file_name().into_iter().filter_entry(|e| {
        e.depth() == 0 || {
            let name = e.file_name().to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        }
    });
    walk.filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && is_draft(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Read a draft, or say why it was skipped.
pub(crate) fn read_draft(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.len() > MAX_DRAFT_BYTES {
        return Err(format!(
            "it is {} MB, over the {} MB limit for a draft; check a smaller file",
            meta.len() / (1024 * 1024),
            MAX_DRAFT_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// Parse the claims of every draft at `target` (see [`drafts`]), naming files relative
/// to `base`.
pub fn read_claims(target: &Path, base: &Path) -> Found {
    let mut found = Found::default();
    for path in drafts(target) {
        let name = label(&path, base);
        match read_draft(&path) {
            Ok(text) => {
                let p = parse(&text, &name);
                found.files += 1;
                found.claims.extend(p.claims);
                found.malformed.extend(p.malformed);
            }
            Err(reason) => found.skipped.push(Skipped { file: name, reason }),
        }
    }
    found
}
