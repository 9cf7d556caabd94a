package workspace

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// CheckProgram finds c's program as Run finds it when the command runs
// (SPEC section 2): through PATH unless it holds a "/", and then, when
// relative, relative to the root, the command's working directory. A
// program that cannot be found, or is not an executable file, is an error
// that names the program (the caller names the command), for the server
// to refuse to start rather than answer cannot_run to every call.
func (r *Root) CheckProgram(c Command) error {
	name := c.Args[0]
	if !strings.Contains(name, "/") {
		_, err := program(name)
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("program %q is not found in PATH: install it, or name it by its path", name)
		}
		if err != nil {
			return fmt.Errorf("program %q cannot run: %s", name, reason(unwrapExec(err)))
		}
		return nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.dir, path)
	}
	// With a "/", LookPath checks only that the file is there, is not a
	// directory and is executable: what exec asks of it when it runs.
	if _, err := exec.LookPath(path); err != nil {
		where := ""
		if !filepath.IsAbs(name) {
			where = " (relative to the root)"
		}
		return fmt.Errorf("program %q%s cannot run: %s", name, where, reason(unwrapExec(err)))
	}
	return nil
}

// unwrapExec is the system's error inside exec's.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
