package briefing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/errcode"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/results"
)

func TestRetainOutput(t *testing.T) {
	t.Parallel()
	label := "go test ./..."
	tests := []struct {
		name     string
		limit    int64 // --max-result-bytes; 0 means the default
		out      Output
		text     string // what is kept
		complete bool
		source   results.Source
	}{
		{"defaults", 0, Output{Label: label, Text: "ok\n"}, "ok\n", false,
			results.Source{Kind: "output", Label: &label}},
		{"complete when the caller says so", 0, Output{Label: label, Text: "ok\n", Complete: true}, "ok\n", true,
			results.Source{Kind: "output", Label: &label}},
		{"exit code and time-out when given", 0, Output{Label: label, Text: "x", ExitCode: ptr(int64(2)), TimedOut: ptr(true)}, "x", false,
			results.Source{Kind: "output", Label: &label, ExitCode: ptr(ptr(int64(2))), TimedOut: ptr(true)}},
		{"exit code 0 and timed_out false are kept", 0, Output{Label: label, Text: "x", ExitCode: ptr(int64(0)), TimedOut: ptr(false), Complete: true}, "x", true,
			results.Source{Kind: "output", Label: &label, ExitCode: ptr(ptr(int64(0))), TimedOut: ptr(false)}},
		{"negative exit code", 0, Output{Label: label, Text: "x", ExitCode: ptr(int64(-9))}, "x", false,
			results.Source{Kind: "output", Label: &label, ExitCode: ptr(ptr(int64(-9)))}},
		{"dropped bytes make it incomplete", 0, Output{Label: label, Text: "tail\n", Complete: true, DroppedBytes: 120}, "tail\n", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 120}},
		{"empty label and text", 0, Output{Text: ""}, "", false, results.Source{Kind: "output", Label: ptr("")}},
		{"exactly the limit is kept whole", 10, Output{Label: label, Text: "0123456789", Complete: true}, "0123456789", true,
			results.Source{Kind: "output", Label: &label}},
		{"the tail is kept", 10, Output{Label: label, Text: "0123456789abc", Complete: true}, "3456789abc", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 3}},
		{"dropped bytes grow by the rest", 10, Output{Label: label, Text: "0123456789abc", DroppedBytes: 100}, "3456789abc", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 103}},
		{"the cut moves forward to a character boundary", 9, Output{Label: label, Text: "a€€€x"}, "€€x", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 4}},
		{"a cut on a boundary keeps the limit", 10, Output{Label: label, Text: "a€€€x"}, "€€€x", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 1}},
		{"a 4-byte character", 5, Output{Label: label, Text: "ab😀cd"}, "cd", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 6}},
		{"dropped bytes saturate", 1, Output{Label: label, Text: "ab", DroppedBytes: 1<<63 - 1}, "b", false,
			results.Source{Kind: "output", Label: &label, DroppedBytes: 1<<63 - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := limits.Defaults()
			if tt.limit > 0 {
				cfg.MaxResultBytes = tt.limit
			}
			b := fixture(t, cfg, Legacy, nil)
			d, err := b.retainOutput(tt.out)
			require.Nil(t, err)
			require.NotNil(t, d.ID)
			assert.Equal(t, "r1", *d.ID)
			assert.Equal(t, hexSum(tt.text), d.SHA256)
			assert.Equal(t, int64(len(tt.text)), d.Bytes)
			assert.Equal(t, tt.complete, d.Complete)
			assert.Equal(t, tt.source, d.Source)
			assert.True(t, d.Retained)
			assert.False(t, *d.Reused)
			r, rerr := b.store.Get("r1")
			require.Nil(t, rerr)
			assert.Equal(t, tt.text, string(r.Text.Data))
			assert.Equal(t, tt.complete, r.Complete)
		})
	}
}

func TestRetainOutputDescriptor(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.PreviewBytes = 4
	b := fixture(t, cfg, Legacy, nil)
	d, err := b.retainOutput(Output{Label: "run", Text: "[1, 2]\n"})
	require.Nil(t, err)
	assert.Equal(t, int64(1), d.Lines)
	require.NotNil(t, d.JSON)
	assert.Equal(t, "array", *d.JSON)
	assert.Equal(t, "[1, ", *d.Preview)
	assert.False(t, *d.PreviewComplete)

	d, err = b.retainOutput(Output{Label: "run", Text: ""})
	require.Nil(t, err)
	assert.Equal(t, int64(0), d.Lines)
	assert.Nil(t, d.JSON)
	assert.Equal(t, "", *d.Preview)
	assert.True(t, *d.PreviewComplete)
	assert.Equal(t, "r2", *d.ID)

	// Bounded context: compact descriptors.
	bounded := fixture(t, cfg, Bounded, nil)
	d, err = bounded.retainOutput(Output{Label: "run", Text: "x"})
	require.Nil(t, err)
	assert.Nil(t, d.Preview)
	assert.Nil(t, d.PreviewComplete)
	assert.False(t, *d.Reused)
}

