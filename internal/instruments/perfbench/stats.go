// Package perfbench measures loom-results side by side with its peers and
// the physical limits: the process that hashes a file (openssl), Go's
// SHA-256 over bytes in memory, grep, the tool that extracts one JSON value
// (jq), the reference filesystem MCP server, the cheapest call on the same
// transport (the floor), and a no-op server that replays loom's own answers
// over stdio and HTTP (internal/instruments/replayserver). Every measure runs in the
// same rounds, interleaved with what it is compared with, and is reported
// as a median with its spread.
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

// Spread returns the least and the greatest of xs, or 0, 0 for none.
func Spread(xs []float64) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	return slices.Min(xs), slices.Max(xs)
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

// A Target is the goal a row is held to: a bound on its ratio (Max, Min),
// or a test of its medians (Met).
type Target struct {
	// Text is how the target is printed, e.g. "≤ 1.0x".
	Text string
	// Max and Min, when positive, bound the row's Ratio: at most Max, at
	// least Min.
	Max, Min float64
	// Met, when set, tells from the row's medians (loom's and the
	// baseline's) whether the target is met, instead of the bounds.
	Met func(loom, base float64) bool
	// Absolute targets need no baseline.
	Absolute bool
}

// AtMost is the target Ratio ≤ k: loom/base for a time, base/loom for a
// throughput.
func AtMost(k float64, text string) *Target { return &Target{Text: text, Max: k} }

// FasterBy is the target base/loom ≥ k (a Speedup row): loom at least k
// times faster.
func FasterBy(k float64, text string) *Target { return &Target{Text: text, Min: k} }

// met tells whether ratio q (0: none) or the medians meet t.
func (t *Target) met(q, loom, base float64) bool {
	if t.Met != nil {
		return t.Met(loom, base)
	}
	return q > 0 && (t.Max <= 0 || q <= t.Max) && (t.Min <= 0 || q >= t.Min)
}
