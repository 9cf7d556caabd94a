// stock-walk.mjs walks loom-results as a stock MCP client uses it (SPEC
// sections 1 and 9: --steps model --write), with the official TypeScript
// SDK's client standing in for Claude Code, Cursor, VS Code or Codex:
// inspect -> find with two patterns -> get_lines numbered -> write_file
// splice -> a second write_file on the result the first retained -> the
// file changed behind the server's back -> conflict -> inspect again ->
// write_file. It checks every answer and the file on disk, then makes the
// same two edits with @modelcontextprotocol/server-filesystem
// (read_text_file, edit_file) and prints the bytes each way reads (every
// answer's text content) and generates (every call's arguments, compact
// JSON). Then, with --run test='go test ./...' in a small module whose test
// fails, the loop of a test run (runWalk): run, find FAIL, get_lines around
// it, write_file the fix, run again. It exits 1 on any failed check.
//
// Usage: node stock-walk.mjs <loom-results binary>

import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isDeepStrictEqual } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const binary = process.argv[2];
if (!binary) {
  console.error("usage: node stock-walk.mjs <loom-results binary>");
  process.exit(2);
}

// service.go: a 329-line Go file of 40 handlers, the same on every run.
function source() {
  const out = ["package service", "", "import (", '\t"context"', '\t"errors"', '\t"fmt"', ")", ""];
  for (let i = 1; i <= 40; i++) {
    out.push(`// Handle${i} serves request kind ${i}.`);
    out.push(`func (s *Service) Handle${i}(ctx context.Context, req Request) (Response, error) {`);
    out.push(`\tif err := s.check(ctx, req, ${i}); err != nil {`);
    out.push(`\t\treturn Response{}, fmt.Errorf("handle ${i}: %w", err)`);
    out.push("\t}");
    out.push(`\treturn s.respond(req, ${i}), nil`);
    out.push("}");
    out.push("");
  }
  out.push("var errClosed = errors.New(\"service closed\")");
  return out.join("\n") + "\n";
}

const original = source();
const ws = mkdtempSync(join(tmpdir(), "loom-stock-walk-"));
const file = join(ws, "service.go");
writeFileSync(file, original);
const sha = (s) => createHash("sha256").update(s).digest("hex");
const lineOf = (text, needle) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