func TestRetainOutputReuse(t *testing.T) {
	t.Parallel()
	b := fixture(t, limits.Defaults(), Legacy, nil)
	base := Output{Label: "make", Text: "done\n", ExitCode: ptr(int64(0))}
	first, err := b.retainOutput(base)
	require.Nil(t, err)
	assert.Equal(t, "r1", *first.ID)

	again, err := b.retainOutput(base)
	require.Nil(t, err)
	assert.Equal(t, "r1", *again.ID)
	assert.True(t, *again.Reused)
	assert.Equal(t, 1, b.store.Len(), "no capacity is used")

	// Any difference in the source or completeness is a new result.
	variants := []Output{
		{Label: "make all", Text: "done\n", ExitCode: ptr(int64(0))},
		{Label: "make", Text: "done\n", ExitCode: ptr(int64(1))},
		{Label: "make", Text: "done\n"},
		{Label: "make", Text: "done\n", ExitCode: ptr(int64(0)), TimedOut: ptr(false)},
		{Label: "make", Text: "done\n", ExitCode: ptr(int64(0)), Complete: true},
		{Label: "make", Text: "done\n", ExitCode: ptr(int64(0)), DroppedBytes: 1},
		{Label: "make", Text: "done!\n", ExitCode: ptr(int64(0))},
	}
	for i, o := range variants {
		d, err := b.retainOutput(o)
		require.Nil(t, err)
		assert.False(t, *d.Reused, "variant %d", i)
		assert.Equal(t, i+2, b.store.Len(), "variant %d", i)
	}
	// complete true with dropped bytes is stored as incomplete, so it reuses
	// the same output given as incomplete.
	d, err := b.retainOutput(Output{Label: "make", Text: "done\n", ExitCode: ptr(int64(0)), DroppedBytes: 1, Complete: true})
	require.Nil(t, err)
	assert.True(t, *d.Reused)
}

func TestRetainOutputStoreFull(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	legacy := fixture(t, cfg, Legacy, nil)
	_, err := legacy.retainOutput(Output{Label: "a", Text: "1"})
	require.Nil(t, err)
	d, err := legacy.retainOutput(Output{Label: "b", Text: "full\n"})
	require.Nil(t, err)
	assert.Nil(t, d.ID)
	assert.False(t, d.Retained)
	assert.Equal(t, "store_full", d.Reason)
	assert.Equal(t, hexSum("full\n"), d.SHA256)
	assert.Equal(t, "full\n", *d.Preview)
	assert.Equal(t, 1, legacy.store.Len())

	bounded := fixture(t, cfg, Bounded, nil)
	_, err = bounded.retainOutput(Output{Label: "a", Text: "1"})
	require.Nil(t, err)
	_, err = bounded.retainOutput(Output{Label: "b", Text: "full\n"})
	require.NotNil(t, err)
	assert.Equal(t, errcode.StoreFull, err.Code)
	assert.Equal(t, new(int64(5)), err.Size)
	assert.Equal(t, 1, bounded.store.Len())
	// A reused output needs no room.
	d, err = bounded.retainOutput(Output{Label: "a", Text: "1"})
	require.Nil(t, err)
	assert.True(t, *d.Reused)

	cfg = limits.Defaults()
	cfg.MaxStoreBytes = 4
	bytesFull := fixture(t, cfg, Bounded, nil)
	_, err = bytesFull.retainOutput(Output{Label: "a", Text: "12345"})
	assert.Equal(t, errcode.StoreFull, code(t, err))
	_, err = bytesFull.retainOutput(Output{Label: "a", Text: "1234"})
	assert.Nil(t, err)
}

func TestRetainOutputChecks(t *testing.T) {
	t.Parallel()
	assert.Equal(t, errcode.InvalidArgument, code(t, checkDropped(-1)))
	assert.Equal(t, errcode.InvalidArgument, code(t, checkDropped(-1<<63)))
	assert.Nil(t, checkDropped(0))
	assert.Nil(t, checkDropped(1<<63-1))

	// The server checks UTF-8 while decoding; the briefing still refuses it.
	b := fixture(t, limits.Defaults(), Legacy, nil)
	_, err := b.retainOutput(Output{Label: "x", Text: "ok" + strings.Repeat("\xff", 2)})
	require.NotNil(t, err)
	assert.Equal(t, errcode.NotUTF8, err.Code)
	assert.Equal(t, new(int64(2)), err.Offset)
	assert.Equal(t, 0, b.store.Len())
}
