package transport

import (
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Steps that begin by themselves (SPEC sections 2 and 6, --step-gap): a
// tool call that is read while no other tool call of the session is in
// flight, at least the gap after the session's last tool-call answer was
// written, runs after a step begins (Call.NewStep), because a model that
// waited that long has started a new turn. Calls that a client sends
// together in one turn arrive within milliseconds and share a step. Each
// transport stamps a tool call with the time it read it (arrive) and the
// time it wrote its answer (answered); time.Now carries a monotonic
// reading, which Sub uses, so a change of the wall clock changes nothing.
// No timer runs between calls. Other messages (tools/list, ping,
// notifications) are not tool calls: they take no part.

// stepClock is one session's record of its tool calls, for the gap rule.
// The zero gap never begins a step.
type stepClock struct {
	gap      time.Duration
	mu       sync.Mutex
	inFlight int       // tool calls read and not yet answered
	last     time.Time // when the last tool-call answer was written; zero before the first
}

// arrive counts a tool call read at now, and reports whether it begins a
// step: no other call is in flight, an answer was written before, and at
// least the gap has passed since the last one.
func (s *stepClock) arrive(now time.Time) bool {
	if s.gap <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	begins := s.inFlight == 0 && !s.last.IsZero() && now.Sub(s.last) >= s.gap
	s.inFlight++
	return begins
}

// answered records that the answer of a tool call that arrive counted was
// written at now.
func (s *stepClock) answered(now time.Time) {
	if s.gap <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	if now.After(s.last) {
		s.last = now
	}
}

// isToolCall reports a message that the gap rule counts: a tools/call
// request of a tool the transport serves. A call of an unknown tool runs
// nothing: it neither begins a step nor counts as an answer, so that the
// call that follows it still finds the pause before it.
func (tr *Transport) isToolCall(m *inbound) bool {
	return m.request() && m.method == string(mcp.MethodToolsCall) && tr.tools[m.tool] != nil
}
