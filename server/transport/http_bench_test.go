package transport_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
)

// BenchmarkHTTPLookups is get_lines through the HTTP transport's handler,
// in process (no sockets), with 1, 8 and 32 live sessions taking turns:
// what a lookup costs the server over HTTP, and whether it grows with
// the number of sessions.
func BenchmarkHTTPLookups(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "line %d of the file\n", i+1)
	}
	for _, n := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			cfg := limits.Defaults()
			cfg.MaxLookups = 1 << 62
			cfg.MaxStepBytes = 1 << 62
			s := newTestServer(&testing.T{}, cfg, map[string]string{"a.txt": sb.String()})
			tr := s.HTTPHandler(transport.HTTPOptions{Addr: "127.0.0.1:0"})
			b.Cleanup(tr.Close)
			post := func(session, body string) *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if session != "" {
					req.Header.Set(transport.SessionHeader, session)
				}
				w := httptest.NewRecorder()
				tr.ServeHTTP(w, req)
				if w.Code != http.StatusOK && w.Code != http.StatusAccepted {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
				return w
			}
			ids := make([]string, n)
			for i := range ids {
				w := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
				ids[i] = w.Header().Get(transport.SessionHeader)
				post(ids[i], `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				post(ids[i], `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"inspect","arguments":{"paths":["a.txt"]}}}`)
			}
			var next atomic.Int64
			call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_lines","arguments":{"result":"r1","first":1000,"last":1019}}}`
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					post(ids[int(next.Add(1))%n], call)
				}
			})
		})
	}
}
