// model-check.mjs holds what claude-code-check.mjs and codex-check.mjs share:
// a network namespace of their own (loopback only), a recording hub for
// the MCP traffic between a client and loom-results (mcp-recorder.mjs), a
// mock model API on 127.0.0.1, a bounded run of a client process, the
// scripted model's plan, and the checks and tables they print.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHTTPServer } from "node:http";
import { createServer as createTCPServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

export const here = dirname(fileURLToPath(import.meta.url));
export const recorderScript = join(here, "mcp-recorder.mjs");

// isolateNetwork runs this script again in a network namespace of its own
// whose only interface is loopback, when unshare(1) and ip(8) allow it, so
// that a client can reach nothing but the mock: every other connection
// fails at once instead of leaving the machine. It returns a line that says
// which network the checks ran in; in the parent it exits with the child's
// status and never returns.
export function isolateNetwork() {
  if (process.env.LOOM_CLIENT_CHECK_NETNS === "1") {
    const names = Object.keys(networkInterfaces());
    return `network: a namespace of its own, interfaces ${names.join(", ")}`;
  }
  const userns = process.getuid?.() === 0 ? [] : ["--map-root-user"];
  const wrap = (argv) => ["unshare", [...userns, "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", ...argv]];
  const [cmd, probeArgs] = wrap(["true"]);
  const probe = spawnSync(cmd, probeArgs, { stdio: "ignore" });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? probe.error.message : `unshare --net exited ${probe.status}`;
    return `network: shared with the machine (no namespace of its own: ${why}); the clients are pointed at the mock only`;
  }
  const [, args] = wrap([process.execPath, ...process.argv.slice(1)]);
  const child = spawnSync(cmd, args, { stdio: "inherit", env: { ...process.env, LOOM_CLIENT_CHECK_NETNS: "1" } });
  process.exit(child.status ?? 1);
}

// Checks prints each check as it is made and counts them.
export class Checks {
  passed = 0;
  failed = 0;
  check(name, got, want) {
    if (isDeepStrictEqual(got, want)) {
      this.passed++;
      console.log(`ok   ${name}`);
    } else {
      this.failed++;
      const short = (v) => {
        const s = JSON.stringify(v);
        return s && s.length > 400 ? s.slice(0, 400) + "…" : s;
      };
      console.log(`FAIL ${name}: got ${short(got)}, want ${short(want)}`);
    }
  }
  ok(name, cond, detail = "") {
    this.check(detail ? `${name} (${detail})` : name, cond, true);
  }
}

