// codex-check.mjs shows what Codex, the real CLI from npm, sends its model
// when it uses loom-results. It runs `codex exec` offline against a mock of
// the OpenAI Responses API on 127.0.0.1 that plays a scripted model: it
// calls find, get_lines and write_file as the server's instructions say,
// makes a lookup that fails, and answers. Codex starts the server from its
// config.toml (--steps model --write) through mcp-recorder.mjs, which
// records what the server answered.
//
// Codex presents MCP tools in one of two ways, chosen by the model's
// metadata: a model it has no metadata for (any custom provider's) gets
// the server's tools as functions in a namespace whose description is the
// server's instructions, and each call's result as a "Wall time" line and
// the answer's content; its default model gets code mode, where the tools
// are deferred (the model is shown the first line of the instructions and
// lists the tools from JavaScript) and are called from a script run by the
// `exec` tool, which shows the model what the script prints. Both are run,
// with --answers text and, for comparison, --answers full, and with the
// README's recommended command (--run test='go test ./...', a ninth tool)
// and text answers.
//
// From the requests Codex sends the mock it checks, for every loom-results
// call, that the result shown to the model is the server's text content
// (errors included), never a JSON object with structured members; it
// reports the bytes of this server's tool definitions and instructions in
// every request; and it checks that the write landed. It prints the
// figures side by side and exits 1 on any failed check.
//
// Usage: node codex-check.mjs <loom-results binary>

import { writeFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import {
  Checks, EXPECTED, checkListed, FINAL_TEXT, Hub, bytes, cleanup, isJSONObject, isolateNetwork, makeWorkspace,
  mcpSession, modelServer, nextAction, readWorkspaceFile, recorderScript, runClient, serverText, startMock, table, tempDir, toolCount,
} from "./model-check.mjs";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node codex-check.mjs <loom-results binary>");
  process.exit(2);
}
const network = isolateNetwork();

const require = createRequire(import.meta.url);
const codexJS = join(dirname(require.resolve("@openai/codex/package.json")), "bin", "codex.js");
const version = require("@openai/codex/package.json").version;

const SERVER = "loom-results";
const NAMESPACE = "mcp__loom_results"; // Codex's name for the server: mcp__ and the name with - as _
const PREFIX = `${NAMESPACE}__`;

// A model slug Codex has no metadata for, as a custom provider's model.
const PLAIN_MODEL = "offline-model";

// The lines Codex puts before a result: a direct call's, and an exec
// script's.
const directFrame = /^Wall time: [0-9.]+ seconds\nOutput:(\n|$)/;
const execFrame = /^Script completed\nWall time [0-9.]+ seconds\nOutput:\n/;

// outputItems is a tool output's items as texts.
const outputItems = (output) => (typeof output === "string" ? [output] : (output ?? []).filter((o) => o.type === "input_text").map((o) => o.text));

// payload is what a tool output shows the model after Codex's frame, and
// the frame.
function payload(output, frame) {
  const items = outputItems(output);
  const joined = items.join("\n");
  const m = frame.exec(typeof output === "string" ? output : items[0] ?? "");
  if (!m) return { frame: null, shown: joined };
  if (typeof output === "string") return { frame: m[0], shown: output.slice(m[0].length) };
  return { frame: items[0], shown: items.slice(1).join("") };
}

// The exec script that lists the server's deferred tools, and the one that
// calls a tool and prints its result.
const listScript = `text(ALL_TOOLS.filter((t) => t.name.startsWith("${PREFIX}")));`;
const callScript = (tool, input) => `const r = await tools.${PREFIX}${tool}(${JSON.stringify(input)});\ntext(r);`;
const callInScript = (js) => {
  const m = /^const r = await tools\.(\w+)\((.*)\);\ntext\(r\);$/s.exec(js);
  return m && m[1].startsWith(PREFIX) ? { tool: m[1].slice(PREFIX.length), input: JSON.parse(m[2]) } : null;
};

