package transport

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestListenAddr: the log names the address as --http gave it, with the
// port the listener got.
func TestListenAddr(t *testing.T) {
	t.Parallel()
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	tests := []struct {
		name  string
		addr  string
		bound net.Addr
		want  string
	}{
		{"every IPv4 interface, which Go reports as [::]", "0.0.0.0:8080", tcp("::", 8080), "0.0.0.0:8080"},
		{"a picked port", "127.0.0.1:0", tcp("127.0.0.1", 43123), "127.0.0.1:43123"},
		{"a host name", "localhost:0", tcp("127.0.0.1", 43123), "localhost:43123"},
		{"IPv6 loopback", "[::1]:0", tcp("::1", 43123), "[::1]:43123"},
		{"no host: the listener's", ":0", tcp("::", 43123), "[::]:43123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, listenAddr(tt.addr, tt.bound))
		})
	}
}
