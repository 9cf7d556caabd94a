package transport

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// HTTPOptions configure ListenAndServeHTTP.
type HTTPOptions struct {
	Addr  string    // host:port to listen on; the endpoint is http://Addr/mcp
	Token string    // when set, every request needs Authorization: Bearer Token
	Log   io.Writer // where to log; never stdout

	// ReadTimeout bounds reading a request: its headers, then its whole
	// body, each within ReadTimeout (0: DefaultReadTimeout). A body not
	// read in time is answered 408, and the request never reaches its
	// session.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing an answer to a client that does not read
	// it (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
	// MaxSessions caps the live sessions (0: DefaultMaxSessions); an
	// initialize over it is answered 503 with Retry-After.
	MaxSessions int
}

// Check refuses limits that cannot be met: a timeout or a session cap
// below 1 (the zero value means the default only in a struct literal; on
// the command line a value must be given as it is meant).
func (o HTTPOptions) Check() error {
	switch {
	case o.ReadTimeout <= 0:
		return fmt.Errorf("--http-read-timeout %s: must be positive", o.ReadTimeout)
	case o.WriteTimeout <= 0:
		return fmt.Errorf("--http-write-timeout %s: must be positive", o.WriteTimeout)
	case o.MaxSessions < 1:
		return fmt.Errorf("--max-sessions %d: must be at least 1", o.MaxSessions)
	}
	return nil
}

// The defaults of HTTPOptions.
//
// A session costs about 2 KiB when empty, and at most about 0.7 MiB of
// bookkeeping beside the stored bytes that --max-total-bytes counts (its
// 1,024 results' indexes and descriptors), so 256 sessions hold at most
// some 180 MiB more than the quota, and idle ones far less.
const (
	DefaultReadTimeout  = 10 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultMaxSessions  = 256
)

// httpVersions are the protocol versions served over HTTP, newest first:
// the session era only (SPEC section 2). 2026-07-28 has no sessions, so it
// cannot have a state per session.
var httpVersions = []string{
	mcp.ProtocolVersion20251125,
	mcp.ProtocolVersion20250618,
	mcp.ProtocolVersion20250326,
	mcp.ProtocolVersion20241105,
}

// shutdownGrace is how long shutdown waits for in-flight requests, so that
// the process exits within 2 s of a signal.
const shutdownGrace = 1500 * time.Millisecond

// CheckHTTPAddr checks a --http address: host:port with a numeric port, and
// a loopback host (localhost, 127.0.0.0/8, ::1) unless a token is given
// (SPEC section 2). An empty host means every interface, so it needs a
// token too.
func CheckHTTPAddr(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", addr, port)
	}
	if !validHost(host) {
		return fmt.Errorf("%q: %q is not an IP address or a host name", addr, host)
	}
	if token == "" && !isLoopback(host) {
		return fmt.Errorf("%q is not a loopback address (localhost, 127.0.0.0/8, ::1); "+
			"another address needs --http-token", addr)
	}
	return nil
}

// validHost accepts "" (every interface), an IP address, or a host name of
// letters, digits, '-' and '_' in dot-separated labels.
func validHost(host string) bool {
	if host == "" {
		return true
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if len(host) > 253 {
		return false
	}
	for label := range strings.SplitSeq(strings.TrimSuffix(host, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// isLoopback reports whether host (without a port) is localhost or a
// loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// isLoopbackHostPort is isLoopback for a Host header or URL host: host,
// host:port, [v6] or [v6]:port.
func isLoopbackHostPort(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
	}
	return isLoopback(host)
}

// listenAddr is the address to log for a listener on addr (--http as given):
// its host as given, since the listener's own would show 0.0.0.0 as [::],
// and the bound port, which :0 leaves to the system. An empty host (every
// interface) has no name of its own, so it is the listener's.
func listenAddr(addr string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	_, port, err2 := net.SplitHostPort(bound.String())
	if err != nil || err2 != nil || host == "" {
		return bound.String()
	}
	return net.JoinHostPort(host, port)
}

// ListenAndServeHTTP serves Streamable HTTP at http://opts.Addr/mcp until ctx is
// done, one session state (Config.NewSession) per MCP session (SPEC section 2). It logs the URL it
// serves to opts.Log. When ctx is done it stops taking messages and
// cancels those in flight (Stop), stops accepting connections, lets
// in-flight requests finish and send their answers for up to 1.5 s, ends
// every session, freeing its state once its requests have returned,
// and returns nil. A call still running then (a long write) goes on
// without its connection: Wait waits for it.
func (tr *Transport) ListenAndServeHTTP(ctx context.Context, opts HTTPOptions) error {
	if err := CheckHTTPAddr(opts.Addr, opts.Token); err != nil {
		return err
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	t := tr.HTTPHandler(opts)
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("--http: %w", err)
	}
	srv := &http.Server{
		Handler:           t,
		ReadHeaderTimeout: t.readTimeout,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(logw, "loom-results: http: ", 0),
	}
	fmt.Fprintf(logw, "loom-results: serving MCP (Streamable HTTP) at http://%s/mcp\n", listenAddr(opts.Addr, ln.Addr()))

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		t.Close()
		return fmt.Errorf("--http: %w", err)
	case <-ctx.Done():
	}
	tr.Stop()
	grace, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(grace); err != nil {
		// Requests still running past the grace period are cut off; their
		// sessions' states are freed when their handlers return.
		srv.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(logw, "loom-results: http: %v\n", err)
	}
	t.Close()
	return nil
}

// HTTPHandler returns the handler ListenAndServeHTTP serves, for a server
// of the caller's own: Streamable HTTP at /mcp, one session state per MCP
// session. opts.Addr is the address it will be served at (its host decides
// the DNS-rebinding checks, SPEC section 2); opts.Log is not used. Close
// ends its sessions.
func (tr *Transport) HTTPHandler(opts HTTPOptions) *HTTPHandler {
	host, _, _ := net.SplitHostPort(opts.Addr)
	t := &HTTPHandler{
		tr:           tr,
		token:        opts.Token,
		loopback:     isLoopback(host),
		idle:         tr.cfg.IdleTimeout,
		readTimeout:  cmp.Or(opts.ReadTimeout, DefaultReadTimeout),
		writeTimeout: cmp.Or(opts.WriteTimeout, DefaultWriteTimeout),
		maxSessions:  cmp.Or(opts.MaxSessions, DefaultMaxSessions),
		afterFunc:    func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) },
		now:          time.Now,
		sessions:     make(map[string]*httpSession),
	}
	if opts.Token != "" {
		t.tokenSum = sha256.Sum256([]byte(opts.Token))
	}
	return t
}

