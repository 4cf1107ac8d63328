#!/usr/bin/env bash
# The long crash-safety run (specs/reliability.md): kill -9 at random points of
# `attest runs scan` over 20,000 result files, `attest ingest` of 20,000 feed items and
# `runs.record`, 50 trials each, with the checks of bins/attest/tests/crash_safety.rs
# (CI runs the same test with 10 trials over 2,000).
#
#   scripts/crash-trials.sh [TRIALS] [FILES] [DATABASE]      # defaults 50 20000 sqlite
#
# DATABASE: `sqlite` (a SQLite file) or a PostgreSQL test database's address
# (postgres://root@127.0.0.1:5432/test), on which the trials get a fresh schema, dropped
# after. Release build (the debug one is slow to scan 20,000 files); PROFILE=dev runs
# the debug build instead. Replay a failure with the ATTEST_CRASH_SEED it printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ATTEST_CRASH_TRIALS="${1:-50}" ATTEST_CRASH_FILES="${2:-20000}"
DATABASE="${3:-sqlite}"
# The postgres_ tests return at once without ATTEST_TEST_POSTGRES; with it, only they run.
case "$DATABASE" in
    sqlite) unset ATTEST_TEST_POSTGRES; WHICH=(--skip postgres_) ;;
    postgres://* | postgresql://*) export ATTEST_TEST_POSTGRES="$DATABASE"; WHICH=(postgres_) ;;
    *) echo "crash-trials.sh: DATABASE is sqlite or a postgres:// address, not $DATABASE" >&2; exit 2 ;;
esac
cargo test --profile "${PROFILE:-release}" -p attest --test crash_safety -- --nocapture --test-threads 1 "${WHICH[@]}"
