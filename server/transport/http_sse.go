package transport

import (
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// sseStream is the answer to one HTTP request that sends notifications as
// it runs (Notify: run's progress). Streamable HTTP lets a server answer a
// POST with a text/event-stream that carries the request's notifications
// and then its response: the stream opens with the first notification, and
// the response is its last event. A request that sends none is answered
// with plain JSON, as every other.
type sseStream struct {
	t      *HTTPHandler
	w      http.ResponseWriter
	mu     sync.Mutex
	opened bool
	closed bool
	failed bool // a write failed: the client is gone
}

// notify writes n as an event, opening the stream at the first one.
func (s *sseStream) notify(n mcp.JSONRPCNotification) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.failed {
		return false
	}
	if !s.opened {
		s.opened = true
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		s.w.WriteHeader(http.StatusOK)
	}
	b, err := AppendMessage(nil, n)
	if err != nil {
		return false
	}
	return s.event(b)
}

// event writes one message event and flushes it, within the write
// deadline, which starts again for each event: a call may run for long.
func (s *sseStream) event(msg []byte) bool {
	rc := http.NewResponseController(s.w)
	rc.SetWriteDeadline(time.Now().Add(s.t.writeTimeout))
	buf := make([]byte, 0, len(msg)+24)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, msg...)
	buf = append(buf, "\n\n"...)
	if _, err := s.w.Write(buf); err != nil {
		s.failed = true
		return false
	}
	if err := rc.Flush(); err != nil {
		s.failed = true
		return false
	}
	return true
}

// close ends the stream with resp, the answer to msg, as its last event,
// and reports whether the stream was open (else the caller answers as
// usual). No notification is sent after it.
func (s *sseStream) close(msg *inbound, resp mcp.JSONRPCMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if !s.opened {
		return false
	}
	if resp != nil && !isNilMessage(resp) && !s.failed {
		s.event(s.t.tr.encodeAnswer(nil, msg, resp))
	}
	return true
}

// acceptsSSE reports whether the Accept header names text/event-stream
// with a quality above 0, as clients of Streamable HTTP do
// ("application/json, text/event-stream"). A client that names only
// JSON, or nothing, gets JSON alone, and no notifications.
func acceptsSSE(h http.Header) bool {
	for _, v := range h.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, ok := params["q"]; ok && strings.Trim(q, "0.") == "" {
				continue
			}
			return true
		}
	}
	return false
}