let passed = 0;
let failed = 0;
function check(name, got, want) {
  const short = (v) => { const s = JSON.stringify(v); return s.length > 300 ? s.slice(0, 300) + "…" : s; };
  if (isDeepStrictEqual(got, want)) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: got ${short(got)}, want ${short(want)}`);
  }
}

// A client whose calls count the bytes the model reads and generates.
function counted(client) {
  const tally = { read: 0, generated: 0, calls: 0 };
  const call = async (name, args) => {
    tally.generated += Buffer.byteLength(JSON.stringify(args));
    tally.calls++;
    const res = await client.callTool({ name, arguments: args });
    for (const c of res.content) if (c.type === "text") tally.read += Buffer.byteLength(c.text);
    return res;
  };
  return { call, tally };
}
const text = (res) => res.content.map((c) => c.text).join("");

// The two edits, as the model means them: edit 1 makes Handle17 wrap its
// error with the service's name and adds a comment line before Handle40;
// edit 2, in the file edit 1 wrote, changes Handle40's return.
const e1old = '\t\treturn Response{}, fmt.Errorf("handle 17: %w", err)\n';
const e1new = '\t\treturn Response{}, fmt.Errorf("service: handle 17: %w", err)\n';
const e1ins = "// Handle40 is the slow path.\n";
const e2old = "\treturn s.respond(req, 40), nil\n";
const e2new = "\treturn s.respondSlow(ctx, req, 40), nil\n";
const afterEdit1 = original.replace(e1old, e1new).replace("// Handle40 serves", e1ins + "// Handle40 serves");
const afterEdit2 = afterEdit1.replace(e2old, e2new);

const loom = new Client({ name: "loom-stock-walk", version: "0.0.1" });
const loomTally = { read: 0, generated: 0, calls: 0 };
try {
  await loom.connect(new StdioClientTransport({ command: binary, args: ["--root", ws, "--steps", "model", "--write"], stderr: "inherit" }));
  const instructions = loom.getInstructions() ?? "";
  check("instructions name write_file and when to call begin_step",
    [instructions.includes("write_file"), instructions.includes("Call begin_step when you start a new action")], [true, true]);
  const tools = (await loom.listTools()).tools;
  const wf = tools.find((t) => t.name === "write_file");
  check("write_file listed, destructive, not read-only", [wf?.annotations?.readOnlyHint, wf?.annotations?.destructiveHint], [false, true]);
  check("begin_step is the model's", tools.find((t) => t.name === "begin_step").description.startsWith("Start a new step"), true);

  const { call, tally } = counted(loom);
  let res = await call("inspect", { paths: ["service.go"] });
  const r1 = res.structuredContent.results[0];
  check("inspect: r1, 329 lines", [r1.id, r1.lines, r1.sha256], ["r1", 329, sha(original)]);

  // One find locates both places.
  res = await call("find", { result: "r1", patterns: ['Errorf("handle 17:', "Handle40("] });
  const found = res.structuredContent.matches.map((m) => m.line);
  check("find with two patterns: both lines, in order", found, [lineOf(original, 'Errorf("handle 17:'), lineOf(original, "Handle40(")]);

  // The lines around the second place, numbered.
  const h40 = found[1];
  res = await call("get_lines", { result: "r1", first: h40 - 1, last: h40 + 5, numbered: true });
  check("get_lines numbered: \"N: \" prefixes", text(res).split("\n")[1], `${h40}: func (s *Service) Handle40(ctx context.Context, req Request) (Response, error) {`);

  // Edit 1: a splice with the default path and base.
  res = await call("write_file", { splice: { result: "r1", edits: [
    { lines: [found[0], found[0]], text: e1new },
    { before: h40 - 1, text: e1ins },
  ] } });
  check("write_file 1: not an error", res.isError ?? false, false);
  check("write_file 1: path, base, new result", [res.structuredContent.path, res.structuredContent.base, res.structuredContent.result.id], ["service.go", "r1", "r2"]);
  check("write_file 1: the file on disk", readFileSync(file, "utf8") === afterEdit1, true);
  check("write_file 1: the digest is the file's", res.structuredContent.sha256, sha(afterEdit1));
  check("write_file 1: the text shows the diff", text(res).includes(`+${e1new}`) && text(res).includes(`+${e1ins}`), true);

  // Edit 2 on r2, whose line numbers moved by the inserted line.
  const ret40 = lineOf(afterEdit1, e2old.trimEnd());
  res = await call("write_file", { splice: { result: "r2", edits: [{ lines: [ret40, ret40], text: e2new }] } });
  check("write_file 2: base r2, result r3", [res.structuredContent.base, res.structuredContent.result.id], ["r2", "r3"]);
  check("write_file 2: the file on disk", readFileSync(file, "utf8") === afterEdit2, true);
  Object.assign(loomTally, tally);

  // The file changes behind the server's back.
  const behind = afterEdit2.replace("package service", "package service // edited elsewhere");
  writeFileSync(file, behind);
  res = await call("write_file", { splice: { result: "r3", edits: [{ lines: [1, 1], text: "package svc\n" }] } });
  check("write_file on a changed file: conflict with the file's size and digest", [res.isError, res.structuredContent.error.code,
    res.structuredContent.error.size, res.structuredContent.error.sha256], [true, "conflict", Buffer.byteLength(behind), null]);
  check("the conflict wrote nothing", readFileSync(file, "utf8") === behind, true);
  res = await call("inspect", { paths: ["service.go"] });
  const r4 = res.structuredContent.results[0].id;
  res = await call("write_file", { splice: { result: r4, edits: [{ lines: [1, 1], text: "package svc // edited elsewhere\n" }] } });
  const r5 = res.structuredContent.result.id;
  check("write_file after inspecting again", [res.isError ?? false, readFileSync(file, "utf8") === behind.replace("package service", "package svc")],
    [false, true]);

  // A step's lookups run out; begin_step (the model's) starts a new one.
  for (let i = 0; i < 6; i++) await call("get_lines", { result: r5, first: 1, last: 1 });
  res = await call("get_lines", { result: r5, first: 1, last: 1 });
  check("the ninth lookup: lookup_limit, saying to call begin_step", [res.structuredContent.error.code, text(res).includes("call begin_step")], ["lookup_limit", true]);
  res = await call("begin_step", {});
  res = await call("get_lines", { result: r5, first: 1, last: 1 });
  check("after begin_step the lookup is served", text(res), "package svc // edited elsewhere\n");
} catch (err) {
  failed++;
  console.log(`FAIL loom session: ${err?.stack ?? err}`);
} finally {
  await loom.close().catch(() => {});
}

// The same two edits with server-filesystem: read the file, then edit_file
// with the smallest unique old texts.
writeFileSync(file, original);
const require = createRequire(import.meta.url);
const fsServer = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");
const fsClient = new Client({ name: "loom-stock-walk-fs", version: "0.0.1" });
let fsTally = { read: 0, generated: 0, calls: 0 };
try {
  await fsClient.connect(new StdioClientTransport({ command: process.execPath, args: [fsServer, ws], stderr: "ignore" }));
  const { call, tally } = counted(fsClient);
  await call("read_text_file", { path: file });
  let res = await call("edit_file", { path: file, edits: [
    { oldText: e1old, newText: e1new },
    { oldText: "// Handle40 serves", newText: e1ins + "// Handle40 serves" },
  ] });
  check("server-filesystem edit 1", [res.isError ?? false, readFileSync(file, "utf8") === afterEdit1], [false, true]);
  res = await call("edit_file", { path: file, edits: [{ oldText: "\treturn s.respond(req, 40), nil", newText: e2new.trimEnd() }] });
  check("server-filesystem edit 2", [res.isError ?? false, readFileSync(file, "utf8") === afterEdit2], [false, true]);
  fsTally = tally;
} catch (err) {
  failed++;
  console.log(`FAIL server-filesystem session: ${err?.stack ?? err}`);
} finally {
  await fsClient.close().catch(() => {});
  rmSync(ws, { recursive: true, force: true });
}

const runTally = await runWalk();

const row = (name, t) => `${name.padEnd(40)} ${String(t.calls).padStart(5)} ${String(t.read).padStart(10)} ${String(t.generated).padStart(10)}`;
console.log(`\nthe same two edits of a ${original.split("\n").length - 1}-line file (${Buffer.byteLength(original)} bytes)`);
console.log(`${"".padEnd(40)} ${"calls".padStart(5)} ${"read".padStart(10)} ${"generated".padStart(10)}`);
console.log(row("loom (inspect, find, get_lines, 2 writes)", loomTally));
console.log(row("server-filesystem (read, 2 edit_file)", fsTally));
if (runTally.calls > 0) {
  console.log(`\na failing go test fixed through run (the whole log: ${runTally.log} bytes each run)`);
  console.log(row("loom (run, find, get_lines, inspect, write_file, run)", runTally));
}
console.log(`stock-walk: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

// runWalk walks run (SPEC section 10) as a stock client uses it: a test
// fails; the model runs it, finds FAIL in the retained output, reads the
// lines around it, writes the fix, and runs the test again. Every answer is
// text alone (--steps model's --answers text).
async function runWalk() {
  const runTally = { read: 0, generated: 0, calls: 0, log: 0 };
  const dir = mkdtempSync(join(tmpdir(), "loom-stock-run-"));
  writeFileSync(join(dir, "go.mod"), "module example.com/add\n\ngo 1.21\n");
  writeFileSync(join(dir, "add.go"), "package add\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n");
  writeFileSync(join(dir, "add_test.go"), "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n" +
    "\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf(\"Add(1, 2) = %d, want 3\", got)\n\t}\n}\n");
  const client = new Client({ name: "loom-stock-walk-run", version: "0.0.1" });
  try {
    await client.connect(new StdioClientTransport({ command: binary,
      args: ["--root", dir, "--steps", "model", "--write", "--run", "test=go test ./..."], stderr: "inherit" }));
    const run = (await client.listTools()).tools.find((t) => t.name === "run");
    check("run listed: destructive, open-world, its one name", [run?.annotations?.destructiveHint, run?.annotations?.openWorldHint,
      run?.inputSchema?.properties?.name?.enum], [true, true, ["test"]]);
    check("run's description gives the command", run?.description?.includes("- test: go test ./..."), true);
    check("the instructions name run", (client.getInstructions() ?? "").includes("run {name}"), true);

    const { call, tally } = counted(client);
    let res = await call("run", { name: "test" });
    let t = text(res);
    const header = t.split("\n")[0];
    check("run: the failing test's header", /^r1 output "test" exit=1: \d+ bytes, \d+ lines, complete, sha256=[0-9a-f]{12}$/.test(header), true);
    check("run: the tail says FAIL", t.includes("\nFAIL"), true);
    check("run: text alone, no structured content", res.structuredContent, undefined);
    runTally.log = Number(/: (\d+) bytes/.exec(header)?.[1] ?? 0);

    res = await call("find", { result: "r1", pattern: "FAIL" });
    t = text(res);
    check("find FAIL: the failing test first", /^\d+: --- FAIL: TestAdd/.test(t), true);
    const failLine = Number(t.split(":")[0]);
    res = await call("get_lines", { result: "r1", first: failLine, last: failLine + 1 });
    check("get_lines after FAIL: the message", text(res).includes("Add(1, 2) = -1, want 3"), true);

    res = await call("inspect", { paths: ["add.go"] });
    const file = text(res).split(" ")[0];
    check("inspect add.go", file, "r2");
    res = await call("write_file", { splice: { result: file, edits: [{ lines: [5, 5], text: "\treturn a + b\n" }] } });
    check("write_file the fix", [res.isError ?? false, readFileSync(join(dir, "add.go"), "utf8").includes("return a + b")], [false, true]);

    res = await call("run", { name: "test" });
    t = text(res);
    check("run again: exit 0, ok", [/^r\d+ output "test" exit=0: /.test(t), t.includes("ok  \texample.com/add")], [true, true]);
    Object.assign(runTally, tally, { log: runTally.log });
  } catch (err) {
    failed++;
    console.log(`FAIL run session: ${err?.stack ?? err}`);
  } finally {
    await client.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
  return runTally;
}
