package briefing

import "sync"

// fifo runs callers one at a time in the order they arrive: a ticket
// queue. sync.Mutex does not promise that order (a woken waiter can lose
// to a caller that just arrived), and a briefing's calls must follow their
// arrival (SPEC section 2: result IDs, budgets and steps follow it).
type fifo struct {
	mu      sync.Mutex
	busy    bool
	waiters []chan struct{} // in arrival order
}

// lock returns once every caller that arrived before has called unlock.
func (f *fifo) lock() {
	f.mu.Lock()
	if !f.busy {
		f.busy = true
		f.mu.Unlock()
		return
	}
	turn := make(chan struct{})
	f.waiters = append(f.waiters, turn)
	f.mu.Unlock()
	<-turn
}

// unlock hands the turn to the first waiter, if any.
func (f *fifo) unlock() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiters) == 0 {
		f.busy = false
		return
	}
	next := f.waiters[0]
	f.waiters[0] = nil
	f.waiters = f.waiters[1:]
	close(next) // busy stays true: the turn passes straight to next
}

// waiting returns how many callers wait for their turn.
func (f *fifo) waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.waiters)
}
