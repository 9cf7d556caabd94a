package transport

import "testing"

// BenchmarkReadMessage reads a get_range call, as both transports do
// before answering it: the one pass over its bytes, and the members the
// dispatch needs.
func BenchmarkReadMessage(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"get_range","arguments":{"result":"r1","start":16776000,"end":16776800}}}`)
	for b.Loop() {
		if m, bad := readMessage(line); bad != nil || m.tool != "get_range" || !m.args.Present() {
			b.Fatal("not a call of get_range")
		}
	}
}