// conversation reads a Responses API request: the loom-results calls with
// what the model was shown of each, the tool listings, and each exec
// listing's output.
function conversation(body) {
  const outputs = new Map();
  for (const it of body.input ?? []) {
    if (it.type === "function_call_output" || it.type === "custom_tool_call_output") outputs.set(it.call_id, it.output);
  }
  const calls = [];
  const loads = [];
  const listings = [];
  for (const it of body.input ?? []) {
    if (it.type === "function_call" && (it.namespace === NAMESPACE || it.name.startsWith(PREFIX))) {
      const out = outputs.get(it.call_id);
      calls.push({ tool: it.name.replace(PREFIX, ""), input: JSON.parse(it.arguments), output: out, ...payload(out, directFrame) });
    } else if (it.type === "custom_tool_call" && it.name === "exec") {
      const out = outputs.get(it.call_id);
      if (it.input === listScript) {
        loads.push(["find", "get_lines", "write_file", "inspect"]);
        listings.push(payload(out, execFrame).shown);
      } else {
        const call = callInScript(it.input);
        if (call) calls.push({ ...call, output: out, ...payload(out, execFrame) });
      }
    }
  }
  return { calls, loads, listings };
}

// namespaceOf finds the server's namespace among the tools the request
// defines: in `tools`, or in an additional_tools item of the input.
function namespaceOf(body) {
  const all = [...(body.tools ?? []), ...(body.input ?? []).filter((i) => i.type === "additional_tools").flatMap((i) => i.tools ?? [])];
  return all.find((t) => t.type === "namespace" && t.name === NAMESPACE) ?? null;
}
const hasExec = (body) => [...(body.tools ?? []), ...(body.input ?? []).filter((i) => i.type === "additional_tools").flatMap((i) => i.tools ?? [])]
  .some((t) => t.name === "exec" || (t.type === "namespace" && (t.tools ?? []).some((u) => u.name === "exec")));

// declared reads a tool's parameter names from an exec listing: the
// TypeScript declaration in its description.
function declared(listings, tool) {
  for (const l of listings) {
    let list;
    try {
      list = JSON.parse(l);
    } catch {
      continue;
    }
    const entry = list.find?.((t) => t.name === PREFIX + tool);
    const decl = entry && new RegExp(`${PREFIX}${tool}\\(args: \\{(.*?)\\}\\): Promise`, "s").exec(entry.description);
    if (decl) return [...decl[1].matchAll(/(\w+)\??:/g)].map((m) => m[1]);
  }
  return null;
}

// answer streams one model response (Responses API server-sent events).
function answer(res, n, action, codeMode) {
  let item;
  if (action.text !== undefined) {
    item = { type: "message", role: "assistant", id: `msg_${n}`, status: "completed", content: [{ type: "output_text", text: action.text, annotations: [] }] };
  } else if (codeMode) {
    const input = action.load ? listScript : callScript(action.call.tool, action.call.input);
    item = { type: "custom_tool_call", id: `ctc_${n}`, call_id: `call_${n}`, name: "exec", input, status: "completed" };
  } else {
    item = { type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, namespace: NAMESPACE, name: action.call.tool,
      arguments: JSON.stringify(action.call.input), status: "completed" };
  }
  res.writeHead(200, { "content-type": "text/event-stream" });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const id = `resp_${n}`;
  ev("response.created", { response: { id, status: "in_progress" } });
  ev("response.output_item.added", { output_index: 0, item });
  ev("response.output_item.done", { output_index: 0, item });
  ev("response.completed", { response: { id, status: "completed",
    usage: { input_tokens: 1, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 2 } } });
  res.end();
}

const isTurn = (req) => req.method === "POST" && /^\/v1\/responses(\?|$)/.test(req.url) && Array.isArray(req.body?.input);

// handle plays the scripted model on every turn.
function handle(req, res) {
  if (!isTurn(req)) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `no ${req.method} ${req.url} here`, type: "invalid_request_error" } }));
    return;
  }
  const body = req.body;
  const codeMode = !namespaceOf(body) && hasExec(body);
  const { calls, loads, listings } = conversation(body);
  const props = (t) => {
    if (codeMode) return declared(listings, t);
    const def = namespaceOf(body)?.tools?.find((d) => d.name === t);
    return def ? Object.keys(def.parameters?.properties ?? {}) : null;
  };
  let action = nextAction({ properties: props, loads: codeMode ? loads : [[]], shown: calls.map((c) => c.shown) });
  if (action.load && !codeMode) action = { text: `Codex did not define ${action.load.join(", ")}.` };
  answer(res, req.n, action, codeMode);
}

