//go:build unix

package perfbench

import (
	"errors"
	"syscall"
)

// processEnded reports whether process pid has ended: kill(pid, 0) finds
// no such process. err is kill's answer when it has not.
func processEnded(pid int) (bool, error) {
	err := syscall.Kill(pid, 0)
	return errors.Is(err, syscall.ESRCH), err
}
