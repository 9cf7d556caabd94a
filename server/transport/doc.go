// Package transport serves an MCP server over stdio (newline-delimited
// JSON-RPC) and Streamable HTTP, with one session state per client
// session. It owns the wire and the protocol: it reads each message once
// (message.go), answers every method itself from one table
// (dispatch.go), runs the tools' handlers for tools/call, recovers panics
// per message (recover.go), and encodes answers in one pass (encode.go).
// It knows no tool's arguments, answers or rules, nor what a session's
// state holds: a Config names the server, lists its tools (each a
// definition and a handler that gets the call's arguments as the index of
// the message's bytes) and makes a session's state (Session), which the
// transport binds to every message of the session and closes once when the
// session ends. A tool's answer reaches it as a value it encodes (a type
// that appends its own JSON, or else encoding/json). Of mcp-go it uses the
// protocol's types alone (package mcp).
//
// The life of a call through it is told in the server package's
// documentation.
package transport
