// Package testroot lays out a temporary root of files for a test and
// opens it as the workspace root the server reads: the fixture that the
// tests of briefing and server share.
package testroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/workspace"
)

// Write writes files (slash-separated paths to contents, parents created)
// under dir.
func Write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// Open writes files into a new temporary directory and opens it as a
// root, which closes when the test ends; it returns the root and its
// directory.
func Open(t testing.TB, files map[string]string) (*workspace.Root, string) {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	root, err := workspace.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return root, dir
}
