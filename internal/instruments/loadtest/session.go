package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loom-results/loom-results/selectors"
)

// stepReserve is the escaped bytes a step must have left for the next
// lookup: more than any lookup this program makes can take (at most 4 KiB
// of text, escaped).
const stepReserve = 12 << 10

// Tool names as the table prints them; "isolation" is a get_lines or
// get_range that checks isolation.
var lookupKinds = []string{"get_lines", "get_range", "get_json", "find", "list_results", "isolation"}

// stats is what one session counted; merged, what the run counted.
type stats struct {
	lookups       int
	latency       map[string][]time.Duration // by kind
	steps         int
	errors        int
	errSamples    []string
	foreignProbes int // reads of IDs only other sessions hold, answered unknown_result
	ownProbes     int // reads of the session's own first result, verified
	crossReads    int
	crossSamples  []string
	storedBytes   int64
}

func newStats() *stats { return &stats{latency: make(map[string][]time.Duration)} }

const maxSamples = 8

func (s *stats) fail(format string, args ...any) {
	s.errors++
	if len(s.errSamples) < maxSamples {
		s.errSamples = append(s.errSamples, fmt.Sprintf(format, args...))
	}
}

func (s *stats) cross(format string, args ...any) {
	s.crossReads++
	if len(s.crossSamples) < maxSamples {
		s.crossSamples = append(s.crossSamples, fmt.Sprintf(format, args...))
	}
}

func (s *stats) merge(o *stats) {
	s.lookups += o.lookups
	for k, v := range o.latency {
		s.latency[k] = append(s.latency[k], v...)
	}
	s.steps += o.steps
	s.errors += o.errors
	s.errSamples = append(s.errSamples, o.errSamples...)[:min(maxSamples, len(s.errSamples)+len(o.errSamples))]
	s.foreignProbes += o.foreignProbes
	s.ownProbes += o.ownProbes
	s.crossReads += o.crossReads
	s.crossSamples = append(s.crossSamples, o.crossSamples...)[:min(maxSamples, len(s.crossSamples)+len(o.crossSamples))]
	s.storedBytes += o.storedBytes
}

// plan is every session's files in result-ID order: plan[k][i] is session
// k's r<i+1>.
type plan [][]*file

// newPlan orders each session's inspect: its own files first, then the
// shared text files rotated by k, then the JSON document, so that the same
// ID names different files in different sessions.
func newPlan(c *corpus) plan {
	p := make(plan, len(c.unique))
	texts := c.shared[:len(c.shared)-1]
	for k := range p {
		p[k] = append(p[k], c.unique[k]...)
		for i := range texts {
			p[k] = append(p[k], texts[(i+k)%len(texts)])
		}
		p[k] = append(p[k], c.json)
	}
	return p
}

// maxIDs is the most results any session holds.
func (p plan) maxIDs() int {
	n := 0
	for _, files := range p {
		n = max(n, len(files))
	}
	return n
}

// heldBy returns a session other than k whose result id has the digest
// sha, or -1.
func (p plan) heldBy(k int, id, sha string) int {
	i, err := strconv.Atoi(strings.TrimPrefix(id, "r"))
	if err != nil || i < 1 {
		return -1
	}
	for j, files := range p {
		if j != k && i <= len(files) && files[i-1].sha256 == sha {
			return j
		}
	}
	return -1
}

// worker is one session of the run.
type worker struct {
	k      int
	c      *client
	plan   plan
	files  []*file // plan[k]
	texts  []int   // indexes in files of the text files
	probes []jsonProbe
	rng    *rand.Rand
	st     *stats
	step   int64
}

func id(i int) string { return "r" + strconv.Itoa(i+1) }

// setup starts the session and inspects its files, checking every
// descriptor.
func (w *worker) setup(ctx context.Context) error {
	if err := w.c.initialize(ctx); err != nil {
		return err
	}
	paths := make([]string, len(w.files))
	for i, f := range w.files {
		paths[i] = f.path
		if f.tag != "" {
			w.texts = append(w.texts, i)
		}
	}
	res, _, err := w.c.call(ctx, "inspect", map[string]any{"paths": paths})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Structured.Results) != len(paths) {
		return fmt.Errorf("inspect: %d entries for %d paths: %.300s", len(res.Structured.Results), len(paths), res.text())
	}
	for i, d := range res.Structured.Results {
		f := w.files[i]
		switch {
		case d.Error != nil:
			return fmt.Errorf("inspect %s: %s: %s", f.path, d.Error.Code, d.Error.Message)
		case d.ID == nil || *d.ID != id(i):
			return fmt.Errorf("inspect %s: id %v, want %s (is the store full?)", f.path, d.ID, id(i))
		case d.SHA256 != f.sha256 || d.Bytes != len(f.data) || d.Lines != f.lines():
			return fmt.Errorf("inspect %s: sha256 %.12s, %d bytes, %d lines; want %.12s, %d, %d",
				f.path, d.SHA256, d.Bytes, d.Lines, f.sha256, len(f.data), f.lines())
		}
		w.st.storedBytes += int64(len(f.data))
	}
	w.step = 1
	return nil
}

