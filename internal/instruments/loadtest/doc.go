// Package loadtest drives a running loom-results server over Streamable
// HTTP with many concurrent MCP sessions, checks every answer against the
// bytes it generated, and reports throughput, latency, isolation and the
// server's peak memory. It speaks plain JSON-RPC over net/http, so what it
// measures is the server, not a client library; cmd/loom-load is its
// command line.
//
// Each session inspects its own files first (one to four, so that result
// IDs mean different files in different sessions), then the shared files in
// a rotated order, then makes its lookups. Isolation (SPEC section 2: one
// briefing per MCP session) is checked three ways: an ID that only another
// session holds must be unknown_result, a read of the session's own first
// result must return its own bytes, and list_results must list only its own
// results.
package loadtest
