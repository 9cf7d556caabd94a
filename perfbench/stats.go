// Package perfbench measures loom-results side by side with its peers and
// the physical limits: the process that hashes a file (openssl), the tool
// that extracts one JSON value (jq), the reference filesystem MCP server,
// and the cheapest call on the same transport (the floor). Every measure
// runs in the same rounds, interleaved, and is reported as a median.
package perfbench

import (
	"slices"
	"time"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Ratio returns a/b, or 0 when b is 0 (no baseline to compare with).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// ms converts a duration to milliseconds, the unit of every timed sample.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// A Target is the goal a row is held to.
type Target struct {
	// Text is how the target is printed, e.g. "≤ 1.0x".
	Text string
	// Met tells from the row's medians (loom's and the baseline's) whether
	// the target is met.
	Met func(loom, base float64) bool
	// Absolute targets need no baseline.
	Absolute bool
}

// AtMost is the target loom/base ≤ k.
func AtMost(k float64, text string) *Target {
	return &Target{Text: text, Met: func(loom, base float64) bool { return base > 0 && loom/base <= k }}
}

// FasterBy is the target base/loom ≥ k: loom at least k times faster.
func FasterBy(k float64, text string) *Target {
	return &Target{Text: text, Met: func(loom, base float64) bool { return loom > 0 && base/loom >= k }}
}