// lookup is one lookup to make: the tool, its arguments, and the check of
// its answer, which reports through w.st.
type lookup struct {
	kind  string
	tool  string
	args  map[string]any
	check func(res *toolResult)
}

// run makes n lookups, or fewer if ctx ends first, beginning a step
// whenever the budget could not take another lookup.
func (w *worker) run(ctx context.Context, n int) {
	for w.st.lookups < n && ctx.Err() == nil {
		l := w.next()
		res, took, err := w.c.call(ctx, l.tool, l.args)
		if err != nil {
			if ctx.Err() == nil {
				w.st.fail("session %d: %s %s: %v", w.k, l.tool, argsText(l.args), err)
			}
			return // the server is gone or broken; a flood of errors says no more
		}
		w.st.lookups++
		w.st.latency[l.kind] = append(w.st.latency[l.kind], took)
		l.check(res)
		b := res.Structured.Budget
		switch {
		case b == nil:
			w.st.fail("session %d: %s %s: no budget in the answer", w.k, l.tool, argsText(l.args))
		case b.Step != w.step || b.Refused:
			w.st.fail("session %d: %s: budget %+v, want step %d not refused", w.k, l.tool, *b, w.step)
		case b.LookupsLeft == 0 || b.BytesLeft < stepReserve:
			if !w.beginStep(ctx) {
				return
			}
		}
	}
}

func (w *worker) beginStep(ctx context.Context) bool {
	res, _, err := w.c.call(ctx, "begin_step", map[string]any{})
	if err != nil {
		if ctx.Err() == nil {
			w.st.fail("session %d: begin_step: %v", w.k, err)
		}
		return false
	}
	w.step++
	w.st.steps++
	if res.IsError || res.Structured.Step != w.step {
		w.st.fail("session %d: begin_step: %q, want step %d", w.k, res.text(), w.step)
		w.step = res.Structured.Step
	}
	return true
}

// next picks the next lookup: 25% get_lines, 20% get_range, 15% get_json,
// 15% find, 10% list_results, 15% isolation probes.
func (w *worker) next() lookup {
	switch r := w.rng.IntN(100); {
	case r < 25:
		return w.getLines()
	case r < 45:
		return w.getRange()
	case r < 60:
		return w.getJSON()
	case r < 75:
		return w.find()
	case r < 85:
		return w.listResults()
	default:
		return w.isolation()
	}
}

// selection checks a get_lines, get_range or get_json answer: no error,
// the expected text, and the digest of this session's result i.
func (w *worker) selection(tool string, args map[string]any, i int, want string) func(*toolResult) {
	return func(res *toolResult) {
		if w.unexpectedError(tool, args, res) {
			return
		}
		if !w.checkDigest(tool, args, id(i), res.Structured.SHA256) {
			return
		}
		if got := res.text(); got != want {
			w.st.fail("session %d: %s %s: got %d bytes %.60q, want %d bytes %.60q", w.k, tool, argsText(args), len(got), got, len(want), want)
		}
	}
}

// unexpectedError reports an isError answer as an error.
func (w *worker) unexpectedError(tool string, args map[string]any, res *toolResult) bool {
	if !res.IsError {
		return false
	}
	w.st.fail("session %d: %s %s: %s", w.k, tool, argsText(args), res.text())
	return true
}

// checkDigest checks that an answer about result rid carries this
// session's digest; another session's digest is a cross-session read. It
// reports whether the digest is right.
func (w *worker) checkDigest(tool string, args map[string]any, rid, got string) bool {
	i, _ := strconv.Atoi(strings.TrimPrefix(rid, "r"))
	if i < 1 || i > len(w.files) {
		w.st.fail("session %d: %s %s: answer names %s, which this session does not hold", w.k, tool, argsText(args), rid)
		return false
	}
	want := w.files[i-1].sha256
	if got == want {
		return true
	}
	if j := w.plan.heldBy(w.k, rid, got); j >= 0 {
		w.st.cross("session %d: %s %s: got session %d's %s (sha256 %.12s), want its own (%.12s)", w.k, tool, argsText(args), j, rid, got, want)
	} else {
		w.st.fail("session %d: %s %s: sha256 %.12s, want %.12s", w.k, tool, argsText(args), got, want)
	}
	return false
}

func (w *worker) text() (int, *file) {
	i := w.texts[w.rng.IntN(len(w.texts))]
	return i, w.files[i]
}

func (w *worker) getLines() lookup {
	i, f := w.text()
	first := 1 + w.rng.IntN(f.lines())
	last := min(f.lines(), first+w.rng.IntN(16))
	args := map[string]any{"result": id(i), "first": first, "last": last}
	if last == f.lines() && w.rng.IntN(2) == 0 {
		delete(args, "last") // omitted: to the last line
	}
	if w.rng.IntN(4) == 0 {
		args["sha256"] = f.sha256[:12+w.rng.IntN(53)]
	}
	return lookup{"get_lines", "get_lines", args, w.selection("get_lines", args, i, string(f.lineRange(first, last)))}
}

