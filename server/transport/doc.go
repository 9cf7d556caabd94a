// Package transport serves an MCP server over stdio (newline-delimited
// JSON-RPC) and Streamable HTTP, with one session state per client
// session. It owns the wire: reading each message once and deciding what
// it is (envelope.go), running plain tool calls on the direct path and
// handing every other message to mcp-go, recovering panics per message
// (recover.go), and encoding answers in one pass (encode.go). It knows
// nothing of loom-results' tools or briefings: a Config names the MCP
// server, the tools of the direct path and how to make a session's state.
//
// The life of a call through it, and what the direct path forbids, is
// told in the server package's documentation.
package transport
