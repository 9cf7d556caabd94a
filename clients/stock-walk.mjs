// stock-walk.mjs walks loom-results as a stock MCP client uses it (SPEC
// v5 sections 1, 2, 4, 4.4, 5.2, 5.3 and 9: --steps model --write, which answers in
// text alone), with the official TypeScript SDK's client standing in for
// Claude Code, Cursor, VS Code or Codex: find over the project with two
// patterns (no inspect: its answer names the file's result) -> get_lines
// numbered -> write_file splice, naming lines by the anchors that find and
// get_lines show -> a second write_file on the result the first retained
// -> the file changed behind the server's back -> conflict, which names
// the file's current text as a result -> write_file splicing that result
// -> a step's lookups spent -> begin_step -> an edit aimed one line off,
// which fails with anchor_mismatch naming the line meant. It checks every
// answer and the file on disk, then makes the same two edits with
// @modelcontextprotocol/server-filesystem (read_text_file, edit_file) and
// prints, for each, the calls, the bytes the model reads (what Claude Code
// shows it: a success's structured content as JSON when there is one, else
// the text) and the bytes it generates (every call's arguments, compact
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
// A file without matches: find reads it and retains nothing of it.
writeFileSync(join(ws, "notes.md"), "# Notes\n\nNothing here mentions the handlers.\n");
const sha = (s) => createHash("sha256").update(s).digest("hex");
// anchorOf is line n's anchor in text (SPEC 4.4): its number, "#", and the
// first two lowercase base32 characters of the SHA-256 of its text
// without its ending.
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const anchorOf = (text, n) => {
  const d = createHash("sha256").update(text.split("\n")[n - 1].replace(/\r$/, "")).digest();
  return `${n}#${ALPHABET[d[0] >> 3]}${ALPHABET[((d[0] & 7) << 2) | (d[1] >> 6)]}`;
};
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

