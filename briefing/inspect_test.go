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

// TestInspectUnkept checks that a file the store cannot keep, which inspect
// reads through one window instead of whole, is described exactly as a
// file read whole and then refused: digest, size, lines, preview, JSON type,
// and errors with their offsets, across window boundaries.
func TestInspectUnkept(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", unkeptWindow-1) + "€\n" + strings.Repeat("line é\n", 1000)
	files := map[string]string{
		"big.txt":        big,
		"invalid.txt":    strings.Repeat("y", unkeptWindow+5) + "\xff",
		"cut.txt":        strings.Repeat("z", unkeptWindow-1) + "\xe2\x82",
		"doc.json":       `{"a": [1, 2, "` + strings.Repeat("é", 2000) + `"]}`,
		"space.json":     "\n\n   " + strings.Repeat(" ", unkeptWindow) + "[true]",
		"notjson.txt":    "function() {}\n",
		"preview.txt":    strings.Repeat("a", 1023) + "€ rest",
		"empty.txt":      "",
		"crlf.txt":       "one\r\ntwo\r\nthree",
		"fill.txt":       "holds the one result the store can keep\n",
		"same-as-fill.x": "holds the one result the store can keep\n",
	}
	cfg := limits.Defaults()
	cfg.MaxResults = 1
	b := fixture(t, cfg, Legacy, files)
	got := b.inspectPaths([]string{"fill.txt"})
	require.Nil(t, got[0].Err)
	require.True(t, got[0].Descriptor.Retained)

	for name, text := range files {
		if name == "fill.txt" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			e := b.inspectPaths([]string{name})[0]
			want, werr := results.Analyze([]byte(text))
			if werr != nil {
				require.NotNil(t, e.Err)
				assert.Equal(t, werr.Code, e.Err.Code)
				assert.Equal(t, werr.Details, e.Err.Details)
				return
			}
			require.Nil(t, e.Err)
			rel := name
			wantD := results.Describe(want, true, results.Source{Kind: results.KindFile, Path: &rel}, results.Retained{}, results.Full, cfg.PreviewBytes)
			assert.Equal(t, wantD, *e.Descriptor)
		})
	}
}

// TestInspectUnkeptReused checks that a file equal to a kept result is
// reused even when the store is full, and that bounded context answers
// store_full for the rest.
func TestInspectUnkeptReused(t *testing.T) {
	t.Parallel()
	cfg := limits.Defaults()
	cfg.MaxStoreBytes = 100
	b := fixture(t, cfg, Bounded, map[string]string{"a.txt": "kept\n", "big.txt": strings.Repeat("b\n", 100)})
	first := b.inspectPaths([]string{"a.txt"})[0]
	require.Nil(t, first.Err)
	again := b.inspectPaths([]string{"a.txt", "big.txt"})
	require.Nil(t, again[0].Err)
	assert.Equal(t, "r1", *again[0].Descriptor.ID)
	assert.True(t, *again[0].Descriptor.Reused)
	require.NotNil(t, again[1].Err)
	assert.Equal(t, errcode.StoreFull, again[1].Err.Code)
	assert.Equal(t, new(int64(200)), again[1].Err.Size)
}
