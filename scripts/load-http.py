#!/usr/bin/env python3
"""Load over Streamable HTTP: many concurrent MCP sessions asking `<ns>.ask`, with slow
clients holding connections open at the same time.

    scripts/load-http.py [--attest target/release/attest] [--surface provenance]
                         [--sessions 200] [--calls 5] [--slow 50]
                         [--db sqlite] [--db postgres://root@127.0.0.1:5432/test]

Starts `attest serve --surface S --http 127.0.0.1:PORT` on a fresh database and a copy
of examples/workspace (scanned first). `--db` says which database, and may be given more
than once to measure each back to back in one invocation: `sqlite` (the default) is a
new SQLite file; a `postgres://` address is a fresh schema of that database (made and
dropped with `psql`, named `attest_t_<pid>_load…` so `.ci/run`'s clean-up also finds
one a crash left). Then, per database, at once:
  - SESSIONS clients, each: initialize, notifications/initialized, then CALLS
    `tools/call <ns>.ask` with a question from the surface's list, one after another;
  - SLOW clients that send half a request head and then nothing (slowloris): the
    server must close them (ATTEST_HTTP_HEADER_SECS, set to 5 here) without delaying
    the others.
Prints p50/p90/p99/max of the `<ns>.ask` latency, errors (a non-200 status, a JSON-RPC
error, isError, or an answer that is not an attest Answer), how many slow connections
were closed by the server, and the wall time. Exit 1 on any error or a slow
connection left open. With more than one database, a last line gives each one's
p50 and p99 as a ratio to the first's. Standard library only (and `psql` for
PostgreSQL); raw HTTP/1.1 so no client library is on the timed path.
"""
import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUESTIONS = {
    "provenance": ("runs", ["which arm of the kdalpha sweep won?", "list the runs", "compare the prompt family on rouge"]),
    "feed": ("feed", ["what should I read today?", "search for distillation"]),
    "knowledge": ("kg", ["what is related to distillation?", "which concepts are central?"]),
    "symbolic": ("sym", ["simplify (x^2-1)/(x-1)", "differentiate x^3 sin(x)", "solve x^2 - 5x + 6 = 0"]),
}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def post(port, body, session=None, version="2025-06-18"):
    """One POST /mcp; returns (status, headers, messages)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {len(data)}",
        "Connection: close",
    ]
    if session:
        head += [f"Mcp-Session-Id: {session}", f"Mcp-Protocol-Version: {version}"]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    headers = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
    if headers.get("transfer-encoding") == "chunked":
        out, rest = b"", payload
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        payload = out
    text = payload.decode(errors="replace")
    messages = []
    if "text/event-stream" in headers.get("content-type", ""):
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                messages.append(json.loads(line[5:]))
    elif text.strip():
        messages.append(json.loads(text))
    return status, headers, messages


async def one_session(port, ns, questions, calls, latencies, errors, i):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}}
    try:
        status, headers, _ = await post(port, init)
        sid = headers.get("mcp-session-id")
        if status != 200 or not sid:
            errors.append(f"session {i}: initialize got {status}")
            return
        await post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        for c in range(calls):
            q = questions[(i + c) % len(questions)]
            body = {"jsonrpc": "2.0", "id": 10 + c, "method": "tools/call",
                    "params": {"name": f"{ns}.ask", "arguments": {"question": q}}}
            t0 = time.perf_counter()
            status, _, messages = await post(port, body, sid)
            latencies.append(time.perf_counter() - t0)
            result = next((m for m in messages if m.get("id") == 10 + c), None)
            if status != 200 or result is None or "error" in result:
                errors.append(f"session {i} call {c}: status {status}: {messages[:1]}")
                continue
            r = result["result"]
            sc = r.get("structuredContent") or {}
            if r.get("isError") or not isinstance(sc.get("ok"), bool) or not sc.get("answer"):
                errors.append(f"session {i} call {c}: {json.dumps(r)[:300]}")
    except Exception as e:  # a reset or refused connection is an error too
        errors.append(f"session {i}: {type(e).__name__}: {e}")


async def slow_client(port, closed):
    """Half a request head, then silence: count it if the server closes the socket."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout=60)
        closed.append(len(data))
        writer.close()
    except asyncio.TimeoutError:
        pass
    except (ConnectionError, OSError):
        closed.append(0)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def main_async(a, port):
    ns, questions = QUESTIONS[a.surface]
    latencies, errors, closed = [], [], []
    t0 = time.perf_counter()
    slow = [asyncio.create_task(slow_client(port, closed)) for _ in range(a.slow)]
    await asyncio.sleep(0.2)
    await asyncio.gather(*(one_session(port, ns, questions, a.calls, latencies, errors, i) for i in range(a.sessions)))
    wall = time.perf_counter() - t0
    await asyncio.gather(*slow)
    return ns, latencies, errors, closed, wall


