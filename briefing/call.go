package briefing

import (
	"context"
	"reflect"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/internal/engine/jsontape"
	"github.com/loom-results/loom-results/limits"
)

// A Request is one tool's arguments (SPEC section 5), with the checks and
// the operation the SPEC gives that tool: GetLinesRequest and the others
// of requests.go, whose pointers implement it. OpOf runs one in the SPEC's
// order.
type Request[A any] interface {
	// spends says what the call is to the step's budget.
	spends() spend
	// check runs the argument checks beyond the grammar that the binder
	// holds the arguments to (a range, one of two arguments), and keeps
	// what run needs of them.
	check(b *Briefing) *errcode.Error
	// run does what the tool does with checked arguments: the result or
	// the path, the digest, the selection, the caps (SPEC section 4).
	run(ctx context.Context, b *Briefing, c Call) (A, *errcode.Error)
}

// spend is what a tool's call is to the step's budget (SPEC section 6): it
// decides the checks that come before the arguments, and whether an error
// answer carries the budget.
type spend int

const (
	// free: inspect, retain_output, begin_step and run spend nothing, and
	// a refused step does not refuse them; their errors carry no budget.
	free spend = iota
	// lookup: counted whatever its outcome; a refused step
	// (step_refused), then the lookup count (lookup_limit), come first.
	lookup
	// edit: expand_edit and write_file; a refused step comes first.
	edit
)

// A Call is one tool call as the briefing reads it.
type Call struct {
	// Arguments are the call's arguments, a value of the index that the
	// transport built of the message (raw invalid UTF-8 allowed); the
	// zero Sub when the call has none.
	Arguments jsontape.Sub
	// Progress, when not nil, gets a long operation's progress as it
	// happens (run's, SPEC section 10), from another goroutine.
	Progress func(Progress)
	// NewStep says that the call came after a pause (SPEC section 6,
	// --step-gap): it runs after a step begins exactly as begin_step
	// would begin it. A begin_step call after a pause begins just one.
	NewStep bool
}

// A Failure is a call's error answer (SPEC section 8): the error, and for
// a lookup or an edit the budget after it (SPEC section 6).
type Failure struct {
	Err    *errcode.Error
	Budget *limits.Snapshot // nil for a tool that spends no budget
}

// An Op runs one call of a tool on a briefing, inside its Do, and returns
// the answer or the failure.
type Op[A any] func(ctx context.Context, b *Briefing, c Call) (A, *Failure)

// OpOf returns the operation of the tool whose request type is R. It reads
// R's arguments once, here, and each call runs SPEC section 4's order,
// the first failure being the answer: a step begun first when the call
// came after a pause (Call.NewStep); for a lookup a refused step and the
// lookup count, for an edit a refused step; then the arguments, bound by
// walking their value in the message's index (decode) and checked
// (Request.check); then the tool's own order (Request.run): the result or
// the path, the digest, the selection, the caps. The budget that a
// lookup's or an edit's error answer carries is taken after the failure.
func OpOf[R any, A any, P interface {
	*R
	Request[A]
}]() Op[A] {
	plan := planOf(reflect.TypeFor[R](), "argument")
	return func(ctx context.Context, b *Briefing, c Call) (A, *Failure) {
		var req R
		p := P(&req)
		s := p.spends()
		var zero A
		if _, stepping := any(p).(*BeginStepRequest); c.NewStep && !stepping {
			b.beginStep()
		}
		fail := func(err *errcode.Error) (A, *Failure) {
			f := &Failure{Err: err}
			if s != free {
				snap := b.budget.Snapshot()
				f.Budget = &snap
			}
			return zero, f
		}
		switch s {
		case lookup:
			if err := b.budget.StartLookup(); err != nil {
				return fail(err)
			}
		case edit:
			if err := b.budget.CheckEdit(); err != nil {
				return fail(err)
			}
		}
		if err := plan.decode(c.Arguments, reflect.ValueOf(&req).Elem()); err != nil {
			return fail(err)
		}
		if err := p.check(b); err != nil {
			return fail(err)
		}
		a, err := p.run(ctx, b, c)
		if err != nil {
			return fail(err)
		}
		return a, nil
	}
}
