//! TensorBoard event files (`events.out.tfevents.*`): scalars, as `tensorboardX`,
//! `torch.utils.tensorboard` and Lightning's TensorBoardLogger write them.
//!
//! A file is a TFRecord stream (length u64 LE, masked CRC-32C of the length, the
//! data, masked CRC-32C of the data) of `Event` messages, read field by field, borrowed,
//! from the fields of tensorflow's published `event.proto`/`summary.proto` that hold
//! scalars ([`super::proto::event_scalars`]); other summaries are skipped unread.
//! A run is the directory holding the files; a tag's `/` becomes `_`
//! (`val/loss` → `val_loss`) and its prefix is the split. A record cut short or with
//! a bad checksum ends the file: the records before it are kept, and the run says so.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::payload::Metric;
use super::proto;
use super::{Adapter, Discovery, Record, RunCaveat, abs, formats, sorted_entries};
use crate::family::{family_of_dir, split_of_metric, variant_config};
use crate::hash;

/// The prefix of a TensorBoard event file's name.
pub const PREFIX: &str = "events.out.tfevents.";

/// One scalar: tag, step, value.
pub type Scalar = (String, i64, f64);

/// Call `each(tag, step, value)` for every scalar of one event file, in file order;
/// returns why the file ended early, if it did. Tags are borrowed from the bytes.
pub fn each_scalar<'a>(b: &'a [u8], mut each: impl FnMut(&'a [u8], i64, f64)) -> Option<String> {
    let mut pos = 0usize;
    let mut n = 0usize;
    let mut found: Vec<(&[u8], f64)> = Vec::new();
    while pos < b.len() {
        let Some(head) = b.get(pos..pos + 12) else {
            return Some(format!("cut short after {n} records (a partial record header at byte {pos})"));
        };
        let len_bytes = &head[..8];
        let len = u64::from_le_bytes(len_bytes.try_into().unwrap_or([0; 8]));
        if proto::masked_crc(len_bytes) != u32::from_le_bytes(head[8..12].try_into().unwrap_or([0; 4])) {
            return Some(format!("a bad length checksum at byte {pos} after {n} records"));
        }
        let start = pos + 12;
        let Some(end) = usize::try_from(len).ok().and_then(|l| start.checked_add(l)) else {
            return Some(format!("an impossible record length at byte {pos}"));
        };
        let (Some(data), Some(crc)) = (b.get(start..end), b.get(end..end + 4)) else {
            return Some(format!("cut short after {n} records (the last record is incomplete)"));
        };
        if proto::masked_crc(data) != u32::from_le_bytes(crc.try_into().unwrap_or([0; 4])) {
            return Some(format!("a bad data checksum in record {} at byte {pos}", n + 1));
        }
        // A record whose checksum held but that is not an Event adds nothing.
        found.clear();
        let step = proto::event_scalars(data, &mut found);
        for (tag, x) in found.drain(..) {
            each(tag, step, x);
        }
        n += 1;
        pos = end + 4;
    }
    None
}

/// The scalars of one event file, and why it ended early, if it did.
pub fn scalars(b: &[u8]) -> (Vec<Scalar>, Option<String>) {
    let mut out = Vec::new();
    let ended = each_scalar(b, |tag, step, x| out.push((String::from_utf8_lossy(tag).into_owned(), step, x)));
    (out, ended)
}

/// The subdirectories Keras's TensorBoard callback writes for one run, and the split
/// each holds: `train/` (metrics named as Keras's `History` names them: `loss`) and
/// `validation/` (`val_loss`).
pub const KERAS_SPLITS: &[(&str, &str)] = &[("train", "train"), ("validation", "val")];

fn is_event_file(p: &Path) -> bool {
    p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(PREFIX))
}

/// A TensorBoard run's event files, relative to its directory, in reading order: its
/// own, then those of its Keras `train/` and `validation/` subdirectories. (Its
/// evidence hash covers these and `hparams.yaml`: [`crate::hash::run_dir_files`].)
pub fn event_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let rel = |p: &Path| p.strip_prefix(dir).map(Path::to_path_buf).unwrap_or_else(|_| p.to_path_buf());
    out.extend(sorted_entries(dir).into_iter().filter(|p| is_event_file(p)).map(|p| rel(&p)));
    for (sub, _) in KERAS_SPLITS {
        out.extend(sorted_entries(&dir.join(sub)).into_iter().filter(|p| is_event_file(p)).map(|p| rel(&p)));
    }
    out
}

