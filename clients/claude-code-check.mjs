// claude-code-check.mjs shows what Claude Code, the real CLI from npm, sends
// its model when it uses loom-results. It runs `claude -p` offline against
// a mock of the Anthropic Messages API on 127.0.0.1 that plays a scripted
// model: it loads loom-results' tools through Claude Code's tool search,
// calls find, get_lines and write_file as the server's instructions say,
// makes a lookup that fails, and answers. Claude Code starts the server
// from an MCP config (--steps model --write) through mcp-recorder.mjs,
// which records what the server answered.
//
// From the requests Claude Code sends the mock it checks, for every
// loom-results call, that the tool result shown to the model is the
// server's text content (errors included), never a JSON object; it reports
// the bytes of this server's tool definitions and instructions in every
// request, before and after the tools are loaded; and it checks that the
// write landed. Five runs: the default (text answers, tool search on),
// ENABLE_TOOL_SEARCH=false (every definition on every turn), --answers
// full, where the model sees the structured content as JSON, and the
// README's recommended command (--run test='go test ./...', a ninth tool)
// with tool search on and off.
// It prints the figures side by side and exits 1 on any failed check.
//
// Usage: node claude-code-check.mjs <loom-results binary>

import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import {
  Checks, EXPECTED, checkListed, FINAL_TEXT, Hub, bytes, cleanup, isJSONObject, isolateNetwork, makeWorkspace,
  mcpSession, modelServer, nextAction, readWorkspaceFile, recorderScript, runClient, serverText, startMock, table, tempDir, toolCount,
} from "./model-check.mjs";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node claude-code-check.mjs <loom-results binary>");
  process.exit(2);
}
const network = isolateNetwork();

const require = createRequire(import.meta.url);
const version = require("@anthropic-ai/claude-code/package.json").version;

// claudeBinary is the native CLI: the platform package's binary, which
// the wrapper package's postinstall copies over its bin/claude.exe.
function claudeBinary() {
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  try {
    const p = join(dirname(require.resolve(`${platform}/package.json`)), "claude");
    if (existsSync(p)) return p;
  } catch {}
  return join(dirname(require.resolve("@anthropic-ai/claude-code/package.json")), "bin", "claude.exe");
}

const SERVER = "loom-results";
const PREFIX = `mcp__${SERVER}__`;

// The empty-answer placeholder Claude Code shows instead of an empty text.
const placeholder = (tool) => `(${PREFIX}${tool} completed with no output)`;

// toolResultText is what a tool_result block shows the model: its string,
// or its text blocks joined.
function toolResultText(block) {
  if (typeof block.content === "string") return block.content;
  return (block.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

// conversation reads a Messages API request: the loom-results calls with
// what the model was shown for each, and the tool searches.
function conversation(body) {
  const results = new Map();
  for (const m of body.messages ?? []) {
    if (m.role !== "user" || typeof m.content === "string") continue;
    for (const b of m.content) if (b.type === "tool_result") results.set(b.tool_use_id, b);
  }
  const calls = [];
  const loads = [];
  for (const m of body.messages ?? []) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type !== "tool_use") continue;
      if (b.name === "ToolSearch") {
        loads.push(String(b.input.query ?? "").replace(/^select:/, "").split(",").map((n) => n.replace(PREFIX, "")));
      } else if (b.name.startsWith(PREFIX)) {
        const r = results.get(b.id);
        calls.push({ tool: b.name.slice(PREFIX.length), input: b.input, block: r, shown: r ? toolResultText(r) : undefined });
      }
    }
  }
  return { calls, loads };
}

const isLoopRequest = (req) => req.method === "POST" && /^\/v1\/messages(\?|$)/.test(req.url) && Array.isArray(req.body?.tools) && req.body.tools.length > 0;

