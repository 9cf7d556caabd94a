package briefing

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDoRunsInArrivalOrder: calls of one briefing that arrive while one
// runs run afterwards in the order they arrived, whatever the scheduler
// does: 200 callers, each queued before the next starts.
func TestDoRunsInArrivalOrder(t *testing.T) {
	t.Parallel()
	var b Briefing
	release := make(chan struct{})
	running := make(chan struct{})
	go b.Do(func() {
		close(running)
		<-release
	})
	<-running
	const n = 200
	var (
		mu    sync.Mutex
		order []int
		done  sync.WaitGroup
	)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			b.Do(func() {
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			})
		}()
		// Caller i has arrived once it waits; only then does i+1 start.
		for b.turns.waiting() != i+1 {
			runtime.Gosched()
		}
	}
	close(release)
	done.Wait()
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order)
	assert.Equal(t, 0, b.turns.waiting())
	b.Do(func() {}) // the queue is free again
}
