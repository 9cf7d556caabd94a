package transport

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
)

// TestStepClock: the gap rule (SPEC section 6) on a clock given by hand. A
// tool call begins a step when no other is in flight and at least the gap
// has passed since the last answer was written; the first call of a
// session, calls read while another is in flight and a gap of 0 never do.
func TestStepClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type event struct {
		read   bool // arrive (else answered)
		ms     int
		begins bool // arrive's answer
	}
	arrive := func(ms int, begins bool) event { return event{true, ms, begins} }
	answer := func(ms int) event { return event{false, ms, false} }
	tests := []struct {
		name   string
		gap    time.Duration
		events []event
	}{
		{"the first call of a session runs in step 1", 50 * time.Millisecond,
			[]event{arrive(10_000, false), answer(10_001)}},
		{"back to back: calls of one turn share a step", 50 * time.Millisecond,
			[]event{arrive(0, false), answer(1), arrive(2, false), answer(3), arrive(52, false), answer(53)}},
		{"a pause of exactly the gap begins a step", 50 * time.Millisecond,
			[]event{arrive(0, false), answer(10), arrive(60, true), answer(61)}},
		{"a pause just short of the gap does not", 50 * time.Millisecond,
			[]event{arrive(0, false), answer(10), arrive(59, false), answer(61)}},
		{"measured from the last answer written, not the last read", 50 * time.Millisecond,
			[]event{arrive(0, false), answer(100), arrive(140, false), answer(141), arrive(200, true), answer(201)}},
		{"a call read while another is in flight does not", 50 * time.Millisecond,
			[]event{arrive(0, false), answer(1), arrive(100, true), arrive(1000, false), answer(2000), answer(2001), arrive(2002, false), answer(2003)}},
		{"the last answer counts even when an earlier call answers later", 50 * time.Millisecond,
			[]event{arrive(0, false), arrive(1, false), answer(5), answer(90), arrive(120, false), answer(121), arrive(171, true), answer(172)}},
		{"gap 0 never begins a step", 0,
			[]event{arrive(0, false), answer(1), arrive(3_600_000, false), answer(3_600_001)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &stepClock{gap: tt.gap}
			for i, e := range tt.events {
				if !e.read {
					s.answered(at(e.ms))
					continue
				}
				assert.Equal(t, e.begins, s.arrive(at(e.ms)), "event %d: a call read at %d ms", i, e.ms)
			}
			assert.Zero(t, s.inFlight)
		})
	}
}

// TestIsToolCall: only a tools/call request of a served tool takes part
// in the gap rule.
func TestIsToolCall(t *testing.T) {
	t.Parallel()
	tr := New(Config{Tools: []Tool{{Tool: mcp.Tool{Name: "find"}}}})
	tests := []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find"}}`, true},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"find","arguments":{}}}`, true},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/call"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fnid"}}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, false},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"find"}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
	}
	for _, tt := range tests {
		m, bad := readMessage([]byte(tt.body))
		assert.Nil(t, bad, tt.body)
		assert.Equal(t, tt.want, tr.isToolCall(&m), tt.body)
	}
}
