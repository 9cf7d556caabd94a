// Package testroot lays out a temporary root of files for a test and
// opens it with the opener the test names (workspace.Open, the root the
// server reads): the fixture that the tests of briefing and server share.
// It imports no package of the product, so that the test kit stays below
// everything it serves.
package testroot

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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

// Open writes files into a new temporary directory and opens it with open
// (workspace.Open, as a root), which closes when the test ends; it returns
// the root and its directory.
func Open[R io.Closer](t testing.TB, files map[string]string, open func(dir string) (R, error)) (R, string) {
	t.Helper()
	dir := t.TempDir()
	Write(t, dir, files)
	root, err := open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return root, dir
}
