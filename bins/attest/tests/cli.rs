//! The `attest` command line as a user runs it.

mod common;
use common::{attest, repo, text};
use std::path::Path;
use std::process::{Command, Output};

/// A command's whole output as a person sees it, with this machine's paths replaced:
/// the repository by `[repo]`, temporary directories by `[tmp]`.
fn seen(args: &[&str], o: &Output) -> String {
    let repo_dir = repo().display().to_string();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").display().to_string();
    let t = text(o).replace(&manifest, "[repo]").replace(&repo_dir, "[repo]");
    let tmp = regex::Regex::new(r"/[\w./-]*?\.tmp[\w]+").unwrap();
    // Times and dates differ per run (the demo's feed is dated relative to today).
    let date = regex::Regex::new(r"\d{4}-\d\d-\d\d").unwrap();
    let t = attest_testkit::redact(&tmp.replace_all(&t, "[tmp]"), &[]);
    let hash = regex::Regex::new(r"\b[0-9a-f]{64}\b").unwrap();
    let t = hash.replace_all(&date.replace_all(&t, "[date]"), "[blake3]").into_owned();
    format!("$ attest {}  (exit {})\n{}", args.join(" "), o.status.code().unwrap_or(-1), t)
}

#[test]
fn route_prints_one_json_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let o = attest(&["route", "runs", "are the numbers in my draft right?"], &tmp.path().join("a.db"), None);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["tool"], "runs.claims_check");
    for k in ["tool", "args", "options", "answer"] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
}

#[test]
fn route_reads_questions_from_stdin_in_order() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_attest"))
        .args(["route", "runs"])
        .env("ATTEST_DB", tmp.path().join("a.db"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"which arm of my sweep won?\nhello\nwhat should I read today?\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["tool"], "runs.compare");
    assert_eq!(lines[1]["tool"], serde_json::Value::Null);
    assert!(lines[1]["options"].as_array().unwrap().len() >= 2);
    assert_eq!(lines[2]["tool"], serde_json::Value::Null);
    assert!(lines[2]["answer"].as_str().unwrap().contains("feed"));
}

#[test]
fn eval_routing_scores_a_labelled_file_and_names_a_bad_line() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let file = tmp.path().join("q.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"s": "runs", "q": "which arm of the kdalpha sweep won on wer?", "t": "runs.compare", "args": {"metric": "wer"}}"#,
            "\n",
            r#"{"s": "kg", "q": "hello", "t": null}"#,
            "\n",
            r#"{"s": "feed", "q": "simplify (x+1)^2 - x^2", "t": "sym.simplify"}"#,
            "\n",
        ),
    )
    .unwrap();
    let o = attest(&["--json", "eval", "routing", file.to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["overall"]["turns"], 3, "{v}");
    assert_eq!(v["overall"]["right"], 3, "{v}");
    assert_eq!(v["overall"]["args_right"], 1, "{v}");
    for s in ["runs", "kg", "feed"] {
        assert_eq!(v["surfaces"][s]["turns"], 1, "{v}");
    }
    assert_eq!(v["misses"], serde_json::json!([]));

    // A question routed to a wrong tool fails the run; a bad line is a usage error naming it.
    std::fs::write(&file, "{\"s\": \"runs\", \"q\": \"which arm won?\", \"t\": \"runs.list\"}\n").unwrap();
    let o = attest(&["eval", "routing", file.to_str().unwrap()], &db, None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("1 misses"), "{}", text(&o));
    std::fs::write(&file, "\n{\"s\": \"runs\"}\n").unwrap();
    let o = attest(&["eval", "routing", file.to_str().unwrap()], &db, None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("line 2: missing field `q`"), "{}", text(&o));
}

#[test]
fn doctor_says_what_works_and_fails_on_a_database_that_does_not_open() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let root = repo().join("examples/workspace");
    let o = attest(&["runs", "scan"], &db, Some(&root));
    assert!(o.status.success(), "{}", text(&o));
    let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
    c.arg("doctor").env("ATTEST_DB", &db).env("RESEARCH_ROOT", &root).env("HOME", tmp.path());
    for k in ["EMBED_BASE_URL", "LLM_BASE_URL", "HERMES_HOME", "ATTEST_RESEARCH_WEB", "ATTEST_CITATION_WEB"] {
        c.env_remove(k);
    }
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    for want in ["ok    database", "ok    ledger", "(3 project directories)", "0 failing"] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    std::fs::write(&db, b"this is not a database").unwrap();
    for side in ["a.db-wal", "a.db-shm"] {
        let _ = std::fs::remove_file(tmp.path().join(side));
    }
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("FAIL  database"), "{}", text(&o));
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    for args in [
        vec!["route", "nonsense", "hi"],
        vec!["serve", "--surface", "everything"],
        vec!["runs", "frobnicate"],
        vec!["claims"],
        vec!["emit", "hermes", "--bin-dir", "/nonexistent"],
    ] {
        let o = attest(&args, &db, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(!o.stderr.is_empty(), "{args:?}: a usage error must say what is wrong");
    }
}

