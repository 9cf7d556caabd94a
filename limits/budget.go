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

// Fits reports whether a lookup returning text passes the caps, without
// charging it: lookup_too_large when its UTF-8 bytes pass --max-lookup-bytes,
// then step_bytes_exhausted when its escaped size passes the step's bytes
// left. Both give size, limit and bytes_left.
func (b *Budget) Fits(text []byte) *errcode.Error {
	size := int64(len(text))
	if size > b.cfg.MaxLookupBytes {
		return b.tooLarge(size)
	}
	return b.fitsEscaped(EscapedSize(text))
}

func (b *Budget) tooLarge(size int64) *errcode.Error {
	return errcode.New(errcode.LookupTooLarge,
		"answer is %d bytes, over the %d-byte lookup limit; select less", size, b.cfg.MaxLookupBytes).
		With(errcode.Details{Size: new(size), Limit: new(b.cfg.MaxLookupBytes), BytesLeft: new(b.bytesLeft())})
}

func (b *Budget) fitsEscaped(escaped int64) *errcode.Error {
	if escaped > b.bytesLeft() {
		return errcode.New(errcode.StepBytesExhausted,
			"answer is %d escaped bytes, over the %d left of the step's %d; select less or call begin_step",
			escaped, b.bytesLeft(), b.cfg.MaxStepBytes).
			With(errcode.Details{Size: new(escaped), Limit: new(b.cfg.MaxStepBytes), BytesLeft: new(b.bytesLeft())})
	}
	return nil
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
	if size > b.cfg.MaxLookupBytes {
		return b.tooLarge(size)
	}
	if err := b.fitsEscaped(escaped); err != nil {
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
		return errcode.New(errcode.ExpansionTooLarge,
			"expansion is %d bytes, over the %d left of the step's %d", n, b.ExpandLeft(), b.cfg.MaxExpandBytes).
			With(errcode.Details{Size: new(n), Limit: new(b.cfg.MaxExpandBytes)})
	}
	b.expandUsed += n
	return nil
}
