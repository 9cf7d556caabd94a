package briefing

import (
	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
)

// Output is a runner's captured output for retain_output (SPEC section 5).
type Output struct {
	Label        string
	Text         string // valid UTF-8; the binder checks it (RetainOutputRequest)
	ExitCode     *int64
	TimedOut     *bool
	Complete     bool
	DroppedBytes int64
}

// checkDropped validates dropped_bytes (an argument check).
func checkDropped(n int64) *errcode.Error {
	if n < 0 {
		return errcode.New(errcode.InvalidArgument, "dropped_bytes %d is negative", n)
	}
	return nil
}

// retainOutput keeps captured output as a result. A text over
// --max-result-bytes keeps its longest suffix of at most that many bytes
// that starts on a character boundary; the rest is added to dropped_bytes,
// and a result that lost bytes is never complete. It claims no more than it
// was given.
func (b *Briefing) retainOutput(o Output) (*results.Descriptor, *errcode.Error) {
	data := []byte(o.Text)
	if max := b.resultCap(); int64(len(data)) > max {
		cut := selectors.CeilCharBoundary(data, len(data)-int(max))
		data = data[cut:]
		o.DroppedBytes = saturatingAdd(o.DroppedBytes, int64(cut))
	}
	t, err := results.Analyze(data)
	if err != nil {
		return nil, err
	}
	label := o.Label
	src := results.Source{Kind: results.KindOutput, Label: &label, TimedOut: o.TimedOut, DroppedBytes: o.DroppedBytes}
	if o.ExitCode != nil {
		src.ExitCode = &o.ExitCode
	}
	return b.retain(t, o.Complete && o.DroppedBytes == 0, src)
}

func saturatingAdd(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}
