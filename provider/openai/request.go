package openai

import (
	"bytes"
	"net"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// The encoder makes request bodies. A conversation only grows at its end
// between turns (agent/loop.go, rule 4), so each message is encoded once
// and kept; a turn encodes only what is new and sends the cached pieces as
// they are (net.Buffers: no copy into one body). Lanes keep the encodings
// of a few conversations at once (a run and its subagents share one
// client); the lane with the longest equal prefix is reused. Messages are
// compared field by field, which costs nothing for the strings a history
// shares with the previous turn (equal pointers compare in O(1)).
//
// With numCtx set the messages and the head are in Ollama's native
// /api/chat format (ollama.go); a client keeps one format for its life,
// so the cached encodings are all of one kind.
type encoder struct {
	lanes  [maxLanes]lane
	numCtx int
}

const maxLanes = 4

type lane struct {
	msgs []provider.Message
	enc  [][]byte // enc[i] is msgs[i] encoded, with a leading ',' for i > 0
	used time.Time

	specs []tools.Spec
	tail  []byte // what follows the messages: "]" and the tools encoded
}

// body returns the request body for req; the caller holds the lock.
func (e *encoder) body(model string, req provider.Request) net.Buffers {
	l := e.pick(req.Messages)
	l.used = time.Now()
	n := 0
	for n < len(l.msgs) && n < len(req.Messages) && sameWire(l.msgs[n], req.Messages[n]) {
		n++
	}
	l.msgs, l.enc = append(l.msgs[:n], req.Messages[n:]...), l.enc[:n]
	for i := n; i < len(req.Messages); i++ {
		var b []byte
		if e.numCtx > 0 {
			b = encodeOllamaMessage(req.Messages, i)
			if i > 0 {
				b = append([]byte{','}, b...)
			}
		} else {
			// Sized ahead: grown from nil, the system prompt went through
			// thirty size classes, a fresh span (and page) for most.
			b = make([]byte, 0, messageSize(req.Messages[i])+1)
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMessage(b, req.Messages[i])
		}
		l.enc = append(l.enc, b)
	}
	if l.tail == nil || !sameSpecs(l.specs, req.Tools) {
		l.specs, l.tail = req.Tools, encodeTools([]byte{']'}, `,"tools":`, req.Tools)
	}
	out := make(net.Buffers, 0, len(l.enc)+3)
	out = append(out, []byte(`{"messages":[`))
	out = append(out, l.enc...)
	out = append(out, l.tail)
	var head []byte
	if e.numCtx > 0 {
		head = ollamaHead(model, e.numCtx, req.MaxTokens)
		head[0] = ','
	} else {
		head = encodeHead(model, req.MaxTokens)
	}
	return append(out, head)
}

// pick returns the lane whose messages share the longest prefix with msgs,
// or the least recently used one.
func (e *encoder) pick(msgs []provider.Message) *lane {
	best, bestN := -1, 0
	for i := range e.lanes {
		l := &e.lanes[i]
		if len(l.msgs) > 0 && len(msgs) > 0 && sameWire(l.msgs[0], msgs[0]) {
			n := 1
			for n < len(l.msgs) && n < len(msgs) && sameWire(l.msgs[n], msgs[n]) {
				n++
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
	}
	if best >= 0 {
		return &e.lanes[best]
	}
	old := 0
	for i := range e.lanes {
		if e.lanes[i].used.Before(e.lanes[old].used) {
			old = i
		}
	}
	e.lanes[old] = lane{}
	return &e.lanes[old]
}

// sameWire reports whether a and b encode alike (Reasoning and IsError
// are not sent; Name is, as Ollama's tool_name).
func sameWire(a, b provider.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || a.Name != b.Name || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}

func sameSpecs(a, b []tools.Spec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}
