// Package briefing executes the tool operations of one briefing (SPEC
// section 2): a client's store of results, its step budget, and the lookups
// between them. Each tool has a request type here (requests.go), which the
// binder fills from the call's arguments (args.go) and one operation runs
// in the order of SPEC section 4 (OpOf, call.go): every check of a call has
// its one place here. It knows nothing of MCP: the server names and
// describes the tools, derives their input schemas from the request types,
// and encodes the answers.
package briefing

import (
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/workspace"
)

// Policy is the context policy of SPEC section 7 (--context): what a
// descriptor shows and what a full store answers.
type Policy string

// The context policies.
const (
	Legacy  Policy = "legacy"
	Bounded Policy = "bounded"
)

// Options configure a briefing.
type Options struct {
	Limits limits.Config
	Policy Policy
	Steps  limits.Steps // who calls begin_step; "" is limits.ClientSteps
	Root   *workspace.Root
	Quota  *results.Quota // shared by the briefings of a process
	// Header renders a descriptor's header line, "\n" included, as the
	// text content shows it (SPEC section 3): the first line of a lookup
	// by path. Nil renders none.
	Header func(results.Descriptor) string
	Run    RunConfig // the commands of run (--run)
}

// Briefing is the state of one client. Its methods must be called inside Do,
// which runs one call at a time in the order callers arrive at it.
type Briefing struct {
	turns  fifo
	opts   Options
	store  *results.Store
	budget *limits.Budget
}

// New returns an empty briefing in step 1.
func New(opts Options) *Briefing {
	if opts.Policy == "" {
		opts.Policy = Legacy
	}
	if opts.Steps == "" {
		opts.Steps = limits.ClientSteps
	}
	return &Briefing{
		opts:   opts,
		store:  results.NewStore(opts.Limits, opts.Quota),
		budget: limits.NewBudget(opts.Limits, opts.Steps),
	}
}

// Do runs fn as one call of the briefing, after every call that entered Do
// before it has finished.
func (b *Briefing) Do(fn func()) {
	b.turns.lock()
	defer b.turns.unlock()
	fn()
}

// Close frees the briefing's store; it must not be used afterwards.
func (b *Briefing) Close() {
	b.Do(b.store.Close)
}

// Budget returns the step budget as answers report it.
func (b *Briefing) Budget() limits.Snapshot { return b.budget.Snapshot() }

// Stepped is the answer of begin_step.
type Stepped struct {
	Step   int64
	Limits []limits.Limit
}

// beginStep ends the current step and starts the next with a fresh budget.
func (b *Briefing) beginStep() Stepped {
	return Stepped{Step: b.budget.BeginStep(), Limits: b.opts.Limits.Step()}
}

// Ref names a result, with an optional digest prefix (SPEC section 4), or
// for a selection lookup a file by Path instead.
type Ref struct {
	Result string
	SHA256 *string
	Path   *string
}

// check validates the digest's form: 12 to 64 hex digits, either case.
func (r Ref) check() *errcode.Error {
	if r.SHA256 == nil {
		return nil
	}
	d := *r.SHA256
	if len(d) < 12 || len(d) > 64 || strings.IndexFunc(d, notHex) >= 0 {
		return errcode.New(errcode.InvalidArgument,
			"sha256 %q is not 12 to 64 hex digits (a prefix of the result's digest)", d)
	}
	return nil
}

func notHex(c rune) bool {
	return !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F')
}

// resolve finds the referenced result and checks its digest: unknown_result,
// then digest_mismatch.
func (b *Briefing) resolve(ref Ref) (*results.Result, *errcode.Error) {
	r, err := b.store.Get(ref.Result)
	if err != nil {
		return nil, err
	}
	if ref.SHA256 != nil {
		full := r.Text.Hex()
		if !strings.HasPrefix(full, strings.ToLower(*ref.SHA256)) {
			return nil, errcode.New(errcode.DigestMismatch,
				"sha256 %s does not match %s, whose digest is %s", short(*ref.SHA256), r.ID, full[:12])
		}
	}
	return r, nil
}

// short cuts a digest to the 12 hex digits that messages show.
func short(d string) string {
	if len(d) > 12 {
		return strings.ToLower(d[:12])
	}
	return strings.ToLower(d)
}
