//go:build !unix

package workspace

import "os"

// openNativeDir is the walk's first directory where there are no *at
// system calls to walk with (Windows): an os.Root (walk_root.go).
func openNativeDir(r *Root, f *os.File, rel string) (walkDir, error) {
	return openRootDir(r, f, rel)
}
