package limits

import (
	"strconv"

	"github.com/loom-results/loom-results/errcode"
)

// Budget is the state of one step (SPEC section 6): how many lookups it has
// made, the escaped bytes its lookups returned, the bytes expand_edit
// expanded, and whether it was refused. The zero value is not usable; call
// NewBudget. A Budget is not safe for concurrent use: a briefing executes one
// call at a time.
type Budget struct {
	cfg         Config
	steps       Steps
	step        int64
	lookupsUsed int64
	bytesUsed   int64
	expandUsed  int64
	refused     bool
}

// Snapshot is the "budget" object that every lookup and expand_edit answer
// carries (SPEC section 6).
type Snapshot struct {
	Step            int64 `json:"step"`
	LookupsUsed     int64 `json:"lookups_used"`
	LookupsLeft     int64 `json:"lookups_left"`
	BytesUsed       int64 `json:"bytes_used"`
	BytesLeft       int64 `json:"bytes_left"`
	ExpandBytesUsed int64 `json:"expand_bytes_used"`
	ExpandBytesLeft int64 `json:"expand_bytes_left"`
	Refused         bool  `json:"refused"`
}

// Steps says who calls begin_step (SPEC section 2, --steps): the governing
// client, or the model itself. Only the messages that tell the caller what
// to do next differ between the two.
type Steps string

// The step modes.
const (
	ClientSteps Steps = "client"
	ModelSteps  Steps = "model"
)

// NewBudget returns the budget of step 1; steps chooses the words of the
// messages that name begin_step ("" is ClientSteps).
func NewBudget(cfg Config, steps Steps) *Budget {
	return &Budget{cfg: cfg, steps: steps, step: 1}
}

// BeginStep ends the current step and starts the next with a fresh budget,
// returning its number.
func (b *Budget) BeginStep() int64 {
	*b = Budget{cfg: b.cfg, steps: b.steps, step: b.step + 1}
	return b.step
}

// Steps returns the step mode the budget's messages are written for.
func (b *Budget) Steps() Steps { return b.steps }

// Snapshot returns the budget as answers report it.
func (b *Budget) Snapshot() Snapshot {
	return Snapshot{
		Step:            b.step,
		LookupsUsed:     b.lookupsUsed,
		LookupsLeft:     max(0, b.cfg.MaxLookups-b.lookupsUsed),
		BytesUsed:       b.bytesUsed,
		BytesLeft:       b.bytesLeft(),
		ExpandBytesUsed: b.expandUsed,
		ExpandBytesLeft: max(0, b.cfg.MaxExpandBytes-b.expandUsed),
		Refused:         b.refused,
	}
}

