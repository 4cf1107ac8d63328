#!/usr/bin/env python3
"""Generate the ML-framework layout fixtures under tests/fixtures/frameworks/ with the
frameworks' own writers where they can run without a GPU stack, so attest's readers
are tested on what the frameworks write.

    scripts/py-venvs.sh frameworks
    target/py/frameworks/bin/python scripts/gen_framework_fixtures.py            # all
    target/py/frameworks/bin/python scripts/gen_framework_fixtures.py --only sacred

Each layout is a research root with one project:

  hf-trainer/sst2/outputs/lr{1,3,5}e-5/         Hugging Face Trainer output dirs
  lightning/mnist/logs/mnist_cnn/version_N/     PyTorch Lightning CSVLogger
  keras/fashion/logs/cnn_dropout*.csv           Keras CSVLogger
  sacred/mnist-sacred/runs/N/                   Sacred FileStorageObserver
  hydra/cifar-hydra/multirun/<date>/<time>/N/   Hydra multirun
  tensorboard/cifar-tb/runs/lr*/                TensorBoard event files (tensorboardX)
  keras-tensorboard/fashion-tb/logs/fit/*/{train,validation}/
                                                Keras TensorBoard callback layout (tensorboardX)
  dvc/mnist-dvc/{dvc.yaml,dvc.lock,metrics/}    DVC foreach stage, `dvc repro`

What was made how (torch is not installed: its PyPI wheel and CUDA dependencies are
several GB) is in specs/fixtures.md section 9. No network is used.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "frameworks"


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


# ---------------------------------------------------------------------------
# Hugging Face Trainer: a learning-rate sweep on SST-2 (872 validation examples).
# trainer_state.json is written by transformers' own TrainerState.save_to_json;
# the *_results.json files reproduce Trainer.save_metrics (transformers'
# trainer_pt_utils.save_metrics: json.dump(indent=4, sort_keys=True), merged into
# all_results.json), because Trainer itself cannot be imported without torch.
# ---------------------------------------------------------------------------
HF_ARMS = [
    # dir, eval accuracy per epoch (3 epochs), eval loss per epoch, final train loss
    ("lr1e-5", [0.8727, 0.8853, 0.8911], [0.331, 0.301, 0.297], 0.2514),
    ("lr3e-5", [0.9025, 0.9186, 0.9243], [0.262, 0.241, 0.248], 0.1621),
    ("lr5e-5", [0.9071, 0.9128, 0.9106], [0.255, 0.269, 0.291], 0.1187),
]
HF_STEPS_PER_EPOCH = 100


def save_metrics(output_dir: Path, split: str, metrics: dict) -> None:
    with open(output_dir / f"{split}_results.json", "w") as f:
        json.dump(metrics, f, indent=4, sort_keys=True)
    path = output_dir / "all_results.json"
    all_metrics = json.loads(path.read_text()) if path.exists() else {}
    all_metrics.update(metrics)
    with open(path, "w") as f:
        json.dump(all_metrics, f, indent=4, sort_keys=True)


def gen_hf() -> None:
    from transformers.trainer_callback import TrainerState

    base = fresh(OUT / "hf-trainer") / "sst2" / "outputs"
    for name, accs, losses, train_loss in HF_ARMS:
        out = base / name
        out.mkdir(parents=True)
        history = []
        best = (None, None, None)
        for epoch, (acc, loss) in enumerate(zip(accs, losses), start=1):
            step = epoch * HF_STEPS_PER_EPOCH
            history.append({"epoch": float(epoch), "grad_norm": round(2.1 / epoch, 4), "learning_rate": 1e-5,
                            "loss": round(train_loss + 0.05 * (3 - epoch), 4), "step": step})
            history.append({"epoch": float(epoch), "eval_accuracy": acc, "eval_loss": loss,
                            "eval_runtime": 1.9, "eval_samples_per_second": 458.9,
                            "eval_steps_per_second": 14.2, "step": step})
            if best[0] is None or acc > best[0]:
                best = (acc, step, f"outputs/{name}/checkpoint-{step}")
            state = TrainerState(epoch=float(epoch), global_step=step, max_steps=3 * HF_STEPS_PER_EPOCH,
                                 logging_steps=50, eval_steps=HF_STEPS_PER_EPOCH, save_steps=HF_STEPS_PER_EPOCH,
                                 train_batch_size=32, num_train_epochs=3, log_history=list(history),
                                 best_metric=best[0], best_global_step=best[1],
                                 best_model_checkpoint=best[2])
            ck = out / f"checkpoint-{step}"
            ck.mkdir()
            state.save_to_json(str(ck / "trainer_state.json"))
        train_metrics = {"epoch": 3.0, "total_flos": 1.2e15, "train_loss": train_loss, "train_runtime": 412.7,
                         "train_samples": 67349, "train_samples_per_second": 489.5, "train_steps_per_second": 0.727}
        history.append({"epoch": 3.0, "step": 3 * HF_STEPS_PER_EPOCH, **{k: v for k, v in train_metrics.items() if k != "epoch" and k != "train_samples"}})
        state.log_history = history
        state.save_to_json(str(out / "trainer_state.json"))
        save_metrics(out, "train", train_metrics)
        eval_metrics = {"epoch": 3.0, "eval_accuracy": accs[-1], "eval_loss": losses[-1], "eval_runtime": 1.9,
                        "eval_samples": 872, "eval_samples_per_second": 458.9, "eval_steps_per_second": 14.2}
        save_metrics(out, "eval", eval_metrics)
    # Bad input: a run killed while writing its state (truncated JSON), no results.
    bad = base / "lr8e-5"
    bad.mkdir()
    text = (base / "lr1e-5" / "trainer_state.json").read_text()
    (bad / "trainer_state.json").write_text(text[: len(text) // 3])


# ---------------------------------------------------------------------------
# PyTorch Lightning CSVLogger: a dropout sweep of a small MNIST CNN. Lightning
# needs torch, so metrics.csv is written with the algorithm of Lightning's own
# _ExperimentWriter (lightning/fabric/loggers/csv_logs.py): one dict per
# log_metrics call with "step" added, header = keys in first-seen order over all
# rows, csv.DictWriter (missing cells empty: the NaN padding pandas shows). The
# LightningModule's logger connector adds "epoch" to every row. hparams.yaml is
# what save_hparams_to_yaml writes for a plain dict: yaml.dump of it.
# ---------------------------------------------------------------------------
LIGHTNING_ARMS = [
    # version, dropout, val_acc per epoch, val_loss per epoch
    (0, 0.1, [0.9612, 0.9738, 0.9781], [0.128, 0.086, 0.071]),
    (1, 0.3, [0.9588, 0.9741, 0.9802], [0.135, 0.084, 0.064]),
    (2, 0.5, [0.9497, 0.9689, 0.9754], [0.167, 0.101, 0.080]),
]


def lightning_rows(val_acc, val_loss):
    rows = []
    step = 0
    for epoch in range(3):
        for b in range(2):
            step += 49
            rows.append({"train_loss_step": round(0.5 / (step / 49), 4), "epoch": epoch, "step": step})
        rows.append({"val_loss": val_loss[epoch], "val_acc": val_acc[epoch], "epoch": epoch, "step": step})
        rows.append({"train_loss_epoch": round(0.42 / (epoch + 1), 4), "epoch": epoch, "step": step})
    rows.append({"test_acc": round(val_acc[-1] - 0.002, 4), "test_loss": round(val_loss[-1] + 0.004, 4), "epoch": 3, "step": step})
    return rows


def write_lightning_csv(path: Path, rows) -> None:
    last = {}
    for m in rows:
        last.update(m)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(last.keys()))
        w.writeheader()
        w.writerows(rows)


def gen_lightning() -> None:
    import yaml

    base = fresh(OUT / "lightning") / "mnist" / "logs" / "mnist_cnn"
    for version, dropout, acc, loss in LIGHTNING_ARMS:
        d = base / f"version_{version}"
        d.mkdir(parents=True)
        write_lightning_csv(d / "metrics.csv", lightning_rows(acc, loss))
        with open(d / "hparams.yaml", "w") as f:
            yaml.dump({"batch_size": 64, "dropout": dropout, "lr": 0.001, "seed": 7}, f)
    # Bad input: a metrics.csv whose header is not a CSVLogger's (no step column).
    d = base / "version_3"
    d.mkdir()
    (d / "metrics.csv").write_text("epoch;val_acc\n0;0.95\n")
    with open(d / "hparams.yaml", "w") as f:
        yaml.dump({"batch_size": 64, "dropout": 0.7, "lr": 0.001, "seed": 7}, f)


# ---------------------------------------------------------------------------
# Keras CSVLogger: keras's own callback, driven by hand (no training, no model):
# on_train_begin / on_epoch_end(epoch, logs) / on_train_end, as fit() calls it.
# ---------------------------------------------------------------------------
KERAS_ARMS = [
    ("cnn_dropout0.2", [0.842, 0.871, 0.884], [0.431, 0.352, 0.322]),
    ("cnn_dropout0.5", [0.829, 0.866, 0.889], [0.462, 0.366, 0.309]),
]


def gen_keras() -> None:
    os.environ.setdefault("KERAS_BACKEND", "jax")
    from keras.callbacks import CSVLogger

    base = fresh(OUT / "keras") / "fashion" / "logs"
    base.mkdir(parents=True)
    for stem, val_acc, val_loss in KERAS_ARMS:
        # Keras's documentation names the file `training.log`; one arm uses a .log name.
        cb = CSVLogger(str(base / (f"{stem}.log" if stem.endswith("0.5") else f"{stem}.csv")))
        cb.on_train_begin()
        for epoch in range(3):
            cb.on_epoch_end(epoch, {"accuracy": round(val_acc[epoch] + 0.02, 4), "loss": round(val_loss[epoch] - 0.03, 4),
                                    "val_accuracy": val_acc[epoch], "val_loss": val_loss[epoch]})
        cb.on_train_end()


# ---------------------------------------------------------------------------
# Sacred FileStorageObserver: a learning-rate sweep, one run that raises.
# ---------------------------------------------------------------------------
SACRED_ARMS = [
    (0.01, [0.912, 0.934, 0.941], False),
    (0.05, [0.925, 0.947, 0.953], False),
    (0.2, [0.881, 0.902, 0.907], False),
    (0.5, [0.512], True),
]


def gen_sacred() -> None:
    from sacred import Experiment
    from sacred.observers import FileStorageObserver

    base = fresh(OUT / "sacred") / "mnist-sacred" / "runs"
    for lr, accs, fail in SACRED_ARMS:
        ex = Experiment("mnist_mlp", save_git_info=False)
        ex.observers.append(FileStorageObserver(str(base)))

        @ex.config
        def cfg():
            lr = 0.01  # noqa: F841
            hidden = 256  # noqa: F841
            seed = 3  # noqa: F841

        @ex.main
        def main(_run, lr, hidden):
            for i, a in enumerate(accs):
                _run.log_scalar("val_accuracy", a, i + 1)
                _run.log_scalar("train_loss", round(0.3 / (i + 1), 4), i + 1)
            if fail:
                raise RuntimeError("loss diverged")
            return {"test_accuracy": round(accs[-1] - 0.003, 4), "n_test": 10000}

        try:
            ex.run(config_updates={"lr": lr}, options={"--loglevel": "ERROR"})
        except RuntimeError:
            pass
    # Sacred copies the experiment's source files; they are not needed.
    shutil.rmtree(base / "_sources", ignore_errors=True)
    for run in base.iterdir():
        if run.is_dir():
            (run / "cout.txt").unlink(missing_ok=True)


# ---------------------------------------------------------------------------
# Hydra multirun: `python train.py -m lr=0.01,0.1 dropout=0.1,0.3` (4 jobs);
# each job writes metrics.json into its own output directory. A fifth job
# directory whose .hydra/ was lost is added as bad input.
# ---------------------------------------------------------------------------
HYDRA_APP = '''
import json
import hydra
from hydra.core.hydra_config import HydraConfig

RESULTS = {(0.01, 0.1): (0.712, 0.91), (0.01, 0.3): (0.725, 0.88), (0.1, 0.1): (0.688, 1.02), (0.1, 0.3): (0.741, 0.84)}

@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg):
    acc, loss = RESULTS[(cfg.lr, cfg.dropout)]
    out = HydraConfig.get().runtime.output_dir
    with open(f"{out}/metrics.json", "w") as f:
        json.dump({"val_acc": acc, "val_loss": loss, "n_val": 5000, "epoch": cfg.epochs}, f)

if __name__ == "__main__":
    main()
'''


def gen_hydra() -> None:
    base = fresh(OUT / "hydra") / "cifar-hydra"
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp)
        (app / "conf").mkdir()
        (app / "conf" / "config.yaml").write_text("lr: 0.01\ndropout: 0.1\nepochs: 10\nmodel:\n  name: resnet18\n  width: 64\n")
        (app / "train.py").write_text(textwrap.dedent(HYDRA_APP))
        sweep = base / "multirun" / "2026-12-01" / "10-00-00"
        subprocess.run([sys.executable, str(app / "train.py"), "-m", "lr=0.01,0.1", "dropout=0.1,0.3",
                        f"hydra.sweep.dir={sweep}"], check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
    # Hydra's own log files are not needed.
    for log in base.rglob("*.log"):
        log.unlink()
    bad = sweep / "4"
    bad.mkdir()
    (bad / "metrics.json").write_text(json.dumps({"val_acc": 0.99, "val_loss": 0.01}))


# ---------------------------------------------------------------------------
# TensorBoard: tensorboardX's SummaryWriter (the format torch.utils.tensorboard and
# Lightning's TensorBoardLogger write), a learning-rate sweep with one run whose
# event file was cut short (the job killed mid-write).
# ---------------------------------------------------------------------------
TB_ARMS = [
    ("lr0.01", [0.612, 0.701, 0.748, 0.771], [1.21, 0.93, 0.81, 0.75]),
    ("lr0.1", [0.655, 0.742, 0.779, 0.786], [1.12, 0.86, 0.74, 0.72]),
    ("lr1.0", [0.402, 0.455, 0.473, 0.480], [1.95, 1.71, 1.66, 1.63]),
]


def gen_tensorboard() -> None:
    from tensorboardX import SummaryWriter

    base = fresh(OUT / "tensorboard") / "cifar-tb" / "runs"
    for name, acc, loss in TB_ARMS:
        w = SummaryWriter(logdir=str(base / name), flush_secs=1)
        for epoch in range(4):
            step = (epoch + 1) * 390
            w.add_scalar("train/loss", round(loss[epoch] * 0.8, 4), step)
            w.add_scalar("val/loss", loss[epoch], step)
            w.add_scalar("val/accuracy", acc[epoch], step)
        w.close()
        # The file name holds the wall time and host name; fix it so a regeneration
        # changes nothing a test reads.
        (f,) = (base / name).glob("events.out.tfevents.*")
        f.rename(f.with_name("events.out.tfevents.1796000000.fixture"))
    # Bad input: the last run's event file cut in the middle of a record.
    (f,) = (base / "lr1.0").glob("events.out.tfevents.*")
    data = f.read_bytes()
    f.write_bytes(data[: len(data) - 30])


# ---------------------------------------------------------------------------
# Keras's TensorBoard callback: one run is a log directory holding `train/` and
# `validation/` event directories, with the tags Keras writes (`epoch_loss`,
# `epoch_accuracy`, `epoch_learning_rate` in train/, `evaluation_*_vs_iterations` in
# validation/), at the epoch as step, as tensor summaries (what tf.summary.scalar
# writes: a DT_FLOAT scalar tensor with the `scalars` plugin's metadata). Keras 3's
# callback needs TensorFlow (several hundred MB, not installed), so the same records
# are built from tensorboardX's copies of the protos and written by its event writer.
# ---------------------------------------------------------------------------
KERAS_TB_ARMS = [
    # run, train accuracy, train loss, validation accuracy, validation loss (3 epochs)
    ("dropout0.2", [0.801, 0.862, 0.879], [0.561, 0.381, 0.332], [0.846, 0.866, 0.874], [0.423, 0.368, 0.351]),
    ("dropout0.5", [0.752, 0.831, 0.851], [0.689, 0.465, 0.409], [0.838, 0.861, 0.870], [0.447, 0.381, 0.357]),
]


def gen_keras_tensorboard() -> None:
    from tensorboardX import SummaryWriter
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

    def scalar(w: SummaryWriter, tag: str, value: float, step: int) -> None:
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
        tensor = TensorProto(dtype="DT_FLOAT", tensor_shape=TensorShapeProto(), float_val=[value])
        w._get_file_writer().add_summary(Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)]), step)

    base = fresh(OUT / "keras-tensorboard") / "fashion-tb" / "logs" / "fit"
    for name, acc, loss, val_acc, val_loss in KERAS_TB_ARMS:
        for sub, accs, losses in (("train", acc, loss), ("validation", val_acc, val_loss)):
            w = SummaryWriter(logdir=str(base / name / sub), flush_secs=1)
            for epoch in range(3):
                scalar(w, "epoch_loss", losses[epoch], epoch)
                scalar(w, "epoch_accuracy", accs[epoch], epoch)
                if sub == "train":
                    scalar(w, "epoch_learning_rate", 0.001, epoch)
            if sub == "validation":
                # Keras writes these once per evaluation, at the optimizer's iteration.
                scalar(w, "evaluation_loss_vs_iterations", losses[-1], 1407)
                scalar(w, "evaluation_accuracy_vs_iterations", accs[-1], 1407)
            w.close()
            (f,) = (base / name / sub).glob("events.out.tfevents.*")
            f.rename(f.with_name(f"events.out.tfevents.1796000000.fixture.{sub}.v2"))


# ---------------------------------------------------------------------------
# DVC: a `foreach` stage sweeping the learning rate, run with `dvc repro` (real
# dvc.lock with each metrics file's md5); afterwards one metrics file is edited by
# hand, so its md5 no longer matches dvc.lock (stale).
# ---------------------------------------------------------------------------
DVC_TRAIN = """import json, sys
RESULTS = {"0.001": (0.842, 0.47), "0.01": (0.871, 0.39), "0.1": (0.803, 0.58)}
acc, loss = RESULTS[sys.argv[1]]
with open(sys.argv[2], "w") as f:
    json.dump({"test": {"accuracy": acc, "loss": loss}, "n_records": 2000}, f, indent=2)
