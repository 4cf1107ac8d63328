#!/usr/bin/env python3
"""Load over Streamable HTTP: many concurrent MCP sessions asking `<ns>.ask`, with slow
clients holding connections open at the same time.

    scripts/load-http.py [--attest target/release/attest] [--surface provenance]
                         [--sessions 200] [--calls 5] [--slow 50]

Starts `attest serve --surface S --http 127.0.0.1:PORT` on a fresh database and a copy
of examples/workspace (scanned first), then at once:
  - SESSIONS clients, each: initialize, notifications/initialized, then CALLS
    `tools/call <ns>.ask` with a question from the surface's list, one after another;
  - SLOW clients that send half a request head and then nothing (slowloris): the
    server must close them (ATTEST_HTTP_HEADER_SECS, set to 5 here) without delaying
    the others.
Prints p50/p90/p99/max of the `<ns>.ask` latency, errors (a non-200 status, a JSON-RPC
error, isError, or an answer that is not an attest Answer), how many slow connections
were closed by the server, and the wall time. Exit 1 on any error or a slow
connection left open. Standard library only; raw HTTP/1.1 so no client library is on
the timed path.
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attest", default=os.path.join(ROOT, "target/release/attest"))
    ap.add_argument("--surface", default="provenance", choices=sorted(QUESTIONS))
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--slow", type=int, default=50)
    a = ap.parse_args()
    work = tempfile.mkdtemp()
    root = os.path.join(work, "root")
    shutil.copytree(os.path.join(ROOT, "examples/workspace"), root)
    env = dict(os.environ, ATTEST_DB=os.path.join(work, "attest.db"), RESEARCH_ROOT=root, HOME=work,
               ATTEST_HTTP_HEADER_SECS="5")
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
        shutil.rmtree(work, ignore_errors=True)
    ms = [x * 1000 for x in lat]
    report = {
        "surface": a.surface, "sessions": a.sessions, "calls_per_session": a.calls, "calls": len(ms),
        "p50_ms": round(statistics.median(ms), 1) if ms else None,
        "p90_ms": round(pct(ms, 90), 1) if ms else None,
        "p99_ms": round(pct(ms, 99), 1) if ms else None,
        "max_ms": round(max(ms), 1) if ms else None,
        "errors": len(errors), "slow_clients": a.slow, "slow_closed_by_server": len(closed),
        "wall_s": round(wall, 2),
    }
    print(json.dumps(report))
    for e in errors[:10]:
        print("error:", e, file=sys.stderr)
    return 0 if not errors and len(closed) == a.slow else 1


if __name__ == "__main__":
    sys.exit(main())
