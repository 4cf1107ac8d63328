#!/usr/bin/env bash
# Start-up time and idle memory of every surface binary, release build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --bins --quiet
for b in target/release/attest-provenance target/release/attest-feed target/release/attest-knowledge target/release/attest-symbolic; do
    [[ -x "$b" ]] && python3 scripts/bench_process.py "$b" --runs "${RUNS:-30}"
done
