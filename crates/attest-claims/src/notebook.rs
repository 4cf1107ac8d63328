//! Jupyter notebooks (`.ipynb`, nbformat 4): claims are Markdown claims in Markdown
//! cells. The JSON is read with serde; nothing is executed, and code cells and their
//! outputs are not read.
//!
//! Line numbers are the `.ipynb` file's: a claim on line 3 of a cell whose source is
//! stored one line per JSON string (as Jupyter writes it) is reported at the line of
//! the file holding that string, so `file:line` opens on it in any text editor. The
//! cell (counted from 1 over all cells, as an editor's "cell 3 of 10") and the line
//! within it are reported beside, for the notebook view. A cell whose source is one
//! JSON string with embedded newlines maps all its lines to the line of that string.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::grammar::Cell;
use crate::{Annotation, Lines, markdown};

#[derive(Deserialize)]
struct Notebook<'a> {
    #[serde(borrow)]
    cells: Option<Vec<RawCell<'a>>>,
    nbformat: Option<u64>,
}

#[derive(Deserialize)]
struct RawCell<'a> {
    cell_type: String,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
}

/// One cell of a notebook, its source joined into one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotebookCell {
    /// The cell, from 1, counting every cell.
    pub index: usize,
    /// `markdown`, `code` or `raw`.
    pub kind: String,
    /// The cell's source.
    pub text: String,
    /// For each JSON string of the source: the cell line it starts on (from 1) and the
    /// `.ipynb` line it is written on (from 1).
    starts: Vec<(usize, usize)>,
}

impl NotebookCell {
    /// The `.ipynb` line that holds line `cell_line` (from 1) of this cell.
    pub fn file_line(&self, cell_line: usize) -> usize {
        let i = self.starts.partition_point(|&(l, _)| l <= cell_line);
        self.starts[i.saturating_sub(1)].1
    }

    /// Where line `cell_line` of this cell is, as a [`Cell`].
    pub fn cell(&self, cell_line: usize) -> Cell {
        Cell { index: self.index, line: cell_line }
    }
}

fn offset_in(outer: &str, inner: &str) -> usize {
    // `inner` was borrowed from `outer` by serde_json, so it lies inside it.
    (inner.as_ptr() as usize).saturating_sub(outer.as_ptr() as usize).min(outer.len())
}

/// The cells of a notebook's JSON, or why it cannot be read as an nbformat 4 notebook.
pub fn cells(json: &str) -> Result<Vec<NotebookCell>, String> {
    let nb: Notebook = serde_json::from_str(json).map_err(|e| format!("it is not a Jupyter notebook ({e})"))?;
    let Some(raw_cells) = nb.cells else {
        return Err(match nb.nbformat {
            Some(v) if v < 4 => format!(
                "it is an nbformat {v} notebook; attest reads nbformat 4 (open and save it in Jupyter, or run `jupyter nbconvert --to notebook` on it)"
            ),
            _ => "it is not a Jupyter notebook (no \"cells\" list)".to_string(),
        });
    };
    let mut lines = Lines::new(json);
    let mut out = Vec::with_capacity(raw_cells.len());
    for (i, c) in raw_cells.into_iter().enumerate() {
        let mut cell = NotebookCell { index: i + 1, kind: c.cell_type, text: String::new(), starts: Vec::new() };
        let Some(src) = c.source else {
            out.push(cell);
            continue;
        };
        let parts: Vec<&RawValue> = if src.get().trim_start().starts_with('[') {
            serde_json::from_str(src.get())
                .map_err(|e| format!("cell {}: its source is not a list of strings ({e})", i + 1))?
        } else {
            vec![src]
        };
        let mut cell_line = 1;
        for part in parts {
            let s: String = serde_json::from_str(part.get())
                .map_err(|e| format!("cell {}: its source is not text ({e})", i + 1))?;
            cell.starts.push((cell_line, lines.of(offset_in(json, part.get()))));
            cell_line += s.matches('\n').count();
            cell.text.push_str(&s);
        }
        if cell.starts.is_empty() {
            cell.starts.push((1, lines.of(offset_in(json, src.get()))));
        }
        out.push(cell);
    }
    Ok(out)
}

/// The claim comments of a notebook's Markdown cells, at the `.ipynb` file's lines,
/// each with its [`Cell`].
pub fn annotations(json: &str) -> Result<Vec<Annotation>, String> {
    let mut out = Vec::new();
    for cell in cells(json)?.iter().filter(|c| c.kind == "markdown") {
        for mut a in markdown::annotations(&cell.text, &|l| l) {
            let cell_line = a.line;
            a.line = cell.file_line(cell_line);
            a.cell = Some(cell.cell(cell_line));
            if let Err(problem) = &mut a.body {
                // The line named in the message is the cell's; say so.
                *problem = problem.replace("opens at line", "opens at cell line");
            }
            out.push(a);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_lines_map_to_file_lines() {
        let json = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"source\": [\"x = 1\\n\", \"y\"]\n  },\n  {\n   \"cell_type\": \"markdown\",\n   \"source\": [\n    \"# T\\n\",\n    \"\\n\",\n    \"WER 0.07 <!-- claim: p/r metric=wer value=0.07 -->\"\n   ]\n  }\n ],\n \"nbformat\": 4\n}";
        let cs = cells(json).unwrap();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[1].text, "# T\n\nWER 0.07 <!-- claim: p/r metric=wer value=0.07 -->");
        assert_eq!((cs[1].file_line(1), cs[1].file_line(3)), (10, 12));
        let a = annotations(json).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!((a[0].line, a[0].cell), (12, Some(Cell { index: 2, line: 3 })));
    }

    #[test]
    fn one_string_sources_and_bad_json() {
        let json = r#"{"cells": [{"cell_type": "markdown", "source": "a\n<!-- claim: p/r metric=m value=1 -->"}], "nbformat": 4}"#;
        let a = annotations(json).unwrap();
        assert_eq!((a[0].line, a[0].cell.unwrap().line), (1, 2));
        assert!(cells("{").unwrap_err().contains("not a Jupyter notebook"));
        assert!(cells(r#"{"worksheets": [], "nbformat": 3}"#).unwrap_err().contains("nbformat 3"));
        assert!(cells(r#"{"cells": [{"cell_type": "code", "source": [1]}]}"#).unwrap_err().contains("cell 1"));
    }
}
