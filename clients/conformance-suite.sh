#!/usr/bin/env bash
# conformance-suite.sh runs the official MCP conformance suite
# (@modelcontextprotocol/conformance, pinned in package.json) against the real
# loom-results binary serving Streamable HTTP, and compares the outcome with
# conformance-expected-failures.txt.
#
# It runs every server scenario (`--suite all`: the active and the pending
# ones). Scenarios that need the suite's fixture server (its test_* tools,
# resources, prompts, or capabilities loom-results does not declare) are
# listed, with their reasons, in conformance-expected-failures.txt; every
# other scenario must pass. The script fails when a scenario not listed
# fails, when a listed one passes (stale list), when a listed name is not a
# scenario of the suite, or when a scenario of `conformance list --server`
# has no result. It prints the suite's summary and its result line, and it
# checks that SIGTERM ends the server with status 0.
#
# Usage: bash clients/conformance-suite.sh   (from anywhere; needs go, node, npm, curl)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="$(cd "$here/.." && pwd)"
cd "$here"

want_version="0.1.13" # the last that runs on Node 20 (0.1.14 and later need fs.globSync)
pkg_json="node_modules/@modelcontextprotocol/conformance/package.json"
have_version="$(node -p "require('./$pkg_json').version" 2>/dev/null || true)"
if [[ "$have_version" != "$want_version" ]]; then
  echo "installing clients/node_modules (npm ci): conformance ${have_version:-missing}, want $want_version"
  npm ci --no-audit --no-fund
fi

tmp="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

bin="$tmp/loom-results"
(cd "$module" && go build -o "$bin" ./cmd/loom-results)
mkdir "$tmp/root"
printf 'alpha\nbeta\n' >"$tmp/root/a.txt"

# Port 0: the kernel picks a free port, and the server logs the URL it serves.
"$bin" --http 127.0.0.1:0 --root "$tmp/root" 2>"$tmp/server.log" &
pid=$!

url=""
for _ in $(seq 1 100); do # up to 10 s
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL the server exited before serving:" >&2
    cat "$tmp/server.log" >&2
    exit 1
  fi
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$tmp/server.log" | head -n 1 || true)"
  if [[ -n "$url" ]] && [[ "$(curl -s -o /dev/null -w '%{http_code}' "$url" || true)" != "000" ]]; then
    break
  fi
  url=""
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "FAIL the server did not answer within 10 s:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
echo "loom-results serves $url"

# The suite exits non-zero when any scenario fails; the comparison below
# decides.
start=$SECONDS
npx --no-install conformance server --url "$url" --suite all -o "$tmp/results" >"$tmp/suite.out" 2>&1 || true
echo "suite ran in $((SECONDS - start)) s"

# Results: "✓ name: N passed, M failed" or "✗ ...", after "=== SUMMARY ===".
summary="$(sed -n '/=== SUMMARY ===/,$p' "$tmp/suite.out")"
result_line="$(grep -E '^Total: ' "$tmp/suite.out" | tail -n 1 || true)"
if [[ -z "$summary" || -z "$result_line" ]]; then
  echo "FAIL the suite printed no summary:" >&2
  cat "$tmp/suite.out" >&2
  exit 1
fi
echo "$summary"

declare -A outcome # scenario -> pass | fail
while IFS= read -r line; do
  name="${line#* }"
  name="${name%%:*}"
  case "$line" in
  "✓ "*) outcome[$name]=pass ;;
  "✗ "*) outcome[$name]=fail ;;
  esac
done < <(grep -E '^(✓|✗) [^:]+:' <<<"$summary")

declare -A expected
while IFS= read -r name; do
  expected[$name]=1
done < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' conformance-expected-failures.txt | grep -v '^$')

problems=0
report() {
  problems=$((problems + 1))
  echo "FAIL $*"
}

# checks NAME prints the failed checks of a scenario.
checks() {
  local f
  for f in "$tmp/results/server-$1-"*/checks.json; do
    [[ -e "$f" ]] || continue
    node -e '
      for (const c of require(process.argv[1]))
        if (c.status === "FAILURE") console.log("       " + c.id + ": " + (c.errorMessage || ""));
    ' "$f"
  done
}

while IFS= read -r name; do
  name="${name#*- }"
  [[ -n "$name" && -z "${outcome[$name]:-}" ]] && report "$name: listed by the suite but has no result"
done < <(npx --no-install conformance list --server | grep -E '^ +- ')

for name in "${!outcome[@]}"; do
  if [[ "${outcome[$name]}" == fail && -z "${expected[$name]:-}" ]]; then
    report "$name: failed, and it is not an expected failure"
    checks "$name"
  elif [[ "${outcome[$name]}" == pass && -n "${expected[$name]:-}" ]]; then
    report "$name: passed, but conformance-expected-failures.txt expects it to fail (remove it)"
  fi
done
for name in "${!expected[@]}"; do
  [[ -z "${outcome[$name]:-}" ]] && report "$name: in conformance-expected-failures.txt but not a scenario the suite ran"
done

# SIGTERM ends the server with status 0.
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[[ "$status" == 0 ]] || report "the server exited with status $status on SIGTERM"

passed=0
for name in "${!outcome[@]}"; do
  [[ "${outcome[$name]}" == pass ]] && passed=$((passed + 1))
done
echo
echo "conformance $want_version: $result_line (scenarios: $passed passed, ${#expected[@]} expected failures, ${#outcome[@]} in all)"
if ((problems > 0)); then
  echo "conformance-suite: $problems problem(s)"
  exit 1
fi
echo "conformance-suite: ok"
