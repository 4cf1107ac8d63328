#!/usr/bin/env python3
"""Generate the ML-framework layout fixtures under tests/fixtures/frameworks/ with the
frameworks' own code, so attest's readers are tested on what the frameworks write.

Four venvs (torch's and tensorflow's are large, so they are kept apart; see specs/fixtures.md section 9):

    scripts/py-venvs.sh torch frameworks
    target/py/torch/bin/python scripts/gen_framework_fixtures.py        # hf, lightning, torch-tensorboard (~30 s, CPU)
    target/py/frameworks/bin/python scripts/gen_framework_fixtures.py   # keras, sacred, hydra, tensorboard, dvc (~10 s)
    scripts/py-venvs.sh tf gen
    target/py/tf/bin/python scripts/gen_framework_fixtures.py --only keras-tensorboard   # real fit (~15 s)
    target/py/gen/bin/python scripts/gen_framework_fixtures.py --only wandb-offline      # 4 W&B processes (~18 s)
    target/py/torch/bin/python scripts/gen_framework_fixtures.py --only hf

Without --only, each venv runs the generators whose package it holds and says which
it left to the other. No network is used (HF_HUB_OFFLINE=1: the Trainer's model is
built from a config). Each layout is a research root with one project:

  hf-trainer/tiny-bert/outputs/lr{1e-3,3e-3,1e-2}/
                                transformers' Trainer (real training of a tiny BERT)
  lightning/blobs/lightning_logs/version_N/
                                PyTorch Lightning CSVLogger (real training of an MLP)
  lightning-tensorboard/blobs-tb/lightning_logs/version_N/
                                Lightning's TensorBoardLogger, same runs (torch.utils.tensorboard)
  torch-tensorboard/sgd-blobs/runs/Dec01_10-00-0N_fixture_lr*/
                                torch.utils.tensorboard's default layout (a plain PyTorch loop)
  keras/fashion/logs/cnn_dropout*.csv           Keras CSVLogger
  sacred/mnist-sacred/runs/N/                   Sacred FileStorageObserver
  hydra/cifar-hydra/multirun/<date>/<time>/N/   Hydra multirun
  tensorboard/cifar-tb/runs/lr*/                TensorBoard event files (tensorboardX)
  keras-tensorboard/fashion-tb/logs/fit/*/{train,validation}/
                                                Keras's TensorBoard callback (real fit, TensorFlow backend)
  wandb-offline/char-rnn/wandb/offline-run-*/   W&B offline runs never synced, one killed
  dvc/mnist-dvc/{dvc.yaml,dvc.lock,metrics/}    DVC foreach stage, `dvc repro`

What was made how, and what was pruned or added by hand as bad input, is in
specs/fixtures.md section 9.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "frameworks"


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


# ---------------------------------------------------------------------------
# Hugging Face Trainer: a real learning-rate sweep. A tiny BERT (2 layers, hidden 32,
# built from a BertConfig, random init: no hub download) learns a synthetic task
# (label = whether the token after [CLS] is in the lower half of the vocabulary, 10 %
# of labels flipped) for 3 epochs, evaluating and saving every epoch and keeping the
# best checkpoint by accuracy. The driver follows transformers' run_glue.py example:
# train, save_model, save_metrics("train") with train_samples, save_state, evaluate,
# save_metrics("eval") with eval_samples. So every file is the Trainer's own:
# all_results.json, train_results.json, eval_results.json, trainer_state.json,
# config.json, training_args.bin and checkpoint-N/. The weights (model.safetensors,
# optimizer.pt, scheduler.pt, rng_state.pth) are deleted afterwards: attest never
# reads them and they would make the fixture megabytes.
# ---------------------------------------------------------------------------
HF_ARMS = ["1e-3", "3e-3", "1e-2"]
HF_VOCAB, HF_LEN = 64, 12
HF_WEIGHTS = ("model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth")


def hf_dataset(n: int, seed: int):
    import numpy as np
    import torch

    g = np.random.default_rng(seed)
    ids = g.integers(5, HF_VOCAB, size=(n, HF_LEN))
    ids[:, 0] = 2  # [CLS]
    labels = (ids[:, 1] < 34).astype(int) ^ (g.random(n) < 0.1).astype(int)
    mask = torch.ones(HF_LEN, dtype=torch.long)
    return [{"input_ids": torch.tensor(r), "attention_mask": mask, "labels": int(y)} for r, y in zip(ids, labels)]


def gen_hf() -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import torch
    from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainingArguments,
                              set_seed)

    torch.set_num_threads(1)
    proj = fresh(OUT / "hf-trainer") / "tiny-bert"
    proj.mkdir()
    train, evaluation = hf_dataset(1024, 1), hf_dataset(256, 2)

    def accuracy(p):
        return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}

    cwd = os.getcwd()
    os.chdir(proj)  # output_dir is relative, as most scripts give it: trainer_state.json keeps it so
    try:
        for lr in HF_ARMS:
            set_seed(42)
            config = BertConfig(vocab_size=HF_VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=64, max_position_embeddings=HF_LEN, num_labels=2)
            model = BertForSequenceClassification(config)
            args = TrainingArguments(output_dir=f"outputs/lr{lr}", learning_rate=float(lr), num_train_epochs=3,
                                     per_device_train_batch_size=32, per_device_eval_batch_size=64,
                                     eval_strategy="epoch", save_strategy="epoch", logging_steps=8,
                                     load_best_model_at_end=True, metric_for_best_model="accuracy", seed=42,
                                     report_to="none", use_cpu=True, disable_tqdm=True)
            trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evaluation,
                              compute_metrics=accuracy)
            metrics = trainer.train().metrics
            metrics["train_samples"] = len(train)
            trainer.save_model()
            trainer.log_metrics("train", metrics)
            trainer.save_metrics("train", metrics)
            trainer.save_state()
            metrics = trainer.evaluate()
            metrics["eval_samples"] = len(evaluation)
            trainer.log_metrics("eval", metrics)
            trainer.save_metrics("eval", metrics)
    finally:
        os.chdir(cwd)
    for f in proj.rglob("*"):
        if f.name in HF_WEIGHTS:
            f.unlink()
    # Bad input: a run killed while writing its state (its trainer_state.json cut to a
    # third, by this script), no result files.
    base = proj / "outputs"
    bad = base / "lr3e-2"
    bad.mkdir()
    text = (base / "lr1e-3" / "trainer_state.json").read_text()
    (bad / "trainer_state.json").write_text(text[: len(text) // 3])


# ---------------------------------------------------------------------------
# PyTorch Lightning: a real dropout sweep of a small MLP on synthetic Gaussian blobs
# (3 classes, 8 features), 3 epochs of SGD, then `trainer.test`. Each run logs to a
# CSVLogger and a TensorBoardLogger at once (their default `lightning_logs/version_N`
# layout, under two research roots), so both fixtures hold the same runs:
#   lightning/blobs/lightning_logs/version_N/{metrics.csv,hparams.yaml,checkpoints/}
#   lightning-tensorboard/blobs-tb/lightning_logs/version_N/{events.out.tfevents.*,hparams.yaml}
# The TensorBoardLogger writes through torch.utils.tensorboard (tensorboard is
# installed); its event file names (wall time, host, pid) are fixed afterwards.
# ---------------------------------------------------------------------------
LIGHTNING_DROPOUT = [0.0, 0.2, 0.5]


def gen_lightning() -> None:
    import lightning as L
    import torch
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    torch.set_num_threads(1)

    def blobs(n: int, seed: int) -> TensorDataset:
        g = torch.Generator().manual_seed(seed)
        centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
        y = torch.randint(0, 3, (n,), generator=g)
        x = torch.cat([centers[y] + 1.1 * torch.randn(n, 2, generator=g), 0.5 * torch.randn(n, 6, generator=g)], 1)
        return TensorDataset(x, y)

    class MLP(L.LightningModule):
        def __init__(self, dropout: float = 0.1, lr: float = 0.05, hidden: int = 32):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.Sequential(nn.Linear(8, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, 3))

        def _step(self, batch):
            x, y = batch
            out = self.net(x)
            return nn.functional.cross_entropy(out, y), (out.argmax(-1) == y).float().mean()

        def training_step(self, batch, i):
            loss, _ = self._step(batch)
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, batch, i):
            loss, acc = self._step(batch)
            self.log("val_loss", loss)
            self.log("val_acc", acc)

        def test_step(self, batch, i):
            loss, acc = self._step(batch)
            self.log("test_loss", loss)
            self.log("test_acc", acc)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=self.hparams.lr)

    csv_root = fresh(OUT / "lightning") / "blobs"
    tb_root = fresh(OUT / "lightning-tensorboard") / "blobs-tb"
    for dropout in LIGHTNING_DROPOUT:
        L.seed_everything(7, verbose=False)
        trainer = L.Trainer(max_epochs=3, accelerator="cpu", devices=1, log_every_n_steps=10, deterministic=True,
                            logger=[CSVLogger(str(csv_root)), TensorBoardLogger(str(tb_root))],
                            enable_progress_bar=False, enable_model_summary=False)
        model = MLP(dropout=dropout)
        trainer.fit(model, DataLoader(blobs(640, 1), batch_size=32, shuffle=True),
                    DataLoader(blobs(320, 2), batch_size=64))
        trainer.test(model, DataLoader(blobs(500, 3), batch_size=100), verbose=False)
    for version in (tb_root / "lightning_logs").iterdir():
        for i, f in enumerate(sorted(version.glob("events.out.tfevents.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))):
            f.rename(f.with_name(f"events.out.tfevents.1796000000.fixture.{i}"))
    # Bad input (written by this script): a metrics.csv whose header is not a
    # CSVLogger's (`;`-separated, no step column).
    d = csv_root / "lightning_logs" / "version_3"
    d.mkdir()
    (d / "metrics.csv").write_text("epoch;val_acc\n0;0.95\n")
    (d / "hparams.yaml").write_text("dropout: 0.7\nhidden: 32\nlr: 0.05\n")


# ---------------------------------------------------------------------------
# torch.utils.tensorboard without a framework: a plain PyTorch training loop (SGD on
# the blobs, a learning-rate sweep) with `SummaryWriter(comment=f"_lr{lr}")`, i.e.
# the default log directory `runs/<Mon><DD>_<HH-MM-SS>_<host>_lr<lr>/`, and the tags
# PyTorch's own tutorial uses (`Loss/train`, `Loss/test`, `Accuracy/test`). The
# directory's time and host name and the event file's name are fixed afterwards
# (`Dec01_10-00-0N_fixture_lr…`), keeping the pattern SummaryWriter uses.
# ---------------------------------------------------------------------------
TORCH_TB_LRS = ["0.01", "0.1", "1.0"]


def gen_torch_tensorboard() -> None:
    import torch
    from torch import nn
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(1)
    proj = fresh(OUT / "torch-tensorboard") / "sgd-blobs"
    proj.mkdir()

    def blobs(n: int, seed: int):
        g = torch.Generator().manual_seed(seed)
        centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
        y = torch.randint(0, 3, (n,), generator=g)
        return centers[y] + 1.3 * torch.randn(n, 2, generator=g), y

    (xtr, ytr), (xte, yte) = blobs(600, 11), blobs(300, 12)
    cwd = os.getcwd()
    os.chdir(proj)  # SummaryWriter's default log directory is ./runs/
    try:
        for i, lr in enumerate(TORCH_TB_LRS):
            torch.manual_seed(5)
            model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 3))
            opt = torch.optim.SGD(model.parameters(), lr=float(lr))
            writer = SummaryWriter(comment=f"_lr{lr}")
            step = 0
            for epoch in range(4):
                for b in range(0, 600, 50):
                    loss = nn.functional.cross_entropy(model(xtr[b:b + 50]), ytr[b:b + 50])
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    step += 1
                    if step % 4 == 0:
                        writer.add_scalar("Loss/train", loss.item(), step)
                with torch.no_grad():
                    out = model(xte)
                    writer.add_scalar("Loss/test", nn.functional.cross_entropy(out, yte).item(), step)
                    writer.add_scalar("Accuracy/test", (out.argmax(-1) == yte).float().mean().item(), step)
            writer.close()
            logdir = Path(writer.log_dir)
            (f,) = logdir.glob("events.out.tfevents.*")
            f.rename(f.with_name("events.out.tfevents.1796000000.fixture.0"))
            logdir.rename(logdir.with_name(f"Dec01_10-00-0{i}_fixture_lr{lr}"))
    finally:
        os.chdir(cwd)


# ---------------------------------------------------------------------------
# Keras CSVLogger: keras's own callback, driven by hand (no training, no model):
# on_train_begin / on_epoch_end(epoch, logs) / on_train_end, as fit() calls it.
# ---------------------------------------------------------------------------
KERAS_ARMS = [
    ("cnn_dropout0.2", [0.842, 0.871, 0.884], [0.431, 0.352, 0.322]),
    ("cnn_dropout0.5", [0.829, 0.866, 0.889], [0.462, 0.366, 0.309]),
]


def gen_keras() -> None:
    # jax in the frameworks venv; the tf venv has TensorFlow instead.
    os.environ.setdefault("KERAS_BACKEND", "jax" if importlib.util.find_spec("jax") else "tensorflow")
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
# Keras's TensorBoard callback, for real: `model.fit(..., callbacks=[TensorBoard(log_dir)])`
# with TensorFlow as Keras 3's backend (the callback writes through tf.summary, so it
# needs TensorFlow; `scripts/py-venvs.sh tf`). A small MLP (20 -> 64 -> dropout -> 10)
# learns synthetic 10-class Gaussian blobs (2,000 train / 500 validation examples,
# fixed seeds, op determinism on), dropout 0.2 and 0.5, 3 epochs, Adam 1e-3. The
# callback writes one run as `logs/fit/<run>/train/` and `validation/` event
# directories; each file is renamed `events.out.tfevents.1796000000.fixture.<split>.v2`
# (the callback names it by time, host and pid).
# ---------------------------------------------------------------------------
KERAS_TB_ARMS = [0.2, 0.5]


def gen_keras_tensorboard() -> None:
    os.environ["KERAS_BACKEND"] = "tensorflow"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import keras
    import tensorflow as tf

    rng = np.random.default_rng(11)
    centres = rng.normal(0, 1.0, size=(10, 20))

    def blobs(n: int):
        y = rng.integers(0, 10, size=n)
        x = centres[y] + rng.normal(0, 1.6, size=(n, 20))
        return x.astype("float32"), y.astype("int64")

    x_train, y_train = blobs(2000)
    x_val, y_val = blobs(500)
    base = fresh(OUT / "keras-tensorboard") / "fashion-tb" / "logs" / "fit"
    tf.config.experimental.enable_op_determinism()
    for dropout in KERAS_TB_ARMS:
        keras.utils.set_random_seed(3)
        model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(64, activation="relu"),
                                  keras.layers.Dropout(dropout), keras.layers.Dense(10, activation="softmax")])
        model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
        run = base / f"dropout{dropout}"
        model.fit(x_train, y_train, validation_data=(x_val, y_val), epochs=3, batch_size=64, verbose=0,
                  callbacks=[keras.callbacks.TensorBoard(log_dir=str(run))])
        for sub in ("train", "validation"):
            (f,) = (run / sub).glob("events.out.tfevents.*")
            f.rename(f.with_name(f"events.out.tfevents.1796000000.fixture.{sub}.v2"))


# ---------------------------------------------------------------------------
# W&B offline runs that were never synced: a hidden-size sweep of a character RNN,
# one process per run with `wandb.init(mode="offline", id=..., name=...)`, as a
# training script on a machine without network would run it. Nothing is materialised:
# an unsynced run directory holds only W&B's transaction log `run-<id>.wandb` (plus
# requirements.txt and the debug logs, pruned), and attest reads that log. The last run
# is killed mid-way (os._exit after three epochs, no `finish`), so its log has history
# but no exit record and no summary record. The curves are fixed numbers (a stand-in
# for training); what is real is everything W&B writes.
# ---------------------------------------------------------------------------
WANDB_OFFLINE_PROJECT = "char-rnn"
WANDB_OFFLINE_PROGRAM = "train_char_rnn.py"
WANDB_OFFLINE_RUNS = [
    # id, display name, hidden, val_loss per epoch, val_acc per epoch, killed after epoch
    ("hs064a1q", "hidden-64", 64, [2.31, 1.98, 1.84, 1.77, 1.74], [0.351, 0.418, 0.447, 0.462, 0.469], None),
    ("hs128b2r", "hidden-128", 128, [2.12, 1.79, 1.63, 1.55, 1.51], [0.384, 0.455, 0.489, 0.505, 0.514], None),
    # Overfits: its last epoch is not its best (best_val_loss goes to the summary by hand).
    ("hs256c3s", "hidden-256", 256, [2.05, 1.71, 1.56, 1.52, 1.53], [0.397, 0.468, 0.501, 0.511, 0.509], None),
    # Killed (OOM, a pre-empted node) after its third epoch; W&B had flushed only its
    # first 32 KiB block (two epochs): its epoch-2 val_acc 0.521 would "win".
    ("hs512d4t", "hidden-512", 512, [1.98, 1.47, 1.41], [0.409, 0.521, 0.532], 2),
]

WANDB_OFFLINE_SCRIPT = textwrap.dedent('''\
    """Stand-in for a training script: logs a fixed curve to W&B, offline."""
    import json, math, os, time
    import wandb

    BATCHES = 50
    spec = json.loads(os.environ["FIXTURE_RUN"])
    run = wandb.init(project=spec["project"], id=spec["id"], name=spec["name"], mode="offline",
                     dir=os.getcwd(), config=dict(hidden=spec["hidden"], lr=0.002, batch_size=64,
                                                  dataset="tiny-shakespeare"))
    # The validation set's size (characters), put in the summary once, as a script does.
    run.summary["n_val"] = 55770
    for epoch, (vl, va) in enumerate(zip(spec["val_loss"], spec["val_acc"])):
        for b in range(BATCHES):
            step = epoch * BATCHES + b
            row = {"train_loss": round(vl - 0.1 + 0.6 * math.exp(-step / 40) * (1 + 0.1 * math.sin(step)), 4)}
            if b == BATCHES - 1:
                row.update(val_loss=vl, val_acc=va, epoch=epoch)
            run.log(row)
        if spec["killed_after"] == epoch:
            # Die as an OOM-killed process does: no finish(), no exit hooks. W&B's
            # service writes its log through a buffer, so the tail it held is lost.
            time.sleep(3)
            os._exit(137)
    run.summary["best_val_loss"] = min(spec["val_loss"])
    run.finish()
''')


def gen_wandb_offline() -> None:
    dest = fresh(OUT / "wandb-offline") / WANDB_OFFLINE_PROJECT
    dest.mkdir()
    script = dest / WANDB_OFFLINE_PROGRAM
    script.write_text(WANDB_OFFLINE_SCRIPT)
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true", WANDB_DISABLE_GIT="true",
               WANDB_DISABLE_CODE="true", WANDB_CONSOLE="off", WANDB_X_DISABLE_STATS="true")
    for rid, name, hidden, val_loss, val_acc, killed in WANDB_OFFLINE_RUNS:
        env["FIXTURE_RUN"] = json.dumps(dict(project=WANDB_OFFLINE_PROJECT, id=rid, name=name, hidden=hidden,
                                             val_loss=val_loss, val_acc=val_acc, killed_after=killed))
        done = subprocess.run([sys.executable, WANDB_OFFLINE_PROGRAM], cwd=dest, env=env)
        if done.returncode != (137 if killed is not None else 0):
            raise SystemExit(f"wandb-offline: {name} exited {done.returncode}")
        # The killed run's W&B service notices its client is gone and closes the log.
        time.sleep(2)
    script.unlink()
    wdir = dest / "wandb"
    for run_dir in sorted(p for p in wdir.iterdir() if p.is_dir() and not p.is_symlink()):
        # Debug logs (machine paths), the venv's requirements.txt, empty tmp/.
        for sub in ("logs", "tmp"):
            shutil.rmtree(run_dir / sub, ignore_errors=True)
        (run_dir / "files" / "requirements.txt").unlink(missing_ok=True)
        if (run_dir / "files").is_dir() and not any((run_dir / "files").iterdir()):
            (run_dir / "files").rmdir()
    for p in wdir.iterdir():
        if (p.is_symlink() and p.name != "latest-run") or p.is_file():
            p.unlink()


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
              "tensorboard": gen_tensorboard, "keras-tensorboard": gen_keras_tensorboard, "dvc": gen_dvc,
              "torch-tensorboard": gen_torch_tensorboard, "wandb-offline": gen_wandb_offline}
# The package each generator needs, i.e. which venv runs it.
NEEDS = {"hf": "transformers", "lightning": "lightning", "keras": "keras", "sacred": "sacred", "hydra": "hydra",
         "tensorboard": "tensorboardX", "keras-tensorboard": "tensorflow", "dvc": "dvc",
         "torch-tensorboard": "tensorboard", "wandb-offline": "wandb"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=sorted(GENERATORS))
    args = ap.parse_args()
    for name, gen in GENERATORS.items():
        if args.only and args.only != name:
            continue
        if not args.only and importlib.util.find_spec(NEEDS[name]) is None:
            print(f"left {name}: {NEEDS[name]} is not in this venv", file=sys.stderr)
            continue
        gen()
        print(f"wrote {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
