#!/usr/bin/env python3
"""Drive an attest surface binary with the official Python MCP SDK client.

    target/py/mcp/bin/python tests/python/mcp_sdk_check.py \
        --command target/debug/attest-provenance [--arg X ...] \
        [--calls tests/python/calls_workspace.json] [--names dotted|underscore]
    target/py/mcp/bin/python tests/python/mcp_sdk_check.py \
        --url http://127.0.0.1:PORT/mcp [--calls ...]      # Streamable HTTP

The environment is passed through whole (ATTEST_DB, RESEARCH_ROOT, ATTEST_EXPAND,
...); the SDK's default would pass only PATH, HOME and a few others.

Checks, in order (each failure is reported; the exit code is 0 only if all pass):
  1. initialize succeeds; the server does not advertise resources or prompts.
  2. tools/list at start shows exactly `runs.ask` and `runs.tools`
     (with ATTEST_EXPAND=1: more `runs.*` tools than those two).
  3. calling `runs.tools` returns ok and a notifications/tools/list_changed arrives
     (not required with ATTEST_EXPAND=1); a second tools/list shows more `runs.*`
     tools; no tool outside `runs.*` / `cite.check` is ever listed.
  4. every listed tool has an outputSchema (a JSON object schema) and
     annotations with a boolean readOnlyHint.
  5. each call in --calls: the SDK validates structuredContent against the
     outputSchema and raises if it is invalid (that fails the call); isError must
     be false; structuredContent must have the Answer shape; `ok` must equal
     `expect_ok` when that is given; the text content carries the answer line and
     is not a second copy of the JSON; the serialized result stays under 7,000
     characters.

  6. the SDK logs no warning or error of its own (over HTTP it logged "Session
     termination failed: 202" when DELETE answered 202, and tracebacks on empty
     priming events in older versions).

stdout: one JSON line per call {"tool", "ok", "answer"}, then one summary line
{"summary": {...}, "passed": bool, "failures": [...]}. Diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from typing import Any

import jsonschema
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

MAX_CHARS = 7000
ANSWER_KEYS = ("ok", "answer", "refs", "caveat", "options", "tool_used", "data")


class Checks:
    def __init__(self) -> None:
        self.failures: list[str] = []
        self.passed = 0

    def check(self, cond: bool, what: str) -> bool:
        if cond:
            self.passed += 1
        else:
            self.failures.append(f"expected: {what}")
            print(f"FAIL: expected: {what}", file=sys.stderr)
        return cond


def answer_shape_problems(sc: Any) -> list[str]:
    """What is wrong with `sc` as an attest Answer (empty list: nothing)."""
    if not isinstance(sc, dict):
        return [f"structuredContent is {type(sc).__name__}, not an object"]
    bad = [f"missing key '{k}'" for k in ANSWER_KEYS if k not in sc]
    if "ok" in sc and not isinstance(sc["ok"], bool):
        bad.append("ok is not a boolean")
    if "answer" in sc and not (isinstance(sc["answer"], str) and sc["answer"].strip()):
        bad.append("answer is not a non-empty string")
    refs = sc.get("refs", [])
    if not isinstance(refs, list) or not all(
        isinstance(r, dict) and isinstance(r.get("id"), str)
        and isinstance(r.get("url", ""), (str, type(None))) for r in refs
    ):
        bad.append("refs is not a list of {id, url}")
    if not isinstance(sc.get("caveat"), (str, type(None))):
        bad.append("caveat is neither a string nor null")
    opts = sc.get("options", [])
    if not isinstance(opts, list) or not all(isinstance(o, str) for o in opts):
        bad.append("options is not a list of strings")
    if not isinstance(sc.get("tool_used"), (str, type(None))):
        bad.append("tool_used is neither a string nor null")
    if not isinstance(sc.get("data"), (dict, type(None))):
        bad.append("data is neither an object nor null")
    return bad


def spell(name: str, style: str) -> str:
    return name.replace(".", "_", 1) if style == "underscore" else name


def allowed(name: str, style: str) -> bool:
    prefix = "runs_" if style == "underscore" else "runs."
    return name.startswith(prefix) or name == spell("cite.check", style)


class SdkLog(logging.Handler):
    """Everything the SDK logs at WARNING or above."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.name}: {record.getMessage()}")