#[test]
fn scan_compare_and_claims_gate() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let ws = repo().join("examples/workspace");
    let mut session = Vec::new();
    // (command, exit code): an undeclared direction is refused (1); the draft has a
    // contradicted claim and malformed ones, so the check exits 1 to gate a commit.
    for (args, code) in [
        (&["runs", "scan"][..], 0),
        (&["runs", "compare", "kdalpha"][..], 0),
        (&["runs", "compare", "prompt"][..], 1),
        (&["runs", "list"][..], 0),
        (&["runs", "show", "kdalpha_75"][..], 0),
        (&["claims", "paper/draft.md"][..], 1),
        (&["claims", "paper/draft.md", "--coverage"][..], 0),
    ] {
        let o = attest(args, &db, Some(&ws));
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", text(&o));
        session.push(seen(args, &o));
    }
    insta::assert_snapshot!("scan_compare_claims", session.join("\n"));
}

#[test]
fn backup_writes_a_copy_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let dest = tmp.path().join("copy.db");
    let ws = repo().join("examples/workspace");
    assert!(attest(&["runs", "scan"], &db, Some(&ws)).status.success());
    let o = attest(&["backup", dest.to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    let o = attest(&["runs", "list"], &dest, None);
    assert!(o.status.success() && text(&o).contains("kdalpha"), "{}", text(&o));
    let o = attest(&["backup", dest.to_str().unwrap()], &db, None);
    assert!(!o.status.success());
}

#[test]
fn demo_runs_on_embedded_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_attest"))
        .arg("demo")
        .current_dir(repo())
        .env_remove("ATTEST_DB")
        .env_remove("RESEARCH_ROOT")
        .env("HOME", tmp.path())
        .env("XDG_DATA_HOME", tmp.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("demo", seen(&["demo"], &o));
}

/// The README's `attest sym` lines, through the real binary: answer text and exit code
/// (0 proved or answered, 1 refuted or refused).
#[test]
fn sym_commands_from_the_readme() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let mut session = Vec::new();
    for (args, code) in [
        (&["sym", "verify", "(a+b)^2", "a^2 + 2ab + b^2"][..], 0),
        (&["sym", "verify", "sqrt(x^2) = x"][..], 1),
        (&["sym", "verify", "(-8)^(1/3) = -2"][..], 0),
        (&["sym", "simplify", "(x^3 - x)/(x + 1)"][..], 0),
        (&["sym", "solve", "x^2 - 5x + 6 = 0"][..], 0),
        (&["sym", "units", "60 mph in km/h"][..], 0),
        (&["sym", "limit", "1/x", "--to", "0"][..], 0),
        (&["sym", "series", "cos(x)", "--order", "6"][..], 0),
        (&["sym", "sum", "k^3", "--to", "n"][..], 0),
        (&["sym", "matrix", "[[2, 1], [1, 1]]", "--op", "inverse"][..], 0),
        (&["sym", "simplify", "x + * 2"][..], 1),
    ] {
        let o = attest(args, &db, None);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", text(&o));
        session.push(seen(args, &o));
    }
    insta::assert_snapshot!("sym_commands", session.join("\n"));
}

/// What a person gets wrong is answered with what exists, and nothing is created by a
/// typo: a mistyped family, metric, database or reader, a step that needs `--yes`.
#[test]
fn mistakes_get_did_you_mean_and_commands_not_tool_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let ws = repo().join("examples/workspace");
    assert!(attest(&["runs", "scan"], &db, Some(&ws)).status.success());
    let typo = tmp.path().join("aa.db");
    let mut session = Vec::new();
    for (args, code, on) in [
        (&["runs", "compare", "kdalpah"][..], 2, &db),
        (&["runs", "compare", "kdalpha", "--metric", "wre"][..], 2, &db),
        (&["runs", "show", "kdalpha_57"][..], 1, &db),
        (&["runs", "record", "kdalpha", "--project", "asr-distill", "--arm", "t4:wer=0.061"][..], 1, &db),
        (&["runs", "list"][..], 2, &typo),
        (&["feed", "list", "--user", "ana"][..], 2, &db),
        (&["feed", "personas", "delete", "nobody"][..], 1, &db),
        (&["feed", "export", "--json"][..], 2, &db),
    ] {
        let o = attest(args, on, Some(&ws));
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", text(&o));
        session.push(seen(args, &o).replace(&tmp.path().display().to_string(), "[tmp]"));
    }
    assert!(!typo.exists(), "a mistyped --db must not create a database");
    insta::assert_snapshot!("mistakes", session.join("\n"));
}

