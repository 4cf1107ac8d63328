// Drive an attest surface with the official TypeScript MCP SDK client, over stdio or
// Streamable HTTP.
//
//   node sdk_client.mjs --ns runs --stdio target/debug/attest serve --surface provenance
//   node sdk_client.mjs --ns runs --url http://127.0.0.1:PORT/mcp
//
// Checks (each failure is reported; exit 0 only if all pass):
//   1. initialize succeeds; tools is advertised, resources and prompts are not.
//   2. tools/list at start is exactly <ns>.ask and <ns>.tools (unless ATTEST_EXPAND=1).
//   3. <ns>.tools answers ok, notifications/tools/list_changed arrives, and the next
//      tools/list shows more tools.
//   4. every listed tool is called: with {} (and <ns>.ask with a question). The SDK
//      validates structuredContent against the tool's outputSchema and throws when it
//      does not match; isError must be false; the answer has `ok` and `answer`; the
//      serialized result stays under 7,000 characters.
//   5. nothing the SDK prints to the console (it warns about non-standard schema
//      formats, for one).
// stdout: one JSON summary line {"transport", "tools", "calls", "failures": [...]}.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const MAX_CHARS = 7000;
const argv = process.argv.slice(2);
let ns = "runs";
let url = null;
let command = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--ns") ns = argv[++i];
  else if (argv[i] === "--url") url = argv[++i];
  else if (argv[i] === "--stdio") {
    command = argv.slice(i + 1);
    break;
  }
}
if (!url && !command) {
  console.error("usage: sdk_client.mjs --ns NS (--url URL | --stdio COMMAND ARGS...)");
  process.exit(2);
}

const failures = [];
const check = (cond, what) => {
  if (!cond) failures.push(what);
  return cond;
};
// Whatever the SDK says on the console is a finding (schema warnings, parse errors).
const said = [];
for (const level of ["warn", "error", "log"]) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    said.push(args.map(String).join(" "));
    original(...args);
  };
}

const expand = !["", "0", "false", "no", "off"].includes((process.env.ATTEST_EXPAND ?? "").toLowerCase());
const transport = url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command: command[0], args: command.slice(1), env: process.env, stderr: "ignore" });
const client = new Client({ name: "attest-sdk-check", version: "1.0.0" });
let changed = 0;
let onChange = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  changed++;
  onChange();
});

const calls = [];
try {
  await client.connect(transport);
  const caps = client.getServerCapabilities() ?? {};
  check(caps.tools, "the server advertises tools");
  check(!caps.resources && !caps.prompts, "the server advertises no resources or prompts");
  const first = (await client.listTools()).tools.map((t) => t.name).sort();
  const ask = `${ns}.ask`;
  const toolsTool = `${ns}.tools`;
  if (expand) check(first.length > 2, `with ATTEST_EXPAND=1 more than two tools at start (${first})`);
  else check(JSON.stringify(first) === JSON.stringify([ask, toolsTool]), `exactly ${ask} and ${toolsTool} at start (got ${first})`);

  const arrived = new Promise((resolve) => {
    onChange = resolve;
    if (changed > 0) resolve();
  });
  const r = await client.callTool({ name: toolsTool, arguments: {} });
  check(!r.isError && r.structuredContent?.ok === true, `${toolsTool} answers ok`);
  if (!expand) {
    const timeout = new Promise((resolve) => setTimeout(() => resolve("timeout"), 30000));
    check((await Promise.race([arrived, timeout])) !== "timeout", "tools/list_changed arrives after <ns>.tools");
  }
  const tools = (await client.listTools()).tools;
  check(tools.length > 2, `more tools listed after ${toolsTool} (${tools.length})`);

  for (const t of tools) {
    const args = t.name === ask ? { question: "what can you do?" } : {};
    try {
      const res = await client.callTool({ name: t.name, arguments: args });
      const sc = res.structuredContent;
      check(!res.isError, `${t.name} is not isError: ${sc?.answer}`);
      check(sc && typeof sc.ok === "boolean" && typeof sc.answer === "string", `${t.name} answers with ok and answer`);
      const size = JSON.stringify(res).length;
      check(size < MAX_CHARS, `${t.name} result is ${size} characters`);
      calls.push({ tool: t.name, ok: sc?.ok });
    } catch (e) {
      check(false, `${t.name} threw (${e?.message ?? e})`);
    }
  }
  await client.close();
} catch (e) {
  check(false, `session failed: ${e?.stack ?? e}`);
}
check(said.length === 0, `the SDK printed to the console: ${said.slice(0, 5).join(" | ")}`);
process.stdout.write(
  JSON.stringify({ transport: url ? "http" : "stdio", ns, calls: calls.length, failures }) + "\n",
);
process.exit(failures.length === 0 ? 0 : 1);
