package loombin

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuild builds the command and runs it with a bad flag: it exits with
// status 2, as SPEC section 2 says.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the command")
	}
	bin, err := Build(context.Background(), t.TempDir())
	require.NoError(t, err)
	out, err := exec.Command(bin, "--max-lookups", "-1").CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.ExitCode())
	require.True(t, strings.Contains(string(out), "max-lookups"), "%s", out)
}
