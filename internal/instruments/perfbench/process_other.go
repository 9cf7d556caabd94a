//go:build !unix

package perfbench

import "os"

// processEnded reports whether process pid has ended: on Windows,
// os.FindProcess opens the process, and fails once there is none.
func processEnded(pid int) (bool, error) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true, nil
	}
	p.Release()
	return false, nil
}
