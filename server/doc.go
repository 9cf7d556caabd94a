// Package server is loom-results' MCP wiring: the tool definitions (one
// file each: its arguments, its schema, a thin adapter to a briefing),
// the binding of a tool's JSON arguments to a struct (args.go), and the
// server that hands both to a transport (server/transport). It and its
// transport are the only packages that import the MCP library; the
// domain packages (briefing, results, selectors, limits, workspace,
// errcode) know nothing of MCP.
//
// # The life of a tools/call
//
// A get_lines call over stdio, from the bytes the client writes to the
// bytes it reads back:
//
//  1. transport.Transport.ServeStdio (transport/stdio.go) reads one line,
//     at most --max-message-bytes (a longer one is answered -32600 and
//     dropped unread). It reads on while a call runs: a
//     notifications/cancelled is acted on as it is read (it cancels the
//     context of the request it names, transport/inflight.go), every other
//     message waits in a bounded queue and is handled in its turn, one at a
//     time, in the order read.
//  2. readMessage (transport/envelope.go) decides, once, what the line is:
//     valid JSON (json.Valid, mcp-go's verdict), one object, its envelope
//     members by their exact names (jsonrpc, id, method, params), a
//     request, a notification or a response. For tools/call it takes the
//     arguments out as the client wrote them, and marks the call plain
//     when its envelope holds nothing mcp-go would act on (no _meta, no
//     other member, the id and name as strings mcp-go reads the same way).
//  3. Transport.handle (envelope.go), under recoverCall (a panic is
//     answered -32603 and logged, and serving goes on) and counted in
//     flight under a context the shutdown cancels (calls.go: Stop, then
//     Wait; after Stop a message is answered -32000), runs a plain call
//     on the direct path: the tool's handler, found in the transport's own
//     map, called with the raw arguments in the context
//     (transport.Arguments). Any other message goes to mcp-go's
//     HandleMessage, given only the canonical envelope readMessage built,
//     so that mcp-go's case-insensitive decoding finds no second reading.
//  4. serve (server.go) finds the session's briefing in the context
//     (Session.Bind put it there) and runs the handler as one call of it,
//     Briefing.Do: the session's calls run one at a time, in arrival order
//     (briefing/fifo.go).
//  5. The tool (get_lines.go) is lookup (answer.go): the step's budget
//     admits the lookup (limits), decodeArgs binds the arguments
//     (args.go), and Briefing.GetLines selects the lines of the stored
//     result (briefing, results, selectors), charging the budget with the
//     text's size and escaped size, measured as it is escaped once
//     (limits.AppendMeasured).
//  6. The answer, an *mcp.CallToolResult whose structured content is a
//     briefing.Selection, goes back through handle, which gives it the
//     request's id exactly as the client wrote it (withRequestID).
//  7. transport.AppendMessage (transport/encode.go) writes the JSON-RPC
//     response in one pass into the output buffer: the envelope, the text
//     content copied from the selection's escaped text, and the structured
//     content by its own AppendJSON; the exact bytes json.Marshal would
//     write. The line is flushed before the next message is handled; a
//     call's notifications (run's progress, transport.Notify) are written
//     as they happen, before its answer.
//
// Over HTTP the same message takes the same hops from step 2: the
// transport's HTTPHandler checks the request (Host, Origin, token, path,
// version, method, session), reads the whole body under its deadline,
// and answers with the same encoder.
//
// # Why the direct path exists, and what it forbids
//
// mcp-go's HandleMessage would decode a call's message four times over,
// decode the arguments into maps and interfaces (many times the bytes of a
// large edit),
// and copy the tool's whole definition on every call; for a lookup that is
// most of the server's time. The direct path runs the same handler with
// the same arguments and builds the same answer, JSON-RPC errors
// included: the transport's twin tests (transport/encode_test.go) send
// every conformance script and every hostile message to both paths and
// require equal bytes.
//
// It holds only while mcp-go's dispatch adds nothing to a plain call, so
// the MCP server is built with none of the options that act on a call:
// no hooks, no tool handler middleware (nor WithRecovery, WithTracer or
// WithLogger, which install middleware), no tool filters, no input or
// output schema validation, no tracing propagators, no task tools.
// TestDirectPathForbidsOptions fails if New sets one, and
// TestMCPServerFieldsClassified fails when mcp-go gains a field that no
// one has judged. What such an option would do belongs in the tool or in
// the transport, where both paths see it.
package server
