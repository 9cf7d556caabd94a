package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/loom-results/loom-results"

// notServed are the module's trees that the served binary must not link:
// the measuring programs' logic, what tests share, and the script runner,
// all of which cmd/loom-check carries instead.
var notServed = []string{module + "/internal/instruments", module + "/internal/testkit", module + "/conformance"}

// foreign returns the packages of deps under one of notServed.
func foreign(deps []string) []string {
	var out []string
	for _, d := range deps {
		for _, tree := range notServed {
			if d == tree || strings.HasPrefix(d, tree+"/") {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// TestServedBinaryIsTheServer: the dependencies of the served binary, as
// `go list -deps ./cmd/loom-results` lists them, hold the server and
// nothing of the instruments, the test kit or conformance.
func TestServedBinaryIsTheServer(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, string(out))
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module+"/server", "the list is the binary's dependencies")
	require.Contains(t, deps, module+"/cmd/loom-results")
	assert.Empty(t, foreign(deps), "the served binary links packages that are not the server's")
}

// TestServedBinaryChecksFail: the check catches a package of each tree
// and leaves the server's own packages alone.
func TestServedBinaryChecksFail(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		deps []string
		want []string
	}{
		{"the server's", []string{module + "/server", module + "/internal/engine/jsontape", module + "/internal/version", module + "/conformances"}, nil},
		{"an instrument", []string{module + "/server", module + "/internal/instruments/editbench"}, []string{module + "/internal/instruments/editbench"}},
		{"the test kit", []string{module + "/internal/testkit/stdioclient", module + "/briefing"}, []string{module + "/internal/testkit/stdioclient"}},
		{"conformance", []string{module + "/conformance"}, []string{module + "/conformance"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, foreign(tt.deps))
		})
	}
}
