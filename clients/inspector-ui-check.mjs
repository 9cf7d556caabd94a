// inspector-ui-check.mjs probes loom-results the way a person does by hand:
// in the MCP Inspector's web UI (the pinned @modelcontextprotocol/inspector,
// against the stdio binary), driven in headless Chromium with puppeteer-core.
// It connects, lists the tools, opens each tool's form and checks what the
// form shows before anyone types (the schema defaults prefilled, get_json's
// `as` a select of its two values, no default where omission means "to the
// end"), then runs inspect, get_lines with its optional `last` typed and
// cleared again, and an error, and checks that each answer is shown and
// marked valid against the tool's output schema. It prints every check and
// exits 1 if any fails.
//
// In model mode (--steps model --write, as a stock client runs the server)
// the tools are the eight a stock client can use, their schemas compact
// (no descriptions, defaults or ranges) and their answers text alone, so
// the checks are that the shorter forms still render and can be filled in,
// and that each answer is shown without an output schema to check.
//
// Usage: node inspector-ui-check.mjs <loom-results binary> [client|model]
// Chromium: $CHROMIUM, else /usr/bin/chromium (Debian's package "chromium").

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";

import puppeteer from "puppeteer-core";

const binary = process.argv[2];
const mode = process.argv[3] || "client";
if (!binary || !["client", "model"].includes(mode)) {
  console.error("usage: node inspector-ui-check.mjs <loom-results binary> [client|model]");
  process.exit(2);
}
const model = mode === "model";
const serverArgs = model ? ["--root", "WS", "--steps", "model", "--write"] : ["--root", "WS", "--write"];
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.error(`inspector-ui-check: no Chromium at ${chromium}: apt-get install -y chromium, or set CHROMIUM`);
  process.exit(2);
}

const started = Date.now();
const tmp = mkdtempSync(join(tmpdir(), "loom-ui-check-"));
const ws = join(tmp, "ws");
const notes = 'alpha\nbeta: "quoted"\ttabbed\ngamma\n';
mkdirSync(ws);
writeFileSync(join(ws, "a.txt"), notes);

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