// answer streams one assistant message (Messages API server-sent events).
function answer(res, body, n, action) {
  const msg = { id: `msg_${n}`, type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 } };
  let block;
  let stop = "tool_use";
  if (action.text !== undefined) {
    block = { type: "text", text: action.text };
    stop = "end_turn";
  } else if (action.load) {
    block = { type: "tool_use", id: `toolu_${n}`, name: "ToolSearch", input: { query: "select:" + action.load.map((t) => PREFIX + t).join(",") } };
  } else {
    block = { type: "tool_use", id: `toolu_${n}`, name: PREFIX + action.call.tool, input: action.call.input };
  }
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...msg, content: [block], stop_reason: stop }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev("message_start", { message: msg });
  if (block.type === "text") {
    ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: block.text } });
  } else {
    ev("content_block_start", { index: 0, content_block: { ...block, input: {} } });
    ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
  }
  ev("content_block_stop", { index: 0 });
  ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  ev("message_stop", {});
  res.end();
}

// handle plays the scripted model on every turn of the loop and answers
// anything else Claude Code asks briefly.
function handle(req, res) {
  if (req.method === "POST" && req.url.startsWith("/v1/messages/count_tokens")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ input_tokens: 1 }));
    return;
  }
  if (req.method === "POST" && /^\/v1\/messages(\?|$)/.test(req.url)) {
    const body = req.body;
    if (!isLoopRequest(req)) return answer(res, body, req.n, { text: "OK" });
    const { calls, loads } = conversation(body);
    const props = (t) => {
      const def = body.tools.find((d) => d.name === PREFIX + t);
      return def ? Object.keys(def.input_schema?.properties ?? {}) : null;
    };
    const action = nextAction({ properties: props, loads, shown: calls.map((c) => c.shown) });
    if (action.load && !body.tools.some((d) => d.name === "ToolSearch")) return answer(res, body, req.n, { text: "No ToolSearch to load tools with." });
    return answer(res, body, req.n, action);
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no ${req.method} ${req.url} here` } }));
}

// texts is every string the request shows the model outside the tool
// definitions: system blocks and message texts.
function texts(body) {
  const out = [];
  const add = (c) => {
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) for (const b of c) if (b.type === "text") out.push(b.text);
  };
  add(body.system);
  for (const m of body.messages ?? []) add(m.content);
  return out;
}

// sent measures what one request carries of this server: the tool
// definitions in `tools` (compact JSON, as sent), the names listed as
// deferred tools, and the instructions.
function sent(body, instructions) {
  const defs = body.tools.filter((d) => d.name.startsWith(PREFIX));
  const all = texts(body);
  const names = all.flatMap((t) => t.split("\n")).filter((l) => l.startsWith(PREFIX) && /^[\w-]+$/.test(l));
  const firstLine = instructions.split("\n")[0];
  const full = all.filter((t) => t.includes(instructions)).length;
  const first = all.filter((t) => t.includes(firstLine)).length;
  return {
    defs: defs.map((d) => d.name.slice(PREFIX.length)),
    defBytes: defs.reduce((n, d) => n + bytes(JSON.stringify(d)), 0),
    deferred: defs.filter((d) => d.defer_loading).length,
    names: new Set(names).size,
    nameBytes: [...new Set(names)].reduce((n, l) => n + bytes(l) + 1, 0),
    instructionBytes: full ? bytes(instructions) : first ? bytes(firstLine) : 0,
    instructionForm: full ? (full === 1 ? "full" : `full x${full}`) : first ? "first line" : "absent",
  };
}

// run runs claude -p once against a fresh workspace and server.
async function run({ label, answers, toolSearch, withRun }) {
  const ws = makeWorkspace();
  const home = tempDir("loom-claude-home-");
  const hub = new Hub();
  await hub.start();
  let n = 0;
  const mock = await startMock((req, res) => handle(Object.assign(req, { n: ++n }), res));
  const serverArgs = modelServer(ws, { answers, withRun }).args;
  const mcpConfig = join(home, "mcp.json");
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER]: { type: "stdio", command: process.execPath,
    args: [recorderScript, String(hub.port), binary, ...serverArgs] } } }));
  // A clean environment: no key, setting or proxy of the machine's reaches
  // the client, whose home and configuration are temporary.
  const env = {
    PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), TMPDIR: home, LANG: "C.UTF-8",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${mock.port}`, ANTHROPIC_API_KEY: "sk-ant-offline-check",
    DISABLE_TELEMETRY: "1", DISABLE_ERROR_REPORTING: "1", DISABLE_AUTOUPDATER: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...(toolSearch ? {} : { ENABLE_TOOL_SEARCH: "false" }),
  };
  const started = Date.now();
  const client = await runClient({
    command: claudeBinary(), cwd: ws, env, timeoutMs: 60_000,
    args: ["-p", "In notes.txt, say that the beta shipped.", "--mcp-config", mcpConfig, "--strict-mcp-config",
      "--allowedTools", `mcp__${SERVER}`, "--output-format", "json"],
  });
  const serverEnded = await hub.ended(10_000);
  if (!serverEnded) hub.kill();
  const seconds = (Date.now() - started) / 1000;
  await mock.close();
  hub.close();
  const onDisk = readWorkspaceFile(ws);
  return { label, answers, toolSearch, withRun, client, serverEnded, seconds, onDisk, requests: mock.requests,
    sessions: hub.sessions.map(mcpSession) };
}

