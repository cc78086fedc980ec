package inflight

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// TestCancelReachesDetachedCall runs real calls over a pipe: each handler
// detaches and waits on its context, and a $/cancelRequest for its id
// (number or string) ends it; the other call is untouched until its own.
func TestCancelReachesDetachedCall(t *testing.T) {
	var calls Calls
	parent, stop := context.WithCancel(context.Background())
	defer stop()
	a, b := net.Pipe()
	srv := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a))
	cli := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b))
	srv.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			return nil, calls.Cancel(json.RawMessage(req.Params()))
		}
		rctx, done := calls.Detach(parent, ctx, req.ID())
		defer done()
		<-rctx.Done()
		return "cancelled", nil
	})
	cli.Go(context.Background(), func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	defer srv.Close()
	defer cli.Close()

	ended := make(chan jsonrpc2.ID, 2)
	for range 2 {
		go func() {
			var res string
			id, err := cli.Call(context.Background(), "wait", nil, &res)
			if err != nil || res != "cancelled" {
				t.Errorf("call %v: %q %v", id, res, err)
			}
			ended <- id
		}()
	}
	// The ids are the client's 1 and 2; cancel 2 by number first.
	notify := func(id any) {
		if err := cli.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id}); err != nil {
			t.Fatal(err)
		}
	}
	waitRegistered(t, &calls, 2)
	notify(2)
	select {
	case id := <-ended:
		if n, _ := id.Number(); n != 2 {
			t.Fatalf("call %v ended, want 2", id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("call 2 not cancelled")
	}
	notify(99) // never made: ignored
	notify(2)  // already answered: ignored
	notify(1)
	<-ended
	waitRegistered(t, &calls, 0)
}

func TestCancelStringIDAndBadParams(t *testing.T) {
	var calls Calls
	got, done := calls.Detach(context.Background(), context.Background(), jsonrpc2.NewStringID("x7"))
	defer done()
	for _, bad := range []string{``, `null`, `{}`, `{"id":true}`, `{"id":1.5}`, `[`} {
		if err := calls.Cancel(json.RawMessage(bad)); err == nil {
			t.Errorf("Cancel(%q) = nil, want an error", bad)
		}
	}
	if err := calls.Cancel(json.RawMessage(`{"id":7}`)); err != nil || got.Err() != nil {
		t.Fatalf("number 7 must not cancel string \"x7\": %v %v", err, got.Err())
	}
	if err := calls.Cancel(json.RawMessage(`{"id":"x7"}`)); err != nil || got.Err() == nil {
		t.Fatalf("string id not cancelled: %v %v", err, got.Err())
	}
}

// waitRegistered waits until n calls are registered; the handlers detach
// on the connection's goroutines.
func waitRegistered(t *testing.T, c *Calls, n int) {
	t.Helper()
	for i := 0; ; i++ {
		c.mu.Lock()
		k := len(c.m)
		c.mu.Unlock()
		if k == n {
			return
		}
		if i == 10000 {
			t.Fatalf("%d calls registered, want %d", k, n)
		}
		time.Sleep(time.Millisecond)
	}
}
