//! Weights & Biases run directories: `<project>/wandb/*run-*/files/`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::payload::{Extracted, metrics_from_payload};
use super::{Adapter, Discovery, Record, RunCaveat, abs, sorted_entries};
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

/// Transaction logs larger than this are refused unread. A log holds every logged row
/// (about 300 bytes per step with a few metrics), so it is allowed more than the
/// 20 MB of a result file; it is read block by block, never whole.
pub const MAX_LOG_BYTES: u64 = 256 * 1024 * 1024;

/// What a run's transaction log (`run-<id>.wandb`) holds, as far as the ledger reads it.
#[derive(Debug, Default)]
pub struct TxLog {
    /// The run id, from the run record.
    pub run_id: Option<String>,
    /// The display name, from the run record (may equal the id).
    pub display_name: Option<String>,
    /// When the run started (RFC 3339), from the run or environment record.
    pub started: Option<String>,
    /// The program that ran, from the environment record.
    pub program: Option<String>,
    /// The config: `wandb.init`'s, then every config record applied in order; W&B's
    /// `_wandb` block and other `_` keys left out.
    pub config: Map<String, Value>,
    /// The summary: every summary record applied in order (what `wandb sync` would
    /// upload as `wandb-summary.json`), `_` keys left out.
    pub summary: Map<String, Value>,
    /// Whether the log held a summary record at all.
    pub has_summary: bool,
    /// Each logged key's last value and the step it was logged at (key path joined
    /// with `.`, `_` keys left out).
    pub last_logged: std::collections::BTreeMap<String, (Value, i64)>,
    /// History rows read.
    pub history_rows: usize,
    /// The last history step.
    pub last_step: Option<i64>,
    /// The exit record's code, when the log has one (a run that called `finish()`).
    pub exit_code: Option<i32>,
    /// Records read.
    pub records: usize,
    /// Why reading stopped before the end of the file, when it did.
    pub cut: Option<String>,
}

/// Set `value` at a key path in a JSON object, creating objects on the way.
fn set_path(obj: &mut Map<String, Value>, path: &[&str], value: Value) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut cur = obj;
    for p in parents {
        let entry = cur.entry((*p).to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(next) = entry else { return };
        cur = next;
    }
    cur.insert((*last).to_string(), value);
}

fn remove_path(obj: &mut Map<String, Value>, path: &[&str]) {
    match path {
        [] => {}
        [k] => {
            obj.remove(*k);
        }
        [k, rest @ ..] => {
            if let Some(Value::Object(o)) = obj.get_mut(*k) {
                remove_path(o, rest);
            }
        }
    }
}

fn apply_items(obj: &mut Map<String, Value>, items: &proto::WandbItems) {
    for it in &items.update {
        let path = it.path();
        if path.first().is_none_or(|k| k.starts_with('_')) {
            continue;
        }
        if let Some(v) = it.value() {
            set_path(obj, &path, v);
        }
    }
    for it in &items.remove {
        remove_path(obj, &it.path());
    }
}

impl TxLog {
    fn apply(&mut self, rec: proto::WandbRecord) {
        if let Some(run) = rec.run {
            if !run.run_id.is_empty() {
                self.run_id = Some(run.run_id);
            }
            let name = run.display_name.trim();
            if !name.is_empty() {
                self.display_name = Some(name.to_string());
            }
            if let Some(t) = run.start_time.as_ref().and_then(proto::Timestamp::rfc3339) {
                self.started = Some(t);
            }
            if let Some(c) = &run.config {
                apply_items(&mut self.config, c);
            }
        }
        if let Some(c) = &rec.config {
            apply_items(&mut self.config, c);
        }
        if let Some(s) = &rec.summary {
            self.has_summary = true;
            apply_items(&mut self.summary, s);
        }
        if let Some(h) = rec.history {
            let step = h
                .step
                .as_ref()
                .map(|s| s.num)
                .or_else(|| h.item.iter().find(|i| i.path() == ["_step"]).and_then(|i| i.value()?.as_i64()));
            let step = step.unwrap_or(self.history_rows as i64);
            self.history_rows += 1;
            self.last_step = Some(step);
            for it in &h.item {
                let path = it.path();
                if path.first().is_none_or(|k| k.starts_with('_')) {
                    continue;
                }
                if let Some(v) = it.value() {
                    self.last_logged.insert(path.join(".").to_ascii_lowercase(), (v, step));
                }
            }
        }
        if let Some(e) = rec.exit {
            self.exit_code = Some(e.exit_code);
        }
        if let Some(env) = rec.environment {
            if self.started.is_none() {
                self.started = env.started_at.as_ref().and_then(proto::Timestamp::rfc3339);
            }
            let program = if env.program.is_empty() { env.code_path } else { env.program };
            if !program.is_empty() && self.program.is_none() {
                self.program = Some(program);
            }
        }
    }
}

