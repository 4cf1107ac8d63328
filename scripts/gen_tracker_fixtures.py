#!/usr/bin/env python3
"""Generate the experiment-tracker fixtures under tests/fixtures/trackers/ with the
real tracker packages, so attest's readers are tested on what the trackers write,
not on hand-transcribed files.

    scripts/py-venvs.sh gen
    target/py/gen/bin/python scripts/gen_tracker_fixtures.py            # all three
    target/py/gen/bin/python scripts/gen_tracker_fixtures.py --only wandb

What it writes (see specs/fixtures.md for what a reader must find in each):

  tests/fixtures/trackers/mlflow-files/cnn-dropout/mlruns/...    MLflow file store
  tests/fixtures/trackers/mlflow-sqlite/cnn-dropout/mlflow.db    MLflow SQLite backend
  tests/fixtures/trackers/wandb/tiny-lm/wandb/offline-run-*/     W&B offline runs
  tests/fixtures/trackers/<kind>.expected.json                   what a reader must find

Run ids, timestamps and dates change on every regeneration; the .expected.json
files are rewritten with them, so tests should read those rather than hard-code ids.

No network is used: MLflow writes to local stores, W&B runs with mode="offline".
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "trackers"

NAN = float("nan")

# ---------------------------------------------------------------------------
# The MLflow sweep: a small CNN trained with four dropout rates, plus one run
# that is logged and then deleted (its numbers are absurdly good on purpose, so
# a reader that fails to skip it picks it as the winner and the test notices).
# ---------------------------------------------------------------------------
MLFLOW_EXPERIMENT = "cnn-dropout"
MLFLOW_PROJECT = "cnn-dropout"
MLFLOW_RUN_NAME = "dropout_sweep"  # shared by every arm: the ledger's family
MLFLOW_ARMS = [
    # arm, params, train_loss per step 0..4, final val_loss, final val_accuracy, status, deleted
    dict(arm="d00", params=dict(dropout=0.0, lr=0.003, epochs=5, optimizer="adamw"),
         train_loss=[1.412, 0.973, 0.755, 0.641, 0.588], val_loss=0.702, val_accuracy=0.8412,
         status="FINISHED", deleted=False),
    dict(arm="d02", params=dict(dropout=0.2, lr=0.003, epochs=5, optimizer="adamw"),
         train_loss=[1.447, 1.018, 0.796, 0.671, 0.603], val_loss=0.655, val_accuracy=0.8637,
         status="FINISHED", deleted=False),
    dict(arm="d04", params=dict(dropout=0.4, lr=0.003, epochs=5, optimizer="adamw"),
         train_loss=[1.489, 1.071, 0.846, 0.715, 0.652], val_loss=0.671, val_accuracy=0.8581,
         status="FINISHED", deleted=False),
    # lr ten times too high: the loss blows up and its last logged value is NaN.
    dict(arm="d08", params=dict(dropout=0.8, lr=0.03, epochs=5, optimizer="adamw"),
         train_loss=[1.521, 2.874, 9.402, 41.07, NAN], val_loss=NAN, val_accuracy=0.1003,
         status="FAILED", deleted=False),
    # Logged, then deleted with mlflow.delete_run: must never be read.
    dict(arm="d06", params=dict(dropout=0.6, lr=0.003, epochs=5, optimizer="adamw"),
         train_loss=[1.501, 1.102, 0.877, 0.744, 0.690], val_loss=0.101, val_accuracy=0.9999,
         status="FINISHED", deleted=True),
]


def _finite(v: float) -> bool:
    return isinstance(v, (int, float)) and math.isfinite(v)


def _log_mlflow_sweep(tracking_uri: str) -> list[dict]:
    """Log the sweep to `tracking_uri` with the real mlflow client; return one
    record per arm with the generated run id."""
    import mlflow
    from mlflow.tracking import MlflowClient

    mlflow.set_tracking_uri(tracking_uri)
    mlflow.set_experiment(MLFLOW_EXPERIMENT)
    client = MlflowClient()
    out = []
    for arm in MLFLOW_ARMS:
        with mlflow.start_run(run_name=MLFLOW_RUN_NAME) as run:
            rid = run.info.run_id
            mlflow.set_tag("arm", arm["arm"])
            mlflow.log_params(arm["params"])
            for step, v in enumerate(arm["train_loss"]):
                mlflow.log_metric("train_loss", v, step=step)
            last = len(arm["train_loss"]) - 1
            mlflow.log_metric("val_loss", arm["val_loss"], step=last)
            mlflow.log_metric("val_accuracy", arm["val_accuracy"], step=last)
        if arm["status"] != "FINISHED":
            client.set_terminated(rid, status=arm["status"])
        if arm["deleted"]:
            client.delete_run(rid)
        out.append(dict(arm, run_id=rid))
    return out


def _expected_mlflow(records: list[dict], kind: str) -> dict:
    runs, skipped = [], []
    for r in records:
        name = f"{MLFLOW_RUN_NAME}/{r['run_id'][:8]}"
        if r["deleted"]:
            skipped.append(dict(run_id=r["run_id"], arm=r["arm"], would_be_name=name,
                                why="lifecycle_stage is 'deleted' (mlflow.delete_run)"))
            continue
        last = len(r["train_loss"]) - 1
        metrics, dropped = {}, {}
        for key, value in (("train_loss", r["train_loss"][-1]), ("val_loss", r["val_loss"]),
                           ("val_accuracy", r["val_accuracy"])):
            if _finite(value):
                metrics[key] = dict(value=value, step=last)
            else:
                dropped[key] = "final logged value is NaN; no fallback to an earlier step"
        runs.append(dict(
            name=name, run_id=r["run_id"], arm=r["arm"], family=MLFLOW_RUN_NAME,
            status=r["status"], params={k: str(v) for k, v in r["params"].items()},
            tags={"arm": r["arm"]}, metrics=metrics, dropped_metrics=dropped,
            train_loss_curve=[v if _finite(v) else "NaN" for v in r["train_loss"]],
        ))
    runs.sort(key=lambda x: x["name"])
    return dict(kind=kind, project=MLFLOW_PROJECT, experiment=MLFLOW_EXPERIMENT, runs=runs,
                skipped=skipped, compare=dict(
                    family=MLFLOW_RUN_NAME,
                    auto_metric="val_accuracy",
                    auto_metric_why="the only metric every kept run reports (d08 lost train_loss and val_loss to NaN)",
                    order=[n["arm"] for n in sorted(
                        runs, key=lambda x: -x["metrics"]["val_accuracy"]["value"])],
                ))


def gen_mlflow_files() -> dict:
    dest = OUT / "mlflow-files" / MLFLOW_PROJECT
    shutil.rmtree(dest.parent, ignore_errors=True)
    dest.mkdir(parents=True)
    # MLflow 3.7+ refuses the file store unless this opt-out is set.
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    records = _log_mlflow_sweep("file:" + str(dest / "mlruns"))
    # Prune: empty artifacts/ dirs, the empty .trash, and the Default experiment 0
    # (a real store has it; we keep its meta.yaml so readers meet an experiment
    # directory with no runs, but git cannot hold the empty dirs anyway).
    for p in sorted((dest / "mlruns").rglob("artifacts"), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
    trash = dest / "mlruns" / ".trash"
    if trash.is_dir() and not any(trash.iterdir()):
        trash.rmdir()
    exp = _expected_mlflow(records, "mlflow-files")
    exp["root"] = "tests/fixtures/trackers/mlflow-files"
    exp_dirs = [p.name for p in (dest / "mlruns").iterdir() if p.is_dir()]
    exp["experiment_dirs"] = sorted(exp_dirs)
    return exp


def gen_mlflow_sqlite() -> dict:
    dest = OUT / "mlflow-sqlite" / MLFLOW_PROJECT
    shutil.rmtree(dest.parent, ignore_errors=True)
    dest.mkdir(parents=True)
    db = dest / "mlflow.db"
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # artifacts (none are logged) would land here, not in the fixture
        try:
            records = _log_mlflow_sweep(f"sqlite:///{db}")
        finally:
            os.chdir(cwd)
    # Close every pooled connection before touching the file, then VACUUM it.
    try:
        import mlflow.store.db.utils as dbu  # noqa: F401
        from mlflow.tracking._tracking_service.utils import _get_store
        store = _get_store()
        engine = getattr(store, "engine", None)
        if engine is not None:
            engine.dispose()
    except Exception:
        pass
    # 1 KiB pages: MLflow's ~65 tables and ~150 indexes take at least a page each,
    # so this quarters the file without changing a row. VACUUM rewrites it compactly.
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=DELETE")
    con.execute("PRAGMA page_size=1024")
    con.execute("VACUUM")
    con.close()
    for side in ("mlflow.db-wal", "mlflow.db-shm", "mlflow.db-journal"):
        (dest / side).unlink(missing_ok=True)
    exp = _expected_mlflow(records, "mlflow-sqlite")
    exp["root"] = "tests/fixtures/trackers/mlflow-sqlite"
    exp["db_bytes"] = db.stat().st_size
    con = sqlite3.connect(db)
    exp["alembic_version"] = con.execute("select version_num from alembic_version").fetchone()[0]
    con.close()
    return exp


# ---------------------------------------------------------------------------
# W&B: four offline runs of a tiny language model, one process each (the way a
# training script would run), with fixed run ids.
# ---------------------------------------------------------------------------
WANDB_PROJECT = "tiny-lm"
WANDB_PROGRAM = "train_tiny_lm.py"
WANDB_RUNS = [
    # Logged in this order, so the dirs sort this way and wandb/latest-run ends up
    # pointing at the last, healthy run (a reader following it would read it twice).
    # Crashed during start-up: nothing but W&B's own bookkeeping in its summary.
    dict(id="nl8d0x5t", config=dict(n_layer=8, d_model=128, lr=0.0006, batch_size=32, dataset="tinystories-10k"),
         train_loss=[], val_loss=None, val_ppl=None, tokens_seen=None, crash=True),
    # Too deep for the learning rate: the loss diverges to NaN at the last step.
    dict(id="nl6c9p2s", config=dict(n_layer=6, d_model=128, lr=0.0006, batch_size=32, dataset="tinystories-10k"),
         train_loss=[4.83, 5.77, 19.4, NAN], val_loss=NAN, val_ppl=NAN, tokens_seen=131072, crash=False),
    dict(id="nl2q7k3a", config=dict(n_layer=2, d_model=128, lr=0.0006, batch_size=32, dataset="tinystories-10k"),
         train_loss=[4.81, 3.92, 3.41, 3.12], val_loss=3.208, val_ppl=24.73, tokens_seen=131072, crash=False),
    dict(id="nl4b8m1r", config=dict(n_layer=4, d_model=128, lr=0.0006, batch_size=32, dataset="tinystories-10k"),
         train_loss=[4.79, 3.81, 3.22, 2.94], val_loss=3.051, val_ppl=21.14, tokens_seen=131072, crash=False),
]

TRAIN_SCRIPT = textwrap.dedent('''\
    """Stand-in for a training script: logs a precomputed curve to W&B offline."""
    import json, os, sys
    import wandb

    spec = json.loads(os.environ["FIXTURE_RUN"])
    run = wandb.init(project=spec["project"], id=spec["id"], config=spec["config"],
                     mode="offline", dir=os.getcwd())
    if spec["crash"]:
        run.finish(exit_code=1)
        sys.exit(0)
    for step, v in enumerate(spec["train_loss"]):
        run.log({"train_loss": float(v) if v is not None else float("nan")}, step=step)
    last = len(spec["train_loss"]) - 1
    nan = lambda v: float("nan") if v is None else v
    run.log({"val_loss": nan(spec["val_loss"]), "val_ppl": nan(spec["val_ppl"]),
             "tokens_seen": spec["tokens_seen"]}, step=last)
    run.finish()
''')


def _wandb_records(path: Path):
    """Yield the protobuf Records of a W&B transaction log (run-<id>.wandb).

    The file is a 7-byte header (b":W&B", magic 0xBEE1 little-endian, version 0)
    followed by LevelDB log-format blocks of 32 KiB: each chunk has a 7-byte header
    (crc32c u32 LE, length u16 LE, type u8: 1 full, 2 first, 3 middle, 4 last).
    wandb-core (Go) writes it; the Python package ships only the protobuf schema,
    which is what decodes each record here.
    """
    from wandb.proto import wandb_internal_pb2 as pb

    data = path.read_bytes()
    if data[:4] != b":W&B":
        raise SystemExit(f"{path}: not a W&B transaction log")
    block, pos, buf = 32768, 7, b""
    while pos + 7 <= len(data):
        left = block - (pos % block)
        if left < 7:
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        pos += 7
        if kind == 0 and length == 0:
            pos += left - 7
            continue
        chunk = data[pos:pos + length]
        pos += length
        if kind == 1:
            full = chunk
        elif kind == 2:
            buf = chunk
            continue
        elif kind == 3:
            buf += chunk
            continue
        elif kind == 4:
            full, buf = buf + chunk, b""
        else:
            raise SystemExit(f"{path}: unknown chunk type {kind}")
        rec = pb.Record()
        rec.ParseFromString(full)
        yield rec


def _set_path(d: dict, path: list[str], value):
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = value


def _config_yaml(config: dict, wandb_block: dict) -> str:
    """W&B's config.yaml layout: every key wraps its value in a `value:` block
    (older clients also wrote `desc: null`), keys sorted, written with PyYAML."""
    import yaml

    doc = {"_wandb": {"value": wandb_block}}
    doc.update({k: {"value": v} for k, v in config.items()})
    return yaml.safe_dump(doc, sort_keys=True, default_flow_style=False)


def _materialise_wandb_files(run_dir: Path) -> dict:
    """Write files/{wandb-summary.json,config.yaml,wandb-metadata.json} from the run's
    own transaction log, the way `wandb sync` would upload them. Offline W&B 0.31
    writes none of the three; it writes only the .wandb log (and requirements.txt)."""
    from google.protobuf.json_format import MessageToDict

    log = next(run_dir.glob("run-*.wandb"))
    summary: dict = {}
    config: dict = {}
    meta: dict = {}
    telemetry = None
    for rec in _wandb_records(log):
        kind = rec.WhichOneof("record_type")
        if kind == "run":
            for item in rec.run.config.update:
                key = list(item.nested_key) or [item.key]
                _set_path(config, key, json.loads(item.value_json))
            if rec.run.telemetry.cli_version:
                telemetry = rec.run.telemetry
        elif kind == "config":
            for item in rec.config.update:
                key = list(item.nested_key) or [item.key]
                _set_path(config, key, json.loads(item.value_json))
        elif kind == "summary":
            for item in rec.summary.update:
                key = list(item.nested_key) or [item.key]
                _set_path(summary, key, json.loads(item.value_json))
            for item in rec.summary.remove:
                key = list(item.nested_key) or [item.key]
                cur = summary
                for k in key[:-1]:
                    cur = cur.get(k, {})
                cur.pop(key[-1], None)
        elif kind == "environment":
            meta.update(MessageToDict(rec.environment))
        elif kind == "telemetry":
            telemetry = rec.telemetry
    config.pop("_wandb", None)
    meta.pop("writerId", None)
    wandb_block = {}
    if telemetry is not None:
        wandb_block = {"cli_version": telemetry.cli_version,
                       "python_version": telemetry.python_version,
                       "t": {"platform": telemetry.platform}}
    files = run_dir / "files"
    files.mkdir(exist_ok=True)
    # json.dumps writes non-finite floats as bare NaN / Infinity, as W&B does.
    (files / "wandb-summary.json").write_text(json.dumps(summary, sort_keys=True) + "\n")
    (files / "config.yaml").write_text(_config_yaml(config, wandb_block))
    (files / "wandb-metadata.json").write_text(json.dumps(meta, indent=2) + "\n")
    return dict(summary=summary, config=config, meta=meta)


def gen_wandb() -> dict:
    dest = OUT / "wandb" / WANDB_PROJECT
    shutil.rmtree(dest.parent, ignore_errors=True)
    dest.mkdir(parents=True)
    script = dest / WANDB_PROGRAM
    script.write_text(TRAIN_SCRIPT)
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DISABLE_GIT="true",
               WANDB_DISABLE_CODE="true", WANDB_CONSOLE="off", WANDB_X_DISABLE_STATS="true")
    for spec in WANDB_RUNS:
        payload = dict(spec, project=WANDB_PROJECT,
                       train_loss=[None if not _finite(v) else v for v in spec["train_loss"]],
                       val_loss=None if spec["val_loss"] is None or not _finite(spec["val_loss"]) else spec["val_loss"],
                       val_ppl=None if spec["val_ppl"] is None or not _finite(spec["val_ppl"]) else spec["val_ppl"])
        env["FIXTURE_RUN"] = json.dumps(payload)
        subprocess.run([sys.executable, WANDB_PROGRAM], cwd=dest, env=env, check=True)
    script.unlink()
    wdir = dest / "wandb"
    runs, skipped = [], []
    for run_dir in sorted(p for p in wdir.iterdir() if p.is_dir() and not p.is_symlink()):
        # Prune what a reader never needs: debug logs (machine paths), the venv's
        # requirements.txt, empty tmp/.
        for sub in ("logs", "tmp"):
            shutil.rmtree(run_dir / sub, ignore_errors=True)
        (run_dir / "files" / "requirements.txt").unlink(missing_ok=True)
        got = _materialise_wandb_files(run_dir)
        short = run_dir.name.rsplit("-", 1)[-1]
        name = f"{Path(WANDB_PROGRAM).stem}/{short}"
        metrics = {k: v for k, v in got["summary"].items()
                   if not k.startswith("_") and isinstance(v, (int, float)) and not isinstance(v, bool)}
        finite = {k: v for k, v in metrics.items() if math.isfinite(v)}
        nonfinite = sorted(k for k in metrics if k not in finite)
        if not finite:
            skipped.append(dict(dir=run_dir.name, would_be_name=name,
                                why="summary holds only W&B bookkeeping keys (_wandb, _runtime): no metrics"))
            continue
        runs.append(dict(dir=run_dir.name, name=name, family=Path(WANDB_PROGRAM).stem,
                         started=got["meta"].get("startedAt"), metrics=finite,
                         dropped_metrics={k: "NaN in wandb-summary.json" for k in nonfinite},
                         config={k: v for k, v in got["config"].items()}))
    # The per-directory debug.log / debug-internal.log symlinks at wandb/ point into
    # the pruned logs/; drop them. latest-run is kept: real directories have it and a
    # reader must not read the same run twice through it.
    for p in wdir.iterdir():
        if p.is_symlink() and p.name != "latest-run":
            p.unlink()
        elif p.is_file():
            p.unlink()
    latest = wdir / "latest-run"
    return dict(kind="wandb", root="tests/fixtures/trackers/wandb", project=WANDB_PROJECT,
                runs=runs, skipped=skipped,
                latest_run_symlink=os.readlink(latest) if latest.is_symlink() else None,
                compare=dict(family=Path(WANDB_PROGRAM).stem, auto_metric="tokens_seen has no direction; "
                             "train_loss, val_loss and val_ppl each appear in 2 kept runs -> alphabetical: train_loss",
                             order_by_val_ppl=[r["name"] for r in sorted(
                                 (r for r in runs if "val_ppl" in r["metrics"]),
                                 key=lambda r: r["metrics"]["val_ppl"])]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="mlflow-files,mlflow-sqlite,wandb",
                    help="comma-separated subset of mlflow-files, mlflow-sqlite, wandb")
    args = ap.parse_args()
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("DO_NOT_TRACK", "true")
    gens = {"mlflow-files": gen_mlflow_files, "mlflow-sqlite": gen_mlflow_sqlite, "wandb": gen_wandb}
    for kind in args.only.split(","):
        kind = kind.strip()
        if kind not in gens:
            print(f"unknown fixture kind '{kind}'", file=sys.stderr)
            return 2
        exp = gens[kind]()
        (OUT / f"{kind}.expected.json").write_text(json.dumps(exp, indent=2, sort_keys=False) + "\n")
        print(f"{kind}: {len(exp['runs'])} run(s) to read, {len(exp['skipped'])} to skip")
    return 0


if __name__ == "__main__":
    sys.exit(main())
