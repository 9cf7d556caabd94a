package workspace

// On Linux a process's start is its starttime in /proc/PID/stat: clock
// ticks after boot. A PID with the same start is the same process (a PID
// is reused only after its process is gone, and not within one tick);
// after a reboot, a process with the same PID and start as a stale file's
// maker keeps that file, which is the safe way to be wrong.

// processState is pid's start, 0 when it cannot be read (hidepid: not
// ours to look at), and whether it has ended (a zombie).
func processState(pid int) (start uint64, ended bool) {
	p, ok := readStat(pid, make([]byte, 1024))
	return p.start, ok && p.zombie
}
