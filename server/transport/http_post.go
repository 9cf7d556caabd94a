package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

const sessionHeader = "Mcp-Session-Id"

// sessionNotFound is the JSON-RPC code of the 404 answer to an unknown or
// ended session (the code the TypeScript SDK uses); serverBusy that of the
// 503 answer past --max-sessions (JSON-RPC's first server-defined code).
const (
	sessionNotFound = -32001
	serverBusy      = -32000
)

// busyRetry is the Retry-After of a 503 when no session can end by itself
// (--idle-timeout 0).
const busyRetry = time.Minute

// post serves one JSON-RPC message. The checks, in order: an Accept that
// excludes JSON (406), a session ID that names no live session (404),
// both before the body is read; then the body, read whole within
// ReadTimeout (408) and up to --max-message-bytes (413); its syntax (400
// with a JSON-RPC parse error), a batch or a non-message (400 with
// -32600), a protocol version in _meta other than httpVersions (400), an
// initialize that carries a session ID or another message that does not
// (400). A request is answered 200 with its JSON-RPC response as
// application/json (JSON-RPC errors included); a notification or a
// response is answered 202 with no body.
//
// The request takes part in its session (acquire) only once its body is
// read, and leaves it (release) once its answer is made, before it is
// written: a body that is slow to come, or an answer slow to be taken,
// never keeps an ended session's state, and its share of
// --max-total-bytes, from being freed.
//
// JSON-RPC batches are refused with 400 and a -32600 error: protocol
// 2025-06-18 removed them, and one session executes its calls one at a
// time anyway.
func (t *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header) {
		unread(w, r)
		http.Error(w, "this server answers application/json: the Accept header must allow it", http.StatusNotAcceptable)
		return
	}
	id := r.Header.Get(sessionHeader)
	if id != "" && !t.live(id) {
		unread(w, r)
		t.unknownSession(w, id)
		return
	}
	body, ok := t.readBody(w, r)
	if !ok {
		return
	}
	read := time.Now()

	msg, bad := readMessage(body)
	if bad != nil {
		writeJSON(w, http.StatusBadRequest, bad)
		return
	}
	if msg.response {
		// A response to the server, which sends no requests: nothing to do.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if v := msg.protocolVersion(); v != "" && !supportedVersion(v) {
		writeJSON(w, http.StatusBadRequest, unsupportedVersion(msg.errorID(), v))
		return
	}
	request := msg.request()

	switch {
	case request && msg.method == string(mcp.MethodInitialize) && id != "":
		writeJSON(w, http.StatusBadRequest, rpcError(msg.errorID(), mcp.INVALID_REQUEST,
			"initialize starts a new session: send it without "+sessionHeader))
	case request && msg.method == string(mcp.MethodInitialize):
		t.initialize(w, r, msg)
	case id == "":
		writeJSON(w, http.StatusBadRequest, rpcError(msg.errorID(), mcp.INVALID_REQUEST,
			"missing "+sessionHeader+": start a session with initialize and send its ID with every message"))
	default:
		sess := t.acquire(id)
		if sess == nil {
			// It ended while the body was read.
			t.unknownSession(w, id)
			return
		}
		if key, isCancel, ok := cancellation(&msg); isCancel {
			// Acted on at once, beside the call it names (inflight.go).
			if ok {
				sess.inflight.cancel(key)
			}
			t.release(sess)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		ctx, end := t.sessionContext(r.Context(), sess)
		defer end()
		var stream *sseStream
		if request {
			p := &pending{id: msg.id}
			sess.inflight.add(p)
			ctx = sess.inflight.start(ctx, p)
			defer sess.inflight.remove(p)
			if acceptsSSE(r.Header) {
				stream = &sseStream{t: t, w: w}
				ctx = withNotifier(ctx, stream)
			}
			if t.tr.isToolCall(&msg) {
				// Deferred: it runs once the answer below is written.
				msg.newStep = sess.steps.arrive(read)
				defer func() { sess.steps.answered(time.Now()) }()
			}
		}
		resp := t.tr.handle(ctx, &sess.peer, &msg)
		t.release(sess)
		switch {
		case stream != nil && stream.close(&msg, resp):
			// Answered as the last event of the stream its notifications
			// opened.
		case resp == nil || isNilMessage(resp):
			w.WriteHeader(http.StatusAccepted)
		case request:
			t.writeAnswer(w, http.StatusOK, &msg, resp)
		default:
			// A notification refused (a wrong "jsonrpc", say).
			t.writeAnswer(w, http.StatusBadRequest, &msg, resp)
		}
	}
}

func (t *HTTPHandler) unknownSession(w http.ResponseWriter, id string) {
	writeJSON(w, http.StatusNotFound, rpcError(nil, sessionNotFound,
		fmt.Sprintf("unknown or ended session %q: send initialize without %s to start a new one", id, sessionHeader)))
}

// readBody reads the whole body, at most --max-message-bytes, within the
// read deadline that ServeHTTP set, then lifts the deadline (net/http
// watches the connection while the call runs, and a deadline passing then
// would cancel the request). A declared Content-Length sizes the buffer
// once; over the limit, it is refused unread. On failure it has answered
// (413, 408 or 400), and ok is false.
func (t *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	limit := t.tr.cfg.MaxMessageBytes
	tooLarge := func() {
		writeJSON(w, http.StatusRequestEntityTooLarge, rpcError(nil, mcp.INVALID_REQUEST,
			fmt.Sprintf("message over the %d-byte limit (--max-message-bytes)", limit)))
	}
	if r.ContentLength > limit {
		unread(w, r)
		tooLarge()
		return nil, false
	}
	if t.readingBody != nil {
		t.readingBody(r)
	}
	var err error
	if r.ContentLength > 0 {
		body = make([]byte, r.ContentLength)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	}
	if err == nil {
		http.NewResponseController(w).SetReadDeadline(time.Time{})
		return body, true
	}
	// What is left of the body will not be read either.
	unread(w, r)
	var over *http.MaxBytesError
	switch {
	case errors.As(err, &over):
		tooLarge()
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeJSON(w, http.StatusRequestTimeout, rpcError(nil, mcp.INVALID_REQUEST,
			fmt.Sprintf("the request body did not arrive within %s (--http-read-timeout)", t.readTimeout)))
	default:
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
	}
	return nil, false
}

