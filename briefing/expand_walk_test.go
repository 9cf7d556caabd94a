package briefing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/loom-results/loom-results/limits"
)

// TestExpandWalkAllocations: walking the arguments allocates no pointer
// per value. Each value's "at" used to be a string of its own, so the
// work grew with the values times their depth: 10,000 values 100 levels
// deep made 20,000 strings of about 200 bytes.
func TestExpandWalkAllocations(t *testing.T) {
	b := New(Options{Limits: limits.Defaults(), Context: Legacy})
	t.Cleanup(b.Close)
	doc := []byte(`{"x":` + strings.Repeat(`[`, 100) + strings.Repeat(`0,`, 9_999) + `0` + strings.Repeat(`]`, 100) + `}`)
	var failed bool
	allocs := testing.AllocsPerRun(5, func() {
		b.Do(func() {
			if _, err := b.ExpandEdit(doc); err != nil {
				failed = true
			}
		})
	})
	require.False(t, failed)
	assert.Less(t, allocs, 200.0, "allocations per expand_edit of 10,000 values 100 deep")
}