// strings is every string in a value, depth first.
function strings(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object") for (const x of Object.values(v)) strings(x, out);
  return out;
}

// sent measures what one request carries of this server: the definitions
// in the server's namespace (compact JSON, as sent), the listing of its
// tools that an exec script printed (code mode), and the instructions:
// whole (how many times), or only their first line.
function sent(body, served) {
  const instructions = served.trimEnd(); // Codex trims the instructions' final newline
  const ns = namespaceOf(body);
  const defs = ns?.tools ?? [];
  const { listings } = conversation(body);
  const firstLine = instructions.split("\n")[0];
  const all = strings(body);
  const full = all.reduce((n, s) => n + s.split(instructions).length - 1, 0);
  const first = all.filter((s) => s.includes(firstLine) && !s.includes(instructions));
  const firstBytes = first.length ? bytes(firstLine) : 0;
  const escaped = JSON.stringify(instructions).slice(1, -1);
  const inListing = listings.reduce((n, l) => n + l.split(escaped).length - 1, 0);
  return {
    inListing,
    defs: defs.length,
    defBytes: defs.reduce((n, d) => n + bytes(JSON.stringify(d)), 0),
    listingBytes: listings.reduce((n, l) => n + bytes(l), 0),
    instructionBytes: full ? full * bytes(instructions) : firstBytes,
    instructionForm: full ? (full === 1 ? "full" : `full x${full}`) : first.length ? "first line" : "absent",
  };
}

// run runs codex exec once against a fresh workspace and server.
async function run({ label, answers, model, withRun }) {
  const ws = makeWorkspace();
  const home = tempDir("loom-codex-home-");
  const codexHome = join(home, "codex");
  mkdirSync(codexHome);
  const hub = new Hub();
  await hub.start();
  let n = 0;
  const mock = await startMock((req, res) => handle(Object.assign(req, { n: ++n }), res));
  const serverArgs = modelServer(ws, { answers, withRun }).args;
  const toml = (v) => JSON.stringify(v);
  writeFileSync(join(codexHome, "config.toml"), [
    ...(model ? [`model = ${toml(model)}`] : []),
    `model_provider = "offline"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.offline]`,
    `name = "offline mock"`,
    `base_url = ${toml(`http://127.0.0.1:${mock.port}/v1`)}`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[mcp_servers.${SERVER}]`,
    `command = ${toml(process.execPath)}`,
    `args = ${toml([recorderScript, String(hub.port), binary, ...serverArgs])}`,
    `default_tools_approval_mode = "approve"`,
    `startup_timeout_sec = 30`,
    ``,
    // No traffic but the model's: without these Codex exports metrics and
    // syncs plugins at exit, and waits seconds for name lookups that fail.
    `[analytics]`,
    `enabled = false`,
    ``,
    `[otel]`,
    `exporter = "none"`,
    `trace_exporter = "none"`,
    `metrics_exporter = "none"`,
    ``,
    `[features]`,
    `plugins = false`,
    `remote_plugin = false`,
    `apps = false`,
    `in_app_updates = false`,
    `api_key_model_discovery = false`,
    ``,
  ].join("\n"));
  // A clean environment: no key, setting or proxy of the machine's reaches
  // the client, whose home and configuration are temporary.
  const env = { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, LANG: "C.UTF-8" };
  const started = Date.now();
  const client = await runClient({
    command: process.execPath, cwd: ws, env, timeoutMs: 60_000,
    args: [codexJS, "exec", "--skip-git-repo-check", "--ephemeral", "--strict-config", "--color", "never",
      "In notes.txt, say that the beta shipped."],
  });
  const serverEnded = await hub.ended(10_000);
  if (!serverEnded) hub.kill();
  const seconds = (Date.now() - started) / 1000;
  await mock.close();
  hub.close();
  const onDisk = readWorkspaceFile(ws);
  return { label, answers, model, withRun, client, serverEnded, seconds, onDisk, requests: mock.requests,
    sessions: hub.sessions.map(mcpSession) };
}

