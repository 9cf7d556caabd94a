// Package writehook lets tests act at a known point of a file write:
// workspace's writes call At with the name of each stage they reach, and
// ask Named whether to use a named temporary file where an anonymous one
// (Linux O_TMPFILE) would do. Tests of the workspace package inject
// failures through it; the process tests of cmd/loom-results, whose test
// binary runs the command, stop a write at a stage to send it SIGKILL or
// SIGTERM there. Nothing sets it in the command itself, where At returns
// nil and Named false.
package writehook

import "sync/atomic"

// The stages of a write, in the order a write reaches them.
const (
	Write  = "write"  // a temporary file exists (anonymous or named), empty
	Sync   = "sync"   // its bytes are written, not yet synced
	Check  = "check"  // it is synced; the conflict check runs next
	Link   = "link"   // anonymous: it is about to get a name (linkat)
	Rename = "rename" // it is named; the rename over the target is next
	Done   = "done"   // the target holds the new bytes; the directory is synced next
)

// Hooks is what a test sets.
type Hooks struct {
	// At, when set, is called at each stage; an error fails the write
	// there, as the system's error would.
	At func(stage string) error
	// Named makes writes use a named temporary file even where the file
	// system has O_TMPFILE: the fallback, on any file system.
	Named bool
}

var hooks atomic.Pointer[Hooks]

// Set installs h (nil: none) and returns the hooks it replaces.
func Set(h *Hooks) *Hooks { return hooks.Swap(h) }

// At calls the At hook for stage, if any.
func At(stage string) error {
	if h := hooks.Load(); h != nil && h.At != nil {
		return h.At(stage)
	}
	return nil
}

// Named reports whether writes must use a named temporary file.
func Named() bool {
	h := hooks.Load()
	return h != nil && h.Named
}
