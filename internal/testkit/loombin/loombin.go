// Package loombin builds the loom-results command for the tests and
// programs that drive it as a process (conformance, editbench's tests, the
// server that loom-check runs by default, the load and performance
// programs).
package loombin

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build compiles loom-results/cmd/loom-results into dir and returns the
// binary's path. It runs in the working directory, which must be inside the
// loom-results module; the compiler's output is in the error.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "loom-results")
	out, err := exec.CommandContext(ctx, goTool(), "build", "-o", bin, "github.com/loom-results/loom-results/cmd/loom-results").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build loom-results/cmd/loom-results (run inside the module): %v\n%s", err, out)
	}
	return bin, nil
}

// goTool returns the go command. go test puts its own GOROOT/bin first on
// PATH, so the binary under test is built by the toolchain running it.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go" // not on PATH: exec says so in the error
}
