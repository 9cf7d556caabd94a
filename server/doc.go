// Package server is loom-results' MCP wiring: the tool definitions (one
// file each: its arguments, its schema, a thin adapter to a briefing),
// the binding of a tool's JSON arguments to a struct (args.go), and the
// server that hands both to a transport (server/transport). It and its
// transport are the only packages that import the MCP library, and of it
// only the protocol's types (mcp-go's mcp package); the domain packages
// (briefing, results, selectors, limits, workspace, errcode) know nothing
// of MCP.
//
// # The life of a tools/call
//
// A get_lines call over stdio, from the bytes the client writes to the
// bytes it reads back. Every message takes this one path; only step 3
// differs by method.
//
//  1. transport.Transport.ServeStdio (transport/stdio.go) reads one line,
//     at most --max-message-bytes (a longer one is answered -32600 and
//     dropped unread). The goroutine that reads a message while none is
//     being handled handles it itself, then reads the next: a lookup is
//     read, run and answered with nothing else woken. A call that runs
//     past 1 ms gives the reading to a second goroutine, which reads on
//     beside it: a notifications/cancelled is acted on as it is read (it
//     ends the context of the request it names, transport/inflight.go),
//     and every other message waits in a queue, bounded by
//     --max-message-bytes, and is handled in its turn, one at a time, in
//     the order read.
//  2. readMessage (transport/message.go) reads the line once: one pass of
//     the JSON engine (jsontape.Build, raw invalid UTF-8 allowed, 10,000
//     levels) builds the message's index, and the envelope's members
//     (jsonrpc, id, method, params) and those of params that the dispatch
//     reads (_meta; for tools/call name and arguments) are found in it by
//     their exact names. It decides what the message is: a request, a
//     notification or a response, or a fault (-32700, -32600).
//  3. Transport.handle (transport/calls.go), under recoverCall (a panic is
//     answered -32603 and logged, and serving goes on) and counted in
//     flight for the shutdown (Stop, then Wait; after Stop a message is
//     answered -32000), gives the message to the dispatch
//     (transport/dispatch.go): the envelope's checks, the protocol era
//     (2026-07-28 when _meta names it), then the method's row of the
//     table. For tools/call that is the tool's handler, found by name,
//     called with a transport.Call whose Arguments is the arguments'
//     value in the index of step 2, under the call's context (which the
//     cancellation of step 1, the session's end and Stop end).
//  4. serve (server.go) finds the session's briefing in the context
//     (Session.Bind put it there) and runs the handler as one call of it,
//     Briefing.Do: the session's calls run one at a time, in arrival order
//     (briefing/fifo.go).
//  5. The tool (get_lines.go) is lookup (answer.go): the step's budget
//     admits the lookup (limits), decodeArgs binds the arguments by
//     walking their value in the message's index (args.go: the argument
//     bytes are not scanned again), and Briefing.GetLines selects the
//     lines of the stored result (briefing, results, selectors), charging
//     the budget with the text's size and escaped size, measured as it is
//     escaped once (limits.AppendMeasured). expand_edit and write_file
//     hand their edit's value on to briefing the same way
//     (jsontape.Sub), which walks it where it is.
//  6. The answer, an *mcp.CallToolResult whose structured content is a
//     briefing.Selection, becomes the JSON-RPC response with the
//     request's id exactly as the client wrote it; an answer of the
//     2026-07-28 era gets resultType and the server's identity.
//  7. transport.AppendMessage (transport/encode.go) writes the response in
//     one pass into the output buffer: the envelope, the text content
//     copied from the selection's escaped text, and the structured content
//     by its own AppendJSON; the exact bytes json.Marshal would write. The
//     line is flushed before the next message is handled; a call's
//     notifications (run's progress, transport.Notify) are written as they
//     happen, before its answer.
//
// Over HTTP the same message takes the same hops from step 2: the
// transport's HTTPHandler checks the request (Host, Origin, token, path,
// version, method, session), reads the whole body under its deadline,
// and answers with the same dispatch and encoder.
//
// # Scans of a call's argument bytes
//
// Once, in step 2. decodeArgs walks the index; a tool that takes a JSON
// value (expand_edit's arguments, write_file's compose and splice) hands
// the same value to briefing, which walks it too. The one exception is a
// message nesting deeper than the 1,000 levels of SPEC section 4.3
// (hostile input): the arguments alone are then held to that limit by a
// second scan of their bytes (jsontape.Sub.Check), so that a too-deep
// argument is the tool's invalid_argument, counted as a lookup, as SPEC
// section 8 wants, and not a protocol error.
package server
