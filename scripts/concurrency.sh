#!/usr/bin/env bash
# The long concurrency run (specs/reliability.md): four feed surfaces rating, a
# provenance surface reading, `attest ingest` and `attest runs scan` in loops and
# `attest web` serving pages, on one database, for SECONDS (default 60), with the
# checks of bins/attest/tests/concurrency.rs (CI runs the same test for 10 s).
#
#   scripts/concurrency.sh [SECONDS] [DATABASE]
#
# DATABASE: `sqlite` (the default: a new SQLite file) or a PostgreSQL test database's
# address (postgres://root@127.0.0.1:5432/test), on which the run gets a fresh schema,
# dropped after. Release build; PROFILE=dev runs the debug build instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ATTEST_CONCURRENCY_SECS="${1:-60}"
DATABASE="${2:-sqlite}"
case "$DATABASE" in
    sqlite) unset ATTEST_TEST_POSTGRES; PREFIX= ;;
    postgres://* | postgresql://*) export ATTEST_TEST_POSTGRES="$DATABASE"; PREFIX=postgres_ ;;
    *) echo "concurrency.sh: DATABASE is sqlite or a postgres:// address, not $DATABASE" >&2; exit 2 ;;
esac
cargo test --profile "${PROFILE:-release}" -p attest --test concurrency -- --nocapture --exact \
    "$PREFIX"surfaces_ingest_scan_and_web_share_one_database_without_losing_a_rating