/// The run's transaction log (`run-<id>.wandb`), when it has one.
pub fn transaction_log(dir: &Path) -> Option<std::path::PathBuf> {
    sorted_entries(dir).into_iter().find(|p| p.is_file() && p.extension().is_some_and(|e| e == "wandb"))
}

/// Read a W&B transaction log: a 7-byte header (`:W&B`, magic `0xBEE1` LE, version 0),
/// then 32 KiB blocks of chunks in the LevelDB log format (CRC-32 (IEEE) of the type
/// byte and the data, u32 LE; length u16 LE; type u8: full 1, first 2, middle 3, last
/// 4; a block's tail shorter than a chunk header is padding), each whole record a
/// protobuf `Record`. Read block by block; a chunk cut short or failing its checksum
/// ends the reading (`cut` says where), keeping the records before it. With
/// `name_only`, stops at the run record.
pub fn read_log(path: &Path, name_only: bool) -> Result<TxLog, String> {
    use std::io::Read as _;
    const BLOCK: usize = 32 * 1024;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(formats::ReadError::Link.to_string());
    }
    let len = std::fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?.len();
    if len > MAX_LOG_BYTES && !name_only {
        return Err(format!(
            "not read: {:.1} MB is over the {} MB limit for a W&B transaction log; sync the run (`wandb sync`) so it gets a files/wandb-summary.json",
            len as f64 / 1_048_576.0,
            MAX_LOG_BYTES / 1_048_576
        ));
    }
    let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?);
    let mut header = [0u8; 7];
    if file.read_exact(&mut header).is_err() || &header[..4] != b":W&B" {
        return Err("not read: not a W&B transaction log (no `:W&B` header)".into());
    }
    let mut log = TxLog::default();
    let mut block = vec![0u8; BLOCK];
    // The first block is shorter by the file header.
    let mut offset = 7usize;
    let mut partial: Option<Vec<u8>> = None;
    'blocks: loop {
        let want = BLOCK - offset;
        let mut got = 0;
        while got < want {
            match file.read(&mut block[got..want]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => {
                    log.cut = Some(format!("unreadable after {} records ({e})", log.records));
                    break 'blocks;
                }
            }
        }
        if got == 0 {
            break;
        }
        let b = &block[..got];
        let mut pos = 0;
        let mut zeros = false;
        while pos + 7 <= b.len() {
            let crc = u32::from_le_bytes([b[pos], b[pos + 1], b[pos + 2], b[pos + 3]]);
            let n = usize::from(u16::from_le_bytes([b[pos + 4], b[pos + 5]]));
            let kind = b[pos + 6];
            if kind == 0 && n == 0 && crc == 0 {
                // Zeros: the rest of the block was never written.
                zeros = true;
                break;
            }
            let Some(data) = b.get(pos + 7..pos + 7 + n) else {
                log.cut = Some(format!("cut short inside a record after {} records", log.records));
                break 'blocks;
            };
            let mut h = crc32fast::Hasher::new();
            h.update(&[kind]);
            h.update(data);
            if h.finalize() != crc {
                log.cut = Some(format!("a chunk fails its checksum after {} records", log.records));
                break 'blocks;
            }
            pos += 7 + n;
            let whole = match (kind, partial.as_mut()) {
                (1, _) => Some(data.to_vec()),
                (2, _) => {
                    partial = Some(data.to_vec());
                    None
                }
                (3, Some(p)) => {
                    p.extend_from_slice(data);
                    None
                }
                (4, Some(p)) => {
                    p.extend_from_slice(data);
                    partial.take()
                }
                _ => {
                    log.cut = Some(format!("a chunk out of order after {} records", log.records));
                    break 'blocks;
                }
            };
            let Some(whole) = whole else { continue };
            log.records += 1;
            // A record of a kind this reader does not declare decodes to nothing; one
            // that does not decode at all is skipped.
            if let Ok(rec) = proto::WandbRecord::decode(whole.as_slice()) {
                let is_run = rec.run.is_some();
                log.apply(rec);
                if name_only && is_run {
                    return Ok(log);
                }
            }
        }
        offset = 0;
        if got < want {
            if !zeros && b[pos..].iter().any(|&x| x != 0) {
                log.cut = Some(format!("cut short inside a chunk header after {} records", log.records));
            }
            break;
        }
    }
    if partial.is_some() && log.cut.is_none() {
        log.cut = Some(format!("cut short inside a record after {} records", log.records));
    }
    Ok(log)
}

