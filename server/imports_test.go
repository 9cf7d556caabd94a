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