const checks = new Checks();
console.log(`Codex ${version}`);
console.log(network);

const runs = [];
try {
  for (const cfg of [
    { label: "functions, text", mode: "functions", answers: "text", model: PLAIN_MODEL },
    { label: "functions, full", mode: "functions", answers: "full", model: PLAIN_MODEL },
    { label: "code mode, text", mode: "code", answers: "text", model: null },
    { label: "code mode, full", mode: "code", answers: "full", model: null },
    { label: "functions, text, --run", mode: "functions", answers: "text", model: PLAIN_MODEL, withRun: true },
    { label: "code mode, text, --run", mode: "code", answers: "text", model: null, withRun: true },
  ]) {
    const r = { ...(await run(cfg)), mode: cfg.mode };
    runs.push(r);
    verify(r);
  }
} finally {
  cleanup();
}

// verify checks one run and prints its figures.
function verify(r) {
  const tag = `[${r.label}]`;
  const loop = r.requests.filter(isTurn);
  const model = loop[0]?.body?.model ?? "?";
  console.log(`\n== Codex ${version}, model ${model} (${r.mode === "code" ? "code mode" : "functions"}), ` +
    `${modelServer("", r).heading}: ${r.seconds.toFixed(1)}s`);
  checks.check(`${tag} codex exec exited 0 within its time, nothing of it left running`,
    [r.client.code, r.client.timedOut, r.client.leftOver], [0, false, false]);
  if (r.client.code !== 0) console.log(r.client.stderr.slice(-2000));
  checks.check(`${tag} the final answer is the scripted model's`, r.client.stdout.trim(), FINAL_TEXT);
  checks.check(`${tag} one server process, ended when the client exited`, [r.sessions.length, r.serverEnded], [1, true]);
  checks.ok(`${tag} every request to the mock was a turn`, r.requests.every(isTurn),
    r.requests.filter((q) => !isTurn(q)).map((q) => `${q.method} ${q.url}`).join(", "));
  const codeMode = loop.length > 0 && !namespaceOf(loop[0].body) && hasExec(loop[0].body);
  checks.check(`${tag} the tools are presented as ${r.mode === "code" ? "code mode's exec" : "functions in a namespace"}`,
    codeMode, r.mode === "code");

  const session = r.sessions[0] ?? { calls: [], tools: [], instructions: "" };
  console.log(`handshake: ${session.handshake}`);
  const measure = checkListed(checks, tag, session, r.answers, r.withRun);

  const { calls } = conversation(loop.at(-1)?.body ?? { input: [] });
  checks.check(`${tag} the scripted calls reached the server, in order, with their arguments`,
    session.calls.map((c) => [c.name, c.arguments]), calls.map((c) => [c.tool, c.input]));
  r.rows = calls.map((c, i) => {
    const res = session.calls[i]?.result;
    const text = serverText(res);
    const { _meta, ...result } = res ?? {};
    let kind = "other";
    let parsed = null;
    try {
      parsed = JSON.parse(c.shown);
    } catch {}
    if (c.shown === text) kind = "text";
    else if (isJSONObject(c.shown) && isDeepStrictEqual(parsed, res?.structuredContent)) kind = "structured JSON";
    else if (isJSONObject(c.shown) && isDeepStrictEqual(parsed, result)) kind = result.structuredContent ? "result JSON +structured" : "result JSON";
    return { tool: c.tool, input: c.input, isError: res?.isError === true, text, shown: c.shown, frame: c.frame, parsed, kind,
      structured: res?.structuredContent !== undefined };
  });
  for (const [i, row] of r.rows.entries()) {
    const name = `${tag} call ${i + 1} ${row.tool}${row.isError ? " (error)" : ""}`;
    checks.ok(`${name}: Codex's frame first`, row.frame !== null, JSON.stringify(row.frame));
    if (r.mode === "functions") {
      if (r.answers === "text") {
        checks.check(`${name}: no structured content`, row.structured, false);
        checks.check(`${name}: the model is shown the server's text`, row.shown, row.text);
        checks.check(`${name}: never a JSON object`, isJSONObject(row.shown), false);
      } else {
        // Codex shows the structured content as JSON whenever there is
        // one, errors included.
        checks.check(`${name}: shown as JSON of the structured content`, row.kind, "structured JSON");
      }
    } else {
      // The script printed the CallToolResult that exec handed it.
      checks.check(`${name}: the script is handed the server's result`, row.kind,
        r.answers === "text" ? "result JSON" : "result JSON +structured");
      if (r.answers === "text") {
        checks.check(`${name}: whose content is the server's text, and nothing else`,
          [row.parsed?.content?.map((c) => c.text).join(""), Object.keys(row.parsed ?? {}).filter((k) => k !== "content" && k !== "isError")],
          [row.text, []]);
      }
    }
  }
  checks.check(`${tag} the write landed on disk`, r.onDisk, EXPECTED);

  const instructions = session.instructions ?? "";
  r.sent = loop.map((q) => sent(q.body, instructions));
  const n = toolCount(r.withRun);
  if (r.mode === "functions") {
    checks.check(`${tag} every request: the ${n} definitions, the instructions whole as the namespace's description`,
      r.sent.map((s) => [s.defs, s.instructionForm, namespaceOf(loop[0].body)?.description === instructions.trimEnd()]),
      r.sent.map(() => [n, "full", true]));
  } else {
    checks.check(`${tag} first request: no definition, the instructions' first line alone`,
      [r.sent[0]?.defs, r.sent[0]?.instructionForm], [0, "first line"]);
    checks.check(`${tag} after the listing: the instructions once in each of the ${n} tools' entries`,
      r.sent.at(-1)?.inListing, n);
  }
  const steps = ["(prompt)", ...calls.map((c) => c.tool)];
  if (r.mode === "code") steps.splice(1, 0, "exec: list tools");
  table(`What each request sent the model of loom-results (bytes; the server's listing by SPEC 2's measure, as JSON.stringify writes it: ` +
    `${measure.defs} definitions + ${measure.instructions} instructions = ${measure.total})`,
  ["request after", "definitions", "def bytes", "listing in history", "instructions", "total"],
  r.sent.map((s, i) => [`${i + 1} ${steps[i] ?? "?"}`, s.defs, s.defBytes,
    s.listingBytes + (s.inListing ? ` (instructions x${s.inListing})` : ""), `${s.instructionBytes} ${s.instructionForm}`,
    s.defBytes + s.listingBytes + s.instructionBytes]));
}