def psql(base, sql):
    subprocess.run(["psql", base, "-qAtc", "SET client_min_messages = warning; " + sql], check=True,
                   stdout=subprocess.DEVNULL)


def fresh_database(db, work, n):
    """The ATTEST_DB setting for `db`, and how to drop it afterwards."""
    if db == "sqlite":
        return os.path.join(work, "attest.db"), lambda: None
    if not db.startswith(("postgres://", "postgresql://")):
        sys.exit(f"--db takes sqlite or a postgres:// address, not {db!r}")
    schema = f"attest_t_{os.getpid()}_load_{n}"
    psql(db, f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
    url = db + ("&" if "?" in db else "?") + f"options[search_path]={schema}"
    return url, lambda: psql(db, f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def run_one(a, db, n):
    work = tempfile.mkdtemp()
    root = os.path.join(work, "root")
    shutil.copytree(os.path.join(ROOT, "examples/workspace"), root)
    setting, drop = fresh_database(db, work, n)
    env = dict(os.environ, ATTEST_DB=setting, RESEARCH_ROOT=root, HOME=work,
               ATTEST_HTTP_HEADER_SECS="5")
    try:
        return run_in(a, env, work, root, db)
    finally:
        drop()
        shutil.rmtree(work, ignore_errors=True)


def run_in(a, env, work, root, db):
    subprocess.run([a.attest, "runs", "scan"], env=env, check=True, stdout=subprocess.DEVNULL)
    if a.surface == "feed":
        subprocess.run([a.attest, "feed", "personas", "create", "ada", "speech recognition"], env=env,
                       check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    server = subprocess.Popen([a.attest, "serve", "--surface", a.surface, "--http", f"127.0.0.1:{port}"],
                              env=env, stderr=open(os.path.join(work, "server.log"), "w"))
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        ns, lat, errors, closed, wall = asyncio.run(main_async(a, port))
    finally:
        server.terminate()
        server.wait(timeout=60)
    ms = [x * 1000 for x in lat]
    report = {
        "db": "sqlite" if db == "sqlite" else "postgres",
        "surface": a.surface, "sessions": a.sessions, "calls_per_session": a.calls, "calls": len(ms),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p90_ms": round(pct(ms, 90), 1) if ms else None,
        "p99_ms": round(pct(ms, 99), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
        "errors": len(errors), "slow_clients": a.slow, "slow_closed_by_server": len(closed),
        "wall_s": round(wall, 2),
    }
    print(json.dumps(report), flush=True)
    for e in errors[:10]:
        print("error:", e, file=sys.stderr)
    return report, not errors and len(closed) == a.slow


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attest", default=os.path.join(ROOT, "target/release/attest"))
    ap.add_argument("--surface", default="provenance", choices=sorted(QUESTIONS))
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--slow", type=int, default=50)
    ap.add_argument("--db", action="append", metavar="sqlite|postgres://…",
                    help="database to measure on (repeat to measure several back to back; default sqlite)")
    a = ap.parse_args()
    reports, good = [], True
    for n, db in enumerate(a.db or ["sqlite"]):
        report, ok = run_one(a, db, n)
        reports.append(report)
        good = good and ok
    if len(reports) > 1 and reports[0]["p50_ms"]:
        first = reports[0]
        print(json.dumps({"ratio_to": first["db"], **{
            r["db"]: {"p50": round(r["p50_ms"] / first["p50_ms"], 2), "p99": round(r["p99_ms"] / first["p99_ms"], 2)}
            for r in reports[1:] if r["p50_ms"]}}))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
