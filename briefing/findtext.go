package briefing

import (
	"slices"
	"strconv"
	"strings"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/results"
)

// maxSkippedNamed is how many skipped files a find's text names (SPEC 5.3).
const maxSkippedNamed = 5

// skippedFile is a file that a find over paths skipped: a file a
// directory brought that inspect would refuse, with the code it would
// refuse it with, at its place in the walk.
type skippedFile struct {
	seq  int
	rel  string
	code errcode.Code
}

// noMatch is the text of a find that matched nothing in what (a result's
// ID, or "N files"): the line "no match in <what>\n", so that a model
// never reads an empty answer as a failure (SPEC 5.3); empty when not
// even that line fits in maxBytes.
func noMatch(what string, maxBytes int64) string {
	line := "no match in " + what + "\n"
	if int64(len(line)) > maxBytes {
		return ""
	}
	return line
}

// plural is "N <word>s", the word always plural as the find lines have it
// ("1 files").
func plural(n int, word string) string { return strconv.Itoa(n) + " " + word + "s" }

// skippedLine is the last line of a find over paths that skipped files
// (SPEC 5.3): "skipped K files: a.png (not_utf8), logs/big.log
// (too_large)\n", naming at most maxSkippedNamed of them in walk order,
// then " and M more"; "" when none was skipped.
func skippedLine(skipped []skippedFile) string {
	if len(skipped) == 0 {
		return ""
	}
	slices.SortStableFunc(skipped, func(a, b skippedFile) int { return a.seq - b.seq })
	var sb strings.Builder
	sb.WriteString("skipped " + plural(len(skipped), "file") + ": ")
	for i, f := range skipped[:min(len(skipped), maxSkippedNamed)] {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(results.TextName(f.rel) + " (" + string(f.code) + ")")
	}
	if rest := len(skipped) - maxSkippedNamed; rest > 0 {
		sb.WriteString(" and " + strconv.Itoa(rest) + " more")
	}
	sb.WriteString("\n")
	return sb.String()
}
