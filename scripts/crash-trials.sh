#!/usr/bin/env bash
# The long crash-safety run (specs/reliability.md): kill -9 at random points of
# `attest runs scan` over 20,000 result files, `attest ingest` of 20,000 feed items and
# `runs.record`, 50 trials each, with the checks of bins/attest/tests/crash_safety.rs
# (CI runs the same test with 10 trials over 2,000).
#
#   scripts/crash-trials.sh [TRIALS] [FILES]      # defaults 50 20000
#
# Release build (the debug one is slow to scan 20,000 files). Replay a failure with the
# ATTEST_CRASH_SEED it printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ATTEST_CRASH_TRIALS="${1:-50}" ATTEST_CRASH_FILES="${2:-20000}"
cargo test --release -p attest --test crash_safety -- --nocapture --test-threads 1
