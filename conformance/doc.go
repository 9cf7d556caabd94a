// Package conformance checks loom-results from the outside: it replays
// scripted sessions against the real server and drives the real binary over
// stdio with real MCP clients (the official Go SDK), in both handshake eras
// that SPEC.md section 2 promises. It has no code of its own beyond its
// tests.
//
// The exception is the script runner (Replay, Runner, Script), which
// TestScripts and `loom-check replay [--server "CMD"] SCRIPT...` share.
// A script is a txtar file in the format of the official Go SDK's
// mcp/testdata/conformance/server/*.txtar: a header saying what it checks
// and which SPEC section, the client's messages, the server's expected
// responses (compared as JSON, structurally), and the workspace and flags
// of a fresh server (see Script). The client writes its messages back to
// back, except where a "wait D" line stands between two of them: there it
// waits until every request before it is answered, then D more, a pause
// between turns as --step-gap counts one (SPEC section 6,
// steps_gap.txtar). Besides the comparison, every answer of a
// lookup tool is checked against the session's --max-lookup-bytes and
// --max-step-bytes (SPEC section 6). The scripts live in testdata, at least
// one per rule group of SPEC.md; `go test ./conformance -run TestScripts
// -update` rewrites the server section of each script that differs (only
// that section, pretty-printed): read every rewritten response against
// SPEC.md before keeping it.
package conformance
