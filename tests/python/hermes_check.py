#!/usr/bin/env python3
"""Load an attest MCP server the way Hermes Agent does, and call one of its tools.

    target/py/hermes/bin/python tests/python/hermes_check.py \
        --config mcp_servers.yaml --server attest-provenance \
        --question "which arm of my sweep won?"

`--config` is the YAML that `attest emit hermes` prints:

    mcp_servers:
      attest-provenance:
        command: /abs/path/attest-provenance
        args: []
        env: {ATTEST_DB: /abs/path/attest.db, RESEARCH_ROOT: /abs/path/workspace}
        timeout: 120

HOME and HERMES_HOME point at a fresh temporary directory, whose
`.hermes/config.yaml` gets that `mcp_servers` block and nothing else. Then Hermes
Agent's own code does the rest, with no model and no network:
`tools.mcp_tool.discover_mcp_tools()` connects (stdio; the child gets only PATH,
HOME, USER, LANG, LC_ALL, TERM, SHELL, TMPDIR, XDG_* plus the entry's `env`,
and Hermes's working directory) and registers the tools, and
`model_tools.handle_function_call("mcp__<server>__runs_ask", {"question": ...})`
makes the call exactly as the agent loop would.

Exit 0 only if the server connected, `runs.ask` was registered, and the call
came back as a result (not Hermes's `{"error": ...}`, which is also what an MCP
isError or an outputSchema violation turns into). `--expect-ok true|false` also
checks the Answer's `ok` in the structuredContent Hermes passes along.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Call an attest MCP server through Hermes Agent's MCP client.")
    ap.add_argument("--config", required=True, help="YAML with an mcp_servers mapping (attest emit hermes)")
    ap.add_argument("--server", required=True, help="server key under mcp_servers, e.g. attest-provenance")
    ap.add_argument("--question", default="which arm of my sweep won?", help="question for runs.ask")
    ap.add_argument("--tool", default="runs.ask", help="raw MCP tool name to call (default runs.ask)")
    ap.add_argument("--args", help="JSON object of arguments (default: {\"question\": QUESTION})")
    ap.add_argument("--expect-ok", choices=("true", "false"), help="also require the Answer's ok")
    ap.add_argument("--keep-home", action="store_true", help="keep the temporary HOME (prints its path)")
    return ap.parse_args()


def extract_json(rendered: str):
    """handle_function_call returns Hermes's JSON string; be tolerant of a wrapper."""
    try:
        return json.loads(rendered)
    except (ValueError, TypeError):
        m = re.search(r"\{.*\}", rendered or "", re.S)
        if m:
            try:
                return json.loads(m.group(0))
            except ValueError:
                return None
    return None


def main() -> int:
    args = parse_args()
    import yaml  # PyYAML ships with hermes-agent

    with open(args.config) as f:
        doc = yaml.safe_load(f) or {}
    servers = doc.get("mcp_servers") if isinstance(doc, dict) else None
    if not isinstance(servers, dict) or args.server not in servers:
        print(f"FAIL: {args.config} has no mcp_servers.{args.server}", file=sys.stderr)
        return 2

    home = Path(tempfile.mkdtemp(prefix="hermes-check-"))
    hermes_home = home / ".hermes"
    hermes_home.mkdir()
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}, sort_keys=False))
    # Before any Hermes import: its modules resolve paths from these.
    os.environ["HOME"] = str(home)
    os.environ["HERMES_HOME"] = str(hermes_home)
    os.environ.pop("HERMES_SAFE_MODE", None)
    os.chdir(home)  # Hermes passes no cwd: the server inherits this one

    rc = 1
    try:
        from tools import mcp_tool
        import model_tools

        if not getattr(mcp_tool, "_MCP_AVAILABLE", False):
            print("FAIL: Hermes's MCP support is off (install hermes-agent[mcp])", file=sys.stderr)
            return 1
        registered = mcp_tool.discover_mcp_tools()
        print(f"registered: {sorted(registered)}", file=sys.stderr)
        wanted = mcp_tool.mcp_prefixed_tool_name(args.server, args.tool)
        if wanted not in registered:
            print(f"FAIL: {wanted} was not registered (did the server start? its stderr, "
                  f"from Hermes's mcp-stderr.log, follows if any)", file=sys.stderr)
            log = hermes_home / "logs" / "mcp-stderr.log"
            if log.exists():
                print(log.read_text()[-2000:], file=sys.stderr)
            return 1
        call_args = json.loads(args.args) if args.args else {"question": args.question}
        rendered = model_tools.handle_function_call(wanted, call_args)
        print(rendered)
        parsed = extract_json(rendered)
        if not isinstance(parsed, dict):
            print("FAIL: the call did not render as a JSON object", file=sys.stderr)
            return 1
        if "error" in parsed or "result" not in parsed:
            print(f"FAIL: Hermes rendered an error: {parsed.get('error')!r}", file=sys.stderr)
            return 1
        sc = parsed.get("structuredContent")
        if sc is None and isinstance(parsed.get("result"), dict):
            sc = parsed["result"]
        if args.expect_ok is not None:
            want = args.expect_ok == "true"
            got = sc.get("ok") if isinstance(sc, dict) else None
            if got is not want:
                print(f"FAIL: Answer ok={got!r}, expected {want}", file=sys.stderr)
                return 1
        print(f"OK: {wanted} answered through Hermes's MCP client", file=sys.stderr)
        rc = 0
        return rc
    finally:
        try:
            from tools import mcp_tool as _m
            _m.shutdown_mcp_servers()
        except Exception:
            pass
        if args.keep_home:
            print(f"HOME kept at {home}", file=sys.stderr)
        else:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
