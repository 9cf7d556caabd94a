// Package replayserver is a no-op MCP server, the reference a lookup's
// latency is measured against: it answers each request with the bytes a real
// loom-results server answered to the same request, recorded earlier, so
// that all it costs is the transport and the client. It serves
// newline-delimited JSON-RPC over stdio and Streamable HTTP (a plain
// net/http handler), as loom-results does; cmd/loom-replay is its command,
// and Build compiles it for the programs that start it (loom-perf).
//
// A recorded answer is found by its request with the id left out: a client
// numbers its requests, and the same request sent again under another id
// gets the same answer with that id in place of the recorded one. Every
// other byte is the recorded server's. Answers that carry a counter (a
// step's budget) are replayed as recorded, so they may differ from what the
// live server would answer now in those digits only.
package replayserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
)

// answer is a recorded answer cut around its id.
type answer struct {
	before, after []byte // the request's bytes around its id (the key)
	pre, post     []byte // the answer's bytes around its id
	status        int
	contentType   string
	session       bool
}

// A Replayer answers requests from a tape.
type Replayer struct {
	// answers holds, by the request's bytes after its id, the answers
	// whose requests end so; the bytes before the id tell them apart
	// (clients write the same few bytes there, so the list is short).
	answers  map[string][]*answer
	sessions atomic.Int64
	bufs     sync.Pool
}

// New returns a replayer of tape. A later exchange of the same request
// replaces an earlier one. Every exchange's request and answer must carry
// an id.
func New(tape []Exchange) (*Replayer, error) {
	r := &Replayer{answers: make(map[string][]*answer)}
	for i, x := range tape {
		rs, re, ok := idSpan(x.Request)
		if !ok {
			return nil, fmt.Errorf("exchange %d: the request has no id: %.200s", i+1, x.Request)
		}
		as, ae, ok := idSpan(x.Answer)
		if !ok {
			return nil, fmt.Errorf("exchange %d: the answer has no id: %.200s", i+1, x.Answer)
		}
		a := &answer{
			before: x.Request[:rs], after: x.Request[re:],
			pre: x.Answer[:as], post: x.Answer[ae:],
			status: x.Status, contentType: x.ContentType, session: x.Session,
		}
		list := r.answers[string(a.after)]
		replaced := false
		for j, old := range list {
			if bytes.Equal(old.before, a.before) {
				list[j], replaced = a, true
			}
		}
		if !replaced {
			list = append(list, a)
		}
		r.answers[string(a.after)] = list
	}
	return r, nil
}

// find returns the recorded answer to req and req's id. The id is nil for
// a notification (no answer is due); the answer is nil for a request the
// tape does not hold.
func (r *Replayer) find(req []byte) (*answer, []byte) {
	s, e, ok := idSpan(req)
	if !ok {
		return nil, nil
	}
	for _, a := range r.answers[string(req[e:])] {
		if bytes.Equal(a.before, req[:s]) {
			return a, req[s:e]
		}
	}
	return nil, req[s:e]
}

// appendAnswer appends the answer to req to dst: the recorded answer with
// req's id, or a JSON-RPC error (-32601) for a request the tape does not
// hold. It returns dst unchanged for a notification.
func (r *Replayer) appendAnswer(dst, req []byte) []byte {
	a, id := r.find(req)
	switch {
	case id == nil:
		return dst
	case a == nil:
		return appendUnknown(dst, id)
	}
	dst = append(dst, a.pre...)
	dst = append(dst, id...)
	return append(dst, a.post...)
}

func appendUnknown(dst, id []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = append(dst, id...)
	return append(dst, `,"error":{"code":-32601,"message":"loom-replay: no recorded answer to this request"}}`...)
}

// ServeStdio answers each line of in on out, one line each, until in ends.
// Blank lines and notifications get no answer.
func (r *Replayer) ServeStdio(in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var line, buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = append(line, chunk...)
			continue
		}
		msg := chunk
		if len(line) > 0 {
			line = append(line, chunk...)
			msg = line
		}
		msg = bytes.TrimSuffix(bytes.TrimSuffix(msg, []byte("\n")), []byte("\r"))
		if len(bytes.TrimSpace(msg)) > 0 {
			buf = r.appendAnswer(buf[:0], msg)
			if len(buf) > 0 {
				buf = append(buf, '\n')
				if _, werr := out.Write(buf); werr != nil {
					return werr
				}
			}
		}
		line = line[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Handler returns the Streamable HTTP handler of the tape at /mcp: a POST
// is answered with the recorded status, Content-Type and body (202 and no
// body for a notification), an answer that started a session carries a
// fresh Mcp-Session-Id, and a DELETE is 204. Sessions are not checked: the
// replay holds no state.
func (r *Replayer) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/mcp" {
			http.NotFound(w, req)
			return
		}
		switch req.Method {
		case http.MethodPost:
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "POST or DELETE", http.StatusMethodNotAllowed)
			return
		}
		buf, _ := r.bufs.Get().(*bytes.Buffer)
		if buf == nil {
			buf = new(bytes.Buffer)
		}
		defer r.bufs.Put(buf)
		buf.Reset()
		if _, err := buf.ReadFrom(req.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		a, id := r.find(buf.Bytes())
		h := w.Header()
		switch {
		case id == nil:
			w.WriteHeader(http.StatusAccepted)
			return
		case a == nil:
			body := appendUnknown(nil, id)
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			w.Write(body)
			return
		}
		if a.contentType != "" {
			h.Set("Content-Type", a.contentType)
		}
		if a.session {
			h.Set("Mcp-Session-Id", "replay-"+strconv.FormatInt(r.sessions.Add(1), 10))
		}
		h.Set("Content-Length", strconv.Itoa(len(a.pre)+len(id)+len(a.post)))
		status := a.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		w.Write(a.pre)
		w.Write(id)
		w.Write(a.post)
	})
}
