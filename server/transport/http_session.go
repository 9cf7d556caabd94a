package transport

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// HTTPHandler serves Streamable HTTP: one session state per
// MCP session, each session from its initialize until DELETE,
// --idle-timeout or Close.
//
// A session's state is freed once the session has ended and none of its
// requests is still running, so a call never meets a closed state.
type HTTPHandler struct {
	tr           *Transport
	token        string
	tokenSum     [32]byte // SHA-256 of token
	loopback     bool     // the listen address is loopback: DNS-rebinding checks apply
	idle         time.Duration
	readTimeout  time.Duration
	writeTimeout time.Duration
	maxSessions  int

	// afterFunc arms the idle timer and now reads the clock; tests replace
	// them with a clock they drive by hand.
	afterFunc func(time.Duration, func()) stopper
	now       func() time.Time
	// readingBody, when set, is called as a POST starts reading its body
	// (tests: to act while a body is still arriving).
	readingBody func(*http.Request)

	mu       sync.Mutex
	sessions map[string]*httpSession // live sessions by ID
	starting int                     // sessions whose initialize is being served
	closed   bool                    // shut down: no new sessions
}

// stopper is the part of *time.Timer that the idle timer needs.
type stopper interface{ Stop() bool }

// httpSession is one MCP session over HTTP: the server's state of it and
// the transport's.
type httpSession struct {
	id       string
	state    Session   // the server's state of the session
	peer     peer      // the protocol's state
	inflight inflight  // the session's requests being served
	steps    stepClock // the tool calls' reads and answers, for --step-gap

	// Guarded by HTTPHandler.mu.
	active    int       // requests of this session being served
	ended     bool      // removed from the table; freed when active drops to 0
	timer     stopper   // the armed idle timer, if any
	gen       uint64    // invalidates idle timers armed before the latest request
	idleSince time.Time // when active last dropped to 0
}

// newSession starts a session with a fresh state under an unguessable
// ID (128 random bits). It is not in the table until its initialize
// succeeds (add).
func (t *HTTPHandler) newSession() *httpSession {
	return &httpSession{id: rand.Text(), state: t.tr.cfg.NewSession(), peer: peer{versions: httpVersions},
		steps: stepClock{gap: t.tr.cfg.StepGap}}
}

// reserve takes a place for a session about to be initialized, under
// MaxSessions; false when there is none (retry tells in how long one of
// the live sessions will end if it stays idle). Each reserve that
// succeeds needs an add or an unreserve.
func (t *HTTPHandler) reserve() (ok bool, retry time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.sessions)+t.starting < t.maxSessions {
		t.starting++
		return true, 0
	}
	// The soonest idle timer to fire, if any session is idle.
	retry = t.idle
	for _, sess := range t.sessions {
		if sess.active == 0 && t.idle > 0 {
			retry = min(retry, sess.idleSince.Add(t.idle).Sub(t.now()))
		}
	}
	return false, retry
}

// unreserve gives back a place that reserve took, for an initialize that
// failed.
func (t *HTTPHandler) unreserve() {
	t.mu.Lock()
	t.starting--
	t.mu.Unlock()
}

// add puts an initialized session in the table, in the place reserve took,
// as being served (release it when its initialize is answered). It reports
// false after shutdown.
func (t *HTTPHandler) add(sess *httpSession) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.starting--
	if t.closed {
		return false
	}
	sess.active = 1
	t.sessions[sess.id] = sess
	return true
}

// live reports whether id names a live session, without taking part in
// it: a request checks this before reading its body, and acquires the
// session only once the body is read.
func (t *HTTPHandler) live(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sessions[id] != nil
}

// acquire finds a live session for one of its requests and stops its idle
// timer; nil when there is no such session. Each acquire needs a release.
func (t *HTTPHandler) acquire(id string) *httpSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	sess := t.sessions[id]
	if sess == nil {
		return nil
	}
	sess.active++
	sess.gen++
	if sess.timer != nil {
		sess.timer.Stop()
		sess.timer = nil
	}
	return sess
}

// release ends a request of sess: the last one of an ended session frees
// it; the last one of a live session arms its idle timer.
func (t *HTTPHandler) release(sess *httpSession) {
	t.mu.Lock()
	sess.active--
	free := sess.ended && sess.active == 0
	if !sess.ended && sess.active == 0 {
		sess.idleSince = t.now()
	}
	if !sess.ended && sess.active == 0 && t.idle > 0 {
		sess.gen++
		gen := sess.gen
		sess.timer = t.afterFunc(t.idle, func() { t.expire(sess, gen) })
	}
	t.mu.Unlock()
	if free {
		t.free(sess)
	}
}

// expire ends sess when the idle timer of generation gen fires, unless a
// request came meanwhile.
func (t *HTTPHandler) expire(sess *httpSession, gen uint64) {
	t.mu.Lock()
	if sess.ended || sess.active > 0 || sess.gen != gen {
		t.mu.Unlock()
		return
	}
	free := t.endLocked(sess)
	t.mu.Unlock()
	if free {
		t.free(sess)
	}
}

// end ends the session with the given ID; false when there is none.
func (t *HTTPHandler) end(id string) bool {
	t.mu.Lock()
	sess := t.sessions[id]
	if sess == nil {
		t.mu.Unlock()
		return false
	}
	free := t.endLocked(sess)
	t.mu.Unlock()
	if free {
		t.free(sess)
	}
	return true
}

// endLocked removes sess from the table, so that its ID gets 404 from now
// on, cancels its requests that are running (a run ends its command), and
// reports whether it can be freed now (no request of it running).
func (t *HTTPHandler) endLocked(sess *httpSession) bool {
	delete(t.sessions, sess.id)
	sess.ended = true
	sess.inflight.cancelAll()
	if sess.timer != nil {
		sess.timer.Stop()
		sess.timer = nil
	}
	return sess.active == 0
}

// free gives back a session's state (Session.Close: what it holds and its
// share of the process-wide quota). It runs once per session, after the session ended
// and its last request finished.
func (t *HTTPHandler) free(sess *httpSession) { sess.state.Close() }

// Close ends every session, freeing each one's state once its requests
// have finished, and refuses new sessions: the handler's shutdown.
func (t *HTTPHandler) Close() {
	t.mu.Lock()
	t.closed = true
	var now []*httpSession
	for _, sess := range t.sessions {
		if t.endLocked(sess) {
			now = append(now, sess)
		}
	}
	t.mu.Unlock()
	for _, sess := range now {
		t.free(sess)
	}
}

// delete ends the session named by Mcp-Session-Id: 204, or 404 when there
// is no such session, or 400 without the header.
func (t *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		writeJSON(w, http.StatusBadRequest, rpcError(nil, mcp.INVALID_REQUEST, "DELETE needs the "+sessionHeader+" header of the session to end"))
		return
	}
	if !t.end(id) {
		writeJSON(w, http.StatusNotFound, rpcError(nil, sessionNotFound, fmt.Sprintf("unknown or ended session %q", id)))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