const checks = new Checks();
console.log(`Claude Code ${version} (${claudeBinary()})`);
console.log(network);

const runs = [];
try {
  for (const cfg of [
    { label: "text", answers: "text", toolSearch: true },
    { label: "text, no tool search", answers: "text", toolSearch: false },
    { label: "full", answers: "full", toolSearch: true },
    { label: "text, --run", answers: "text", toolSearch: true, withRun: true },
    { label: "text, --run, no tool search", answers: "text", toolSearch: false, withRun: true },
  ]) {
    const r = await run(cfg);
    runs.push(r);
    verify(r);
  }
} finally {
  cleanup();
}

// verify checks one run and prints its figures.
function verify(r) {
  const tag = `[${r.label}]`;
  console.log(`\n== Claude Code ${version}, ${modelServer("", r).heading}${r.toolSearch ? "" : ", ENABLE_TOOL_SEARCH=false"}: ` +
    `${r.seconds.toFixed(1)}s`);
  let out = null;
  try {
    out = JSON.parse(r.client.stdout);
  } catch {}
  checks.check(`${tag} claude -p exited 0 within its time, nothing of it left running`,
    [r.client.code, r.client.timedOut, r.client.leftOver], [0, false, false]);
  if (r.client.code !== 0) console.log(r.client.stderr.slice(-2000) || r.client.stdout.slice(-2000));
  checks.check(`${tag} the final answer is the scripted model's`, [out?.is_error, out?.result], [false, FINAL_TEXT]);
  checks.check(`${tag} one server process, ended when the client exited`, [r.sessions.length, r.serverEnded], [1, true]);
  const session = r.sessions[0] ?? { calls: [], tools: [], instructions: "" };
  console.log(`handshake: ${session.handshake}`);
  const loop = r.requests.filter(isLoopRequest);
  checks.ok(`${tag} every request to the mock was a turn of the loop or a token count`,
    r.requests.every((q) => isLoopRequest(q) || q.url.startsWith("/v1/messages/count_tokens")),
    r.requests.filter((q) => !isLoopRequest(q)).map((q) => `${q.method} ${q.url}`).join(", "));

  // What the server listed, by SPEC section 2's measure.
  const measure = checkListed(checks, tag, session, r.answers, r.withRun);

  // Each loom-results call: what the model was shown against what the
  // server answered.
  const { calls } = conversation(loop.at(-1)?.body ?? { messages: [] });
  checks.check(`${tag} the scripted calls reached the server, in order, with their arguments`,
    session.calls.map((c) => [c.name, c.arguments]), calls.map((c) => [c.tool, c.input]));
  r.rows = calls.map((c, i) => {
    const res = session.calls[i]?.result;
    const text = serverText(res);
    let kind = "other";
    if (c.shown === text) kind = "text";
    else if (text === "" && c.shown === placeholder(c.tool)) kind = "placeholder";
    else if (isJSONObject(c.shown) && isDeepStrictEqual(JSON.parse(c.shown), res?.structuredContent)) kind = "structured JSON";
    return { tool: c.tool, input: c.input, isError: res?.isError === true, flagged: c.block?.is_error === true,
      text, shown: c.shown, kind, structured: res?.structuredContent !== undefined };
  });
  for (const [i, row] of r.rows.entries()) {
    const name = `${tag} call ${i + 1} ${row.tool}${row.isError ? " (error)" : ""}`;
    checks.check(`${name}: is_error as the server's isError`, row.flagged, row.isError);
    if (r.answers === "text") {
      checks.check(`${name}: no structured content`, row.structured, false);
      if (row.text === "") checks.check(`${name}: empty text shown as Claude Code's placeholder`, row.shown, placeholder(row.tool));
      else checks.check(`${name}: the model is shown the server's text`, row.shown, row.text);
      checks.check(`${name}: never a JSON object`, isJSONObject(row.shown), false);
    } else {
      // Claude Code shows a success's structured content as JSON, and an
      // error's text.
      checks.check(`${name}: shown as ${row.isError ? "the text" : "JSON of the structured content"}`, row.kind,
        row.isError ? "text" : "structured JSON");
    }
  }
  checks.check(`${tag} the write landed on disk`, r.onDisk, EXPECTED);

  // What each request carried of this server.
  const instructions = session.instructions ?? "";
  r.sent = loop.map((q) => sent(q.body, instructions));
  checks.check(`${tag} every request carries the server's instructions whole`, r.sent.map((s) => s.instructionForm),
    r.sent.map(() => "full"));
  const n = toolCount(r.withRun);
  if (r.toolSearch) {
    checks.check(`${tag} first request: no definition, the ${n} names listed as deferred tools`,
      [r.sent[0]?.defs.length, r.sent[0]?.names], [0, n]);
  } else {
    checks.check(`${tag} every request: the ${n} definitions, none deferred`,
      r.sent.map((s) => [s.defs.length, s.deferred]), r.sent.map(() => [n, 0]));
  }
  const steps = ["(prompt)", ...conversationSteps(loop.at(-1)?.body)];
  table(`What each request sent the model of loom-results (bytes; the server's listing by SPEC 2's measure, as JSON.stringify writes it: ` +
    `${measure.defs} definitions + ${measure.instructions} instructions = ${measure.total})`,
  ["request after", "definitions", "def bytes", "names-only bytes", "instructions", "total"],
  r.sent.map((s, i) => [`${i + 1} ${steps[i] ?? "?"}`, s.defs.length ? `${s.defs.length}${s.deferred ? " (loaded)" : ""}` : 0, s.defBytes,
    s.nameBytes, `${s.instructionBytes} ${s.instructionForm}`, s.defBytes + s.nameBytes + s.instructionBytes]));
}

