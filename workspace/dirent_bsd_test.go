//go:build darwin || freebsd || netbsd || openbsd

package workspace

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBSDDirentLayout: the layout that x/sys/unix gives is the one the
// system's headers declare, which TestParseDirentsAt parses.
func TestBSDDirentLayout(t *testing.T) {
	assert.Equal(t, direntLayouts[runtime.GOOS], bsdDirent)
}