/// A run's display name, from its own transaction log's run record, when it has one
/// other than its id.
pub fn display_name(dir: &Path, id: &str) -> Option<String> {
    let log = read_log(&transaction_log(dir)?, true).ok()?;
    log.display_name.filter(|n| n != id)
}

/// Read every W&B run under a `wandb/` directory (`base`) of the project: a synced run
/// from its `files/`, an unsynced one (offline, or killed before it could sync) from
/// its transaction log.
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
        let short = dname.rsplit('-').next().unwrap_or(&dname).to_string();
        let summary_path = dir.join("files/wandb-summary.json");
        let found = if std::fs::symlink_metadata(&summary_path).is_ok() {
            synced(project, &dir, &summary_path, d)
        } else if let Some(log) = transaction_log(&dir) {
            unsynced(project, &dir, &log, d)
        } else {
            d.note(
                project,
                &dir,
                "not recorded: neither a files/wandb-summary.json nor a run-<id>.wandb transaction log",
            );
            None
        };
        let Some(found) = found else { continue };
        let Found { ex, program, display, started, config, notes, caveats } = found;
        // Named as the researcher sees it in W&B: the display name, when the run's log
        // has one (its id is kept in the config); else the short id.
        let display = display.filter(|n| *n != short);
        let leaf = display.clone().unwrap_or_else(|| short.clone());
        let name = match &program {
            Some(p) => format!("{p}/{leaf}"),
            None if display.is_some() => leaf.clone(),
            None => dname.clone(),
        };
        let name = if display.is_some() && seen.contains(&name) { format!("{name}-{short}") } else { name };
        let mut rec = Record::new(name, program.clone(), abs(&dir));
        rec.adapter = Adapter::Wandb;
        rec.started = started;
        rec.source_hash = hash::files(&dir, &hash::wandb_run_files(&dir));
        rec.corpus = corpus::from_payload(&config);
        let mut config = config;
        if display.is_some() {
            config.insert("wandb.id".into(), Value::String(short.clone()));
        }
        rec.config = (!config.is_empty()).then_some(Value::Object(config));
        rec.notes = notes;
        rec.metrics = ex.metrics;
        rec.note_dropped(&ex.dropped);
        for text in caveats {
            rec.caveats.push(RunCaveat { metric: None, text: format!("{}: {text}", rec.name) });
        }
        d.claim(seen, project, &dir, rec);
    }
}

/// What one run directory yielded, before it is named.
struct Found {
    ex: Extracted,
    program: Option<String>,
    display: Option<String>,
    started: Option<String>,
    config: Map<String, Value>,
    notes: Option<String>,
    caveats: Vec<String>,
}

fn program_stem(p: &str) -> Option<String> {
    Path::new(p).file_stem().map(|s| s.to_string_lossy().into_owned()).filter(|s| !s.is_empty() && !s.starts_with('<'))
}

/// Skip a run whose metrics are all gone, saying why; `None` when it has some.
fn no_metrics(ex: &Extracted, whence: &str) -> Option<String> {
    if !ex.metrics.is_empty() {
        return None;
    }
    Some(if ex.dropped.is_empty() {
        format!(
            "not recorded: {whence} holds only W&B bookkeeping keys, no metric (the run probably crashed before logging)"
        )
    } else {
        format!("not recorded: every metric in {whence} is non-finite ({})", ex.dropped.join(", "))
    })
}