async def run(args: argparse.Namespace) -> int:
    c = Checks()
    sdk_log = SdkLog()
    logging.getLogger("mcp").addHandler(sdk_log)
    logging.getLogger("httpx").addHandler(sdk_log)
    expand = os.environ.get("ATTEST_EXPAND", "").strip().lower() not in ("", "0", "false", "no", "off")
    style = args.names
    ask, tools_tool = spell("runs.ask", style), spell("runs.tools", style)

    calls: list[dict] = []
    if args.calls:
        with open(args.calls) as f:
            calls = json.load(f)
        if not isinstance(calls, list):
            print("--calls must hold a JSON list", file=sys.stderr)
            return 2

    list_changed = asyncio.Event()

    async def on_message(msg: Any) -> None:
        if isinstance(msg, Exception):
            print(f"server stream error: {msg!r}", file=sys.stderr)
            return
        if isinstance(msg, types.ServerNotification) and isinstance(
            msg.root, types.ToolListChangedNotification
        ):
            list_changed.set()

    schemas: dict[str, dict] = {}
    results_out: list[dict] = []

    if args.url:
        from mcp.client.streamable_http import streamablehttp_client

        transport = streamablehttp_client(args.url)
    else:
        params = StdioServerParameters(command=args.command, args=args.arg, env=dict(os.environ))
        transport = stdio_client(params)
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await asyncio.wait_for(session.initialize(), args.timeout)
            caps = init.capabilities
            c.check(caps.tools is not None, "server advertises the tools capability")
            c.check(caps.resources is None, "server does not advertise resources (Hermes would add utility tools)")
            c.check(caps.prompts is None, "server does not advertise prompts (Hermes would add utility tools)")
            print(f"server: {init.serverInfo.name} {init.serverInfo.version}, "
                  f"protocol {init.protocolVersion}", file=sys.stderr)

            def note_tools(tools: list[types.Tool]) -> set[str]:
                names = {t.name for t in tools}
                for t in tools:
                    c.check(allowed(t.name, style), f"tool '{t.name}' is outside runs.* / cite.check")
                    c.check(isinstance(t.outputSchema, dict) and t.outputSchema.get("type") == "object",
                            f"tool '{t.name}' declares an object outputSchema")
                    ann = t.annotations
                    c.check(ann is not None and isinstance(ann.readOnlyHint, bool),
                            f"tool '{t.name}' has annotations with a boolean readOnlyHint")
                    if isinstance(t.outputSchema, dict):
                        schemas[t.name] = t.outputSchema
                return names

            first = await session.list_tools()
            start_names = note_tools(first.tools)
            print(f"listed at start: {sorted(start_names)}", file=sys.stderr)
            if expand:
                c.check({ask, tools_tool} < start_names,
                        f"with ATTEST_EXPAND=1 more than {ask}/{tools_tool} are listed at start")
            else:
                c.check(start_names == {ask, tools_tool},
                        f"exactly {ask} and {tools_tool} are listed at start (got {sorted(start_names)})")

            if tools_tool in start_names:
                res = await session.call_tool(tools_tool, {})
                c.check(not res.isError, f"{tools_tool} returns a result, not isError")
                sc = res.structuredContent
                c.check(isinstance(sc, dict) and sc.get("ok") is True, f"{tools_tool} answered ok")
                if not expand:
                    try:
                        await asyncio.wait_for(list_changed.wait(), args.timeout)
                    except asyncio.TimeoutError:
                        pass
                    c.check(list_changed.is_set(),
                            f"notifications/tools/list_changed arrived after {tools_tool}")
                second = await session.list_tools()
                after = note_tools(second.tools)
                print(f"listed after {tools_tool}: {sorted(after)}", file=sys.stderr)
                prefix = "runs_" if style == "underscore" else "runs."
                c.check(len([n for n in after if n.startswith(prefix)]) > 2 and start_names <= after,
                        f"more runs tools are listed after {tools_tool}")

            for i, call in enumerate(calls):
                tool = call["tool"]
                targs = call.get("args", {}) or {}
                expect = call.get("expect_ok")
                label = f"call #{i} {tool}({json.dumps(targs, sort_keys=True)})"
                try:
                    res = await asyncio.wait_for(session.call_tool(tool, targs), args.timeout)
                except Exception as e:  # the SDK raises on a result that breaks its outputSchema
                    c.check(False, f"{label} does not raise (got {type(e).__name__}: {e})")
                    print(json.dumps({"tool": tool, "ok": None, "answer": None, "error": str(e)}))
                    continue
                c.check(not res.isError, f"{label} is not isError")
                sc = res.structuredContent
                if not c.check(sc is not None, f"{label} returned structuredContent"):
                    print(json.dumps({"tool": tool, "ok": None, "answer": None}))
                    continue
                if tool in schemas:  # also covers tools the SDK could not look up
                    try:
                        jsonschema.validate(sc, schemas[tool])
                        c.check(True, "")
                    except jsonschema.ValidationError as e:
                        c.check(False, f"{label} structuredContent validates against its outputSchema ({e.message})")
                problems = answer_shape_problems(sc)
                c.check(not problems, f"{label} has the Answer shape ({'; '.join(problems)})")
                if expect is not None:
                    c.check(sc.get("ok") is expect, f"{label} ok={sc.get('ok')} (expected {expect})")
                texts = [b.text for b in res.content if isinstance(b, types.TextContent)]
                joined = "\n".join(texts)
                c.check(bool(texts) and str(sc.get("answer", "")).strip() in joined,
                        f"{label} text content carries the answer line")
                try:
                    c.check(json.loads(joined) != sc, f"{label} text is not a copy of the JSON")
                except (ValueError, TypeError):
                    c.check(True, "")
                size = len(json.dumps(res.model_dump(mode="json", exclude_none=True)))
                c.check(size < MAX_CHARS, f"{label} result is {size} chars (limit {MAX_CHARS})")
                line = {"tool": tool, "ok": sc.get("ok"), "answer": sc.get("answer")}
                print(json.dumps(line))
                results_out.append(line)

    c.check(not sdk_log.records, f"the SDK logged no warnings ({sdk_log.records[:3]})")
    summary = {"calls": len(calls), "checks_passed": c.passed, "checks_failed": len(c.failures)}
    print(json.dumps({"summary": summary, "passed": not c.failures, "failures": c.failures}))
    return 0 if not c.failures else 1


def main() -> int:
    ap = argparse.ArgumentParser(description="Check an attest MCP surface with the official Python SDK.")
    ap.add_argument("--command", help="the server binary, e.g. target/debug/attest-provenance (stdio)")
    ap.add_argument("--url", help="a Streamable HTTP endpoint instead, e.g. http://127.0.0.1:PORT/mcp")
    ap.add_argument("--arg", action="append", default=[], help="an argument for the server (repeatable)")
    ap.add_argument("--calls", help="JSON list of {tool, args, expect_ok} to call in order")
    ap.add_argument("--names", choices=("dotted", "underscore"), default="dotted",
                    help="tool-name spelling the server uses (--tool-names underscore)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    args = ap.parse_args()
    if not args.command and not args.url:
        ap.error("one of --command or --url is required")
    try:
        return asyncio.run(run(args))
    except Exception as e:  # the server died, refused to initialise, ...
        print(f"FAIL: {type(e).__name__}: {e}", file=sys.stderr)
        print(json.dumps({"summary": {}, "passed": False, "failures": [f"{type(e).__name__}: {e}"]}))
        return 1


if __name__ == "__main__":
    sys.exit(main())