// initialize starts a session: a fresh state that enters the table,
// and whose ID the answer carries, only when initialize succeeds. Past --max-sessions it is answered 503 with
// Retry-After: the seconds until the soonest idle session would end.
func (t *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, msg inbound) {
	ok, retry := t.reserve()
	if !ok {
		if retry <= 0 && t.idle == 0 {
			retry = busyRetry
		}
		secs := max(1, int64((retry+time.Second-1)/time.Second))
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		writeJSON(w, http.StatusServiceUnavailable, rpcError(msg.errorID(), serverBusy,
			fmt.Sprintf("the server holds its limit of %d sessions (--max-sessions): end one with DELETE, or retry in %d s", t.maxSessions, secs)))
		return
	}
	sess := t.newSession()
	ctx, end := t.sessionContext(r.Context(), sess)
	resp := t.tr.handle(ctx, &sess.peer, &msg)
	end()
	if _, ok := resp.(mcp.JSONRPCResponse); !ok {
		t.unreserve()
		t.free(sess)
		t.writeAnswer(w, http.StatusOK, &msg, resp)
		return
	}
	if !t.add(sess) {
		t.free(sess)
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	t.release(sess)
	w.Header().Set(sessionHeader, sess.id)
	t.writeAnswer(w, http.StatusOK, &msg, resp)
}

// sessionContext is the context a message of sess is handled in, derived
// from the request's: it carries the session's state, and ends with the
// request, with the transport (Stop), or when end is called.
func (t *HTTPHandler) sessionContext(ctx context.Context, sess *httpSession) (_ context.Context, end func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(t.tr.calls.stopping, cancel)
	return sess.state.Bind(ctx), func() { stop(); cancel() }
}

// unsupportedVersion is the 400 answer to a message of a protocol version
// this transport does not serve; its message and data name the versions it
// does.
func unsupportedVersion(id any, v string) mcp.JSONRPCError {
	e := mcp.UnsupportedProtocolVersionError{Version: v, Supported: httpVersions}.JSONRPCError()
	e.ID = mcp.NewRequestId(id)
	e.Error.Message = fmt.Sprintf("protocol version %q is not served over HTTP; supported versions: %s "+
		"(2026-07-28 has no sessions: use stdio for it)", v, strings.Join(httpVersions, ", "))
	return e
}

// rpcError is a JSON-RPC error answer.
func rpcError(id any, code int, msg string) mcp.JSONRPCError {
	return mcp.JSONRPCError{
		JSONRPC: mcp.JSONRPC_VERSION,
		ID:      mcp.NewRequestId(id),
		Error:   mcp.NewJSONRPCErrorDetails(code, msg, nil),
	}
}

// writeJSON writes v as an application/json answer with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := AppendMessage(nil, v)
	if err != nil {
		http.Error(w, "encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writeBody(w, status, b)
}

// writeAnswer writes resp, the answer to msg, as writeJSON does, except
// that an answer whose encoding fails or panics is written as JSON-RPC
// -32603 (Server.encodeAnswer), and one that leaves nothing to write (a
// notification's) as 202.
//
// The write deadline starts again here: the call that made the answer may
// have taken some of the one ServeHTTP set.
func (t *HTTPHandler) writeAnswer(w http.ResponseWriter, status int, msg *inbound, resp any) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(t.writeTimeout))
	buf := answerBuffers.Get().(*[]byte)
	b := t.tr.encodeAnswer((*buf)[:0], msg, resp)
	defer func() {
		if cap(b) <= maxPooledAnswer {
			*buf = b
			answerBuffers.Put(buf)
		}
	}()
	if len(b) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeBody(w, status, b)
}

// answerBuffers holds the buffers HTTP answers are encoded into: written
// to the connection, a buffer is free again, so that an answer costs no
// allocation as it grows. Buffers that grew past maxPooledAnswer (a large
// expand_edit's) are left to the collector.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledAnswer = 1 << 20

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// acceptsJSON reports whether the Accept header (absent counts as */*)
// allows application/json. Clients send "application/json,
// text/event-stream"; this server always answers JSON. As RFC 9110
// section 12.5.1 says, the most specific range that matches decides
// (application/json, then application/*, then */*), and a quality of 0
// means "not acceptable": application/json;q=0 refuses JSON even beside
// */*. Of equally specific ranges the highest quality counts; a quality
// that does not parse counts as 1.
func acceptsJSON(h http.Header) bool {
	values := h.Values("Accept")
	if len(values) == 0 {
		return true
	}
	best, q := 0, 0.0 // the specificity of the best match (0: none) and its quality
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			var spec int
			switch mt {
			case "application/json":
				spec = 3
			case "application/*":
				spec = 2
			case "*/*":
				spec = 1
			default:
				continue
			}
			quality := 1.0
			if s, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f <= 1 {
					quality = f
				}
			}
			switch {
			case spec > best:
				best, q = spec, quality
			case spec == best:
				q = max(q, quality)
			}
		}
	}
	return best > 0 && q > 0
}