// AppendJSON appends the snapshot as json.Marshal writes it, members in
// struct order.
func (s *Snapshot) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"step":`...)
	dst = strconv.AppendInt(dst, s.Step, 10)
	dst = append(dst, `,"lookups_used":`...)
	dst = strconv.AppendInt(dst, s.LookupsUsed, 10)
	dst = append(dst, `,"lookups_left":`...)
	dst = strconv.AppendInt(dst, s.LookupsLeft, 10)
	dst = append(dst, `,"bytes_used":`...)
	dst = strconv.AppendInt(dst, s.BytesUsed, 10)
	dst = append(dst, `,"bytes_left":`...)
	dst = strconv.AppendInt(dst, s.BytesLeft, 10)
	dst = append(dst, `,"expand_bytes_used":`...)
	dst = strconv.AppendInt(dst, s.ExpandBytesUsed, 10)
	dst = append(dst, `,"expand_bytes_left":`...)
	dst = strconv.AppendInt(dst, s.ExpandBytesLeft, 10)
	dst = append(dst, `,"refused":`...)
	dst = strconv.AppendBool(dst, s.Refused)
	return append(dst, '}')
}

func (b *Budget) bytesLeft() int64 { return max(0, b.cfg.MaxStepBytes-b.bytesUsed) }

// StartLookup counts a lookup call, whatever its outcome will be, and runs
// the first checks of SPEC section 4: a refused step, then the lookup count.
// The first call beyond the limit refuses the step.
func (b *Budget) StartLookup() *errcode.Error {
	b.lookupsUsed++
	if b.refused {
		return b.refusedError()
	}
	if b.lookupsUsed > b.cfg.MaxLookups {
		b.refused = true
		if b.cfg.MaxLookups == 0 {
			// begin_step cannot help here, in either step mode: say why no
			// lookup is answered.
			return errcode.New(errcode.LookupLimit,
				"lookups are off: this server runs with --max-lookups 0, so no step allows a lookup").With(errcode.Details{Limit: new(int64(0))})
		}
		msg := "step %d already made its %d lookups; call begin_step to start a new step"
		if b.steps == ModelSteps {
			msg = "step %d already made its %d lookups and is now refused; call begin_step to start a new step with a fresh budget, then repeat this lookup"
		}
		return errcode.New(errcode.LookupLimit, msg, b.step, b.cfg.MaxLookups).With(errcode.Details{Limit: new(b.cfg.MaxLookups)})
	}
	return nil
}

// CheckEdit answers step_refused for expand_edit in a refused step.
func (b *Budget) CheckEdit() *errcode.Error {
	if b.refused {
		return b.refusedError()
	}
	return nil
}

func (b *Budget) refusedError() *errcode.Error {
	msg := "step %d was refused; call begin_step to start a new step"
	if b.steps == ModelSteps {
		msg = "step %d was refused; call begin_step to start a new step, then repeat this call"
	}
	return errcode.New(errcode.StepRefused, msg, b.step)
}

// Refuse refuses the rest of the step: every further lookup and expand_edit
// answers step_refused until BeginStep.
func (b *Budget) Refuse() { b.refused = true }

// Room is what one lookup may still return in this step (SPEC section 6):
// Bytes of text, counted as UTF-8 (--max-lookup-bytes), and Escaped bytes
// of it as the escaped measure counts them, quotes included (the step's
// bytes left).
type Room struct {
	Bytes, Escaped int64
}

// After returns the room left for what follows a text that the answer
// starts with (a lookup by path starts with its result's header line):
// its UTF-8 bytes and its escaped bytes, the quotes being counted once.
func (r Room) After(text string) Room {
	return Room{Bytes: r.Bytes - int64(len(text)), Escaped: r.Escaped - (EscapedSize(text) - 2)}
}

// Room returns the room of the next lookup.
func (b *Budget) Room() Room {
	return Room{Bytes: b.cfg.MaxLookupBytes, Escaped: b.bytesLeft()}
}

// Selected describes a lookup's text for the messages of its size errors
// (SPEC sections 2 and 8): what it selects and, for get_lines and
// get_range, what would fit.
type Selected struct {
	// What names the selection with its verb: "lines 40-2073 are",
	// "the value at /a is". "" is "the answer is".
	What string
	// Fit, when set, finds what would pass both caps of room with
	// everything else unchanged: the "fits" detail (To nil when no
	// non-empty selection would) and the clause that names it ("lines
	// 40-301 fit", "no line from 40 fits"). It is called only for a
	// lookup that does not fit. Without it the message says Less.
	Fit func(room Room) (fit errcode.Fit, clause string)
	// Less says how to ask for less when there is no Fit: "select less"
	// when empty.
	Less string
}

// Fits reports whether a lookup returning text passes the caps, without
// charging it: lookup_too_large when its UTF-8 bytes pass --max-lookup-bytes,
// then step_bytes_exhausted when its escaped size passes the step's bytes
// left. Both give size, limit and bytes_left.
func (b *Budget) Fits(text []byte) *errcode.Error {
	size := int64(len(text))
	if size > b.cfg.MaxLookupBytes {
		return b.tooLarge(Selected{}, size)
	}
	return b.fitsEscaped(Selected{}, EscapedSize(text))
}

// tooLarge is lookup_too_large for s, of size UTF-8 bytes: the size, the
// limit, the bytes left and what fits, in the details and the message.
func (b *Budget) tooLarge(s Selected, size int64) *errcode.Error {
	fit, clause := b.fit(s)
	return errcode.New(errcode.LookupTooLarge,
		"%s %d bytes, over the %d-byte lookup limit; %s (the step has %d escaped bytes left)",
		s.what(), size, b.cfg.MaxLookupBytes, clause, b.bytesLeft()).
		With(errcode.Details{Size: new(size), Limit: new(b.cfg.MaxLookupBytes), BytesLeft: new(b.bytesLeft()), Fits: fit})
}

// fitsEscaped is nil when escaped bytes fit the step's bytes left, else
// step_bytes_exhausted for s: the size, the step's limit, the bytes left
// and what fits.
func (b *Budget) fitsEscaped(s Selected, escaped int64) *errcode.Error {
	if escaped <= b.bytesLeft() {
		return nil
	}
	fit, clause := b.fit(s)
	switch {
	case fit == nil:
		clause += " or call begin_step"
	case fit.To == nil:
		clause += ": call begin_step to start a new step with a fresh budget"
	default:
		clause += ", or call begin_step to start a new step with a fresh budget"
	}
	return errcode.New(errcode.StepBytesExhausted,
		"%s %d escaped bytes, over the %d left of the step's %d; %s",
		s.what(), escaped, b.bytesLeft(), b.cfg.MaxStepBytes, clause).
		With(errcode.Details{Size: new(escaped), Limit: new(b.cfg.MaxStepBytes), BytesLeft: new(b.bytesLeft()), Fits: fit})
}

// fit runs s.Fit in the room of this lookup: the detail (nil when s has no
// Fit) and the clause of the message.
func (b *Budget) fit(s Selected) (*errcode.Fit, string) {
	if s.Fit == nil && s.Less == "" {
		return nil, "select less"
	}
	if s.Fit == nil {
		return nil, s.Less
	}
	fit, clause := s.Fit(b.Room())
	return &fit, clause
}

func (s Selected) what() string {
	if s.What == "" {
		return "the answer is"
	}
	return s.What
}

// Charge checks text with Fits and, when it passes, adds its escaped size to
// the step. It returns the UTF-8 and escaped sizes it measured.
func (b *Budget) Charge(text []byte) (size, escaped int64, err *errcode.Error) {
	if err := b.Fits(text); err != nil {
		return 0, 0, err
	}
	escaped = EscapedSize(text)
	b.bytesUsed += escaped
	return int64(len(text)), escaped, nil
}

// ChargeSized is Charge for a text not built yet, given its UTF-8 size and
// its escaped size (EscapedSize), so that a text over the caps is never
// built: the same checks in the same order.
func (b *Budget) ChargeSized(size, escaped int64) *errcode.Error {
	return b.ChargeSelected(Selected{}, size, escaped)
}

// ChargeSelected is ChargeSized for the selection s, whose size errors say
// what it selects and what would fit. Its escaped size is not looked at
// when its UTF-8 size passes the lookup cap: a caller may pass 0 then,
// without measuring a text that will not be answered.
func (b *Budget) ChargeSelected(s Selected, size, escaped int64) *errcode.Error {
	if size > b.cfg.MaxLookupBytes {
		return b.tooLarge(s, size)
	}
	if err := b.fitsEscaped(s, escaped); err != nil {
		return err
	}
	b.bytesUsed += escaped
	return nil
}

// ExpandLeft returns the bytes expand_edit may still expand in this step.
func (b *Budget) ExpandLeft() int64 { return max(0, b.cfg.MaxExpandBytes-b.expandUsed) }

// ChargeExpand adds n expanded bytes to the step, or fails with
// expansion_too_large (adding nothing and refusing nothing) when that would
// pass --max-expand-bytes.
func (b *Budget) ChargeExpand(n int64) *errcode.Error {
	if n > b.ExpandLeft() {
		// What to do next (SPEC section 8): a new step's budget holds
		// it, or nothing does and the edit must be split.
		next := "call begin_step to start a new step with a fresh budget"
		if n > b.cfg.MaxExpandBytes {
			next = "no step holds it (--max-expand-bytes): make the edit in smaller parts"
		}
		return errcode.New(errcode.ExpansionTooLarge,
			"expansion is %d bytes, over the %d left of the step's %d; %s", n, b.ExpandLeft(), b.cfg.MaxExpandBytes, next).
			With(errcode.Details{Size: new(n), Limit: new(b.cfg.MaxExpandBytes)})
	}
	b.expandUsed += n
	return nil
}