// Side by side, for each presentation: what the model saw of each call
// with text answers and with full answers.
for (const mode of ["functions", "code"]) {
  const text = runs.find((r) => r.mode === mode && r.answers === "text" && !r.withRun);
  const full = runs.find((r) => r.mode === mode && r.answers === "full");
  if (!text?.rows || !full?.rows) continue;
  const args = (row) => JSON.stringify(row.input).slice(0, 48);
  table(`What the model was shown of each call, ${mode === "code" ? "code mode (what `text(result)` prints)" : "functions"} ` +
    `(bytes after Codex's frame, and what it was)`,
  ["call", "server text", "--answers text", "--answers full"],
  text.rows.map((row, i) => [`${i + 1} ${row.tool} ${args(row)}`, bytes(row.text), `${bytes(row.shown ?? "")} ${row.kind}`,
    full.rows[i] ? `${bytes(full.rows[i].shown ?? "")} ${full.rows[i].kind}` : "-"]));
  const sum = (rows) => rows.reduce((n, row) => n + bytes(row.shown ?? ""), 0);
  console.log(`  total shown: ${sum(text.rows)} bytes with text answers, ${sum(full.rows)} with full answers`);
}

console.log(`\ncodex-check: ${checks.passed} passed, ${checks.failed} failed`);
process.exitCode = checks.failed === 0 ? 0 : 1;
