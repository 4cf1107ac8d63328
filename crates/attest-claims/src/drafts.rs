//! Finding the drafts under a path and reading their claims.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::grammar::{Claim, Malformed};
use crate::{Format, parse_as};

/// Drafts larger than this are skipped (and listed as skipped), not read.
pub const MAX_DRAFT_BYTES: u64 = 16 * 1024 * 1024;

/// Directories a walk never enters (besides hidden ones): dependencies and build
/// output, whose Markdown is not the researcher's.
pub const SKIPPED_DIRS: &[&str] = &["node_modules", "target"];

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
    /// Unreadable claim annotations, by file then line.
    pub malformed: Vec<Malformed>,
    /// How many drafts were read.
    pub files: usize,
    /// Drafts found but not read (too large, not UTF-8, a notebook that is not JSON).
    pub skipped: Vec<Skipped>,
}

/// How a file is named in claims and reports: relative to `base` when inside it.
pub fn label(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

/// The drafts at `target`: the file itself, or every draft ([`Format::of`]: Markdown,
/// Quarto, R Markdown, LaTeX, Jupyter) under the directory, sorted, skipping hidden
/// files and directories (so `.ipynb_checkpoints` too) and [`SKIPPED_DIRS`] below it
/// (the target itself may sit under a hidden directory). Symlinked directories are not
/// followed.
pub fn drafts(target: &Path) -> Vec<PathBuf> {
    if !target.is_dir() {
        return vec![target.to_path_buf()];
    }
    let walk = walkdir::WalkDir::new(target).sort_by_file_name().into_iter().filter_entry(|e| {
        e.depth() == 0 || {
            let name = e.file_name().to_string_lossy();
            let skipped_dir = e.file_type().is_dir() && SKIPPED_DIRS.contains(&name.as_ref());
            !name.starts_with('.') && !skipped_dir
        }
    });
    walk.filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && Format::of(e.path()).is_some())
        .map(|e| e.into_path())
        .collect()
}

/// Read a draft's text, or say why it was skipped.
pub fn read_draft(path: &Path) -> Result<String, String> {
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

/// Parse the claims of every draft at `target` (see [`drafts`]), each in its format
/// ([`Format::of_or_markdown`]), naming files relative to `base`.
pub fn read_claims(target: &Path, base: &Path) -> Found {
    let mut found = Found::default();
    for path in drafts(target) {
        let name = label(&path, base);
        match read_draft(&path).and_then(|text| parse_as(Format::of_or_markdown(&path), &text, &name)) {
            Ok(p) => {
                found.files += 1;
                found.claims.extend(p.claims);
                found.malformed.extend(p.malformed);
            }
            Err(reason) => found.skipped.push(Skipped { file: name, reason }),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_every_format_and_skips_hidden_and_build_dirs() {
        let d = tempfile::tempdir().unwrap();
        for f in [
            "a.md",
            "b.qmd",
            "c.Rmd",
            "d.tex",
            "e.ipynb",
            "f.markdown",
            "g.txt",
            "h.py",
            ".hidden.md",
            ".ipynb_checkpoints/e-checkpoint.ipynb",
            "node_modules/x.md",
            "target/y.md",
            "sub/z.TEX",
        ] {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let got: Vec<String> = drafts(d.path()).iter().map(|p| label(p, d.path())).collect();
        assert_eq!(got, ["a.md", "b.qmd", "c.Rmd", "d.tex", "e.ipynb", "f.markdown", "sub/z.TEX"]);
        // A file given by name is read whatever its extension.
        assert_eq!(drafts(&d.path().join("g.txt")).len(), 1);
    }
}