// table prints rows (arrays of cells) under headers, columns aligned.
export function table(title, headers, rows) {
  const all = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  console.log(`\n${title}`);
  for (const [n, r] of all.entries()) {
    console.log("  " + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
    if (n === 0) console.log("  " + widths.map((w) => "-".repeat(w)).join("  "));
  }
}

export const bytes = (s) => Buffer.byteLength(s, "utf8");

// Hub collects what mcp-recorder.mjs sends: one connection per server
// process, each a list of events, closed when that server has exited.
export class Hub {
  sessions = [];
  #ended = [];
  async start() {
    this.server = createTCPServer((sock) => {
      const session = { events: [], closed: false };
      this.sessions.push(session);
      let rest = "";
      sock.on("data", (chunk) => {
        rest += chunk.toString("utf8");
        let i;
        while ((i = rest.indexOf("\n")) >= 0) {
          session.events.push(JSON.parse(rest.slice(0, i)));
          rest = rest.slice(i + 1);
        }
      });
      sock.on("error", () => {});
      this.#ended.push(new Promise((resolve) => sock.on("close", () => resolve((session.closed = true)))));
    });
    await new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = this.server.address().port;
  }
  // ended waits, at most ms, for every server process recorded so far to
  // end; it returns false on time-out.
  async ended(ms) {
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const all = Promise.all(this.#ended).then(() => true);
    const done = await Promise.race([all, timeout]);
    clearTimeout(timer);
    return done;
  }
  // kill ends the server processes still running (after a time-out).
  kill() {
    for (const s of this.sessions) {
      const start = s.events.find((e) => e.event === "start");
      for (const pid of [start?.server, start?.recorder]) {
        try {
          if (pid) process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  }
  close() {
    this.server.close();
  }
}

// mcpSession reads one recorded server session: the handshake (initialize,
// or server/discover of protocol 2026-07-28) and its instructions, the
// tools of tools/list, and every tools/call with its result, in the order
// of the requests.
export function mcpSession(session) {
  const requests = new Map();
  const answers = new Map();
  for (const e of session.events) {
    if (e.event !== "message") continue;
    const m = JSON.parse(e.line);
    if (e.from === "client" && m.method && m.id !== undefined) requests.set(JSON.stringify(m.id), m);
    if (e.from === "server" && m.id !== undefined && !m.method) answers.set(JSON.stringify(m.id), m);
  }
  let instructions = null;
  let handshake = null;
  let tools = null;
  const calls = [];
  for (const [id, req] of requests) {
    const ans = answers.get(id);
    if (req.method === "initialize" || req.method === "server/discover") {
      instructions = ans?.result?.instructions ?? null;
      const version = req.params?.protocolVersion ?? req.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
      handshake = `${req.method} ${version}`;
    }
    if (req.method === "tools/list") tools = ans?.result?.tools ?? null;
    if (req.method === "tools/call") calls.push({ name: req.params.name, arguments: req.params.arguments, result: ans?.result, error: ans?.error });
  }
  const exit = session.events.find((e) => e.event === "exit");
  return { handshake, instructions, tools, calls, exit };
}

// specMeasure is SPEC section 2's size of what a client sends its model on
// every turn: each listed tool as the compact JSON object {"name",
// "title", "description", "inputSchema"} (title: the tool's, or else its
// annotations'), plus the instructions' UTF-8 bytes.
export function specMeasure(tools, instructions) {
  let defs = 0;
  for (const t of tools) {
    const title = t.title ?? t.annotations?.title;
    const obj = title === undefined ? { name: t.name } : { name: t.name, title };
    defs += bytes(JSON.stringify({ ...obj, description: t.description, inputSchema: t.inputSchema }));
  }
  return { defs, instructions: bytes(instructions ?? ""), total: defs + bytes(instructions ?? "") };
}

// serverText is an answer's text content as the server sent it.
// checkListed checks what the server listed, as a stock client saw it in
// the session: instructions, the eight model-mode tools and, with text
// answers, no outputSchema and SPEC section 2's measure within 7,000 bytes.
// It returns the measure.
export function checkListed(checks, tag, session, answers, run = false) {
  checks.ok(`${tag} the server sent instructions`, (session.instructions ?? "") !== "");
  const names = (session.tools ?? []).map((t) => t.name).sort();
  checks.check(`${tag} tools/list: the model-mode set of ${toolCount(run) === 8 ? "eight" : "nine, run among them"}`, names,
    ["begin_step", "find", "get_json", "get_lines", "get_range", "inspect", "list_results", ...(run ? ["run"] : []), "write_file"]);
  const measure = specMeasure(session.tools ?? [], session.instructions);
  if (answers === "text") {
    checks.check(`${tag} tools/list: no outputSchema`, (session.tools ?? []).filter((t) => t.outputSchema).map((t) => t.name), []);
    // SPEC 2's limit holds without --run; run adds less than 1,000 bytes
    // (TestRecommendedDefinitionsSize).
    const limit = run ? 8000 : 7000;
    checks.ok(`${tag} SPEC 2 measure: definitions + instructions at most ${limit.toLocaleString("en")} bytes`, measure.total <= limit,
      `${measure.defs} + ${measure.instructions} = ${measure.total}`);
  }
  return measure;
}

// RUN_ARGS are what the README's recommended command adds to --steps model
// --write: run, with the one command it names.
export const RUN_ARGS = ["--run", "test=go test ./..."];

// modelServer is a check's server: its arguments for workspace ws (--steps
// model --write, --answers full when answers is "full", and RUN_ARGS with
// withRun), and those flags as the check's heading names them.
export function modelServer(ws, { answers, withRun }) {
  const flags = ["--steps", "model", "--write", ...(answers === "full" ? ["--answers", "full"] : []), ...(withRun ? RUN_ARGS : [])];
  return { args: ["--root", ws, ...flags], heading: flags.map((f) => (f.includes(" ") ? `'${f}'` : f)).join(" ") };
}

// toolCount is how many tools model mode with --write lists: nine with
// --run.
export const toolCount = (run) => (run ? 9 : 8);

export const serverText = (result) => (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

// isJSONObject tells whether s is a JSON object (what a client shows when
// it serializes structured content).
export function isJSONObject(s) {
  try {
    const v = JSON.parse(s);
    return v !== null && typeof v === "object" && !Array.isArray(v);
  } catch {
    return false;
  }
}

// startMock serves a model API on an ephemeral port of 127.0.0.1. Every
// request is recorded ({method, url, body}) and handed to handle(request,
// res), which writes the answer.
export async function startMock(handle) {
  const requests = [];
  const server = createHTTPServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const request = { method: req.method, url: req.url, body, at: Date.now() };
      requests.push(request);
      try {
        handle(request, res);
      } catch (err) {
        request.error = String(err);
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(err) } }));
      }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

// runClient runs a client in a process group of its own with no standard
// input, waits at most timeoutMs for it to exit, then ends whatever is
// left of its group. It returns the exit status, the output, whether it
// timed out, and whether anything of its group outlived it.
export async function runClient({ command, args, env, cwd, timeoutMs }) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  let timer;
  let timedOut = false;
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const spawnError = new Promise((resolve) => child.on("error", (err) => resolve({ code: null, signal: null, error: err })));
  const timeout = new Promise((resolve) => (timer = setTimeout(() => {
    timedOut = true;
    resolve(null);
  }, timeoutMs)));
  let status = await Promise.race([exited, spawnError, timeout]);
  clearTimeout(timer);
  const leftOver = child.pid !== undefined && groupAlive(child.pid);
  if (leftOver) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
  if (status === null) status = await exited;
  return { ...status, stdout, stderr, timedOut, leftOver };
}

// groupAlive tells whether a process of group pgid is still running:
// from /proc, where a zombie (a child whose parent exited first, waiting
// to be reaped) does not count; elsewhere by signal 0.
function groupAlive(pgid) {
  try {
    const pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
    return pids.some((pid) => {
      try {
        // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(pgrp) === pgid && state !== "Z";
      } catch {
        return false;
      }
    });
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

// tempDir makes a temporary directory; cleanup() removes every one made.
const temps = [];
export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
export function cleanup() {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

// The workspace of every run: one file, with a quote and a tab so that a
// JSON rendering of an answer differs visibly from its text.
export const FILE = "notes.txt";
export const ORIGINAL = '# Release notes\nbeta: "quoted"\ttabbed\ngamma\ndelta\n';
export const NEW_LINE = "beta: shipped\n";
export const EXPECTED = ORIGINAL.replace('beta: "quoted"\ttabbed\n', NEW_LINE);
export function makeWorkspace() {
  const ws = tempDir("loom-client-ws-");
  writeFileSync(join(ws, FILE), ORIGINAL);
  return ws;
}
export const readWorkspaceFile = (ws) => readFileSync(join(ws, FILE), "utf8");

// The tools the scripted model uses; the loop that the server's
// instructions describe.
export const LOOP_TOOLS = ["find", "get_lines", "write_file"];

// resultID is the first result ID in what the model was shown.
const resultID = (shown) => /\b(r\d+)\b/.exec(shown ?? "")?.[1] ?? "r?";

// lineRef is how the model names line n in an edit: by the anchor that
// find or numbered get_lines showed it ("2#xy", SPEC v5 section 4.4), in
// the text or in the JSON of a structured answer; by its number when no
// answer showed one (a server older than anchors).
const lineRef = (shown, n) => new RegExp(`(?<![0-9])${n}#[a-z2-7]{2}(?![a-z2-7])`).exec(shown.join("\n"))?.[0] ?? n;

// plan is the scripted model's session: the calls it makes, each a
// function of what it was shown before. With find over paths and lookups
// by path (SPEC v4) it follows the server's instructions; without them
// (a server that has only results) it inspects the file first. Both end
// with a lookup past the file's last line, which fails.
function plan(byPath) {
  if (byPath) {
    return [
      () => ({ tool: "find", input: { paths: ["."], pattern: "beta" } }),
      () => ({ tool: "find", input: { paths: ["."], pattern: "no such text" } }),
      () => ({ tool: "get_lines", input: { path: FILE, first: 1, last: 3, numbered: true } }),
      (shown) => ({ tool: "write_file", input: { splice: { result: resultID(shown[0]), edits: [{ lines: [lineRef(shown, 2), lineRef(shown, 2)], text: NEW_LINE }] } } }),
      () => ({ tool: "get_lines", input: { path: FILE, first: 90, last: 99 } }),
    ];
  }
  return [
    () => ({ tool: "inspect", input: { paths: [FILE] } }),
    (shown) => ({ tool: "find", input: { result: resultID(shown[0]), pattern: "beta" } }),
    (shown) => ({ tool: "find", input: { result: resultID(shown[0]), pattern: "no such text" } }),
    (shown) => ({ tool: "get_lines", input: { result: resultID(shown[0]), first: 1, last: 3, numbered: true } }),
    (shown) => ({ tool: "write_file", input: { splice: { result: resultID(shown[0]), edits: [{ lines: [lineRef(shown, 2), lineRef(shown, 2)], text: NEW_LINE }] } } }),
    (shown) => ({ tool: "get_lines", input: { result: resultID(shown[0]), first: 90, last: 99 } }),
  ];
}

export const FINAL_TEXT = "Done: line 2 of notes.txt now says the beta shipped.";

// nextAction is the scripted model's turn. view tells what the client has
// shown it: properties(tool) the names of a tool's parameters, or null
// while the tool's definition is not loaded; loads the tools it has asked
// the client to load so far; shown what each earlier loom-results call
// showed, in order. It answers {load: [tools]}, {call: {tool, input}} or
// {text}.
export function nextAction(view) {
  const wanted = [...LOOP_TOOLS];
  const props = (t) => view.properties(t);
  if (props("find") && !(props("find").includes("paths") && props("get_lines")?.includes("path"))) wanted.push("inspect");
  const missing = wanted.filter((t) => !props(t));
  if (missing.length > 0) {
    if (view.loads.some((l) => missing.every((t) => l.includes(t)))) return { text: `The client did not load ${missing.join(", ")}.` };
    return { load: missing };
  }
  const steps = plan(!wanted.includes("inspect"));
  if (view.shown.length >= steps.length) return { text: FINAL_TEXT };
  return { call: steps[view.shown.length](view.shown) };
}
