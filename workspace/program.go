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
	bare, relative := !strings.Contains(name, "/"), false
	path := name
	if !bare && !filepath.IsAbs(name) {
		path, relative = filepath.Join(r.dir, name), true
	}
	// A bare name is looked up in PATH; with a "/", LookPath checks only
	// that the file is there, is not a directory and is executable: what
	// exec asks of it when it runs.
	_, err := exec.LookPath(path)
	switch {
	case err == nil:
		return nil
	case bare && errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("program %q is not found in PATH: install it, or name it by its path", name)
	case relative:
		return fmt.Errorf("program %q (relative to the root) cannot run: %s", name, reason(unwrapExec(err)))
	}
	return fmt.Errorf("program %q cannot run: %s", name, reason(unwrapExec(err)))
}

// unwrapExec is the system's error inside exec's.
func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
