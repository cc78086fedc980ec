package sandbox

import (
	"fmt"
	"io"
	"sync"
)

// headTail keeps the first and last limit/2 bytes written to it.
type headTail struct {
	mu      sync.Mutex
	limit   int
	head    []byte
	tail    []byte // ring buffer once full
	pos     int    // next write position in tail
	full    bool
	omitted int64
}

func newHeadTail(limit int) *headTail {
	if limit < 2 {
		limit = 2
	}
	return &headTail{limit: limit}
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := h.limit/2 - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	size := h.limit - h.limit/2
	for _, c := range p {
		if len(h.tail) < size {
			h.tail = append(h.tail, c)
			continue
		}
		h.full = true
		h.tail[h.pos] = c
		h.pos = (h.pos + 1) % size
		h.omitted++
	}
	return n, nil
}

// Bytes returns the kept output, with a marker where bytes were cut, and
// the number of bytes cut.
func (h *headTail) Bytes() ([]byte, int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]byte(nil), h.head...)
	if h.omitted > 0 {
		out = fmt.Appendf(out, "\n... [%d bytes omitted] ...\n", h.omitted)
	}
	if h.full {
		out = append(out, h.tail[h.pos:]...)
		return append(out, h.tail[:h.pos]...), h.omitted
	}
	return append(out, h.tail...), h.omitted
}

// teeWriter writes to the captured output and copies to a live view whose
// errors do not matter.
type teeWriter struct {
	main *headTail
	tee  io.Writer
}

func (w *teeWriter) Write(p []byte) (int, error) {
	n, err := w.main.Write(p)
	_, _ = w.tee.Write(p)
	return n, err
}
