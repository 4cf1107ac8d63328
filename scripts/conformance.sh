#!/usr/bin/env bash
# The official MCP conformance suite and the TypeScript SDK client against attest.
#
#   scripts/conformance.sh            # every surface
#   scripts/conformance.sh feed sym   # some (by surface name or namespace)
#
# For each surface: `attest serve --surface <name> --http 127.0.0.1:<port>` on a fresh
# database and a copy of examples/workspace, then
#   1. @modelcontextprotocol/conformance `server` (the active suite) with the committed
#      baseline tests/conformance/baseline.yml: the step fails on any scenario that
#      fails and is not in the baseline, and on a baseline entry that now passes;
#   2. tests/conformance/sdk_client.mjs (the TypeScript SDK client) over that HTTP
#      server, and again over stdio (`attest serve --surface <name>`).
#
# Node 22, the suite and the SDK are pinned in tests/conformance/package.json (and its
# lock file) and installed with the system's npm under target/conformance (Node itself
# is the npm package `node`); a stamp keeps a second run from reinstalling. The attest
# binary is target/debug/attest (built if missing), or $ATTEST_BIN.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/target/conformance"
SRC="$ROOT/tests/conformance"
ATTEST="${ATTEST_BIN:-$ROOT/target/debug/attest}"

want="$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ ! -x "$DIR/node_modules/.bin/node" || "$(cat "$DIR/.stamp" 2>/dev/null)" != "$want" ]]; then
    echo "conformance: installing the pinned Node 22, suite and SDK under $DIR" >&2
    rm -rf "$DIR" && mkdir -p "$DIR"
    cp "$SRC/package.json" "$SRC/package-lock.json" "$DIR/"
    (cd "$DIR" && npm ci --no-audit --no-fund --loglevel=error >&2)
    echo "$want" >"$DIR/.stamp"
fi
cp "$SRC/sdk_client.mjs" "$DIR/"
export PATH="$DIR/node_modules/.bin:$PATH"
echo "conformance: node $(node --version), suite $(conformance --version)" >&2
[[ -x "$ATTEST" ]] || cargo build -q -p attest

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

SURFACES=(provenance:runs feed:feed knowledge:kg symbolic:sym)
if [[ $# -gt 0 ]]; then
    picked=()
    for s in "${SURFACES[@]}"; do for a in "$@"; do [[ "$s" == "$a:"* || "$s" == *":$a" ]] && picked+=("$s"); done; done
    SURFACES=("${picked[@]}")
fi

status=0
pid=""
work=""
cleanup() {
    [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    [[ -n "$work" ]] && rm -rf "$work"
    return 0
}
trap cleanup EXIT
for entry in "${SURFACES[@]}"; do
    surface="${entry%%:*}"
    ns="${entry##*:}"
    work="$(mktemp -d)"
    mkdir -p "$work/root"
    cp -r "$ROOT/examples/workspace/." "$work/root/"
    export ATTEST_DB="$work/attest.db" RESEARCH_ROOT="$work/root" HOME="$work"
    port="$(free_port)"
    "$ATTEST" serve --surface "$surface" --http "127.0.0.1:$port" 2>"$work/server.log" &
    pid=$!
    for _ in $(seq 1 200); do
        if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
        sleep 0.05
    done
    url="http://127.0.0.1:$port/mcp"
    echo "== conformance: $surface ($url)"
    if ! conformance server --url "$url" --expected-failures "$SRC/baseline.yml" -o "$DIR/results/$surface"; then
        echo "conformance: $surface has unexpected results (above); server log: $(tail -5 "$work/server.log")" >&2
        status=1
    fi
    echo "== TypeScript SDK client: $surface over HTTP"
    node "$DIR/sdk_client.mjs" --ns "$ns" --url "$url" || status=1
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    pid=""
    echo "== TypeScript SDK client: $surface over stdio"
    node "$DIR/sdk_client.mjs" --ns "$ns" --stdio "$ATTEST" serve --surface "$surface" || status=1
    rm -rf "$work"
    work=""
done
exit $status