// A client whose calls count the bytes the model reads and generates. The
// model reads what Claude Code shows it: a success's structured content as
// JSON whenever it has one, else the text content.
function counted(client) {
  const tally = { read: 0, generated: 0, calls: 0 };
  const call = async (name, args) => {
    tally.generated += Buffer.byteLength(JSON.stringify(args));
    tally.calls++;
    const res = await client.callTool({ name, arguments: args });
    tally.read += Buffer.byteLength(seen(res));
    return res;
  };
  return { call, tally };
}
const text = (res) => res.content.map((c) => c.text).join("");
const seen = (res) => (res.structuredContent && !res.isError ? JSON.stringify(res.structuredContent) : text(res));

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
  check("instructions: the first line says what the server is for, the rest name the loop",
    [instructions.split("\n")[0].length < 240, ["find {paths", "get_lines", "write_file", "begin_step"].every((w) => instructions.includes(w))],
    [true, true]);
  const tools = (await loom.listTools()).tools;
  check("eight tools, none with an output schema", [tools.map((t) => t.name).sort(), tools.some((t) => t.outputSchema)],
    [["begin_step", "find", "get_json", "get_lines", "get_range", "inspect", "list_results", "write_file"], false]);
  const wf = tools.find((t) => t.name === "write_file");
  check("write_file destructive, not read-only", [wf?.annotations?.readOnlyHint, wf?.annotations?.destructiveHint], [false, true]);

  const { call, tally } = counted(loom);
  // One find over the project locates both places; only the file with
  // matches is retained, and its header line names its result.
  const l17 = lineOf(original, 'Errorf("handle 17:');
  const h40 = lineOf(original, "Handle40(");
  let res = await call("find", { paths: ["."], patterns: ['Errorf("handle 17:', "Handle40("] });
  check("find over paths, two patterns: the file's result, then both lines", text(res),
    `r1 service.go:\n${anchorOf(original, l17)}: ${original.split("\n")[l17 - 1]}\n${anchorOf(original, h40)}: ${original.split("\n")[h40 - 1]}\n`);
  check("answers carry no structured content", res.structuredContent, undefined);

  // The lines around the second place, numbered.
  res = await call("get_lines", { result: "r1", first: h40 - 1, last: h40 + 5, numbered: true });
  check("get_lines numbered: anchor prefixes", text(res).split("\n")[1], `${anchorOf(original, h40)}: func (s *Service) Handle40(ctx context.Context, req Request) (Response, error) {`);

  // Edit 1: a splice with the default path and base, its lines named by
  // their anchors.
  res = await call("write_file", { splice: { result: "r1", edits: [
    { lines: [anchorOf(original, l17), anchorOf(original, l17)], text: e1new },
    { before: anchorOf(original, h40 - 1), text: e1ins },
  ] } });
  check("write_file 1: path, base, new result", text(res).split("\n")[0],
    `wrote service.go: ${Buffer.byteLength(afterEdit1)} bytes, 330 lines, sha256=${sha(afterEdit1).slice(0, 12)} result=r2 base=r1`);
  check("write_file 1: the file on disk", readFileSync(file, "utf8") === afterEdit1, true);
  check("write_file 1: the text shows the diff", text(res).includes(`+${e1new}`) && text(res).includes(`+${e1ins}`), true);

  // Edit 2 on r2, whose line numbers moved by the inserted line.
  const ret40 = lineOf(afterEdit1, e2old.trimEnd());
  const at2 = anchorOf(afterEdit1, ret40);
  res = await call("write_file", { splice: { result: "r2", edits: [{ lines: [at2, at2], text: e2new }] } });
  check("write_file 2: base r2, result r3", /result=r3 base=r2\n/.test(text(res)), true);
  check("write_file 2: the file on disk", readFileSync(file, "utf8") === afterEdit2, true);
  Object.assign(loomTally, tally);

  // The file changes behind the server's back: the conflict retains its
  // current text and shows the change, so the edit is made again on it
  // without reading the file again.
  const behind = afterEdit2.replace("package service", "package service // edited elsewhere");
  writeFileSync(file, behind);
  const at3 = anchorOf(afterEdit2, ret40);
  res = await call("write_file", { splice: { result: "r3", edits: [{ lines: [at3, at3], text: "\treturn s.respondFast(req, 40), nil\n" }] } });
  const [first, ...diff] = text(res).split("\n");
  check("write_file on a changed file: conflict, naming the current text", [res.isError, first],
    [true, `error conflict: file "service.go" changed since r3 was read (${Buffer.byteLength(afterEdit2)} -> ${Buffer.byteLength(behind)} bytes); its current text is r4: make the edit on r4`]);
  check("the conflict shows the change from r3", diff.join("\n"), "@@ -1,2 +1,2 @@\n-package service\n+package service // edited elsewhere\n \n");
  check("the conflict wrote nothing", readFileSync(file, "utf8") === behind, true);
  const at4 = anchorOf(behind, ret40);
  res = await call("write_file", { splice: { result: "r4", edits: [{ lines: [at4, at4], text: "\treturn s.respondFast(req, 40), nil\n" }] } });
  check("write_file on the current result", [res.isError ?? false, readFileSync(file, "utf8") === behind.replace(e2new, "\treturn s.respondFast(req, 40), nil\n")],
    [false, true]);

  // A step's lookups run out; begin_step (the model's) starts a new one.
  for (let i = 0; i < 6; i++) await call("get_lines", { result: "r5", first: 1, last: 1 });
  res = await call("get_lines", { result: "r5", first: 1, last: 1 });
  check("the ninth lookup: lookup_limit, saying to call begin_step", [text(res).startsWith("error lookup_limit: "), text(res).includes("call begin_step")], [true, true]);
  res = await call("begin_step", {});
  res = await call("get_lines", { result: "r5", first: 1, last: 1 });
  check("after begin_step the lookup is served", text(res), "package service // edited elsewhere\n");

  // An edit aimed one line off (the number of the line after, the
  // characters of the line meant) fails instead of landing, and names the
  // line meant by its anchor, so that the model can resend at once.
  const current = readFileSync(file, "utf8");
  const meant = anchorOf(current, ret40);
  const off = `${ret40 + 1}#${meant.split("#")[1]}`;
  res = await call("write_file", { splice: { result: "r5", edits: [{ lines: [off, off], text: "\treturn s.respond(req, 40), nil\n" }] } });
  check("an anchor one line off: anchor_mismatch naming the line meant", [res.isError, text(res).includes(
    `error anchor_mismatch: line ${ret40 + 1} is ${anchorOf(current, ret40 + 1)} "}", not ${off}; ${meant} is "\\treturn s.respondFast(req, 40), nil"`)],
  [true, true]);
  check("the misaimed edit wrote nothing", readFileSync(file, "utf8") === current, true);
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
console.log(row("loom (find, get_lines, 2 write_file)", loomTally));
console.log(row("server-filesystem (read, 2 edit_file)", fsTally));
if (runTally.calls > 0) {
  console.log(`\na failing go test fixed through run (the whole log: ${runTally.log} bytes each run)`);
  console.log(row("loom (run, find, get_lines, find, write_file, run)", runTally));
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
    check("find FAIL: the failing test first", /^\d+#[a-z2-7]{2}: --- FAIL: TestAdd/.test(t), true);
    const failLine = Number(t.split("#")[0]);
    res = await call("get_lines", { result: "r1", first: failLine, last: failLine + 1 });
    check("get_lines after FAIL: the message", text(res).includes("Add(1, 2) = -1, want 3"), true);

    // The log names add_test.go:7; the model looks for the bug in add.go
    // by path: the answer's header line names the file's result.
    res = await call("find", { paths: ["add.go"], pattern: "return a" });
    t = text(res);
    const ret = anchorOf(readFileSync(join(dir, "add.go"), "utf8"), 5);
    check("find in add.go by path: its result and the line", t, `r2 add.go:\n${ret}: \treturn a - b\n`);
    res = await call("write_file", { splice: { result: "r2", edits: [{ lines: [ret, ret], text: "\treturn a + b\n" }] } });
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
