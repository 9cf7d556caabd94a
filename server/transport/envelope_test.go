package transport

import "testing"

// BenchmarkReadMessage reads a get_range call's envelope, as both
// transports do before answering it.
func BenchmarkReadMessage(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"get_range","arguments":{"result":"r1","start":16776000,"end":16776800}}}`)
	for b.Loop() {
		if m, bad := readMessage(line); bad != nil || !m.plain {
			b.Fatal("not a plain call")
		}
	}
}
