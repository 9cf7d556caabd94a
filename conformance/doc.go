// Package conformance checks loom-results from the outside: it replays
// scripted sessions against the real server and drives the real binary over
// stdio with real MCP clients (the official Go SDK), in both handshake eras
// that SPEC.md section 2 promises. It has no code of its own beyond its
// tests.
package conformance
