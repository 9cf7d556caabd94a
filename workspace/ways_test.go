package workspace

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// walkWays are the ways a walk opens, reads and stats its directories,
// each run by the tests of the walk: the system's (on Unix, the *at
// calls, with d_type); os.Root's, the only way on Windows; and the *at
// calls without d_type, as on Solaris and AIX, where every entry is
// lstat-ed.
var walkWays = []struct {
	name string
	open func(r *Root, f *os.File, rel string) (walkDir, error)
}{
	{"native", nil},
	{"os.Root", openRootDir},
	{"no d_type", func(r *Root, f *os.File, rel string) (walkDir, error) {
		d, err := openNativeDir(r, f, rel)
		if err != nil {
			return nil, err
		}
		return untyped{d}, nil
	}},
}

// untyped is a directory whose entries' types are not given.
type untyped struct{ walkDir }

func (d untyped) read(buf *[]byte) ([]string, []entryType, bool) {
	names, types, ok := d.walkDir.read(buf)
	for i := range types {
		types[i] = typeUnknown
	}
	return names, types, ok
}

func (d untyped) sub(name string) (walkDir, bool) {
	s, ok := d.walkDir.sub(name)
	if !ok {
		return nil, false
	}
	return untyped{s}, true
}

// openWay opens dir as a root that walks the given way.
func openWay(t *testing.T, dir string, open func(*Root, *os.File, string) (walkDir, error)) *Root {
	t.Helper()
	r, err := Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	r.walkOpen = open
	return r
}
