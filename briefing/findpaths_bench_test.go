package briefing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/selectors"
	"github.com/loom-results/loom-results/workspace"
)

// BenchmarkFindPaths: a find over "." of 10,000 files of 10 KiB, one in
// 97 holding the needle, as loom-perf's paths row (which measures it
// against grep -rn -F).
func BenchmarkFindPaths(b *testing.B) {
	dir := b.TempDir()
	line := "\tconn, err := s.store.Get(ctx, key+\"/conn\") // keep the last entry\n"
	body := strings.Repeat(line, 10<<10/len(line))
	for i := range 10_000 - 1 {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d/sub%02d/file%04d.go", i/500, i/25%20, i))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		text := body
		if i%97 == 0 {
			text += "\tconst marker = \"loomNeedle4b1d\"\n"
		}
		require.NoError(b, os.WriteFile(p, []byte(text), 0o644))
	}
	require.NoError(b, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/vendor/\n"), 0o644))
	root, err := workspace.Open(dir)
	require.NoError(b, err)
	defer root.Close()
	cfg := limits.Defaults()
	cfg.MaxLookups = 1 << 30
	br := New(Options{Limits: cfg, Root: root})
	m, merr := selectors.NewMatcher(selectors.Patterns{List: []string{"loomNeedle4b1d"}})
	require.Nil(b, merr)
	b.SetBytes(int64(10_000 * len(body)))
	for b.Loop() {
		br.budget.StartLookup()
		f, ferr := br.findPaths([]string{"."}, FindQuery{Matcher: m, MaxMatches: 20})
		require.Nil(b, ferr)
		require.Equal(b, 104, f.Total)
	}
}
