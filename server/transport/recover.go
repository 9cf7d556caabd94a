package transport

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// A panic is a bug, but one bad input must not end the session of every
// other call: over stdio it would end the process, and with it the agent's
// whole session. Each message is served under recoverCall, in
// Transport.handle (the dispatch and the tool) and in each transport
// around reading the message
// and writing its answer; a panic anywhere there is logged with its stack
// and answered with JSON-RPC -32603, and the next message is served. The
// session's state stays usable as far as its own code keeps it so (the
// server's releases its lock as the panic unwinds).

// recoverCall recovers a panic of the call serving *m (the zero inbound
// while the message is not read yet) and sets *answer to what panicked
// returns. It must be the deferred function itself (recover works only
// there), so m points to the variable that the call fills in.
func (tr *Transport) recoverCall(m *inbound, answer *mcp.JSONRPCMessage) {
	if v := recover(); v != nil {
		*answer = tr.panicked(m, v)
	}
}

// panicked logs the panic v (or the error) of the call serving m with its
// stack, and
// returns the -32603 error for m's id (null for a message not read yet),
// or nil for a notification or a response, which get no answer, as they
// would not have otherwise.
func (tr *Transport) panicked(m *inbound, v any) mcp.JSONRPCMessage {
	read := m != nil && m.body != nil
	what := "a message"
	if read && m.method != "" {
		what = m.method
		if m.tool != "" {
			what += " " + m.tool
		}
	}
	fmt.Fprintf(tr.log(), "loom-results: internal error serving %s: %v\n%s", what, v, debug.Stack())
	var id any
	if read {
		if !m.request() {
			return nil
		}
		id = m.errorID()
	}
	msg := fmt.Sprintf("internal error serving %s: %s (the server logged it and goes on serving)", what, panicText(v))
	return rpcError(id, mcp.INTERNAL_ERROR, msg)
}

// panicText is a panic's value for a message: its first line, at most 200
// bytes.
func panicText(v any) string {
	s := fmt.Sprint(v)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		n := 200
		for !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}

// encodeAnswer is AppendMessage(dst, v) for the answer to m, except that
// when encoding fails or panics the answer is the -32603 error instead
// (panicked), or, for a notification, dst as it was: nothing to write.
func (tr *Transport) encodeAnswer(dst []byte, m *inbound, v any) (out []byte) {
	fallback := func(why any) []byte {
		if a := tr.panicked(m, why); a != nil {
			if b, err := AppendMessage(dst, a); err == nil {
				return b
			}
		}
		return dst
	}
	defer func() {
		if p := recover(); p != nil {
			out = fallback(p)
		}
	}()
	out, err := AppendMessage(dst, v)
	if err != nil {
		return fallback(fmt.Errorf("encoding the answer: %w", err))
	}
	return out
}

// log is where panics are logged: Options.Log, or stderr.
func (tr *Transport) log() io.Writer {
	if tr.cfg.Log != nil {
		return tr.cfg.Log
	}
	return os.Stderr
}
