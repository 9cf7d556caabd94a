// Package server is loom-results' MCP wiring: each tool's definition (one
// file each: its name, its descriptions, its annotations and the words of
// its input schema), the one adapter that runs every tool (define, in
// tools.go), the input schemas derived from the tools' request types
// (input_schema.go), and the server that hands the tools to a transport
// (server/transport). The arguments themselves are briefing's: a request
// type per tool, decoded and checked there in the SPEC's order. server and
// its transport are the only packages that import the MCP library, and of
// it only the protocol's types (mcp-go's mcp package); the domain packages
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
//  4. The tool's handler, the one adapter of every tool (define in
//     tools.go; get_lines.go holds only get_lines' definition), finds the
//     session's briefing in the context (Session.Bind put it there) and
//     runs the tool's operation as one call of it, Briefing.Do: the
//     session's calls run one at a time, in arrival order
//     (briefing/fifo.go).
//  5. The operation (briefing.OpOf, briefing/call.go) runs SPEC section
//     4's order for the request type briefing.GetLinesRequest
//     (briefing/requests.go): the step's budget admits the lookup
//     (limits); the binder fills the request by walking the arguments'
//     value in the message's index (briefing/args.go: the argument bytes
//     are not scanned again); the request's checks run (a result or a
//     path, the digest's form); then the lines of the stored result are
//     selected (briefing, results, selectors) and the budget is charged
//     with the text's size and escaped size, measured as it is escaped
//     once (limits.AppendMeasured). An error answer carries the budget
//     taken there. expand_edit and write_file take their edit's value the
//     same way (briefing.Raw), and briefing walks it where it is.
//  6. The adapter renders the answer (for get_lines, the selection's
//     text and the briefing.Selection as structured content); the
//     *mcp.CallToolResult becomes the JSON-RPC response with the
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
// Once, in step 2. The binder walks the index; a tool that takes a JSON
// value (expand_edit's arguments, write_file's compose and splice) gets
// that value where the index holds it, and briefing walks it there. The one exception is a
// message nesting deeper than the 1,000 levels of SPEC section 4.3
// (hostile input): the arguments alone are then held to that limit by a
// second scan of their bytes (jsontape.Sub.Check), so that a too-deep
// argument is the tool's invalid_argument, counted as a lookup, as SPEC
// section 8 wants, and not a protocol error.
package server
