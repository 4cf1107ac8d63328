//! Weights & Biases run directories: `<project>/wandb/*run-*/files/`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::payload::metrics_from_payload;
use super::{Adapter, Discovery, Record, abs, sorted_entries};
use prost::Message as _;

use super::{formats, proto};
use crate::corpus;
use crate::hash;

/// W&B's `config.yaml` as plain values: `key: {value: x}` unwrapped, bookkeeping keys
/// (`_wandb`, `wandb_version`, anything starting `_`) dropped.
pub fn unwrap_config(v: &Value) -> Option<Map<String, Value>> {
    let obj = v.as_object()?;
    let mut out = Map::new();
    for (k, v) in obj {
        if k.starts_with('_') || k == "wandb_version" {
            continue;
        }
        let inner = match v {
            Value::Object(o) if o.contains_key("value") => o["value"].clone(),
            other => other.clone(),
        };
        out.insert(k.clone(), inner);
    }
    Some(out)
}

/// Bytes of a run's transaction log read to find its display name (the run record is
/// among the first records).
const LOG_PREFIX_BYTES: u64 = 1024 * 1024;

/// The records of a W&B transaction log (`run-<id>.wandb`): a 7-byte header
/// (`:W&B`, magic, version), then 32 KiB blocks of chunks in the LevelDB log format
/// (crc32 u32, length u16 LE, type u8: full 1, first 2, middle 3, last 4).
fn log_records(b: &[u8]) -> Vec<Vec<u8>> {
    const BLOCK: usize = 32 * 1024;
    let mut out = Vec::new();
    if !b.starts_with(b":W&B") || b.len() < 7 {
        return out;
    }
    let mut pos = 7;
    let mut partial: Vec<u8> = Vec::new();
    while pos + 7 <= b.len() {
        let left = BLOCK - pos % BLOCK;
        if left < 7 {
            pos += left;
            continue;
        }
        let len = usize::from(u16::from_le_bytes([b[pos + 4], b[pos + 5]]));
        let kind = b[pos + 6];
        let start = pos + 7;
        if start + len > b.len() || len > left - 7 {
            break;
        }
        let data = &b[start..start + len];
        match kind {
            1 => out.push(data.to_vec()),
            2 => partial = data.to_vec(),
            3 => partial.extend_from_slice(data),
            4 => {
                partial.extend_from_slice(data);
                out.push(std::mem::take(&mut partial));
            }
            _ => {}
        }
        pos = start + len;
    }
    out
}

/// A run's display name, from its own transaction log's run record (`Record.run` =
/// field 17, `RunRecord.display_name` = field 8), when it has one other than its id.
pub fn display_name(dir: &Path, id: &str) -> Option<String> {
    let log = sorted_entries(dir).into_iter().find(|p| p.extension().is_some_and(|e| e == "wandb"))?;
    let mut buf = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(std::fs::File::open(log).ok()?, LOG_PREFIX_BYTES), &mut buf)
        .ok()?;
    for rec in log_records(&buf) {
        // Records of other kinds (or other versions) that do not decode are skipped.
        let Some(run) = proto::WandbRecord::decode(rec.as_slice()).ok().and_then(|r| r.run) else { continue };
        let name = run.display_name.trim().to_string();
        if !name.is_empty() && name != id {
            return Some(name);
        }
    }
    None
}

