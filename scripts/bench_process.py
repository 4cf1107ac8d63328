#!/usr/bin/env python3
"""Whole-process figures for a surface binary: time from spawn to the answer of
`tools/list` over stdio, and resident memory once idle.

    scripts/bench_process.py target/release/attest-provenance [--runs 30]

Speaks raw JSON-RPC over the pipes (no SDK on the path being timed). Prints p50/p90
start-up time and the idle RSS; asserts nothing.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time


def rpc(proc, msg):
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()


def read_id(proc, want):
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("server closed stdout: " + proc.stderr.read().decode(errors="replace"))
        msg = json.loads(line)
        if msg.get("id") == want:
            return msg


def once(binary, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    read_id(proc, 1)
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = read_id(proc, 2)
    elapsed = time.perf_counter() - t0
    time.sleep(0.3)
    rss_kb = 0
    with open(f"/proc/{proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss_kb = int(line.split()[1])
    proc.stdin.close()
    proc.wait(timeout=5)
    return elapsed, rss_kb, len(tools["result"]["tools"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, ATTEST_DB=os.path.join(tmp, "bench.db"))
    env.setdefault("RESEARCH_ROOT", tmp)
    once(a.binary, env)  # create and migrate the database once, outside the timing
    times, rss = [], []
    for _ in range(a.runs):
        t, r, n = once(a.binary, env)
        times.append(t * 1000)
        rss.append(r / 1024)
    times.sort()
    print(f"{os.path.basename(a.binary)}: {n} tools listed; start to tools/list p50 {statistics.median(times):.1f} ms, "
          f"p90 {times[int(len(times) * 0.9) - 1]:.1f} ms over {a.runs} runs; idle RSS median {statistics.median(rss):.1f} MB")


if __name__ == "__main__":
    main()
