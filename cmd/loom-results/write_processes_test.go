//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/internal/testkit/stdioclient"
)

// TestTwoProcessesAppend: two server processes (two stdio sessions on one
// project) append to one file, each from a freshly inspected base: every
// write answered as written is in the file at the end, the others answer
// conflict. Before the directory's lock across processes, 12 to 18 of 80
// such writes were lost (internal/instruments/writeattack, appends-proc).
func TestTwoProcessesAppend(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "log.txt"), nil, 0o644))
	t.Setenv(envServer, "1")
	const appends = 25
	id := regexp.MustCompile(`^(r[0-9]+) file log\.txt: `)
	written := make([][]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			p, err := stdioclient.Start(t.Context(), []string{os.Args[0], "--root", dir, "--write"}, stdioclient.Options{})
			if err == nil {
				defer p.Close()
				err = p.Initialize(t.Context(), "two-processes")
			}
			call := func(tool string, args any) (string, error) {
				params, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
				line, err := p.Request(t.Context(), "tools/call", params)
				if err != nil {
					return "", err
				}
				var r struct {
					Result struct{ Content []struct{ Text string } }
				}
				if err := json.Unmarshal(line, &r); err != nil || len(r.Result.Content) == 0 {
					return "", fmt.Errorf("answer %.200s: %v", line, err)
				}
				return r.Result.Content[0].Text, nil
			}
			for i := 0; err == nil && i < appends; {
				var text string
				if text, err = call("inspect", map[string]any{"paths": []string{"log.txt"}}); err != nil {
					break
				}
				m := id.FindStringSubmatch(text)
				if m == nil {
					err = fmt.Errorf("inspect: %q", text)
					break
				}
				line := fmt.Sprintf("process %d line %d\n", w, i)
				text, err = call("write_file", map[string]any{"path": "log.txt", "base": m[1], "compose": []any{map[string]any{"result": m[1]}, line}})
				switch {
				case err != nil:
				case strings.HasPrefix(text, "wrote log.txt: "):
					written[w] = append(written[w], line)
					i++
				case !strings.HasPrefix(text, "error conflict: "):
					err = fmt.Errorf("write_file: %q", text)
				}
			}
			errs[w] = err
		})
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
	require.NoError(t, err)
	for _, lines := range written {
		require.Len(t, lines, appends)
		for _, l := range lines {
			assert.Contains(t, string(data), l)
		}
	}
	assert.Equal(t, 2*appends, strings.Count(string(data), "\n"))
}
