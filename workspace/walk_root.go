package workspace

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// rootDir is a directory of a walk open as an os.Root of its own: the
// walk's way on systems without the *at calls of Unix (Windows), built
// everywhere so that tests run it (walkOpen). os.Root follows a symbolic
// link that stays inside it, so each step that must not follow one looks
// at the name first (Lstat) and then checks that what it opened is what it
// looked at (os.SameFile): a name replaced by a link in between is refused.
type rootDir struct{ root *os.Root }

// rootLooked is called, when set (by tests), between the Lstat of a name
// and its open.
var rootLooked func(name string)

// openRootDir opens the directory f, just opened as rel under os.Root's
// rules, as an os.Root; it closes f.
func openRootDir(r *Root, f *os.File, rel string) (walkDir, error) {
	defer f.Close()
	root, err := r.root.OpenRoot(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	return rootDir{root}, nil
}

func (d rootDir) read(*[]byte) (names []string, types []entryType, ok bool) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, nil, false
	}
	names = make([]string, len(es))
	types = make([]entryType, len(es))
	for i, e := range es {
		names[i], types[i] = e.Name(), modeType(e.Type())
	}
	return names, types, true
}

// modeType is the walk's type of a file of mode m. On Windows, os reports a
// symbolic link as ModeSymlink, and a junction (mount point) or another
// reparse point that is not a link as ModeIrregular, neither listed nor
// entered.
func modeType(m fs.FileMode) entryType {
	switch m.Type() {
	case fs.ModeDir:
		return typeDir
	case 0:
		return typeReg
	case fs.ModeSymlink:
		return typeLink
	}
	return typeOther
}

func (d rootDir) lstat(name string) (entryType, int64) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return typeUnknown, 0
	}
	return modeType(fi.Mode()), fi.Size()
}

func (d rootDir) sub(name string) (walkDir, bool) {
	was, err := d.root.Lstat(name)
	if err != nil || modeType(was.Mode()) != typeDir {
		return nil, false
	}
	if rootLooked != nil {
		rootLooked(name)
	}
	sub, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, false
	}
	now, err := sub.Stat(".")
	if err != nil || !os.SameFile(was, now) {
		sub.Close()
		return nil, false
	}
	return rootDir{sub}, true
}

func (d rootDir) close() { d.root.Close() }

func (d rootDir) openFile(name string) (io.ReadCloser, fs.FileMode, int64, error) {
	was, err := d.root.Lstat(name)
	if err != nil {
		return nil, 0, 0, err
	}
	if was.Mode()&fs.ModeSymlink != 0 {
		return nil, 0, 0, errLink
	}
	if !was.Mode().IsRegular() {
		// Not opened at all, as Root.Open refuses it: opening some
		// devices has side effects.
		return unopened{}, was.Mode(), was.Size(), nil
	}
	if rootLooked != nil {
		rootLooked(name)
	}
	f, err := d.root.OpenFile(name, readFlags, 0)
	if err != nil {
		return nil, 0, 0, err
	}
	now, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, 0, err
	}
	if !os.SameFile(was, now) {
		f.Close()
		return nil, 0, 0, errLink // replaced since it was looked at
	}
	return f, now.Mode(), now.Size(), nil
}

// unopened stands for a file that openFile did not open: its mode says
// why.
type unopened struct{}

func (unopened) Read([]byte) (int, error) { return 0, io.EOF }
func (unopened) Close() error             { return nil }
