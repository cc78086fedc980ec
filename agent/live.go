package agent

import (
	"context"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Live output of a running call (tool_output events): the bash tool passes
// its command's output to the sink the context carries; the run forwards
// it, throttled, so a chatty command costs the editor a few events a
// second, not one per write.
const (
	// liveInterval is the least time between two tool_output events of a
	// call.
	liveInterval = 200 * time.Millisecond
	// liveMax bounds the live bytes of one call; past it the call's rows
	// wait for the result, which holds the output anyway.
	liveMax = 256 << 10
)

// liveEmitter buffers one call's live output and sends it as tool_output
// events: at once when the last one is older than liveInterval, else from
// a timer. Events are sent under its lock and none after close, so they
// never overlap the run's own events (the run waits in Dispatch meanwhile)
// and none follows the call's tool_result.
type liveEmitter struct {
	mu     sync.Mutex
	obs    Observer
	call   ToolCall
	buf    []byte
	sent   int
	last   time.Time
	timer  *time.Timer
	closed bool
}

func newLiveEmitter(obs Observer, c ToolCall) *liveEmitter {
	return &liveEmitter{obs: obs, call: c}
}

// context returns ctx carrying the emitter's sink.
func (l *liveEmitter) context(ctx context.Context) context.Context {
	return tools.WithLiveOutput(ctx, l.add)
}

func (l *liveEmitter) add(chunk string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.sent+len(l.buf) >= liveMax {
		return
	}
	if room := liveMax - l.sent - len(l.buf); len(chunk) > room {
		chunk = chunk[:room]
	}
	l.buf = append(l.buf, chunk...)
	if wait := liveInterval - time.Since(l.last); wait <= 0 {
		l.flushLocked()
	} else if l.timer == nil {
		l.timer = time.AfterFunc(wait, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.timer = nil
			if !l.closed {
				l.flushLocked()
			}
		})
	}
}

func (l *liveEmitter) flushLocked() {
	if len(l.buf) == 0 {
		return
	}
	l.obs(Event{Type: EvToolOutput, Text: string(l.buf), Tool: &ToolEvent{ID: l.call.ID, Name: l.call.Name}})
	l.sent += len(l.buf)
	l.buf = l.buf[:0]
	l.last = time.Now()
}

// close sends what is buffered; nothing is sent after it.
func (l *liveEmitter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.flushLocked()
	l.closed = true
}
