package replayserver

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
)

// Build compiles cmd/loom-replay into dir and returns the binary's path, as
// internal/testkit/loombin builds loom-results: in the working directory, which
// must be inside the module, with the go command on PATH.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "loom-replay")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = "go" // not on PATH: exec says so in the error
	}
	out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/loom-results/loom-results/internal/instruments/replayserver/cmd/loom-replay").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build internal/instruments/replayserver/cmd/loom-replay (run inside the module): %v\n%s", err, out)
	}
	return bin, nil
}