// conversationSteps names the model's actions in order.
function conversationSteps(body) {
  const out = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== "assistant" || typeof m.content === "string") continue;
    for (const b of m.content) if (b.type === "tool_use") out.push(b.name === "ToolSearch" ? "ToolSearch" : b.name.slice(PREFIX.length));
  }
  return out;
}

// Side by side: what the model saw of each call with text answers and
// with full answers.
const text = runs.find((r) => r.label === "text");
const full = runs.find((r) => r.label === "full");
if (text?.rows && full?.rows) {
  const args = (row) => JSON.stringify(row.input).slice(0, 48);
  table("What the model was shown of each call (bytes, and what it was)",
    ["call", "server text", "--answers text", "--answers full"],
    text.rows.map((row, i) => [`${i + 1} ${row.tool} ${args(row)}`, bytes(row.text),
      `${bytes(row.shown ?? "")} ${row.kind}`, full.rows[i] ? `${bytes(full.rows[i].shown ?? "")} ${full.rows[i].kind}` : "-"]));
  const sum = (rows) => rows.reduce((n, row) => n + bytes(row.shown ?? ""), 0);
  console.log(`  total shown: ${sum(text.rows)} bytes with text answers, ${sum(full.rows)} with full answers`);
  for (const [i, row] of full.rows.entries()) {
    if (row.kind === "structured JSON") {
      console.log(`\n  e.g. call ${i + 1} ${row.tool}, --answers full shows:\n    ${row.shown}\n  and --answers text shows:\n    ${JSON.stringify(text.rows[i].shown)}`);
      break;
    }
  }
}

console.log(`\nclaude-code-check: ${checks.passed} passed, ${checks.failed} failed`);
process.exitCode = checks.failed === 0 ? 0 : 1;
