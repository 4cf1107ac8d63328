//! Configs recorded as specs: a plan with no result attached becomes a run with no
//! metrics, never a run with a guessed number.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::formats;
use super::{CONFIG_DIRS, CONFIG_SUFFIXES, Discovery, Record, RunStatus, abs, sorted_entries, stem, suffix};
use crate::family::family_of;
use crate::hash;

/// The first block of `#` comment lines at the top of a config (blank lines inside or
/// before it skipped), each line stripped of `#` and surrounding spaces.
pub fn header_comment(text: &str) -> Option<String> {
    let mut lines = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        match t.strip_prefix('#') {
            Some(c) => lines.push(c.trim_start_matches('#').trim().to_string()),
            None => break,
        }
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// An INI/CFG file as `{"section.key": "value"}` (keys outside a section bare).
pub fn parse_ini(text: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let mut section = String::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if let Some(s) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        if let Some((k, v)) = t.split_once('=').or_else(|| t.split_once(':')) {
            let key = if section.is_empty() { k.trim().to_string() } else { format!("{section}.{}", k.trim()) };
            out.insert(key, Value::String(v.trim().trim_matches(['"', '\'']).to_string()));
        }
    }
    out
}

/// A config file's content as JSON, or why it could not be parsed.
pub fn parse_config(path: &Path, text: &str) -> Result<Value, String> {
    match suffix(path).as_str() {
        "yaml" | "yml" => {
            let v: serde_norway::Value = serde_norway::from_str(text).map_err(|e| e.to_string())?;
            serde_json::to_value(v).map_err(|e| e.to_string())
        }
        "toml" => {
            let v: toml::Table = text.parse().map_err(|e: toml::de::Error| e.message().trim().to_string())?;
            serde_json::to_value(v).map_err(|e| e.to_string())
        }
        "json" => formats::parse_json(text),
        _ => Ok(Value::Object(parse_ini(text))),
    }
}

/// Record every config file under the config directories as a spec.
pub fn specs(project: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    for cd in CONFIG_DIRS {
        let dir = project.join(cd);
        if !dir.is_dir() {
            continue;
        }
        for f in
            sorted_entries(&dir).into_iter().filter(|f| f.is_file() && CONFIG_SUFFIXES.contains(&suffix(f).as_str()))
        {
            let name = stem(&f);
            if seen.contains(&name) {
                // A result with the same name exists: the plan has been carried out.
                continue;
            }
            let bytes = match formats::read_capped(&f) {
                Ok(b) => b,
                Err(e) => {
                    d.note(project, &f, e.to_string());
                    continue;
                }
            };
            let text = String::from_utf8_lossy(&bytes);
            let parsed = parse_config(&f, &text);
            if suffix(&f) == "json" {
                match &parsed {
                    Ok(Value::Object(_)) => {}
                    Ok(_) => {
                        d.note(project, &f, "not recorded as a spec: a JSON list or scalar under a config directory is data, not a config; move results to results/");
                        continue;
                    }
                    Err(e) => {
                        d.note(project, &f, format!("not recorded: not valid JSON ({e})"));
                        continue;
                    }
                }
            }
            let mut rec = Record::new(name.clone(), family_of(&name), abs(&f));
            rec.status = RunStatus::Spec;
            rec.source_hash = Some(hash::of_bytes(&bytes));
            rec.notes = header_comment(&text);
            match parsed {
                Ok(v) if !v.is_null() => rec.config = Some(v),
                Ok(_) => {}
                Err(e) => d.note(
                    project,
                    &f,
                    format!("recorded as a spec, but its content could not be parsed ({e}), so its config is empty"),
                ),
            }
            d.claim(seen, project, &f, rec);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_comments() {
        let cases: &[(&str, Option<&str>)] = &[
            ("# a\n# b\n\nx: 1\n", Some("a\nb")),
            ("\n\n# a\n#\n# c\nx: 1", Some("a\n\nc")),
            ("x: 1\n# late", None),
            ("## deco\n", Some("deco")),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(header_comment(text).as_deref(), *want, "{text:?}");
        }
    }

    #[test]
    fn configs_parse() {
        let y = parse_config(Path::new("a.yaml"), "a:\n  b: 2\n").unwrap();
        assert_eq!(y["a"]["b"], 2);
        let t = parse_config(Path::new("a.toml"), "[m]\nx = 1\n").unwrap();
        assert_eq!(t["m"]["x"], 1);
        let i = parse_config(Path::new("a.ini"), "top=1\n[s]\nk = 'v'\n; c\n").unwrap();
        assert_eq!(i["s.k"], "v");
        assert_eq!(i["top"], "1");
        assert!(parse_config(Path::new("a.yaml"), "a: [").is_err());
    }
}
