package briefing

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
)

// TestNewStepCall: a call that came after a pause (Call.NewStep, SPEC
// section 6) runs after a step begins exactly as begin_step would begin
// it: the step number grows by one, the budget is fresh and a refused
// step is lifted; a begin_step after a pause begins just one step; a call
// without NewStep stays in its step.
func TestNewStepCall(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxLookups = 2
	b := fixture(t, cfg, Legacy, map[string]string{"a.txt": "one\n"})
	list := OpOf[ListResultsRequest, *Page]()
	step := OpOf[BeginStepRequest, Stepped]()
	args := jsonSub(`{}`)
	lookup := func(newStep bool) (limits.Snapshot, *errcode.Error) {
		t.Helper()
		var page *Page
		var f *Failure
		b.Do(func() { page, f = list(context.Background(), b, Call{Arguments: args, NewStep: newStep}) })
		if f != nil {
			require.NotNil(t, f.Budget)
			return *f.Budget, f.Err
		}
		return page.Budget, nil
	}
	type want struct {
		step, used int64
		refused    bool
		code       errcode.Code // "" for a success
	}
	check := func(newStep bool, w want) {
		t.Helper()
		snap, err := lookup(newStep)
		var code errcode.Code
		if err != nil {
			code = err.Code
		}
		assert.Equal(t, w, want{snap.Step, snap.LookupsUsed, snap.Refused, code})
	}
	check(false, want{1, 1, false, ""})
	check(false, want{1, 2, false, ""})
	check(false, want{1, 3, true, errcode.LookupLimit})
	check(false, want{1, 4, true, errcode.StepRefused})
	// After a pause: step 2, the refusal lifted, the lookup the first.
	check(true, want{2, 1, false, ""})
	check(false, want{2, 2, false, ""})
	check(true, want{3, 1, false, ""})

	// begin_step after a pause begins one step, not two.
	var s Stepped
	b.Do(func() { s, _ = step(context.Background(), b, Call{NewStep: true}) })
	assert.Equal(t, int64(4), s.Step)
	b.Do(func() { s, _ = step(context.Background(), b, Call{}) })
	assert.Equal(t, int64(5), s.Step)
	check(false, want{5, 1, false, ""})
}
