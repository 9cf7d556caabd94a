package server

import (
	"context"
	"errors"
	"io"
)

// HTTPOptions configure ServeHTTP.
type HTTPOptions struct {
	Addr  string    // host:port to listen on; the endpoint is http://Addr/mcp
	Token string    // when set, every request needs Authorization: Bearer Token
	Log   io.Writer // where to log; never stdout
}

// CheckHTTPAddr refuses a non-loopback address without a token (SPEC 2).
func CheckHTTPAddr(addr, token string) error {
	return errors.New("not implemented yet")
}

// ServeHTTP serves Streamable HTTP until ctx is done.
func (s *Server) ServeHTTP(ctx context.Context, opts HTTPOptions) error {
	return errors.New("not implemented yet")
}