/// A synced run: `files/wandb-summary.json`, `config.yaml`, `wandb-metadata.json`.
fn synced(project: &Path, dir: &Path, summary_path: &Path, d: &mut Discovery) -> Option<Found> {
    let summary = match formats::read_capped(summary_path) {
        Ok(b) => b,
        Err(e) => {
            d.note(project, summary_path, e.to_string());
            return None;
        }
    };
    let payload = match formats::parse_json(&String::from_utf8_lossy(&summary)) {
        Ok(Value::Object(o)) => Value::Object(o.into_iter().filter(|(k, _)| !k.starts_with('_')).collect()),
        Ok(_) => {
            d.note(project, summary_path, "not recorded: the summary is not a JSON object");
            return None;
        }
        Err(e) => {
            d.note(project, summary_path, format!("not recorded: not valid JSON ({e})"));
            return None;
        }
    };
    let ex = metrics_from_payload(&payload, None, None);
    if let Some(why) = no_metrics(&ex, "the summary") {
        d.note(project, dir, why);
        return None;
    }
    let meta: Option<Map<String, Value>> = std::fs::read(dir.join("files/wandb-metadata.json"))
        .ok()
        .and_then(|b| formats::parse_json(&String::from_utf8_lossy(&b)).ok())
        .and_then(|v| v.as_object().cloned());
    let program = meta
        .as_ref()
        .and_then(|m| m.get("program").or_else(|| m.get("codePath")))
        .and_then(Value::as_str)
        .and_then(program_stem);
    let config = std::fs::read(dir.join("files/config.yaml"))
        .ok()
        .and_then(|b| serde_norway::from_slice::<serde_norway::Value>(&b).ok())
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| unwrap_config(&v))
        .unwrap_or_default();
    let short = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let short = short.rsplit('-').next().unwrap_or_default().to_string();
    Some(Found {
        ex,
        program,
        display: display_name(dir, &short),
        started: meta.as_ref().and_then(|m| m.get("startedAt")).and_then(Value::as_str).map(str::to_string),
        config,
        notes: None,
        caveats: Vec::new(),
    })
}

