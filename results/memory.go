package results

import (
	"math"
	"os"
	"runtime/debug"
)

// The garbage collector's slack, and why it follows the stored bytes.
//
// Go collects when the heap has grown by GOGC percent (100) of what the
// last collection found live. In this server nearly all of the live heap
// is stored results, which live as long as their briefing: with the
// default, every collection waits until as much garbage has piled up as
// there are results stored, so a server holding 128 MiB let its heap reach
// 256 MiB and more before collecting, and a 16 MiB call's garbage (a
// message, its answer, an index) was kept beside it. The garbage a call
// makes depends on the call, not on the store.
//
// Collecting more often costs little here: results are []byte, which the
// collector marks without scanning (they hold no pointers), so a cycle's
// work grows with the pointer-holding heap (descriptors, maps, sessions),
// not with the stored bytes. So the heap is given a slack proportional to
// the garbage instead: a soft memory limit (debug.SetMemoryLimit) of the
// bytes stored, a sixteenth of them for what each result carries beside its
// bytes (its line index is 1/64 of its text), and a fixed slack for the
// garbage of the calls in flight. The limit moves with the stored bytes: it
// is set again on every change of the process-wide quota, and with the
// bytes of a file being read (Quota.Hold). GOGC is turned off (unless the
// environment sets it): the collector runs when the heap nears the limit,
// so the calls' garbage gets the slack and no more, and a small heap is not
// collected at all before then. With GOGC on, a fresh server collected
// during its first inspect, since the JSON Schema module that mcp-go links
// allocates 1.7 MB at init and fills Go's first 4 MB goal: a 1 MiB inspect
// took 3.8 ms instead of 2.2.
//
// The limit is soft: when the live heap needs more (a call whose transient
// memory exceeds the slack), the runtime lets the heap grow past it rather
// than fail, and caps the collector's share of the CPU at a half while it
// is over. That is the price of this choice: such a call (an edit of
// megabytes of dense JSON) collects often while it runs, and every call
// pays a little: the load program's server spent 6% more CPU (9.7 s
// against 9.1 s, medians of 3). Measured with cmd/loom-mem (medians of 3
// runs), this policy gave the lowest peaks: the load program 139 MiB for
// 109 MiB stored, where Go's default reached 253 MiB, GOGC=25 163 MiB, and
// a GOGC retuned after every collection to give the heap the same fixed
// slack beyond its live bytes 157 MiB. The retuned GOGC made a 16 MiB edit
// faster (2.3 s against 3.5 s) but its peak higher (184 MiB against 157).
//
// The default slack, 24 MiB, is the target's 32 MiB less the 8 MiB or so
// of a process's resident memory that the runtime does not count (its
// code and data). The other option, keeping results outside the collected
// heap (mapped memory freed with their briefing), would leave only the
// garbage to the collector too, but every slice of a result handed to an
// answer would then outlive its memory unless each were copied or
// tracked, and the collector's cost, not its slack, is what it would save.

// FollowMemory makes the runtime's soft memory limit follow the bytes that
// q holds: slack plus those bytes and a sixteenth more, set again whenever
// they change, and turns GOGC off unless the environment sets it. A slack
// of 0 or less leaves the runtime as it is, and so does a GOMEMLIMIT in the
// environment: the operator's limit wins. It is
// for a process with one quota (the command's); the limit is the process's.
func FollowMemory(q *Quota, slack int64) {
	if slack <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.follow = func(used int64) { debug.SetMemoryLimit(memoryLimit(used, slack)) }
	q.followLocked()
}

// memoryLimit is the soft memory limit for used stored bytes.
func memoryLimit(used, slack int64) int64 {
	if used > (math.MaxInt64-slack)/2 {
		return math.MaxInt64
	}
	return slack + used + used/16
}
