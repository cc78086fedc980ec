package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptContext is signal.NotifyContext(ctx, SIGINT, SIGTERM) with the
// registration made in the background. A process's first signal.Notify
// waits while the runtime starts a thread for signals (about 0.3 ms on a
// small VM), which `agent-lsp run` would otherwise spend before its
// request. Until the registration is in, SIGINT and SIGTERM keep their
// default action, which is what a signal that early wants anyway: nothing
// is running yet that needs a clean stop.
func interruptContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	registered := make(chan struct{})
	go func() {
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		close(registered)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		cancel()
		<-registered
		signal.Stop(ch)
	}
}
