//! TensorBoard event files (`events.out.tfevents.*`): scalars, as `tensorboardX`,
//! `torch.utils.tensorboard` and Lightning's TensorBoardLogger write them.
//!
//! A file is a TFRecord stream (length u64 LE, masked CRC-32C of the length, the
//! data, masked CRC-32C of the data) of `Event` messages, decoded with prost from the
//! fields of tensorflow's published `event.proto`/`summary.proto` that hold scalars
//! ([`super::proto`]).
//! A run is the directory holding the files; a tag's `/` becomes `_`
//! (`val/loss` → `val_loss`) and its prefix is the split. A record cut short or with
//! a bad checksum ends the file: the records before it are kept, and the run says so.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::payload::Metric;
use prost::Message as _;

use super::proto::{self, Event};
use super::{Adapter, Discovery, Record, RunCaveat, abs, formats, sorted_entries};
use crate::family::{family_of_dir, split_of_metric, variant_config};
use crate::hash;

/// The prefix of a TensorBoard event file's name.
pub const PREFIX: &str = "events.out.tfevents.";

/// One scalar: tag, step, value.
pub type Scalar = (String, i64, f64);

/// The scalars of one event file, and why it ended early, if it did.
pub fn scalars(b: &[u8]) -> (Vec<Scalar>, Option<String>) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    let mut n = 0usize;
    while pos < b.len() {
        let Some(head) = b.get(pos..pos + 12) else {
            return (out, Some(format!("cut short after {n} records (a partial record header at byte {pos})")));
        };
        let len_bytes = &head[..8];
        let len = u64::from_le_bytes(len_bytes.try_into().unwrap_or([0; 8]));
        if proto::masked_crc(len_bytes) != u32::from_le_bytes(head[8..12].try_into().unwrap_or([0; 4])) {
            return (out, Some(format!("a bad length checksum at byte {pos} after {n} records")));
        }
        let start = pos + 12;
        let Some(end) = usize::try_from(len).ok().and_then(|l| start.checked_add(l)) else {
            return (out, Some(format!("an impossible record length at byte {pos}")));
        };
        let (Some(data), Some(crc)) = (b.get(start..end), b.get(end..end + 4)) else {
            return (out, Some(format!("cut short after {n} records (the last record is incomplete)")));
        };
        if proto::masked_crc(data) != u32::from_le_bytes(crc.try_into().unwrap_or([0; 4])) {
            return (out, Some(format!("a bad data checksum in record {} at byte {pos}", n + 1)));
        }
        event_scalars(data, &mut out);
        n += 1;
        pos = end + 4;
    }
    (out, None)
}

fn event_scalars(event: &[u8], out: &mut Vec<Scalar>) {
    // A record whose checksum held but that is not an Event adds nothing.
    let Ok(e) = Event::decode(event) else { return };
    for v in e.summary.into_iter().flat_map(|s| s.value) {
        if let Some(x) =
            v.simple_value.map(f64::from).or_else(|| v.tensor.as_ref().and_then(proto::TensorProto::scalar))
        {
            out.push((v.tag, e.step, x));
        }
    }
}

/// Whether a directory holds TensorBoard event files.
pub fn has_events(dir: &Path) -> bool {
    sorted_entries(dir)
        .iter()
        .any(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(PREFIX)))
}

/// Read every directory of event files found by the walk.
pub fn runs(project: &Path, dirs: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    for dir in dirs {
        let files: Vec<PathBuf> = sorted_entries(dir)
            .into_iter()
            .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(PREFIX)))
            .collect();
        let mut metrics: Vec<Metric> = Vec::new();
        let mut caveats = Vec::new();
        let mut source: Option<(PathBuf, Vec<u8>)> = None;
        for f in &files {
            let bytes = match formats::read_capped(f) {
                Ok(b) => b,
                Err(e) => {
                    d.note(project, f, e.to_string());
                    continue;
                }
            };
            let (found, ended) = scalars(&bytes);
            if let Some(why) = ended {
                d.note(project, f, format!("read in part: {why}; the scalars before it were kept"));
                caveats.push(why);
            }
            for (tag, step, x) in found {
                if !x.is_finite() {
                    continue;
                }
                let metric = tag.trim().to_ascii_lowercase().replace('/', "_");
                let split = split_of_metric(&metric).map(str::to_string);
                metrics.push(Metric { metric, value: x, step: Some(step), split });
            }
            if source.is_none() {
                source = Some((f.clone(), bytes));
            }
        }
        let metrics = super::payload::dedup(metrics);
        let Some((src, bytes)) = source.filter(|_| !metrics.is_empty()) else {
            d.note(project, dir, "skipped: its TensorBoard event files hold no scalar (only graphs, images or histograms, or nothing readable)");
            continue;
        };
        let dname = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let parent = dir
            .parent()
            .filter(|p| *p != project)
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned());
        let name = dir.strip_prefix(project).map(|p| p.to_string_lossy().into_owned()).unwrap_or(dname.clone());
        let mut config: Map<String, Value> = variant_config(&dname);
        if let Some(Value::Object(h)) = formats::read_capped(&dir.join("hparams.yaml"))
            .ok()
            .and_then(|b| serde_norway::from_slice::<serde_norway::Value>(&b).ok())
            .and_then(|v| serde_json::to_value(v).ok())
        {
            config.extend(h);
        }
        let mut rec = Record::new(name, family_of_dir(&dname, parent.as_deref()), abs(&src));
        rec.adapter = Adapter::Tensorboard;
        rec.source_hash = Some(hash::of_bytes(&bytes));
        rec.config = (!config.is_empty()).then_some(Value::Object(config));
        for why in caveats {
            rec.caveats.push(RunCaveat {
                metric: None,
                text: format!("{}: its TensorBoard event file was {why}, so its curves may end early", rec.name),
            });
        }
        rec.metrics = metrics;
        d.claim(seen, project, dir, rec);
    }
}