"""

DVC_YAML = """stages:
  train:
    foreach:
      lr0.001: {lr: "0.001"}
      lr0.01: {lr: "0.01"}
      lr0.1: {lr: "0.1"}
    do:
      cmd: python train.py ${item.lr} metrics/${key}.json
      deps:
        - train.py
      metrics:
        - metrics/${key}.json:
            cache: false
"""


def gen_dvc() -> None:
    proj = fresh(OUT / "dvc") / "mnist-dvc"
    proj.mkdir()
    (proj / "metrics").mkdir()
    (proj / "train.py").write_text(DVC_TRAIN)
    (proj / "dvc.yaml").write_text(DVC_YAML)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    dvc = [sys.executable, "-m", "dvc"]
    subprocess.run(dvc + ["init", "--no-scm", "-q"], cwd=proj, check=True, env=env)
    subprocess.run(dvc + ["repro", "-q"], cwd=proj, check=True, env=env, stdout=subprocess.DEVNULL)
    # DVC's own state (cache, tmp, config) is hidden and not needed.
    shutil.rmtree(proj / ".dvc", ignore_errors=True)
    (proj / ".dvcignore").unlink(missing_ok=True)
    # Bad input: a metrics file changed after the pipeline ran.
    f = proj / "metrics" / "lr0.1.json"
    f.write_text(f.read_text().replace("0.803", "0.903"))


GENERATORS = {"hf": gen_hf, "lightning": gen_lightning, "keras": gen_keras, "sacred": gen_sacred, "hydra": gen_hydra,
              "tensorboard": gen_tensorboard, "keras-tensorboard": gen_keras_tensorboard, "dvc": gen_dvc}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=sorted(GENERATORS))
    args = ap.parse_args()
    for name, gen in GENERATORS.items():
        if args.only and args.only != name:
            continue
        gen()
        print(f"wrote {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
