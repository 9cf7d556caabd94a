// sdk-check.mjs drives one loom-results process with the official MCP
// TypeScript SDK's client over stdio, in one session, so that inspect and
// the lookups share a briefing (the Inspector CLI starts a new server per
// call and cannot). It prints every check and exits 1 on any mismatch.
//
// Usage: node sdk-check.mjs <loom-results binary>

import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node sdk-check.mjs <loom-results binary>");
  process.exit(2);
}

// The workspace: a text file with a quote and a tab, and a JSON file whose
// number float64 cannot hold.
const notes = 'alpha\nbeta: "quoted"\ttabbed\ngamma\n';
const data = '{"version": 1.000000000000000000001, "nested": {"name": "loom", "list": [1, 2, 3]}}\n';
const ws = mkdtempSync(join(tmpdir(), "loom-sdk-check-"));
writeFileSync(join(ws, "a.txt"), notes);
writeFileSync(join(ws, "data.json"), data);
const sha = (s) => createHash("sha256").update(s).digest("hex");

// escapedLen is SPEC section 6's measure: the length of s as a JSON string
// literal, quotes included, escaping only '"', '\\' and bytes 0x00-0x1F.
function escapedLen(s) {
  let n = 2;
  for (const c of Buffer.from(s, "utf8")) {
    if (c === 0x22 || c === 0x5c || [0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(c)) n += 2;
    else if (c < 0x20) n += 6;
    else n += 1;
  }
  return n;
}

let passed = 0;
let failed = 0;
function check(name, got, want) {
  if (isDeepStrictEqual(got, want)) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}

// RecordingTransport keeps every message both ways, to check the handshake.
class RecordingTransport extends StdioClientTransport {
  constructor(params) {
    super(params);
    this.log = [];
    let handler;
    Object.defineProperty(this, "onmessage", {
      get: () => handler,
      set: (fn) => {
        handler = fn && ((m, extra) => {
          this.log.push({ dir: "read", m });
          fn(m, extra);
        });
      },
    });
  }
  async send(m, opts) {
    this.log.push({ dir: "write", m });
    return super.send(m, opts);
  }
}

const transport = new RecordingTransport({
  command: binary,
  args: ["--root", ws, "--max-lookups", "4"],
  stderr: "inherit",
});
const client = new Client({ name: "loom-sdk-check", version: "0.0.1" });

const text = (res) => (res.content.length === 1 && res.content[0].type === "text" ? res.content[0].text : res.content);
const call = (name, args) => client.callTool({ name, arguments: args });

try {
  await client.connect(transport);
  const init = transport.log.find((e) => e.dir === "read" && e.m.id === transport.log[0].m.id);
  check("handshake: first request is initialize", transport.log[0].m.method, "initialize");
  check("handshake: negotiated protocol", init?.m.result?.protocolVersion, "2025-11-25");
  check("handshake: server name", client.getServerVersion()?.name, "loom-results");

  // Once it has read tools/list, the SDK checks the structured content of
  // every answer (errors too) against the tool's outputSchema, and a
  // mismatch fails the call.
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  check("tools/list: the nine tools", tools,
    ["begin_step", "expand_edit", "find", "get_json", "get_lines", "get_range", "inspect", "list_results", "retain_output"]);

  let res = await call("inspect", { paths: ["a.txt", "data.json"] });
  check("inspect: isError", res.isError ?? false, false);
  const [r1, r2] = res.structuredContent.results;
  check("inspect: r1 descriptor", {
    id: r1.id, sha256: r1.sha256, bytes: r1.bytes, lines: r1.lines, complete: r1.complete,
    source: r1.source, json: r1.json, retained: r1.retained,
  }, {
    id: "r1", sha256: sha(notes), bytes: Buffer.byteLength(notes), lines: 3, complete: true,
    source: { kind: "file", path: "a.txt" }, json: null, retained: true,
  });
  check("inspect: r2 descriptor", {
    id: r2.id, sha256: r2.sha256, bytes: r2.bytes, lines: r2.lines, json: r2.json, source: r2.source,
  }, {
    id: "r2", sha256: sha(data), bytes: Buffer.byteLength(data), lines: 1, json: "object",
    source: { kind: "file", path: "data.json" },
  });
  check("inspect: text shows 12-hex digests only", [
    text(res).includes(sha(notes).slice(0, 12)), text(res).includes(sha(notes)),
  ], [true, false]);

  res = await call("get_lines", { result: "r1", sha256: sha(notes).slice(0, 12), first: 2, last: 3 });
  const lines = 'beta: "quoted"\ttabbed\ngamma\n';
  check("get_lines: text content", text(res), lines);
  check("get_lines: structured", {
    result: res.structuredContent.result, sha256: res.structuredContent.sha256,
    selection: res.structuredContent.selection, text: res.structuredContent.text,
    bytes: res.structuredContent.bytes, escaped_bytes: res.structuredContent.escaped_bytes,
    lookups_used: res.structuredContent.budget.lookups_used,
  }, {
    result: "r1", sha256: sha(notes), selection: { first: 2, last: 3 }, text: lines,
    bytes: Buffer.byteLength(lines), escaped_bytes: escapedLen(lines), lookups_used: 1,
  });

  res = await call("get_json", { result: "r2", pointer: "/version" });
  check("get_json /version: exact lexeme", text(res), "1.000000000000000000001");
  check("get_json /version: structured", {
    text: res.structuredContent.text, type: res.structuredContent.type,
    selection: res.structuredContent.selection, lookups_used: res.structuredContent.budget.lookups_used,
  }, {
    text: "1.000000000000000000001", type: "number",
    selection: { pointer: "/version", as: "lexeme" }, lookups_used: 2,
  });

  res = await call("get_json", { result: "r2", pointer: "/nested/name", as: "string" });
  check("get_json /nested/name as string", [text(res), res.structuredContent.type], ["loom", "string"]);

  // expand_edit: a splice of r1 whose new line 2 is composed of a literal,
  // a decoded JSON string from r2 and a newline. Not a lookup.
  res = await call("expand_edit", { arguments: { path: "a.txt", content: { $splice: { result: "r1", edits: [
    { lines: [2, 2], text: { $compose: ["beta: ", { result: "r2", pointer: "/nested/name", as: "string" }, "\n"] } },
  ] } } } });
  const edited = "alpha\nbeta: loom\ngamma\n";
  check("expand_edit: expanded arguments", res.structuredContent.arguments, { path: "a.txt", content: edited });
  check("expand_edit: expansion", res.structuredContent.expansions, [
    { at: "/content", bytes: Buffer.byteLength(edited), sha256: sha(edited), parts: 1, result: "r3" },
  ]);
  check("expand_edit: text content is one line, never the body", text(res),
    `/content: ${Buffer.byteLength(edited)} bytes sha256=${sha(edited).slice(0, 12)} result=r3\n`);
  check("expand_edit: budget", [res.structuredContent.budget.lookups_used, res.structuredContent.budget.expand_bytes_used],
    [3, Buffer.byteLength(edited)]);

  res = await call("get_lines", { result: "r9", first: 1 });
  check("get_lines r9: unknown_result", [res.isError, res.structuredContent.error.code,
    res.structuredContent.budget.lookups_used], [true, "unknown_result", 4]);

  res = await call("get_lines", { result: "r1", first: 1 });
  check("5th lookup of 4: lookup_limit", [res.isError, res.structuredContent.error.code,
    res.structuredContent.budget.refused], [true, "lookup_limit", true]);
} catch (err) {
  failed++;
  console.log(`FAIL session: ${err?.stack ?? err}`);
} finally {
  await client.close().catch(() => {});
  rmSync(ws, { recursive: true, force: true });
}

console.log(`sdk-check: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
