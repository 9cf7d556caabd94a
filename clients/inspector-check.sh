#!/usr/bin/env bash
# inspector-check.sh drives the real loom-results binary with real MCP
# clients over stdio: the MCP Inspector CLI (tools/list, inspect, get_lines);
# for a session that spans several calls, sdk-check.mjs (the official
# TypeScript SDK, which also checks each success against the tool's output
# schema); stock-walk.mjs, the loop of a stock client (--steps model
# --write: inspect, find, get_lines, write_file, a conflict) measured against
# server-filesystem; and inspector-ui-check.mjs, the Inspector's web UI in headless
# Chromium ($CHROMIUM, else /usr/bin/chromium), once as a governing client runs
# the server and once as a stock client does (--steps model --write); and
# claude-code-check.mjs and codex-check.mjs, the Claude Code and Codex CLIs
# run offline against a mock model API, which check what each client shows
# its model of the server's answers, definitions and instructions
# (docs/clients.md). It prints every check and exits 1 if any fails.
#
# Each Inspector CLI call starts its own server process, so its own briefing:
# r1 from one call's inspect does not exist in the next. The CLI cannot keep
# a session, so its get_lines check is that a fresh server answers r1 with
# unknown_result (and counts it as a lookup); sdk-check.mjs checks inspect,
# get_lines and get_json within one session.
#
# Usage: bash clients/inspector-check.sh   (from anywhere; needs go, node, npm
# and Debian's chromium)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(cd "$here/.." && pwd)"
cd "$here"

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "installing clients/node_modules (npm ci)"
  npm ci --no-audit --no-fund
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="$tmp/loom-results"
(cd "$module" && go build -o "$bin" ./cmd/loom-results)

ws="$tmp/ws"
mkdir "$ws"
printf 'alpha\nbeta: "quoted"\ttabbed\ngamma\n' >"$ws/a.txt"
want_sha="$(sha256sum "$ws/a.txt" | cut -d' ' -f1)"
want_bytes="$(wc -c <"$ws/a.txt" | tr -d ' ')"

passed=0
failed=0

# check NAME GOT WANT records one comparison.
check() {
  if [[ "$2" == "$3" ]]; then
    passed=$((passed + 1))
    echo "ok   $1"
  else
    failed=$((failed + 1))
    echo "FAIL $1: got '$2', want '$3'"
  fi
}

# js EXPR evaluates EXPR over the JSON document on stdin, bound to r, and
# prints the value (strings as they are, anything else as JSON).
js() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const r = JSON.parse(s);
      const v = new Function("r", "return (" + process.argv[1] + ");")(r);
      process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));
    });' "$1"
}

# inspector runs one Inspector CLI call against a new server process.
inspector() {
  npx --no-install @modelcontextprotocol/inspector --cli "$bin" --root "$ws" "$@"
}

start=$SECONDS

out="$(inspector --method tools/list)"
for name in inspect find get_lines get_range get_json list_results expand_edit retain_output begin_step; do
  check "tools/list: $name listed" "$(js "r.tools.some((t) => t.name === '$name')" <<<"$out")" true
done
check "tools/list: every tool read-only, not destructive, closed-world, idempotentHint set" \
  "$(js 'r.tools.every((t) => t.annotations && t.annotations.readOnlyHint === true &&
    t.annotations.destructiveHint === false && t.annotations.openWorldHint === false &&
    typeof t.annotations.idempotentHint === "boolean")' <<<"$out")" true

# --tool-arg values are converted by the tool's input schema: an array or
# object property is parsed as JSON, an integer one as a number.
out="$(inspector --method tools/call --tool-name inspect --tool-arg 'paths=["a.txt"]')"
check "inspect: not an error" "$(js 'r.isError === true' <<<"$out")" false
check "inspect: descriptor" \
  "$(js 'JSON.stringify((({id, sha256, bytes, lines, complete, source}) => ({id, sha256, bytes, lines, complete, source}))(r.structuredContent.results[0]))' <<<"$out")" \
  "{\"id\":\"r1\",\"sha256\":\"$want_sha\",\"bytes\":$want_bytes,\"lines\":3,\"complete\":true,\"source\":{\"kind\":\"file\",\"path\":\"a.txt\"}}"
check "inspect: text shows the digest's first 12 hex digits, not all 64" \
  "$(js "[r.content[0].text.includes('${want_sha:0:12}'), r.content[0].text.includes('$want_sha')]" <<<"$out")" \
  '[true,false]'

# A new process: its briefing holds no r1.
out="$(inspector --method tools/call --tool-name get_lines --tool-arg result=r1 first=2 last=3)"
check "get_lines on a fresh server: unknown_result, counted as a lookup" \
  "$(js '[r.isError, r.structuredContent.error.code, r.structuredContent.budget.lookups_used]' <<<"$out")" \
  '[true,"unknown_result",1]'
check "get_lines on a fresh server: one-line error text" \
  "$(js 'r.content[0].text.split(":")[0]' <<<"$out")" 'error unknown_result'

inspector_secs=$((SECONDS - start))
echo "inspector CLI checks took ${inspector_secs}s"

start=$SECONDS
sdk_rc=0
node sdk-check.mjs "$bin" || sdk_rc=$?
check "sdk-check.mjs: one session inspect -> get_lines -> get_json" "$sdk_rc" 0
echo "sdk-check took $((SECONDS - start))s"

start=$SECONDS
walk_rc=0
node stock-walk.mjs "$bin" || walk_rc=$?
check "stock-walk.mjs: a stock client's loop with --steps model --write, against server-filesystem" "$walk_rc" 0
echo "stock-walk took $((SECONDS - start))s"

# The Inspector's web UI as a person uses it, in headless Chromium.
ui_rc=0
node inspector-ui-check.mjs "$bin" || ui_rc=$?
check "inspector-ui-check.mjs: forms prefilled, answers valid against the output schemas" "$ui_rc" 0
ui_rc=0
node inspector-ui-check.mjs "$bin" model || ui_rc=$?
check "inspector-ui-check.mjs model: the compact schemas render, can be filled in, answer in text" "$ui_rc" 0

# Real agents, offline: each runs in a network namespace of its own when
# unshare(1) allows, against a mock of its model API on 127.0.0.1.
start=$SECONDS
cc_rc=0
node claude-code-check.mjs "$bin" || cc_rc=$?
check "claude-code-check.mjs: Claude Code shows the model the server's text, errors included; the write lands" "$cc_rc" 0
echo "claude-code-check took $((SECONDS - start))s"

start=$SECONDS
codex_rc=0
node codex-check.mjs "$bin" || codex_rc=$?
check "codex-check.mjs: Codex shows the model the server's text (functions) or hands it the text-only result (code mode)" "$codex_rc" 0
echo "codex-check took $((SECONDS - start))s"

echo "inspector-check: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
