#!/usr/bin/env bash
# Run every fuzz target in fuzz/ for a bounded time: libFuzzer's coverage-guided search
# on the stable toolchain, without a sanitizer (which would need nightly).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    # default 20 s per target, every target
#
# The targets are built with plain cargo and the flags cargo-fuzz passes for
# `cargo fuzz build --sanitizer none --dev` (SanitizerCoverage with 8-bit counters, a PC
# table and compare tracing, `--cfg fuzzing`, debug assertions, overflow checks), for an
# explicit --target so build scripts and proc macros stay uninstrumented; no cargo-fuzz
# install is needed (it cost four minutes of a cold run). Debug info is off: the build is
# what a cold CI run pays for, and a crash is reproduced from its input anyway.
#
# Each run starts from the committed corpus fuzz/corpus/<target> (read only: new inputs
# go to target/fuzz-corpus/<target>) and fails on the first panic, assertion or crash;
# libFuzzer then writes the input to fuzz/artifacts/<target>/. Reproduce with
#   target/fuzz/<triple>/debug/<target> fuzz/artifacts/<target>/<file>
# or replay every corpus in `cargo test -p attest --test fuzz_corpus`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-20}"
shift || true
cd "$ROOT/fuzz"
TARGETS=("$@")
if [[ ${#TARGETS[@]} -eq 0 ]]; then
    mapfile -t TARGETS < <(sed -n 's/^name = "\([a-z_]*\)"$/\1/p' Cargo.toml | grep -v '^attest-fuzz$')
fi
TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
FUZZ_TARGET_DIR="$ROOT/target/fuzz"
RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module \
-Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
-Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares \
-Cdebug-assertions -Coverflow-checks" \
CARGO_PROFILE_DEV_DEBUG=0 \
    cargo build --locked --bins --target "$TRIPLE" --target-dir "$FUZZ_TARGET_DIR"
BIN="$FUZZ_TARGET_DIR/$TRIPLE/debug"
for t in "${TARGETS[@]}"; do
    mkdir -p "$ROOT/target/fuzz-corpus/$t" "$ROOT/fuzz/artifacts/$t"
    echo "== fuzz $t (${SECONDS_EACH} s)"
    log="$ROOT/target/fuzz-corpus/$t.log"
    status=0
    "$BIN/$t" "$ROOT/target/fuzz-corpus/$t" "corpus/$t" \
        -artifact_prefix="$ROOT/fuzz/artifacts/$t/" \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
    if [[ $status -ne 0 ]]; then
        grep -E "panicked|ERROR|SUMMARY|Test unit written|artifact" "$log" | head -20 >&2 || true
        echo "fuzz: $t failed (log: $log); the input is under fuzz/artifacts/$t" >&2
        exit 1
    fi
    rmdir "$ROOT/fuzz/artifacts/$t" 2>/dev/null || true
done
rmdir "$ROOT/fuzz/artifacts" 2>/dev/null || true
