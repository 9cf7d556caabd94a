package briefing

import (
	"context"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// The request types of the tools of SPEC section 5, one a tool: the
// arguments (the fields' `arg` tags, read by the binder and by the input
// schemas), the checks beyond their grammar (check), and the operation
// (run). OpOf runs them in SPEC section 4's order.

// An Answer is an answer whose text content is its own: the text a lookup
// charged, or an edit's lines.
type Answer interface {
	TextContent() string
}

// ResultRef names a result by its ID, with an optional prefix of its
// digest (SPEC section 4).
type ResultRef struct {
	Result *string       `arg:"result"`
	SHA256 *DigestPrefix `arg:"sha256"`
}

// A DigestPrefix is a prefix of a result's SHA-256 that a reference
// gives (SPEC section 4): 12 to 64 hex digits, either case (Ref.check).
// Every reference's sha256 has this type, so that the input schema of
// each, at any depth, carries its Pattern.
type DigestPrefix string

// Pattern is the form of a digest prefix as a JSON Schema pattern.
func (DigestPrefix) Pattern() string { return "^[0-9a-fA-F]{12,64}$" }

// PathRef names what a selection lookup selects from (SPEC section 4): a
// result, or a file by path instead.
type PathRef struct {
	ResultRef
	Path *string `arg:"path"`
}

// check checks the reference's form: a result or a path, not both, and
// sha256 only with a result, of 12 to 64 hex digits.
func (r *PathRef) check() *errcode.Error {
	switch {
	case (r.Result == nil) == (r.Path == nil):
		return errcode.New(errcode.InvalidArgument, "give exactly one of result (a result ID) and path (a file under the root)")
	case r.Path != nil && r.SHA256 != nil:
		return errcode.New(errcode.InvalidArgument, "sha256 goes with result, not with path")
	}
	return r.ref().check()
}

// ref is the reference, once checked.
func (r *PathRef) ref() Ref {
	if r.Path != nil {
		return Ref{Path: r.Path}
	}
	return Ref{Result: *r.Result, SHA256: (*string)(r.SHA256)}
}

// GetRangeRequest is get_range's arguments (SPEC 4.1).
type GetRangeRequest struct {
	PathRef
	Start *int64 `arg:"start"`
	End   *int64 `arg:"end"`
}

func (*GetRangeRequest) spends() spend                    { return lookup }
func (r *GetRangeRequest) check(*Briefing) *errcode.Error { return r.PathRef.check() }
func (r *GetRangeRequest) run(_ context.Context, b *Briefing, _ Call) (*Selection, *errcode.Error) {
	return b.getRange(r.ref(), r.Start, r.End)
}

// GetLinesRequest is get_lines' arguments (SPEC 4.2 and section 5).
type GetLinesRequest struct {
	PathRef
	First    int64  `arg:"first"`
	Last     *int64 `arg:"last"`
	Numbered *bool  `arg:"numbered"`
}

func (*GetLinesRequest) spends() spend                    { return lookup }
func (r *GetLinesRequest) check(*Briefing) *errcode.Error { return r.PathRef.check() }
func (r *GetLinesRequest) run(_ context.Context, b *Briefing, _ Call) (*Selection, *errcode.Error) {
	return b.getLines(r.ref(), r.First, r.Last, r.Numbered != nil && *r.Numbered)
}

// GetJSONRequest is get_json's arguments (SPEC 4.3).
type GetJSONRequest struct {
	PathRef
	Pointer string  `arg:"pointer"`
	As      *string `arg:"as"`
}

func (*GetJSONRequest) spends() spend { return lookup }

func (r *GetJSONRequest) check(*Briefing) *errcode.Error {
	if err := r.PathRef.check(); err != nil {
		return err
	}
	return checkAs(r.as())
}

// as is As, or its default.
func (r *GetJSONRequest) as() string {
	if r.As == nil {
		return AsLexeme
	}
	return *r.As
}

func (r *GetJSONRequest) run(_ context.Context, b *Briefing, _ Call) (*Selection, *errcode.Error) {
	return b.getJSON(r.ref(), r.Pointer, r.as())
}

// FindRequest is find's arguments (SPEC 5.3): a result or 1 to MaxPaths
// paths, and a pattern or 1 to selectors.MaxPatterns patterns
// (TestItemsAreTheLimits).
type FindRequest struct {
	ResultRef
	Paths      *[]string `arg:"paths,items=1-64"`
	Pattern    *string   `arg:"pattern"`
	Patterns   *[]string `arg:"patterns,items=1-16"`
	Regex      *bool     `arg:"regex"`
	IgnoreCase *bool     `arg:"ignore_case"`
	MaxMatches *int64    `arg:"max_matches"`
	ref        Ref       // after check, without Paths
	q          FindQuery // after check
}

func (*FindRequest) spends() spend { return lookup }

// check checks what the lines are sought in, max_matches, then the
// patterns, which it compiles (an invalid expression is an argument's
// error, before the result's).
func (r *FindRequest) check(*Briefing) *errcode.Error {
	switch {
	case (r.Result == nil) == (r.Paths == nil):
		return errcode.New(errcode.InvalidArgument, "give exactly one of result (a result ID) and paths (files or directories under the root)")
	case r.Paths != nil && r.SHA256 != nil:
		return errcode.New(errcode.InvalidArgument, "sha256 goes with result, not with paths")
	case r.Paths == nil:
		r.ref = Ref{Result: *r.Result, SHA256: (*string)(r.SHA256)}
		if err := r.ref.check(); err != nil {
			return err
		}
	}
	r.q.MaxMatches = DefaultMaxMatches
	if r.MaxMatches != nil {
		if *r.MaxMatches < 1 || *r.MaxMatches > MaxMaxMatches {
			return errcode.New(errcode.InvalidArgument, "max_matches %d outside 1-%d", *r.MaxMatches, MaxMaxMatches)
		}
		r.q.MaxMatches = int(*r.MaxMatches)
	}
	p := selectors.Patterns{Regex: r.Regex != nil && *r.Regex, IgnoreCase: r.IgnoreCase != nil && *r.IgnoreCase}
	switch {
	case (r.Pattern == nil) == (r.Patterns == nil):
		return errcode.New(errcode.InvalidArgument, "give exactly one of pattern (one) and patterns (1 to %d)", selectors.MaxPatterns)
	case r.Pattern != nil:
		p.List = []string{*r.Pattern}
	default:
		p.List, p.Several = *r.Patterns, true
	}
	m, err := selectors.NewMatcher(p)
	r.q.Matcher = m
	return err
}

// run answers a Found, or over paths a FoundFiles.
func (r *FindRequest) run(_ context.Context, b *Briefing, _ Call) (Answer, *errcode.Error) {
	if r.Paths != nil {
		found, err := b.findPaths(*r.Paths, r.q)
		if err != nil {
			return nil, err
		}
		return found, nil
	}
	found, err := b.find(r.ref, r.q)
	if err != nil {
		return nil, err
	}
	return found, nil
}

// ListResultsRequest is list_results' arguments (SPEC section 5).
type ListResultsRequest struct {
	Page     *int64 `arg:"page"`
	PageSize *int64 `arg:"page_size"`
}

func (*ListResultsRequest) spends() spend { return lookup }

func (r *ListResultsRequest) check(b *Briefing) *errcode.Error {
	if r.PageSize == nil {
		return nil
	}
	return b.checkPageSize(*r.PageSize)
}

func (r *ListResultsRequest) run(_ context.Context, b *Briefing, _ Call) (*Page, *errcode.Error) {
	page := int64(0)
	if r.Page != nil {
		page = *r.Page
	}
	return b.listResults(page, r.PageSize)
}

// InspectRequest is inspect's arguments (SPEC section 5): 1 to MaxPaths
// paths (TestItemsAreTheLimits). They are lenient: a path that is not
// UTF-8 is that entry's error alone, not the call's.
type InspectRequest struct {
	Paths []string `arg:"paths,lenient,items=1-64"`
}

func (*InspectRequest) spends() spend                  { return free }
func (*InspectRequest) check(*Briefing) *errcode.Error { return nil }
func (r *InspectRequest) run(_ context.Context, b *Briefing, _ Call) ([]Entry, *errcode.Error) {
	return b.inspectPaths(r.Paths), nil
}

// RetainOutputRequest is retain_output's arguments (SPEC section 5): its
// text must be valid UTF-8, else not_utf8.
type RetainOutputRequest struct {
	Label        string `arg:"label"`
	Text         string `arg:"text,not_utf8"`
	ExitCode     *int64 `arg:"exit_code"`
	TimedOut     *bool  `arg:"timed_out"`
	Complete     *bool  `arg:"complete"`
	DroppedBytes *int64 `arg:"dropped_bytes"`
}

func (*RetainOutputRequest) spends() spend { return free }

func (r *RetainOutputRequest) check(*Briefing) *errcode.Error {
	if r.DroppedBytes == nil {
		return nil
	}
	return checkDropped(*r.DroppedBytes)
}

func (r *RetainOutputRequest) run(_ context.Context, b *Briefing, _ Call) (*results.Descriptor, *errcode.Error) {
	o := Output{Label: r.Label, Text: r.Text, ExitCode: r.ExitCode, TimedOut: r.TimedOut, Complete: r.Complete != nil && *r.Complete}
	if r.DroppedBytes != nil {
		o.DroppedBytes = *r.DroppedBytes
	}
	return b.retainOutput(o)
}

// BeginStepRequest is begin_step's arguments: none.
type BeginStepRequest struct{}

func (*BeginStepRequest) spends() spend                  { return free }
func (*BeginStepRequest) check(*Briefing) *errcode.Error { return nil }
func (*BeginStepRequest) run(_ context.Context, b *Briefing, _ Call) (Stepped, *errcode.Error) {
	return b.beginStep(), nil
}

// ExpandEditRequest is expand_edit's arguments (SPEC 5.1): the action's
// arguments, an object walked where the message holds it.
type ExpandEditRequest struct {
	Arguments Raw[map[string]any] `arg:"arguments"`
}

func (*ExpandEditRequest) spends() spend { return edit }

func (r *ExpandEditRequest) check(*Briefing) *errcode.Error {
	return checkEditArguments(r.Arguments.Sub)
}

func (r *ExpandEditRequest) run(_ context.Context, b *Briefing, _ Call) (*Expanded, *errcode.Error) {
	return b.expandEdit(r.Arguments.Sub)
}

// WriteFileRequest is write_file's arguments (SPEC section 9), in the
// SPEC's order: exactly one of Text, Compose (a JSON array, walked where
// the message holds it) and Splice (a JSON object) is meant to be given.
type WriteFileRequest struct {
	Path    *string          `arg:"path"`
	Text    *string          `arg:"text"`
	Compose *Raw[[]PartForm] `arg:"compose"`
	Splice  *Raw[SpliceForm] `arg:"splice"`
	Base    *string          `arg:"base"`
}

func (*WriteFileRequest) spends() spend                    { return edit }
func (r *WriteFileRequest) check(*Briefing) *errcode.Error { return r.checkForm() }
func (r *WriteFileRequest) run(_ context.Context, b *Briefing, _ Call) (*Written, *errcode.Error) {
	return b.writeFile(r)
}

// RunRequest is run's arguments (SPEC section 10): one of the commands'
// names.
type RunRequest struct {
	Name    string            `arg:"name"`
	command workspace.Command // after check
}

func (*RunRequest) spends() spend { return free }

func (r *RunRequest) check(b *Briefing) *errcode.Error {
	c, ok := b.Command(r.Name)
	if !ok {
		return errcode.New(errcode.InvalidArgument, "no command %q: the commands are %s", r.Name, b.commandNames())
	}
	r.command = c
	return nil
}

func (r *RunRequest) run(ctx context.Context, b *Briefing, c Call) (*Ran, *errcode.Error) {
	return b.run(ctx, r.command, c.Progress)
}

// The forms of the JSON values that write_file's compose and splice and
// expand_edit's nodes hold (SPEC 5.1, 5.2): the binder reads each object
// (bind, with the form plans), and the input schemas of every depth come
// from them. A pointer member is optional.
type (
	// SpliceForm is a splice: {"result", "sha256"?, "edits"}. Its edits
	// are read one by one, after the result resolves (SPEC 5.2's order).
	SpliceForm struct {
		Result string          `arg:"result"`
		SHA256 *DigestPrefix   `arg:"sha256"`
		Edits  Raw[[]EditForm] `arg:"edits"`
	}
	// EditForm is one edit of a splice: {"lines": [first, last], "text"},
	// {"before": n, "text"} or {"after": n, "text"}; its text is a string
	// or a compose node, judged after the edit's positions and order.
	EditForm struct {
		Lines  *[2]Position `arg:"lines"`
		Before *Position    `arg:"before"`
		After  *Position    `arg:"after"`
		Text   Raw[any]     `arg:"text"`
	}
	// PartForm is a reference part of a compose: {"result", "sha256"?}
	// and at most one of bytes, lines ([first] or [first, last]) and
	// pointer (with as). A part may also be a string, literal text.
	PartForm struct {
		Result  string        `arg:"result"`
		SHA256  *DigestPrefix `arg:"sha256"`
		Bytes   *[2]int64     `arg:"bytes"`
		Lines   *[]Position   `arg:"lines,items=1-2"`
		Pointer *string       `arg:"pointer"`
		As      *string       `arg:"as"`
	}
)
