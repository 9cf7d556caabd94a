package server

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnlyServerImportsMCP: the MCP library stays in the wiring, server
// and its transport. No other package of the module imports mcp-go (its tests and the commands'
// instruments may use the official SDK as a client, which is another
// module).
func TestOnlyServerImportsMCP(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/loom-results/loom-results/...").CombinedOutput()
	require.NoError(t, err, string(out))
	var importers []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/mark3labs/mcp-go") {
				importers = append(importers, f[0])
				break
			}
		}
	}
	assert.Equal(t, []string{"github.com/loom-results/loom-results/server", "github.com/loom-results/loom-results/server/transport"}, importers)
}

// TestNoMCPServerLibrary: the transport answers every method itself
// (transport/dispatch.go), and mcp-go is kept for its protocol types (the
// mcp package) alone: no package of the module, nor any of its tests,
// imports mcp-go's server package, so that nothing, a test reflecting over
// its private fields included, depends on another library's dispatch.
func TestNoMCPServerLibrary(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`,
		"github.com/loom-results/loom-results/...").CombinedOutput()
	require.NoError(t, err, string(out))
	var importers []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if imp == "github.com/mark3labs/mcp-go/server" || strings.HasPrefix(imp, "github.com/mark3labs/mcp-go/server/") {
				importers = append(importers, f[0])
				break
			}
		}
	}
	assert.Empty(t, importers, "packages that import mcp-go's server")
}

// layers are the module's packages from the bottom up, as docs/design.md
// draws them ("Which way the imports go"): a package may import one of its
// own layer or one below, never one above. An entry ending in "/" holds
// every package under it; the longest entry that holds a package places
// it. The test kit is at the bottom: it imports nothing of the product, so
// that what tests share never depends on what they test.
var layers = [][]string{
	{"errcode", "internal/engine/hugepage", "internal/engine/linediff", "internal/writehook", "internal/version", "internal/testkit/", "cmd/internal/cli/", "cmd/internal/cli"},
	{"internal/engine/jsontape", "limits"},
	{"selectors", "workspace"},
	{"results"},
	{"briefing", "server/transport"},
	{"server"},
	{"cmd/", "conformance", "internal/instruments/"},
}

// layerOf returns the layer of pkg (a path inside the module), or -1 when
// no entry of layers holds it.
func layerOf(pkg string) int {
	layer, longest := -1, 0
	for i, entries := range layers {
		for _, e := range entries {
			held := pkg == e || strings.HasSuffix(e, "/") && strings.HasPrefix(pkg, e)
			if held && len(e) > longest {
				layer, longest = i, len(e)
			}
		}
	}
	return layer
}

// upwardImports returns, for lines of `go list` output (a package path,
// then the paths it imports), each import of the module that points to a
// layer above the importer's, as "a -> b", and each package of the module
// that no layer holds.
func upwardImports(module, list string) []string {
	var faults []string
	for line := range strings.Lines(list) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		from := layerOf(pkg)
		if from < 0 {
			faults = append(faults, pkg+" is in no layer")
			continue
		}
		for _, imp := range f[1:] {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if ok && layerOf(dep) > from {
				faults = append(faults, pkg+" -> "+dep)
			}
		}
	}
	return faults
}

// TestLayering: no package of the module imports one above it in the
// layering (its imports as built, tests apart: a test may drive what is
// above it), and every package has a layer.
func TestLayering(t *testing.T) {
	t.Parallel()
	const module = "github.com/loom-results/loom-results"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), module+"/internal/testkit/testroot ", "the list holds the test kit")
	assert.Empty(t, upwardImports(module, string(out)))
}

// TestLayeringChecksFail: the check catches the import of a layer above,
// a package in no layer, and the test kit importing the product; it
// leaves imports down, within a layer and outside the module alone.
func TestLayeringChecksFail(t *testing.T) {
	t.Parallel()
	const m = "example.com/m"
	tests := []struct {
		name string
		list string
		want []string
	}{
		{"down, within a layer, outside", m + "/server " + m + "/briefing " + m + "/server/transport fmt\n" + m + "/briefing " + m + "/server/transport " + m + "/workspace\n", nil},
		{"the test kit imports the workspace", m + "/internal/testkit/testroot os " + m + "/workspace\n", []string{"internal/testkit/testroot -> workspace"}},
		{"results imports briefing", m + "/results " + m + "/briefing " + m + "/limits\n", []string{"results -> briefing"}},
		{"the engine imports server", m + "/internal/engine/jsontape " + m + "/server\n", []string{"internal/engine/jsontape -> server"}},
		{"a package in no layer", m + "/utils " + m + "/errcode\n", []string{"utils is in no layer"}},
		{"a command imports anything", m + "/cmd/loom-results " + m + "/server " + m + "/internal/version\n", nil},
		{"a command's own package is low", m + "/cmd/internal/cli " + m + "/limits\n", []string{"cmd/internal/cli -> limits"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, upwardImports(m, tt.list))
		})
	}
}