/// `--json` is the whole audit: every claim row and every run, whatever an agent's
/// budget would cut; `--limit` takes any number.
#[test]
fn json_is_complete_and_limits_take_any_number() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let ws = tmp.path().join("ws");
    let draft_dir = ws.join("paper");
    let results = ws.join("big/results");
    std::fs::create_dir_all(&draft_dir).unwrap();
    std::fs::create_dir_all(&results).unwrap();
    // 60 runs and a claim for each: far past the agent's 25 runs and 15 claim rows.
    let mut draft = String::new();
    for i in 0..60 {
        std::fs::write(results.join(format!("sweep_{i}.json")), format!("{{\"wer\": 0.{:03}}}", 100 + i)).unwrap();
        let claimed = if i % 7 == 0 { 0.5 } else { (100 + i) as f64 / 1000.0 };
        draft.push_str(&format!(
            "Run {i} scored {claimed}. <!-- claim: big/sweep_{i} metric=wer value={claimed} -->\n\n"
        ));
    }
    std::fs::write(draft_dir.join("draft.md"), draft).unwrap();
    assert!(attest(&["runs", "scan"], &db, Some(&ws)).status.success());
    let o = attest(&["claims", "paper/draft.md", "--json"], &db, Some(&ws));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["data"]["rows"].as_array().unwrap().len(), 60, "every claim row");
    assert_eq!(v["data"]["counts"]["contradicted"], 9);
    let o = attest(&["runs", "list", "--json", "--limit", "1000"], &db, Some(&ws));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["data"]["runs"].as_array().unwrap().len(), 60, "{v}");
    let o = attest(&["runs", "list", "--limit", "3"], &db, Some(&ws));
    assert!(text(&o).starts_with("3 of 60 runs in 1 project; --limit N shows more"), "{}", text(&o));
    // The text shows every contradicted claim too.
    let o = attest(&["claims", "paper/draft.md"], &db, Some(&ws));
    assert_eq!(text(&o).matches("draft 0.5, recorded").count(), 9, "{}", text(&o));
}

/// Every command that prints a result prints JSON with `--json`; the others refuse it.
#[test]
fn json_everywhere_or_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let ws = repo().join("examples/workspace");
    assert!(attest(&["runs", "scan"], &db, Some(&ws)).status.success());
    let dest = tmp.path().join("copy.db");
    for args in [
        vec!["--json", "runs", "scan"],
        vec!["--json", "runs", "list"],
        vec!["--json", "runs", "show", "kdalpha_75"],
        vec!["--json", "runs", "compare", "kdalpha"],
        vec!["--json", "claims", "paper/draft.md", "--coverage"],
        vec!["--json", "sym", "verify", "x = x"],
        vec!["--json", "backup", dest.to_str().unwrap()],
        vec!["--json", "feed", "personas", "list"],
    ] {
        let o = attest(&args, &db, Some(&ws));
        assert!(serde_json::from_slice::<serde_json::Value>(&o.stdout).is_ok(), "{args:?}: {}", text(&o));
    }
    for args in [vec!["--json", "demo"], vec!["--json", "completions", "bash"], vec!["--json", "serve"]] {
        let o = attest(&args, &db, Some(&ws));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains("--json does not apply here"), "{args:?}: {}", text(&o));
    }
}

/// Completions and the manual page are generated from the same definitions as `--help`.
#[test]
fn completions_and_man_page() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    for shell in ["bash", "zsh", "fish"] {
        let o = attest(&["completions", shell], &db, None);
        assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("claims"), "{shell}: {}", text(&o));
    }
    let o = attest(&["man"], &db, None);
    let roff = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && roff.contains(".TH attest"), "{}", &roff[..200.min(roff.len())]);
    assert!(!db.exists(), "neither opens the database");
}

/// A reader that goes away (`attest man | head`) ends attest quietly: no panic, no
/// backtrace.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [&["man"][..], &["completions", "zsh"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_attest"))
            .args(args)
            .env("ATTEST_DB", tmp.path().join("a.db"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}
