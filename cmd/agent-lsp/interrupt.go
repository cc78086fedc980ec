package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// interruptGrace is how long a run goes before SIGINT and SIGTERM are
// taken over when no tool has started.
const interruptGrace = 100 * time.Millisecond

// interruptContext is signal.NotifyContext(ctx, SIGINT, SIGTERM) with the
// registration made once it is worth its cost: at arm, which the run calls
// before its first tool starts (a command to stop, a prompt to take back
// from the terminal), or after interruptGrace, whichever comes first. A
// process's first signal.Notify starts two runtime threads, about 0.3 ms
// of CPU on a small VM, which a one-turn `agent-lsp run` answering in a
// few milliseconds would otherwise spend. Until then SIGINT and SIGTERM
// keep their default action: the process ends at once with nothing of its
// own running, and its transcript keeps what was written (a session cut
// short loads and continues; MCP servers end with their pipes).
func interruptContext(parent context.Context) (ctx context.Context, arm, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	var once sync.Once
	var registered atomic.Bool
	arm = func() {
		once.Do(func() {
			if ctx.Err() != nil {
				return
			}
			signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
			registered.Store(true)
			go func() {
				select {
				case <-ch:
					cancel()
				case <-ctx.Done():
				}
			}()
		})
	}
	timer := time.AfterFunc(interruptGrace, arm)
	return ctx, arm, func() {
		timer.Stop()
		cancel()
		once.Do(func() {}) // waits for an arm under way; none after this
		if registered.Load() {
			signal.Stop(ch)
		}
	}
}