/// A metric's name and split from a tag: `val/loss` → `val_loss` [val]; in a Keras
/// split directory, `epoch_loss` → `loss` [train] or `val_loss` [val].
fn metric_of(tag: &[u8], keras: Option<&str>) -> (String, Option<String>) {
    let lower = String::from_utf8_lossy(tag).trim().to_ascii_lowercase();
    let metric = lower.replace('/', "_");
    match keras {
        None => {
            // PyTorch's tutorial names the split last (`Loss/train`, `Accuracy/test`):
            // read as `train_loss`, `test_accuracy`, the way `train/loss` reads.
            let metric = match lower.rsplit_once('/') {
                Some((rest, last))
                    if !rest.is_empty()
                        && split_of_metric(&format!("{last}_")).is_some()
                        && split_of_metric(&metric).is_none() =>
                {
                    format!("{last}_{}", rest.replace('/', "_"))
                }
                _ => metric,
            };
            let split = split_of_metric(&metric).map(str::to_string);
            (metric, split)
        }
        Some(split) => {
            let bare = metric.strip_prefix("epoch_").unwrap_or(&metric);
            let name = match split {
                "train" => bare.to_string(),
                s if bare.starts_with(&format!("{s}_")) => bare.to_string(),
                s => format!("{s}_{bare}"),
            };
            (name, Some(split.to_string()))
        }
    }
}

/// Scalars that are bookkeeping, not results: the step counters Lightning logs as
/// scalars (`epoch` beside every logged row), and the `hp_metric` placeholder (-1)
/// Lightning's TensorBoardLogger writes with the hyper-parameters (a `hp_metric` the
/// user logged with a real value is kept).
fn not_a_metric(tag: &[u8], x: f64) -> bool {
    let t = tag.trim_ascii();
    ["epoch", "step", "global_step"].iter().any(|k| t.eq_ignore_ascii_case(k.as_bytes()))
        || (t == b"hp_metric" && x == -1.0)
}

/// Lightning's loggers name a run's directory `version_N` under the logger's name
/// (`lightning_logs/version_0`): the logger name is the family.
fn is_version_dir(name: &str) -> bool {
    name.strip_prefix("version_").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a directory name is the log directory `torch.utils.tensorboard`'s (and
/// tensorboardX's) `SummaryWriter()` makes when given none: `<Mon><DD>_<HH-MM-SS>_<host>`
/// and the writer's `comment` (`Dec01_10-00-00_gpu3_lr0.1`). Such runs are a sweep of
/// the directory holding them (`runs/`); the comment's variant tokens are their config.
fn is_writer_default_dir(name: &str) -> bool {
    static DEFAULT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\d{2}_\d{2}-\d{2}-\d{2}_.").unwrap()
    });
    DEFAULT.is_match(name)
}

/// Whether a directory holds TensorBoard event files.
pub fn has_events(dir: &Path) -> bool {
    sorted_entries(dir)
        .iter()
        .any(|p| p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(PREFIX)))
}