/// Read every W&B run under a `wandb/` directory (`base`) of the project.
pub fn runs(project: &Path, base: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    if !base.is_dir() {
        return;
    }
    for dir in sorted_entries(base) {
        let dname = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // `latest-run` is a symlink to a run already listed.
        let is_link = std::fs::symlink_metadata(&dir).map(|m| m.file_type().is_symlink()).unwrap_or(true);
        if is_link || !dir.is_dir() || !dname.contains("run-") {
            continue;
        }
        let summary_path = dir.join("files/wandb-summary.json");
        let summary = match formats::read_capped(&summary_path) {
            Ok(b) => b,
            Err(formats::ReadError::Io(_)) => {
                d.note(project, &dir, "not recorded: no files/wandb-summary.json (an offline run gets one only when it is synced with `wandb sync`)");
                continue;
            }
            Err(e) => {
                d.note(project, &summary_path, e.to_string());
                continue;
            }
        };
        let payload = match formats::parse_json(&String::from_utf8_lossy(&summary)) {
            Ok(Value::Object(o)) => Value::Object(o.into_iter().filter(|(k, _)| !k.starts_with('_')).collect()),
            Ok(_) => {
                d.note(project, &summary_path, "not recorded: the summary is not a JSON object");
                continue;
            }
            Err(e) => {
                d.note(project, &summary_path, format!("not recorded: not valid JSON ({e})"));
                continue;
            }
        };
        let ex = metrics_from_payload(&payload, None, None);
        if ex.metrics.is_empty() {
            let why = if ex.dropped.is_empty() {
                "not recorded: the summary holds only W&B bookkeeping keys, no metric (the run probably crashed before logging)".to_string()
            } else {
                format!("not recorded: every metric in the summary is non-finite ({})", ex.dropped.join(", "))
            };
            d.note(project, &dir, why);
            continue;
        }
        let meta: Option<Map<String, Value>> = std::fs::read(dir.join("files/wandb-metadata.json"))
            .ok()
            .and_then(|b| formats::parse_json(&String::from_utf8_lossy(&b)).ok())
            .and_then(|v| v.as_object().cloned());
        let program = meta
            .as_ref()
            .and_then(|m| m.get("program").or_else(|| m.get("codePath")))
            .and_then(Value::as_str)
            .and_then(|p| Path::new(p).file_stem().map(|s| s.to_string_lossy().into_owned()))
            .filter(|s| !s.is_empty() && !s.starts_with('<'));
        let short = dname.rsplit('-').next().unwrap_or(&dname).to_string();
        // Named as the researcher sees it in W&B: the display name, when the run's log
        // has one (its id is kept in the config); else the short id.
        let display = display_name(&dir, &short);
        let leaf = display.clone().unwrap_or_else(|| short.clone());
        let name = match &program {
            Some(p) => format!("{p}/{leaf}"),
            None if display.is_some() => leaf.clone(),
            None => dname.clone(),
        };
        let name = if display.is_some() && seen.contains(&name) { format!("{name}-{short}") } else { name };
        let config = std::fs::read(dir.join("files/config.yaml"))
            .ok()
            .and_then(|b| serde_norway::from_slice::<serde_norway::Value>(&b).ok())
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| unwrap_config(&v));
        let mut rec = Record::new(name, program.clone(), abs(&dir));
        rec.adapter = Adapter::Wandb;
        rec.started = meta.as_ref().and_then(|m| m.get("startedAt")).and_then(Value::as_str).map(str::to_string);
        rec.source_hash = hash::files(&dir, &hash::wandb_run_files(&dir));
        rec.corpus = config.as_ref().and_then(corpus::from_payload);
        let mut config = config.unwrap_or_default();
        if display.is_some() {
            config.insert("wandb.id".into(), Value::String(short.clone()));
        }
        rec.config = (!config.is_empty()).then_some(Value::Object(config));
        rec.metrics = ex.metrics;
        rec.note_dropped(&ex.dropped);
        d.claim(seen, project, &dir, rec);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(n: u64, bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![((n << 3) | 2) as u8];
        if n >= 16 {
            out = vec![(((n << 3) | 2) as u8) | 0x80, ((n << 3) >> 7) as u8];
        }
        out.push(bytes.len() as u8);
        out.extend_from_slice(bytes);
        out
    }

    #[test]
    fn display_name_from_the_run_record() {
        let run = [field(1, b"ab12cd34"), field(8, b"glorious-sun-3")].concat();
        let record = [vec![0x08, 0x01], field(17, &run)].concat();
        let mut log = b":W&B".to_vec();
        log.extend_from_slice(&[0xe1, 0xbe, 0x00]);
        // Split the record over a FIRST and a LAST chunk.
        let (a, b) = record.split_at(5);
        for (kind, part) in [(2u8, a), (4u8, b)] {
            log.extend_from_slice(&[0, 0, 0, 0]);
            log.extend_from_slice(&(part.len() as u16).to_le_bytes());
            log.push(kind);
            log.extend_from_slice(part);
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run-ab12cd34.wandb"), &log).unwrap();
        assert_eq!(display_name(dir.path(), "ab12cd34").as_deref(), Some("glorious-sun-3"));
        assert_eq!(display_name(dir.path(), "glorious-sun-3"), None, "a name equal to the id is no name");
        std::fs::write(dir.path().join("run-ab12cd34.wandb"), &log[..20]).unwrap();
        assert_eq!(display_name(dir.path(), "ab12cd34"), None, "a truncated log names nothing");
    }
}
