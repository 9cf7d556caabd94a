package briefing

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/workspace"
)

// RunConfig configures run (SPEC section 10): the commands a person named
// with --run, and two pacing settings that tests shorten. --run-timeout is
// Limits.RunTimeout.
type RunConfig struct {
	Commands []workspace.Command
	// Grace is the time between SIGTERM and SIGKILL; 0 is
	// workspace.KillGrace (5 s).
	Grace time.Duration
	// ProgressEvery is the least time between two progress notifications;
	// 0 is a second.
	ProgressEvery time.Duration
	// Failure is --run-failure compiled: what a failed run's first failure
	// line matches (SPEC section 10). nil is DefaultRunFailure, unless
	// NoFailure (--run-failure '') turns the first failure off.
	Failure   *regexp.Regexp
	NoFailure bool
}

// defaultRunFailure is DefaultRunFailure compiled.
var defaultRunFailure = regexp.MustCompile(DefaultRunFailure)

// FirstFailure returns the expression of a failed run's first failure
// line: Failure, or DefaultRunFailure, and nil when NoFailure turns it off.
func (c RunConfig) FirstFailure() *regexp.Regexp {
	switch {
	case c.NoFailure:
		return nil
	case c.Failure != nil:
		return c.Failure
	}
	return defaultRunFailure
}

// Ran is run's answer: the output's descriptor, whose preview (in the
// full view) is the output's tail of --preview-bytes, and what the text
// content shows whatever the view: a failed run's first failure, when
// there is one to show, and the tail, of --preview-bytes less the first
// failure's rows (SPEC section 10).
type Ran struct {
	Descriptor   results.Descriptor
	Tail         string
	TailComplete bool // the tail is the whole output
	Exit         workspace.Exit
	// FirstFailure is the first failure shown (nil: none), and
	// FailureRows its lines numbered: "N#xy: <line>\n" each, or line N
	// alone cut and ended with "…\n".
	FirstFailure *FirstFailure
	FailureRows  string
}

// Progress is what a progress notification reports of a running command:
// the bytes of output read so far and its last complete line, cut to 120
// bytes (Line is "" and HasLine false before the first line ends).
type Progress struct {
	Read    int64
	Line    string
	HasLine bool
}

// Command returns the configured command of that name.
func (b *Briefing) Command(name string) (workspace.Command, bool) {
	for _, c := range b.opts.Run.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return workspace.Command{}, false
}

// run runs command c, which a person named with --run, and retains
// its output (SPEC section 10). It is not a lookup and spends no budget; a
// refused step does not refuse it. progress, when not nil, gets the
// command's progress at most once every ProgressEvery while it runs, from
// another goroutine; Run returns after the last call has returned.
//
// The output is kept as retain_output keeps a text: invalid UTF-8 replaced
// by U+FFFD (replaced counts the stream's bytes replaced), then of that
// text the longest suffix of at most --max-result-bytes bytes that starts
// on a character boundary (dropped_bytes counts the rest). It is complete
// when the command neither timed out nor was cancelled and nothing was
// dropped. Bounded context's store_full fails the call after the command
// ran.
func (b *Briefing) run(ctx context.Context, c workspace.Command, progress func(Progress)) (*Ran, *errcode.Error) {
	capt := newCapture(b.resultCap())
	stop := b.watch(capt, progress)
	exit, err := b.opts.Root.Run(ctx, c, workspace.RunOptions{Timeout: b.opts.Limits.RunTimeout, Grace: b.opts.Run.Grace}, capt.write)
	stop()
	if err != nil {
		return nil, err
	}
	data, dropped, replaced := capt.finish()
	t, err := results.Analyze(data)
	if err != nil {
		return nil, err // not reached: the text is valid UTF-8
	}
	label, timedOut, code := c.Name, exit.TimedOut, exit.Code
	src := results.Source{Kind: results.KindOutput, Label: &label, ExitCode: &code, TimedOut: &timedOut,
		Cancelled: exit.Cancelled, DroppedBytes: dropped, Replaced: replaced}
	d, err := b.retain(t, !exit.TimedOut && !exit.Cancelled && dropped == 0, src)
	if err != nil {
		return nil, err
	}
	if d.Preview != nil {
		tail, whole := results.Tail(data, b.opts.Limits.PreviewBytes)
		d.Preview, d.PreviewComplete = &tail, &whole
	}
	v := showFailure(t, b.opts.Run.FirstFailure(), exit, b.opts.Limits.PreviewBytes)
	return &Ran{Descriptor: *d, Tail: v.tail, TailComplete: v.whole, Exit: exit, FirstFailure: v.first, FailureRows: v.rows}, nil
}

// commandNames lists the commands for messages: "lint, test".
func (b *Briefing) commandNames() string {
	if len(b.opts.Run.Commands) == 0 {
		return "none"
	}
	names := make([]string, len(b.opts.Run.Commands))
	for i, c := range b.opts.Run.Commands {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// watch reports the capture's progress to progress every ProgressEvery,
// when it has grown, until the returned stop is called; stop returns once
// no report is being made.
func (b *Briefing) watch(c *capture, progress func(Progress)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	every := b.opts.Run.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		// A timer started again after each report, so that two reports
		// are never closer than every, however late one was made.
		t := time.NewTimer(every)
		defer t.Stop()
		var sent int64
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			// progress must increase from one notification to the next
			// (MCP): nothing is reported while nothing was read.
			if read, line, ok := c.progress(); read > sent {
				sent = read
				progress(Progress{Read: read, Line: line, HasLine: ok})
			}
			t.Reset(every)
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