/// A run never synced (offline, or killed before it could sync): everything from its
/// transaction log. Metrics are the summary W&B would upload (the summary records
/// applied in order; a log without one, each key's last logged value), each at the
/// step it was last logged when that value is the summary's.
fn unsynced(project: &Path, dir: &Path, log_path: &Path, d: &mut Discovery) -> Option<Found> {
    let log = match read_log(log_path, false) {
        Ok(l) => l,
        Err(e) => {
            d.note(project, log_path, e);
            return None;
        }
    };
    let log_name = log_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(why) = &log.cut {
        d.note(project, log_path, format!("read in part: {why}; the records before it were kept"));
    }
    let payload = if log.has_summary {
        log.summary.clone()
    } else {
        log.last_logged.iter().map(|(k, (v, _))| (k.clone(), v.clone())).collect()
    };
    let mut ex = metrics_from_payload(&Value::Object(payload), None, None);
    if log.records == 0 {
        d.note(project, dir, format!("not recorded: its transaction log {log_name} holds no record (W&B had written nothing of the run to disk)"));
        return None;
    }
    if let Some(why) = no_metrics(&ex, &format!("its transaction log {log_name}")) {
        d.note(project, dir, why);
        return None;
    }
    for m in &mut ex.metrics {
        let key = match &m.split {
            Some(s) => format!("{s}.{}", m.metric),
            None => m.metric.clone(),
        };
        if let Some((v, step)) = log.last_logged.get(&key)
            && v.as_f64() == Some(m.value)
        {
            m.step = Some(*step);
        }
    }
    let mut notes = vec![format!(
        "unsynced W&B run, read from its transaction log {log_name}: {} records, {} history rows{}",
        log.records,
        log.history_rows,
        log.last_step.map(|s| format!(", last step {s}")).unwrap_or_default()
    )];
    let mut caveats = Vec::new();
    match log.exit_code {
        Some(0) => {}
        Some(code) => {
            notes.push(format!("W&B exit code: {code}"));
            caveats.push(format!("the run exited with code {code} (its log's exit record)"));
        }
        None => {
            notes.push("no exit record: the run was killed, crashed or is still running".into());
            caveats.push(format!(
                "the run never finished (its transaction log has no exit record: killed, crashed or still running); its numbers are the last it logged{}",
                log.last_step.map(|s| format!(", up to step {s}")).unwrap_or_default()
            ));
        }
    }
    if let Some(why) = &log.cut {
        caveats.push(format!("its transaction log was {why}, so its numbers may end early"));
    }
    Some(Found {
        ex,
        program: log.program.as_deref().and_then(program_stem),
        display: log.display_name.clone(),
        started: log.started.clone(),
        config: log.config.clone(),
        notes: Some(notes.join("; ")),
        caveats,
    })
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

    fn chunk(kind: u8, part: &[u8]) -> Vec<u8> {
        let mut h = crc32fast::Hasher::new();
        h.update(&[kind]);
        h.update(part);
        let mut out = h.finalize().to_le_bytes().to_vec();
        out.extend_from_slice(&(part.len() as u16).to_le_bytes());
        out.push(kind);
        out.extend_from_slice(part);
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
        log.extend(chunk(2, a));
        log.extend(chunk(4, b));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run-ab12cd34.wandb"), &log).unwrap();
        assert_eq!(display_name(dir.path(), "ab12cd34").as_deref(), Some("glorious-sun-3"));
        assert_eq!(display_name(dir.path(), "glorious-sun-3"), None, "a name equal to the id is no name");
        std::fs::write(dir.path().join("run-ab12cd34.wandb"), &log[..20]).unwrap();
        assert_eq!(display_name(dir.path(), "ab12cd34"), None, "a truncated log names nothing");
        // A flipped byte fails the checksum: the record is not read.
        let mut bad = log.clone();
        *bad.last_mut().unwrap() ^= 1;
        std::fs::write(dir.path().join("run-ab12cd34.wandb"), &bad).unwrap();
        let read = read_log(&dir.path().join("run-ab12cd34.wandb"), false).unwrap();
        assert_eq!(read.records, 0);
        assert!(read.cut.as_deref().is_some_and(|c| c.contains("checksum")), "{:?}", read.cut);
    }

    fn fixture_logs() -> Vec<std::path::PathBuf> {
        let base =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/frameworks/wandb-offline/char-rnn/wandb");
        let mut logs: Vec<_> = sorted_entries(&base)
            .into_iter()
            .filter(|d| !std::fs::symlink_metadata(d).unwrap().file_type().is_symlink())
            .filter_map(|d| transaction_log(&d))
            .collect();
        logs.sort();
        logs
    }

    /// The logs real `wandb` 0.31 wrote offline (specs/fixtures.md §9): three finished
    /// runs and one killed after W&B had flushed part of it.
    #[test]
    fn real_offline_logs() {
        let logs = fixture_logs();
        assert_eq!(logs.len(), 4);
        let finished = read_log(&logs[1], false).unwrap();
        assert_eq!(finished.run_id.as_deref(), Some("hs128b2r"));
        assert_eq!(finished.display_name.as_deref(), Some("hidden-128"));
        assert_eq!(finished.exit_code, Some(0));
        assert_eq!(finished.cut, None);
        assert_eq!((finished.history_rows, finished.last_step), (250, Some(249)));
        assert!(finished.program.as_deref().is_some_and(|p| p.ends_with("train_char_rnn.py")));
        assert_eq!(finished.config.get("hidden"), Some(&Value::from(128)));
        assert!(!finished.config.contains_key("_wandb"));
        assert_eq!(finished.summary.get("val_acc"), Some(&Value::from(0.514)));
        assert_eq!(finished.summary.get("best_val_loss"), Some(&Value::from(1.51)));
        assert_eq!(finished.last_logged.get("val_acc"), Some(&(Value::from(0.514), 249)));
        let killed = read_log(&logs[3], false).unwrap();
        assert_eq!(killed.exit_code, None, "killed: no exit record");
        assert!(killed.last_step.is_some_and(|s| s < 149), "the tail was never flushed: {:?}", killed.last_step);
        assert_eq!(killed.last_logged.get("val_acc"), Some(&(Value::from(0.521), 99)));

        // Cut anywhere, the log reads up to the cut and says so; never panics.
        let bytes = std::fs::read(&logs[1]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let cut = dir.path().join("run-hs128b2r.wandb");
        let mut last = 0;
        for at in [7, 100, 5_000, 32_768, 32_770, 40_001, bytes.len() - 3] {
            std::fs::write(&cut, &bytes[..at]).unwrap();
            let l = read_log(&cut, false).unwrap();
            assert!(l.records >= last, "{at}");
            last = l.records;
            assert!(l.exit_code.is_none(), "{at}: the exit record is at the end");
            assert!(at == 7 || l.cut.is_some() || l.records > 0, "{at}");
        }
        std::fs::write(&cut, &bytes[..40_001]).unwrap();
        let l = read_log(&cut, false).unwrap();
        assert!(l.cut.as_deref().is_some_and(|c| c.starts_with("cut short")), "{:?}", l.cut);
        std::fs::write(&cut, b"not a log").unwrap();
        assert!(read_log(&cut, false).is_err());
    }
}