/// Read every directory of event files found by the walk. Keras's `train/` and
/// `validation/` directories are one run: their parent.
pub fn runs(project: &Path, dirs: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    // Each run directory, with the directories of event files it is read from and
    // each one's Keras split.
    type Parts = Vec<(PathBuf, Option<&'static str>)>;
    let mut groups: Vec<(PathBuf, Parts)> = Vec::new();
    for dir in dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let keras = KERAS_SPLITS.iter().find(|(sub, _)| *sub == name).map(|(_, split)| *split);
        let (run, split) = match (keras, dir.parent()) {
            (Some(split), Some(parent)) if parent != project && parent.starts_with(project) => {
                (parent.to_path_buf(), Some(split))
            }
            _ => (dir.clone(), None),
        };
        match groups.iter_mut().find(|(r, _)| *r == run) {
            Some((_, parts)) => parts.push((dir.clone(), split)),
            None => groups.push((run, vec![(dir.clone(), split)])),
        }
    }
    for (dir, parts) in &groups {
        let mut metrics: Vec<Metric> = Vec::new();
        let mut caveats = Vec::new();
        // Tags are named once per distinct tag, and a (metric, step) pair is kept once
        // (the first), without allocating per scalar.
        let mut names: Vec<(String, Option<String>)> = Vec::new();
        let mut by_name: HashMap<(String, Option<String>), u32> = HashMap::new();
        let mut kept: HashSet<(u32, i64)> = HashSet::new();
        let mut read_any = false;
        for (part, split) in parts {
            let mut by_tag: HashMap<Vec<u8>, u32> = HashMap::new();
            for f in sorted_entries(part).into_iter().filter(|p| is_event_file(p)) {
                let bytes = match formats::read_capped(&f) {
                    Ok(b) => b,
                    Err(e) => {
                        d.note(project, &f, e.to_string());
                        continue;
                    }
                };
                read_any = true;
                let ended = each_scalar(&bytes, |tag, step, x| {
                    if !x.is_finite() || not_a_metric(tag, x) {
                        return;
                    }
                    let i = match by_tag.get(tag) {
                        Some(i) => *i,
                        None => {
                            let named = metric_of(tag, *split);
                            let i = *by_name.entry(named.clone()).or_insert_with(|| {
                                names.push(named);
                                (names.len() - 1) as u32
                            });
                            by_tag.insert(tag.to_vec(), i);
                            i
                        }
                    };
                    if kept.insert((i, step)) {
                        let (metric, split) = &names[i as usize];
                        metrics.push(Metric {
                            metric: metric.clone(),
                            value: x,
                            step: Some(step),
                            split: split.clone(),
                        });
                    }
                });
                if let Some(why) = ended {
                    d.note(project, &f, format!("read in part: {why}; the scalars before it were kept"));
                    caveats.push(why);
                }
            }
        }
        if !read_any || metrics.is_empty() {
            d.note(project, dir, "skipped: its TensorBoard event files hold no scalar (only graphs, images or histograms, or nothing readable)");
            continue;
        }
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
        // The evidence is the run directory: every file it was read from.
        let family = match parent {
            Some(p) if is_version_dir(&dname) || is_writer_default_dir(&dname) => Some(p),
            parent => family_of_dir(&dname, parent.as_deref()),
        };
        let mut rec = Record::new(name, family, abs(dir));
        rec.adapter = Adapter::Tensorboard;
        rec.source_hash = hash::files(dir, &hash::run_dir_files(dir));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_name_metrics_and_splits() {
        let m = |t: &str| metric_of(t.as_bytes(), None);
        assert_eq!(m("val/loss"), ("val_loss".into(), Some("val".into())));
        assert_eq!(m("Loss/train"), ("train_loss".into(), Some("train".into())));
        assert_eq!(m("Accuracy/test"), ("test_accuracy".into(), Some("test".into())));
        assert_eq!(m("train/loss"), ("train_loss".into(), Some("train".into())));
        assert_eq!(m("charts/reward"), ("charts_reward".into(), None));
        assert_eq!(m("val_acc"), ("val_acc".into(), Some("val".into())));
        assert_eq!(metric_of(b"epoch_loss", Some("val")), ("val_loss".into(), Some("val".into())));
    }

    #[test]
    fn lightning_bookkeeping_is_not_a_metric() {
        assert!(not_a_metric(b"epoch", 2.0));
        assert!(not_a_metric(b"hp_metric", -1.0));
        assert!(!not_a_metric(b"hp_metric", 0.91));
        assert!(!not_a_metric(b"val_loss", -1.0));
    }

    #[test]
    fn run_directories_named_by_their_writer() {
        assert!(is_version_dir("version_12"));
        assert!(!is_version_dir("version_"));
        assert!(!is_version_dir("version_a"));
        assert!(is_writer_default_dir("Dec01_10-00-00_fixture_lr0.1"));
        assert!(is_writer_default_dir("May23_18-02-11_gpu-node3"));
        assert!(!is_writer_default_dir("lr0.1"));
        assert!(!is_writer_default_dir("Dec01_run"));
    }
}
