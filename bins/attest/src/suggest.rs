//! "Did you mean …?" for what a person types: a database path, a reader, a family, a
//! metric. Nothing is created by a typo: a new database or reader is made only by
//! `--create` or by the commands whose job is to fill one (`runs scan`, `ingest`, …).

use std::path::Path;

use attest_core::Config;
use attest_core::text::plural;

/// What a command does with the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbUse {
    /// Never opens it.
    None,
    /// Reads it: it must exist.
    Reads,
    /// Fills it (a scan, an ingest, a subscription): creating it is its job.
    Fills,
}

/// Close matches of `typed` among `known`, best first (at most three).
pub fn close<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let t = typed.to_lowercase();
    // Similar overall (jaro-winkler), or a slip of a key or two (swapped, missing or
    // extra letters) in a short name.
    let near = |k: &str| {
        let k = k.to_lowercase();
        let edits = strsim::osa_distance(&t, &k);
        let score = strsim::jaro_winkler(&t, &k);
        let slip = edits <= (t.chars().count().max(k.chars().count()) / 3).max(1);
        (score >= 0.8 || slip).then_some(score - edits as f64)
    };
    let mut scored: Vec<(f64, &str)> =
        known.into_iter().filter(|k| !k.is_empty()).filter_map(|k| near(k).map(|score| (score, k))).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, k)| k).collect()
}

/// "Did you mean a or b?", or nothing.
pub fn did_you_mean(matches: &[&str]) -> String {
    match matches {
        [] => String::new(),
        [one] => format!(" Did you mean {one}?"),
        [init @ .., last] => format!(" Did you mean {} or {last}?", init.join(", ")),
    }
}

/// Refuse a database path that does not exist unless the command fills one or
/// `--create` was given, naming database files with a close name.
pub fn database(db: &Path, usage: DbUse, create: bool) -> Result<(), String> {
    if usage != DbUse::Reads || create || attest_store::is_server(db) || db.exists() {
        return Ok(());
    }
    let dir = db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let siblings: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| [".db", ".sqlite", ".sqlite3"].iter().any(|x| n.ends_with(x)))
        .collect();
    let matches: Vec<String> = close(&name, siblings.iter().map(String::as_str))
        .into_iter()
        .map(|m| dir.join(m).display().to_string())
        .collect();
    let matches: Vec<&str> = matches.iter().map(String::as_str).collect();
    let place =
        if dir.is_dir() { String::new() } else { format!(" (the directory {} does not exist either)", dir.display()) };
    Err(format!(
        "no database at {}{place}.{} To start a new one there, pass --create, or run `attest runs scan` or `attest ingest`, which create it.",
        db.display(),
        did_you_mean(&matches)
    ))
}

/// Refuse a family the ledger does not have, and a metric its runs do not record,
/// with close matches (`Ok(Err(message))`); `Ok(Ok(()))` when both exist or the
/// ledger is empty (the tool says how to fill it).
pub async fn family_and_metric(
    config: &Config,
    family: &str,
    metric: Option<&str>,
    project: Option<&str>,
) -> anyhow::Result<Result<(), String>> {
    let store = attest_store::Store::open(&config.db).await?;
    let opts = attest_runs::ledger::LedgerOptions {
        metric_directions: config.metric_directions.clone(),
        root: config.root.clone(),
    };
    let ledger = attest_runs::ledger::Ledger::new(store, opts);
    let families = ledger.families(project).await?;
    if families.is_empty() {
        return Ok(Ok(()));
    }
    if !families.iter().any(|f| f.family == family) {
        let names: Vec<&str> = families.iter().map(|f| f.family.as_str()).collect();
        let listed: Vec<String> = families
            .iter()
            .map(|f| format!("{} ({}, {})", f.family, f.project, plural(f.n as usize, "run", "runs")))
            .collect();
        let within = project.map(|p| format!(" in project {p}")).unwrap_or_default();
        return Ok(Err(format!(
            "no family '{family}'{within}.{} Families: {}.",
            did_you_mean(&close(family, names)),
            listed.join(", ")
        )));
    }
    let Some(metric) = metric else { return Ok(Ok(())) };
    let runs = ledger.list(project, Some(family), usize::MAX).await?;
    let mut metrics: Vec<String> = Vec::new();
    for r in &runs.runs {
        if let Ok(d) = ledger.detail(&r.project, &r.name).await {
            metrics.extend(d.metrics.into_iter().map(|m| m.metric));
        }
    }
    metrics.sort();
    metrics.dedup();
    if metrics.is_empty() || metrics.iter().any(|m| m == metric) {
        return Ok(Ok(()));
    }
    Ok(Err(format!(
        "no run of family {family} records a metric '{metric}'.{} Its metrics: {}.",
        did_you_mean(&close(metric, metrics.iter().map(String::as_str))),
        metrics.join(", ")
    )))
}

/// Refuse a reader that does not exist (unless `create`), with close matches.
pub async fn reader(store: &attest_feed::FeedStore, name: &str, create: bool) -> anyhow::Result<Result<(), String>> {
    let readers = store.readers().await?;
    if create || readers.iter().any(|r| r.name == name) {
        return Ok(Ok(()));
    }
    // Reader names are matched without regard to case by the tools.
    if readers.iter().any(|r| r.name.eq_ignore_ascii_case(name)) {
        return Ok(Ok(()));
    }
    let names: Vec<&str> = readers.iter().map(|r| r.name.as_str()).collect();
    let known = if names.is_empty() {
        "there are no readers yet".to_string()
    } else {
        format!("readers: {}", names.join(", "))
    };
    Ok(Err(format!(
        "no reader '{name}' ({known}).{} Create one with `attest feed personas create {name} \"INTERESTS\"`, or pass --create to start '{name}' with interests seeded from the archive.",
        did_you_mean(&close(name, names))
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_offered_far_ones_not() {
        assert_eq!(close("kdalpah", ["kdalpha", "prompt", "beam_search"]), ["kdalpha"]);
        assert_eq!(close("ana", ["Ana", "bob"]), ["Ana"]);
        assert!(close("zzz", ["kdalpha", "prompt"]).is_empty());
        assert_eq!(close("wre", ["wer", "n_records"]), ["wer"]);
        assert_eq!(did_you_mean(&["a", "b", "c"]), " Did you mean a, b or c?");
    }

    #[test]
    fn a_missing_database_is_refused_only_where_it_is_read() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("attest.db"), b"").unwrap();
        let typo = tmp.path().join("atest.db");
        assert!(database(&typo, DbUse::Fills, false).is_ok());
        assert!(database(&typo, DbUse::Reads, true).is_ok());
        let e = database(&typo, DbUse::Reads, false).unwrap_err();
        assert!(e.contains(&format!("Did you mean {}?", tmp.path().join("attest.db").display())), "{e}");
    }
}
