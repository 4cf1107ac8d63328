#!/usr/bin/env bash
# The long concurrency run (specs/reliability.md): four feed surfaces rating, a
# provenance surface reading, `attest ingest` and `attest runs scan` in loops and
# `attest web` serving pages, on one SQLite file, for SECONDS (default 60), with the
# checks of bins/attest/tests/concurrency.rs (CI runs the same test for 10 s).
#
#   scripts/concurrency.sh [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ATTEST_CONCURRENCY_SECS="${1:-60}"
cargo test --release -p attest --test concurrency -- --nocapture
