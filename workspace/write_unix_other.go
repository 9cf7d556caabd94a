//go:build unix && !linux

package workspace

import (
	"errors"
	"os"
)

// largeFile is 0: these systems open large files without a flag.
const largeFile = 0

// createAnon fails with errNoAnon: only Linux has O_TMPFILE, so writes
// here use a named temporary file.
func (d *dirHandle) createAnon() (*os.File, error) { return nil, errNoAnon }

// link is never called without createAnon.
func (d *dirHandle) link(f *os.File, name string) error {
	return errors.New("anonymous files are not supported here")
}
