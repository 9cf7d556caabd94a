package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/briefing"
	"github.com/loom-results/loom-results/internal/testkit/mcptest"
	"github.com/loom-results/loom-results/internal/testkit/testroot"
	"github.com/loom-results/loom-results/limits"
	"github.com/loom-results/loom-results/server/transport"
	"github.com/loom-results/loom-results/workspace"
)

// TestWriteFileSessionsAppend: two HTTP sessions of one --write server
// append to one file at once, each from a freshly inspected base. Writes
// of one process to one file are serialized and checked again before the
// rename (SPEC section 9), so two sessions never both succeed on one
// base: every write answered as written is in the file at the end.
func TestWriteFileSessionsAppend(t *testing.T) {
	t.Parallel()
	root, dir := testroot.Open(t, map[string]string{"log.txt": ""}, workspace.Open)
	s := New(Options{Limits: limits.Defaults(), Policy: briefing.Legacy, Write: true, Root: root})
	c := serveHTTP(t, s, transport.HTTPOptions{})
	const each = 25
	var wg sync.WaitGroup
	written := make([][]string, 2)
	conflicts := make([]int, 2)
	for w := range 2 {
		session := c.Initialize()
		wg.Go(func() {
			id := 0
			for i := 0; i < each; {
				id++
				res := c.Call(session, id, "inspect", `{"paths":["log.txt"]}`)
				r := mcptest.Structured(res)["results"].([]any)[0].(map[string]any)["id"].(string)
				line := fmt.Sprintf("session %d line %d\n", w, i)
				id++
				c.Call(session, id, "begin_step", `{}`)
				id++
				res = c.Call(session, id, "write_file", fmt.Sprintf(`{"path":"log.txt","base":%q,"compose":[{"result":%q},%q]}`, r, r, line))
				switch code := mcptest.ErrCode(res); code {
				case "":
					written[w] = append(written[w], line)
					i++
				case "conflict":
					conflicts[w]++
				default:
					t.Errorf("session %d: %s", w, mcptest.Text(res))
					return
				}
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
	require.NoError(t, err)
	var lost []string
	for _, lines := range written {
		for _, line := range lines {
			if !strings.Contains(string(data), line) {
				lost = append(lost, line)
			}
		}
	}
	assert.Empty(t, lost, "writes answered as written, missing from the file")
	assert.Equal(t, 2*each, strings.Count(string(data), "\n"), "%d conflicts", conflicts[0]+conflicts[1])
}
