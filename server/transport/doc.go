// Package transport serves an MCP server over stdio (newline-delimited
// JSON-RPC) and Streamable HTTP, with one session state per client
// session. It owns the wire and the protocol: it reads each message once
// (message.go), answers every method itself from one table
// (dispatch.go), runs the tools' handlers for tools/call, recovers panics
// per message (recover.go), and encodes answers in one pass (encode.go).
// It knows nothing of loom-results' tools or briefings: a Config names the
// server, its tools and how to make a session's state. Of mcp-go it uses
// the protocol's types alone (package mcp).
//
// The life of a call through it is told in the server package's
// documentation.
package transport
