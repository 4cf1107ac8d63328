#!/usr/bin/env bash
# Run every fuzz target in fuzz/ for a bounded time (cargo-fuzz on stable Rust, with
# --sanitizer none: libFuzzer's coverage guidance without a sanitizer, which would need
# nightly).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    # default 20 s per target, every target
#
# Each run starts from the committed corpus fuzz/corpus/<target> (read only: new inputs
# go to target/fuzz-corpus/<target>) and fails on the first panic, assertion or crash;
# libFuzzer then writes the input to fuzz/artifacts/<target>/ (reproduce with
# `cargo fuzz run -s none <target> <file>`). cargo-fuzz itself is installed once, pinned,
# under target/tools.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-20}"
shift || true
CARGO_FUZZ_VERSION=0.13.2
TOOLS="$ROOT/target/tools"
export PATH="$TOOLS/bin:$PATH"
if [[ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]]; then
    echo "fuzz: installing cargo-fuzz $CARGO_FUZZ_VERSION under $TOOLS" >&2
    cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION" --root "$TOOLS"
fi
cd "$ROOT/fuzz"
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then mapfile -t TARGETS < <(cargo fuzz list); fi
# Built once for all targets, unoptimised with debug assertions (quicker to build than
# the release default; still thousands of executions a second).
FUZZ_TARGET_DIR="$ROOT/target/fuzz"
cargo fuzz build --sanitizer none --dev --target-dir "$FUZZ_TARGET_DIR"
for t in "${TARGETS[@]}"; do
    mkdir -p "$ROOT/target/fuzz-corpus/$t"
    echo "== fuzz $t (${SECONDS_EACH} s)"
    log="$ROOT/target/fuzz-corpus/$t.log"
    status=0
    cargo fuzz run --sanitizer none --dev --target-dir "$FUZZ_TARGET_DIR" "$t" "$ROOT/target/fuzz-corpus/$t" "corpus/$t" -- \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [[ $status -ne 0 ]]; then
        grep -E "panicked|ERROR|SUMMARY|Test unit written|artifact" "$log" | head -20 >&2 || true
        echo "fuzz: $t failed (log: $log); the input is under fuzz/artifacts/$t" >&2
        exit 1
    fi
done
