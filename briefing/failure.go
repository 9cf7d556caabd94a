package briefing

import (
	"fmt"
	"regexp"

	"github.com/loom-results/loom-results/results"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// DefaultRunFailure is --run-failure's default (SPEC section 10): the
// lines by which go test, pytest, Jest and Python say where a run first
// failed.
const DefaultRunFailure = `^(--- FAIL|FAIL|FAILED|ERROR|panic: |fatal error: |Traceback )`

// failureRowsMax is the most lines a first failure shows.
const failureRowsMax = 20

// failureCut ends a first failure's line that was cut to half the preview.
const failureCut = selectors.Ellipsis + "\n"

// CompileRunFailure compiles --run-failure: an RE2 expression, or "" for
// none (nil, nil). The error says what is wrong and what to give instead.
func CompileRunFailure(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%q is not an RE2 expression (%v): give one that matches a failing run's first failure line, or '' for none", expr, err)
	}
	return re, nil
}

// FirstFailure is the first line of a failed run's output that
// --run-failure matches, as run shows it (SPEC section 10).
type FirstFailure struct {
	Line   int    `json:"line"`
	Anchor string `json:"anchor"` // "N#xy" (SPEC 4.4)
	// Text is the line without its ending, cut as find cuts a line: to
	// its longest prefix of at most selectors.MaxFindLine bytes that ends
	// on a character boundary, without the ellipsis.
	Text string `json:"text"`
}

// succeeded says that a run succeeded: it exited with 0 on its own.
func succeeded(exit workspace.Exit) bool {
	return exit.Code != nil && *exit.Code == 0 && !exit.TimedOut && !exit.Cancelled
}

// failureView is what run's text shows of an output: the first failure
// and its numbered rows, when shown, and the tail.
type failureView struct {
	first *FirstFailure // nil: nothing shown
	rows  string        // lines N, N+1, ... numbered: "N#xy: <line>"
	tail  string
	whole bool // the tail is the whole output
}

// showFailure returns what run's text shows of the output t, under SPEC
// section 10's "The first failure". re nil (an empty --run-failure) or a run
// that succeeded shows the tail of preview bytes alone; so does an output
// whose first line that re matches (each line without its ending) starts
// in that tail, or that has no such line. Otherwise it shows line N, the
// first match, and the lines after it, numbered as get_lines numbers them:
// the most (at most 20) whose rows fit in half the preview and that all
// start before the tail the rest of the preview would leave, each row
// checked against the tail left after it; when line N's row alone does not
// fit, its longest prefix that, with "…\n", fits in the half and ends on a
// character boundary. The tail then takes the preview less the rows.
//
// The output is read once, up to the tail's start, and only after a
// failed run; the rows come from the line index.
func showFailure(t *results.Text, re *regexp.Regexp, exit workspace.Exit, preview int64) failureView {
	data := t.Data
	var v failureView
	v.tail, v.whole = results.Tail(data, preview)
	if re == nil || v.whole || succeeded(exit) {
		return v
	}
	n := firstMatch(t.Lines, data, len(data)-len(v.tail), re)
	if n == 0 {
		return v
	}
	half := preview / 2
	lines := t.Lines
	var rows []byte
	for k := n; k < n+failureRowsMax && k <= lines.Count(); k++ {
		span := lines.Line(k)
		// A last line without "\n" never gets here: it starts inside the
		// tail that the rows leave, so every row ends with "\n".
		row := selectors.AppendNumbered(nil, k, data[span.Start:span.End])
		used := int64(len(rows) + len(row))
		if used > half || span.Start >= results.TailStart(data, preview-used) {
			break
		}
		rows = append(rows, row...)
	}
	if len(rows) == 0 {
		if half < int64(len(failureCut)) {
			return v // not even "…\n" fits: nothing to show
		}
		c := lines.Content(n)
		row := selectors.AppendNumbered(nil, n, data[c.Start:c.End])
		cut := selectors.FloorCharBoundary(row, int(half)-len(failureCut))
		rows = append(row[:cut:cut], failureCut...)
	}
	m, _ := selectors.Entry(data, lines, n) // line n as find shows it
	v.first = &FirstFailure{Line: m.Line, Anchor: m.Anchor, Text: m.Text}
	v.rows = string(rows)
	v.tail, v.whole = results.Tail(data, preview-int64(len(rows)))
	return v
}

// firstMatch returns the number of the first line of lines that starts
// before offset before and that re matches, without its ending ("\n" or
// "\r\n"); 0 when there is none. It reads the output once, up to the end
// of the last line that starts before before.
func firstMatch(lines selectors.Lines, data []byte, before int, re *regexp.Regexp) int {
	for n, span := range lines.All() {
		if span.Start >= before {
			break
		}
		if re.Match(selectors.TrimEnding(data[span.Start:span.End])) {
			return n
		}
	}
	return 0
}