// freePort asks the system for a free loopback port.
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// The Inspector, as a person starts it: its CLI with the server command. It
// runs in a process group of its own (its proxy and web server are
// children), so that ending the group ends all of it.
const clientPort = await freePort();
const proxyPort = await freePort();
const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
const inspector = spawn(
  process.execPath,
  ["node_modules/@modelcontextprotocol/inspector/cli/build/cli.js", binary, ...serverArgs.map((a) => (a === "WS" ? ws : a))],
  {
    cwd: new URL(".", import.meta.url).pathname,
    env: {
      ...process.env,
      CLIENT_PORT: String(clientPort),
      SERVER_PORT: String(proxyPort),
      MCP_PROXY_AUTH_TOKEN: token,
      MCP_AUTO_OPEN_ENABLED: "false",
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  },
);
let inspectorLog = "";
inspector.stderr.on("data", (d) => (inspectorLog += d));
const up = new Promise((resolve, reject) => {
  createInterface({ input: inspector.stdout }).on("line", (line) => {
    inspectorLog += line + "\n";
    if (line.includes("MCP Inspector is up and running")) resolve();
  });
  inspector.on("exit", (code) => reject(new Error(`the Inspector exited (${code}) before it was up:\n${inspectorLog}`)));
});

let browser;
try {
  await withTimeout(up, 30000, "the Inspector to start");
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: join(tmp, "profile"),
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  await run(await browser.newPage());
} catch (e) {
  failed++;
  console.log(`FAIL ${e.stack || e}`);
  console.log(`Inspector output:\n${inspectorLog}`);
} finally {
  if (browser) await browser.close();
  try {
    process.kill(-inspector.pid, "SIGTERM");
  } catch {
    // already gone
  }
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`inspector-ui-check took ${((Date.now() - started) / 1000).toFixed(1)}s`);
console.log(`inspector-ui-check: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

function withTimeout(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

async function run(page) {
  await page.setViewport({ width: 1600, height: 1400 });
  // What the UI sends: every tools/call's arguments, read off the browser's
  // requests to the Inspector's proxy (which hands them to the server as
  // they are).
  const sent = [];
  page.on("request", (req) => {
    const body = req.postData();
    if (req.method() !== "POST" || !body) return;
    try {
      const msg = JSON.parse(body);
      if (msg.method === "tools/call") sent.push(msg.params);
    } catch {
      // not JSON-RPC
    }
  });

  await watchTimers(page);
  await page.goto(`http://localhost:${clientPort}/?MCP_PROXY_AUTH_TOKEN=${token}&MCP_PROXY_PORT=${proxyPort}`);
  await page.waitForSelector("#command-input");
  // The sidebar shows a placeholder server until the proxy's configuration
  // arrives.
  await page.waitForFunction((want) => document.querySelector("#command-input").value === want, { timeout: 15000 }, binary)
    .catch(() => {});
  check("sidebar: the server command", await page.$eval("#command-input", (e) => e.value), binary);
  check("sidebar: its arguments", await page.$eval("#arguments-input", (e) => e.value), serverArgs.map((a) => (a === "WS" ? ws : a)).join(" "));
  await clickButton(page, "Connect");
  await page.waitForSelector("xpath/.//*[normalize-space(text())='Connected']", { timeout: 15000 });

  await (await page.waitForSelector("xpath/.//button[@role='tab'][contains(., 'Tools')]")).click();
  await clickButton(page, "List Tools");
  const all = ["begin_step", "expand_edit", "find", "get_json", "get_lines", "get_range", "inspect", "list_results", "retain_output", "write_file"];
  const names = model ? all.filter((n) => n !== "expand_edit" && n !== "retain_output") : all;
  await page.waitForSelector("xpath/.//span[normalize-space(text())='write_file']");
  const listed = await page.$$eval("span", (spans) => spans.map((s) => s.textContent));
  check("tools listed", all.filter((n) => listed.includes(n)), names);

  // What each form shows before anyone types: numbers and text as their
  // boxes hold them, checkboxes as checked or not, selects as their value.
  const want = {
    inspect: {},
    find: { result: "", sha256: "", pattern: "", regex: false, ignore_case: false, max_matches: "20" },
    get_lines: { result: "", sha256: "", path: "", first: "0", last: "", numbered: false },
    get_range: { result: "", sha256: "", path: "", start: "0", end: "" },
    get_json: { result: "", sha256: "", path: "", pointer: "", as: "lexeme" },
    list_results: { page: "0", page_size: "16" },
    expand_edit: {},
    retain_output: { label: "", text: "", exit_code: "", timed_out: false, complete: false, dropped_bytes: "0" },
    begin_step: {},
    write_file: { path: "", text: "", base: "" },
  };
  if (model) {
    // No defaults in model mode's schemas: nothing prefilled.
    Object.assign(want, {
      find: { result: "", sha256: "", pattern: "", regex: false, ignore_case: false, max_matches: "" },
      get_range: { result: "", sha256: "", path: "", start: "", end: "" },
      get_json: { result: "", sha256: "", path: "", pointer: "", as: "Select an option" },
      list_results: { page: "", page_size: "" },
    });
  }
  for (const name of names) {
    await openTool(page, name);
    check(`${name}: form as it opens`, await formState(page), want[name]);
    check(`${name}: output schema shown`, await hasText(page, "Output Schema:"), !model);
  }
  const valid = model ? "" : "✓ Valid according to output schema";

  // get_json's as is a select of its enum, not a free text box.
  await openTool(page, "get_json");
  await page.click("#as");
  await page.waitForSelector("[role=option]");
  check("get_json: as offers its enum", await page.$$eval("[role=option]", (os) => os.map((o) => o.textContent)), ["lexeme", "string"]);
  await page.keyboard.press("Escape");

  // inspect a.txt: one item added to paths in the form.
  await openTool(page, "inspect");
  await clickButton(page, "Add Item");
  const item = await page.waitForSelector("[role=toolinputwrapper] input, [role=toolinputwrapper] textarea");
  await item.type("a.txt");
  let result = await runTool(page, sent);
  check("inspect: sent", result.sent, { paths: ["a.txt"] });
  check("inspect: shown as a success", result.header, "Tool Result: Success");
  check("inspect: valid against its output schema", result.validation, valid);
  check("inspect: the descriptor shown", result.text.includes("r1 file a.txt: 34 bytes, 3 lines"), true);

  // get_lines r1 from line 2; last typed and cleared again: the box is
  // empty, so the call leaves last out and the answer runs to the end.
  await openTool(page, "get_lines");
  // A stock client's model reads by path (its answer starts with the
  // file's header line); a governing client's by the result inspect named.
  const ref = model ? { path: "a.txt" } : { result: "r1" };
  await page.type(model ? "#path" : "#result", model ? "a.txt" : "r1");
  await setNumber(page, "#first", "2");
  await page.type("#last", "3");
  await setNumber(page, "#last", "");
  result = await runTool(page, sent);
  // A checkbox without a default is sent only once it is touched.
  const numbered = model ? {} : { numbered: false };
  check("get_lines: a cleared last is left out", result.sent, { ...ref, first: 2, ...numbered });
  check("get_lines: shown as a success", result.header, "Tool Result: Success");
  check("get_lines: valid against its output schema", result.validation, valid);
  check("get_lines: lines 2 to the end shown", result.text.includes("gamma") && result.text.includes("tabbed"), true);
  if (model) check("get_lines by path: the file's header line first", result.text.includes("r1 file a.txt: 34 bytes, 3 lines"), true);

  // An error answer is valid against the schema too (its anyOf).
  await setNumber(page, "#first", "9");
  result = await runTool(page, sent);
  check("get_lines past the end: sent", result.sent, { ...ref, first: 9, ...numbered });
  check("get_lines past the end: shown as an error", result.header, "Tool Result: Error");
  check("get_lines past the end: valid against its output schema", result.validation, valid);
  check("get_lines past the end: the message shown", result.text.includes("error invalid_range: lines 9-3 outside 1-3"), true);

  // write_file: its splice argument is an object, which the form edits as
  // JSON; path and base are left empty, so they default to r1's own.
  await openTool(page, "write_file");
  const editors = await page.$$("[role=toolinputwrapper] textarea:not([id])");
  check("write_file: splice and compose are JSON editors", editors.length, 2);
  // The form starts splice at the skeleton of its required members.
  check("write_file: splice starts with its required members", JSON.parse(await editors[0].evaluate((e) => e.value)), { result: "", edits: [] });
  await editors[0].click();
  await editors[0].evaluate((e) => e.select());
  await page.keyboard.press("Backspace");
  // Model mode names a line by its anchor (SPEC 5.2; "gamma" is 3#x2), a
  // governing client may name it by number.
  const line = model ? '"3#x2"' : "3";
  await editors[0].type(`{"result": "r1", "edits": [{"lines": [${line}, ${line}], "text": "delta\\n"}]}`);
  await jsonCommitted(page);
  result = await runTool(page, sent);
  check("write_file: sent", result.sent, { splice: { result: "r1", edits: [{ lines: [JSON.parse(line), JSON.parse(line)], text: "delta\n" }] } });
  check("write_file: shown as a success", result.header, "Tool Result: Success");
  check("write_file: valid against its output schema", result.validation, valid);
  check("write_file: the diff shown", result.text.includes("-gamma") && result.text.includes("+delta"), true);
  check("write_file: the file written", readFileSync(join(ws, "a.txt"), "utf8"), 'alpha\nbeta: "quoted"\ttabbed\ndelta\n');
}

// watchTimers counts the page's pending 300 ms timers: the Inspector's JSON
// editor hands an edited argument to the form 300 ms after the last key
// (a debounce), with no event of its own to wait for.
async function watchTimers(page) {
  await page.evaluateOnNewDocument(() => {
    const set = window.setTimeout.bind(window);
    const clear = window.clearTimeout.bind(window);
    const pending = new Set();
    window.__pendingCommits = () => pending.size;
    window.setTimeout = (fn, ms, ...args) => {
      if (ms !== 300) return set(fn, ms, ...args);
      const id = set(() => {
        pending.delete(id);
        fn(...args);
      }, ms);
      pending.add(id);
      return id;
    };
    window.clearTimeout = (id) => {
      pending.delete(id);
      clear(id);
    };
  });
}

// jsonCommitted waits until the JSON editor's debounce has fired and the
// form has rendered what it set.
async function jsonCommitted(page) {
  await page.waitForFunction(() => window.__pendingCommits() === 0);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function clickButton(page, label) {
  const el = await page.waitForSelector(`xpath/.//button[normalize-space(.)='${label}']`);
  await el.click();
}

async function hasText(page, text) {
  return page.evaluate((t) => document.body.innerText.includes(t), text);
}

// openTool selects a tool in the list and waits for its form.
async function openTool(page, name) {
  const item = await page.waitForSelector(`xpath/.//span[normalize-space(text())='${name}']`);
  await item.click();
  await page.waitForSelector(`xpath/.//h3[normalize-space(text())='${name}']`);
}

// formState reads the open form: each argument by its id.
async function formState(page) {
  return page.$$eval("[role=toolinputwrapper]", (wrappers) => {
    const out = {};
    for (const w of wrappers) {
      const el = w.querySelector("[id]");
      if (!el) continue; // an array or object editor: no single value
      const role = el.getAttribute("role");
      if (role === "checkbox") out[el.id] = el.getAttribute("data-state") === "checked";
      else if (role === "combobox") out[el.id] = el.textContent;
      else out[el.id] = el.value;
    }
    return out;
  });
}

// setNumber replaces what a box holds; "" clears it as a person would.
async function setNumber(page, selector, value) {
  await page.click(selector, { clickCount: 3 });
  await page.keyboard.press("Backspace");
  if (value !== "") await page.type(selector, value);
}

// runTool presses Run Tool and waits for its answer to replace what the
// result panel showed: it returns the arguments sent, and the panel's
// header, validation line and text.
async function runTool(page, sent) {
  const before = sent.length;
  const previous = await resultPanel(page);
  await clickButton(page, "Run Tool");
  await page.waitForFunction(
    (prev) => {
      const h = [...document.querySelectorAll("h4")].find((e) => e.textContent.startsWith("Tool Result:"));
      const text = h ? h.parentElement.innerText : "";
      return text !== prev && /Tool Result: (Success|Error)/.test(text);
    },
    { timeout: 15000 },
    previous,
  );
  const text = await resultPanel(page);
  return {
    sent: sent.length > before ? sent[sent.length - 1].arguments : undefined,
    header: (text.match(/Tool Result: (Success|Error)/) || [""])[0],
    validation: (text.match(/✓ Valid according to output schema|✗ Validation Error[^\n]*/) || [""])[0],
    text,
  };
}

// resultPanel is the text of the panel under "Tool Result:", or "" when no
// result is shown.
function resultPanel(page) {
  return page.evaluate(() => {
    const h = [...document.querySelectorAll("h4")].find((e) => e.textContent.startsWith("Tool Result:"));
    return h ? h.parentElement.innerText : "";
  });
}
