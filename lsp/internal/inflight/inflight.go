// Package inflight lets $/cancelRequest reach a JSON-RPC call that is
// answered off the read loop: the server's long requests and the test
// editor's prompts. jsonrpc2.CancelHandler does this job but derives from
// the request's pooled context (see Detach).
package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Calls are the calls being answered. The zero value is ready to use.
type Calls struct {
	mu sync.Mutex
	m  map[jsonrpc2.ID]context.CancelFunc
}

// Detach releases the read loop for call id (jsonrpc2.Async on its request
// context reqCtx) and returns the context for the rest of the call, which
// parent ending or a Cancel naming id cancels. Call done when the call
// ends. The context derives from parent, not reqCtx: jsonrpc2 pools request
// contexts, and a context.WithCancel on one can outlive the request (the
// race detector catches its propagation goroutine reading a recycled one).
func (c *Calls) Detach(parent, reqCtx context.Context, id jsonrpc2.ID) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(parent)
	// Registered before the read loop moves on, so a $/cancelRequest that
	// follows right behind the call finds it.
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[jsonrpc2.ID]context.CancelFunc)
	}
	c.m[id] = cancel
	c.mu.Unlock()
	jsonrpc2.Async(reqCtx)
	return ctx, func() {
		c.mu.Lock()
		delete(c.m, id)
		c.mu.Unlock()
		cancel()
	}
}

// Cancel handles the params of $/cancelRequest: the call they name, if it
// is still being answered, sees its context cancelled. A call already
// answered or never made is no error; params without a valid id are.
func (c *Calls) Cancel(params json.RawMessage) error {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return errors.New("$/cancelRequest: " + err.Error())
	}
	id, err := ParseID(p.ID)
	if err != nil {
		return err
	}
	c.mu.Lock()
	cancel := c.m[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// ParseID reads a JSON-RPC request id: a number or a string.
func ParseID(raw json.RawMessage) (jsonrpc2.ID, error) {
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil {
		return jsonrpc2.NewNumberID(n), nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return jsonrpc2.NewStringID(str), nil
	}
	return jsonrpc2.ID{}, errors.New("bad request id")
}
