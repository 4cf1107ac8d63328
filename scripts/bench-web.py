#!/usr/bin/env python3
"""Benchmark `attest web` on loopback: /feed/{user} over a large archive, /ledger/{family}
with many arms (the SVG plot included), and the server's idle memory.

    cargo build --release -p attest
    python3 scripts/bench-web.py [--bin target/release/attest] [--items 100000] [--arms 50] [--requests 60]

Builds a throwaway database in a temporary directory: `--items` synthetic items in ten
Atom feeds (ingested with `attest ingest`), one reader, and a project whose family has
`--arms` arms. Then starts `attest web --addr 127.0.0.1:0`, reads its resident memory
from /proc after start-up (idle), and times sequential requests (a warm-up first, so
the ranking index is built once, as it is for a person who opens the page twice).
Times are client-side on loopback, so they include the server's time and the transfer.
With `--autocannon PATH` (the npm package's CLI: `npm install autocannon@8`, then
`node_modules/.bin/autocannon`), it also loads both pages for `--seconds` with
`--connections` concurrent connections and reports autocannon's latency percentiles and
request rate (concurrent load on loopback; the 2 cores are shared with the client).
Prints one JSON object.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from xml.sax.saxutils import escape

WORDS = ("attention transformer quantisation pruning distillation retrieval embeddings reranking serving latency "
         "batching cache pipeline parallelism gradient optimizer checkpoint precision tensor kernel compiler "
         "scheduling memory throughput inference training dataset benchmark evaluation robustness alignment "
         "catalysis synthesis ligand hydrogenation spectroscopy protein folding genome sequencing microscopy "
         "graph network diffusion sampling reinforcement policy reward planning control robotics vision speech").split()


def feeds(dirpath, n_items):
    rnd = random.Random(7)
    files = []
    per = max(1, n_items // 10)
    for f in range(10):
        path = os.path.join(dirpath, f"bench{f}.atom")
        with open(path, "w") as out:
            out.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n')
            out.write(f"<title>Bench feed {f}</title><id>urn:bench:{f}</id>\n")
            for i in range(per):
                t = " ".join(rnd.choice(WORDS) for _ in range(8))
                s = " ".join(rnd.choice(WORDS) for _ in range(40))
                cats = "".join(f'<category term="{rnd.choice(WORDS)}"/>' for _ in range(3))
                day = 1 + (i % 28)
                out.write(f"<entry><id>urn:bench:{f}:{i}</id><title>{escape(t)}</title>"
                          f'<link href="https://example.org/{f}/{i}"/><updated>2026-11-{day:02d}T00:00:00Z</updated>'
                          f"<summary>{escape(s)}</summary>{cats}</entry>\n")
            out.write("</feed>\n")
        files.append(path)
    return files


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def timed(url, n):
    t0 = time.perf_counter()
    with urllib.request.urlopen(url) as r:  # the first request builds what later ones reuse
        body = r.read().decode()
    first = (time.perf_counter() - t0) * 1000
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        with urllib.request.urlopen(url) as r:
            r.read()
            assert r.status == 200, r.status
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return {"first_ms": round(first, 1), "p50_ms": round(statistics.median(out), 1),
            "p90_ms": round(out[int(len(out) * 0.9) - 1], 1), "min_ms": round(out[0], 1),
            "page_kib": round(len(body.encode()) / 1024, 1), "rows": body.count('data-item="') or body.count("<tr")}


def load(autocannon, url, connections, seconds):
    """autocannon's summary of `seconds` of load with `connections` connections."""
    r = subprocess.run([autocannon, "-j", "-c", str(connections), "-d", str(seconds), url],
                       check=True, capture_output=True, text=True)
    j = json.loads(r.stdout)
    lat = j["latency"]
    return {"connections": connections, "seconds": seconds, "requests": j["requests"]["total"],
            "req_per_s": round(j["requests"]["average"], 1), "p50_ms": lat["p50"], "p90_ms": lat["p90"],
            "p99_ms": lat["p99"], "non_2xx": j.get("non2xx", 0), "errors": j.get("errors", 0)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/attest")
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--arms", type=int, default=50)
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--autocannon", help="path to the autocannon CLI, for a concurrent load run")
    ap.add_argument("--connections", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=10)
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ATTEST_DB=os.path.join(tmp, "bench.db"), RESEARCH_ROOT=os.path.join(tmp, "ws"))
        env.pop("EMBED_BASE_URL", None)
        res = os.path.join(tmp, "ws", "bigsweep", "results")
        os.makedirs(res)
        rnd = random.Random(3)
        for i in range(a.arms):
            with open(os.path.join(res, f"bigsweep_lr{i:02d}.json"), "w") as f:
                json.dump({"wer": round(0.07 + rnd.random() * 0.02, 4), "n_records": 2400}, f)
        files = feeds(tmp, a.items)
        with open(os.path.join(tmp, "feeds.toml"), "w") as f:
            for p in files:
                f.write(f'[[feeds]]\nurl = "{p}"\ntitle = "{os.path.basename(p)}"\n\n')
        t0 = time.time()
        run = lambda *args: subprocess.run([binary, *args], env=env, check=True, capture_output=True, text=True)
        run("runs", "scan")
        run("ingest", "--feeds", os.path.join(tmp, "feeds.toml"))
        run("feed", "personas", "create", "bench", "quantisation, serving latency, retrieval")
        setup_s = round(time.time() - t0, 1)
        web = subprocess.Popen([binary, "web", "--addr", "127.0.0.1:0"], env=env, stderr=subprocess.PIPE, text=True)
        try:
            line = web.stderr.readline()
            base = "http://" + line.split("http://")[1].split("/")[0]
            time.sleep(1.0)
            idle = rss_kib(web.pid)
            out = {
                "items": a.items, "arms": a.arms, "requests": a.requests, "setup_s": setup_s,
                "idle_rss_mib": round(idle / 1024, 1),
                "feed": timed(f"{base}/feed/bench", a.requests),
                "ledger_family": timed(f"{base}/ledger/bigsweep?project=bigsweep", a.requests),
                "rss_after_mib": round(rss_kib(web.pid) / 1024, 1),
            }
            if a.autocannon:
                for name, url in (("feed", f"{base}/feed/bench"),
                                  ("ledger_family", f"{base}/ledger/bigsweep?project=bigsweep")):
                    out[f"load_{name}"] = load(a.autocannon, url, a.connections, a.seconds)
                out["rss_after_load_mib"] = round(rss_kib(web.pid) / 1024, 1)
        finally:
            web.terminate()
            web.wait()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.exit(main())