func (w *worker) getRange() lookup {
	i, f := w.text()
	start := w.rng.IntN(len(f.data))
	for start > 0 && !utf8.RuneStart(f.data[start]) {
		start--
	}
	end := min(len(f.data), start+1+w.rng.IntN(4096))
	for end < len(f.data) && !utf8.RuneStart(f.data[end]) {
		end--
	}
	args := map[string]any{"result": id(i), "start": start, "end": end}
	return lookup{"get_range", "get_range", args, w.selection("get_range", args, i, string(f.data[start:end]))}
}

func (w *worker) getJSON() lookup {
	i := len(w.files) - 1 // the JSON document is inspected last
	p := w.probes[w.rng.IntN(len(w.probes))]
	args := map[string]any{"result": id(i), "pointer": p.pointer, "as": p.as}
	return lookup{"get_json", "get_json", args, w.selection("get_json", args, i, p.want)}
}

func (w *worker) find() lookup {
	i, f := w.text()
	n := 1 + w.rng.IntN(f.lines())
	var args map[string]any
	var want []int
	if w.rng.IntN(2) == 0 {
		// A literal marker: exactly one line.
		args = map[string]any{"result": id(i), "pattern": fmt.Sprintf("L%06d", n)}
		if w.rng.IntN(2) == 0 {
			args["pattern"], args["ignore_case"] = fmt.Sprintf("l%06d", n), true
		}
		want = []int{n}
	} else {
		// A regex for the ten lines n0..n9 of the decade of n.
		args = map[string]any{"result": id(i), "pattern": fmt.Sprintf(`^%s L%05d\d `, regexp.QuoteMeta(f.tag), n/10), "regex": true}
		for m := max(1, n/10*10); m <= min(f.lines(), n/10*10+9); m++ {
			want = append(want, m)
		}
	}
	return lookup{"find", "find", args, func(res *toolResult) {
		if w.unexpectedError("find", args, res) {
			return
		}
		w.checkDigest("find", args, id(i), res.Structured.SHA256)
		var text strings.Builder
		for _, m := range want {
			fmt.Fprintf(&text, "%s: %s\n", selectors.Anchor(m, selectors.AnchorChars([]byte(f.line(m)))), f.line(m))
		}
		ok := res.Structured.Total == len(want) && len(res.Structured.Matches) == len(want) && res.text() == text.String()
		for j := 0; ok && j < len(want); j++ {
			m := res.Structured.Matches[j]
			ok = m.Line == want[j] && m.Text == f.line(want[j]) && !m.Cut &&
				m.Anchor == selectors.Anchor(m.Line, selectors.AnchorChars([]byte(m.Text)))
		}
		if !ok {
			w.st.fail("session %d: find %s: total %d, text %.80q; want lines %v", w.k, argsText(args), res.Structured.Total, res.text(), want)
		}
	}}
}

func (w *worker) listResults() lookup {
	args := map[string]any{}
	return lookup{"list_results", "list_results", args, func(res *toolResult) {
		if w.unexpectedError("list_results", args, res) {
			return
		}
		a := res.Structured
		if a.Total > len(w.files) {
			w.st.cross("session %d: list_results shows %d results, more than its own %d", w.k, a.Total, len(w.files))
			return
		}
		if a.Total != len(w.files) || len(a.Results) != min(16, len(w.files)) {
			w.st.fail("session %d: list_results shows %d results (%d on page 0), want %d", w.k, a.Total, len(a.Results), len(w.files))
			return
		}
		for j, d := range a.Results {
			if d.ID == nil || *d.ID != id(j) {
				w.st.fail("session %d: list_results entry %d has id %v, want %s", w.k, j, d.ID, id(j))
				continue
			}
			w.checkDigest("list_results", args, *d.ID, d.SHA256)
		}
	}}
}

// isolation reads, half the time, an ID that only other sessions hold
// (when there is one): it must be unknown_result. Otherwise it reads the
// session's own first result whole: its own bytes.
func (w *worker) isolation() lookup {
	if foreign := w.plan.maxIDs() - len(w.files); foreign > 0 && w.rng.IntN(2) == 0 {
		rid := id(len(w.files) + w.rng.IntN(foreign))
		args := map[string]any{"result": rid, "first": 1, "last": 1}
		return lookup{"isolation", "get_lines", args, func(res *toolResult) {
			switch {
			case !res.IsError:
				w.st.cross("session %d: get_lines %s: read %.60q (sha256 %.12s) from a result only other sessions hold",
					w.k, argsText(args), res.text(), res.Structured.SHA256)
			case res.Structured.Error == nil || res.Structured.Error.Code != "unknown_result":
				w.st.fail("session %d: get_lines %s: %s, want unknown_result", w.k, argsText(args), res.text())
			default:
				w.st.foreignProbes++
			}
		}}
	}
	f := w.files[0]
	args := map[string]any{"result": id(0)}
	check := w.selection("get_range", args, 0, string(f.data))
	return lookup{"isolation", "get_range", args, func(res *toolResult) {
		errors, cross := w.st.errors, w.st.crossReads
		check(res)
		if w.st.errors == errors && w.st.crossReads == cross {
			w.st.ownProbes++
		}
	}}
}

// argsText renders arguments for a message.
func argsText(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}
