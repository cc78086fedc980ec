package tools

import (
	"context"
	"strings"
	"sync"
	"unicode/utf8"
)

type liveKey struct{}

// WithLiveOutput returns ctx carrying sink: a tool that runs a command
// (bash) passes the command's output to it while the command runs, so a
// front-end can show it before the result. sink gets redacted text, whole
// lines where it can; it must not block for long.
func WithLiveOutput(ctx context.Context, sink func(chunk string)) context.Context {
	return context.WithValue(ctx, liveKey{}, sink)
}

// LiveOutput is the sink ctx carries, or nil.
func LiveOutput(ctx context.Context) func(string) {
	f, _ := ctx.Value(liveKey{}).(func(string))
	return f
}

// liveMaxLine is how much of a line without a newline is held back; past
// it the line goes out in pieces, keeping liveOverlap bytes so that a
// secret split between two pieces is still redacted whole in the second.
const (
	liveMaxLine = 8 << 10
	liveOverlap = 1 << 10
)

// liveWriter redacts a command's output line by line on its way to a sink.
type liveWriter struct {
	mu   sync.Mutex
	sink func(string)
	red  *Redactor
	buf  []byte
}

func newLiveWriter(ctx context.Context, red *Redactor) *liveWriter {
	sink := LiveOutput(ctx)
	if sink == nil {
		return nil
	}
	return &liveWriter{sink: sink, red: red}
}

func (w *liveWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if i := strings.LastIndexByte(string(w.buf), '\n'); i >= 0 {
		w.emit(string(w.buf[:i+1]))
		w.buf = append(w.buf[:0], w.buf[i+1:]...)
	}
	if len(w.buf) > liveMaxLine {
		cut := len(w.buf) - liveOverlap
		for cut > 0 && !utf8.RuneStart(w.buf[cut]) {
			cut--
		}
		w.emit(string(w.buf[:cut]))
		w.buf = append(w.buf[:0], w.buf[cut:]...)
	}
	return len(p), nil
}

// flush sends what is left (the command ended).
func (w *liveWriter) flush() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(string(w.buf))
		w.buf = w.buf[:0]
	}
}

func (w *liveWriter) emit(s string) {
	if w.red != nil {
		s, _ = w.red.Redact(s)
	}
	w.sink(s)
}