// ServeHTTP checks what applies to every request, in this order: DNS
// rebinding (403), the token (401), the path (404), the protocol version
// header (400) and the method (405). All of them come before the body is
// read: an answer given without reading the body closes the connection
// (unread), so that no refused request waits for its body to arrive.
//
// Every request has ReadTimeout to bring its body and WriteTimeout to take
// each answer: no client holds a connection's handler longer by sending or
// reading slowly.
//
// A panic that escapes the message's own recovery (Server.handle,
// Server.encodeAnswer) is recovered here: logged with its stack and, when
// nothing was written yet, answered 500 with JSON-RPC -32603. net/http
// would recover it too, but only by dropping the connection, so the client
// would get no answer at all.
func (t *HTTPHandler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &headerWatch{ResponseWriter: rw}
	defer t.recoverRequest(w)
	rc := http.NewResponseController(w)
	// Deadlines are not supported by every ResponseWriter (a recorder in
	// tests); the listener's connections support them.
	now := time.Now()
	rc.SetReadDeadline(now.Add(t.readTimeout))
	rc.SetWriteDeadline(now.Add(t.writeTimeout))
	if msg := t.forbidden(r); msg != "" {
		unread(w, r)
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if !t.authorized(r) {
		unread(w, r)
		w.Header().Set("WWW-Authenticate", `Bearer realm="loom-results"`)
		http.Error(w, "missing or wrong bearer token (Authorization: Bearer <--http-token>)", http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/mcp" {
		unread(w, r)
		http.Error(w, fmt.Sprintf("no endpoint %q: MCP is served at /mcp", r.URL.Path), http.StatusNotFound)
		return
	}
	if v := r.Header.Get(mcp.HeaderProtocolVersion); v != "" && !supportedVersion(v) {
		unread(w, r)
		writeJSON(w, http.StatusBadRequest, unsupportedVersion(nil, v))
		return
	}
	switch r.Method {
	case http.MethodPost:
		t.post(w, r)
	case http.MethodDelete:
		unread(w, r)
		t.delete(w, r)
	default:
		// GET would open a stream of server-initiated messages; this server
		// sends none, which Streamable HTTP allows by answering 405.
		unread(w, r)
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, fmt.Sprintf("method %s not allowed: POST JSON-RPC messages, DELETE to end a session", r.Method),
			http.StatusMethodNotAllowed)
	}
}

// unread prepares the answer to a request whose body will not be read.
// net/http would read what is left of a body before it writes the answer
// (up to 256 KiB, so that the connection can serve another request), and a
// client sending slowly, or not at all, would hold the answer back: a 401
// waited for the body. Closing the connection after the answer, and
// ending any read at once, makes it go out now.
func unread(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength == 0 {
		return // no body: nothing to wait for, keep the connection
	}
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
}

// recoverRequest recovers a panic of ServeHTTP (it must be deferred there).
func (t *HTTPHandler) recoverRequest(w *headerWatch) {
	v := recover()
	if v == nil {
		return
	}
	resp := t.tr.panicked(nil, v)
	if !w.wrote {
		writeJSON(w, http.StatusInternalServerError, resp)
	}
}

// headerWatch is a ResponseWriter that records whether the header was
// written. Unwrap keeps http.ResponseController working through it.
type headerWatch struct {
	http.ResponseWriter
	wrote bool
}

func (w *headerWatch) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *headerWatch) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

func (w *headerWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// forbidden applies DNS-rebinding protection: on a loopback listener the
// Host header must name a loopback host, and any Origin must be a loopback
// origin (on a non-loopback listener, which needs a token, the request's own
// origin is allowed too). It returns why a request is refused, or "".
func (t *HTTPHandler) forbidden(r *http.Request) string {
	if t.loopback && !isLoopbackHostPort(r.Host) {
		return fmt.Sprintf("Host %q is not a loopback host", r.Host)
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		o := origins[0]
		u, err := url.Parse(o)
		ok := err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
			(isLoopbackHostPort(u.Host) || !t.loopback && strings.EqualFold(u.Host, r.Host))
		if !ok {
			return fmt.Sprintf("Origin %q is not a loopback origin", o)
		}
	}
	return ""
}

// authorized checks the bearer token in constant time (over digests, so
// the token's length does not leak either).
func (t *HTTPHandler) authorized(r *http.Request) bool {
	if t.token == "" {
		return true
	}
	scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	return subtle.ConstantTimeCompare(got[:], t.tokenSum[:]) == 1
}

// supportedVersion reports whether v is one of httpVersions.
func supportedVersion(v string) bool {
	for _, s := range httpVersions {
		if v == s {
			return true
		}
	}
	return false
}
