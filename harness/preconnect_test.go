package harness

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
)

// With Preconnect the model's server sees a connection before any request
// of the turn, and the turn's request comes on it; without, the request
// makes or reuses its own.
func TestPreconnectDialsWhileTheHarnessIsBuilt(t *testing.T) {
	t.Parallel()
	for _, ahead := range []bool{true, false} {
		var mu sync.Mutex
		var chats []string
		conns := make(chan string, 16)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if r.URL.Path != "/v1/chat/completions" { // the endpoint probe
				http.NotFound(w, r)
				return
			}
			mu.Lock()
			chats = append(chats, r.RemoteAddr)
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}))
		srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns <- c.RemoteAddr().String()
			}
		}
		srv.Start()
		defer srv.Close()
		state := t.TempDir()
		cfg := config.Config{BaseURL: srv.URL + "/v1", Model: "m"}
		// A first harness probes the endpoint and caches what it found, so
		// the second one sends nothing before its turn.
		warm, err := New(Options{Root: t.TempDir(), Config: cfg, StateDir: state, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		warm.Close()
		for len(conns) > 0 {
			<-conns
		}
		h, err := New(Options{Root: t.TempDir(), Config: cfg, StateDir: state, Log: slog.New(slog.DiscardHandler), Preconnect: ahead})
		if err != nil {
			t.Fatal(err)
		}
		var first string
		if ahead {
			select {
			case first = <-conns:
			case <-time.After(10 * time.Second):
				t.Fatal("no connection dialled ahead")
			}
		}
		conv, err := h.NewSession("")
		if err != nil {
			t.Fatal(err)
		}
		if res := h.Agent.Run(context.Background(), conv, "say hi", func(agent.Event) {}); res.Text != "hi" {
			t.Fatalf("turn: %+v", res)
		}
		conv.Transcript().Close()
		h.Close()
		mu.Lock()
		got := chats
		mu.Unlock()
		if len(got) != 1 || ahead && got[0] != first {
			t.Errorf("ahead=%v: chat requests from %v, connection dialled ahead %q", ahead, got, first)
		}
		if !ahead {
			// The request dials, or reuses the probe's idle connection.
			for len(conns) > 0 {
				if c := <-conns; c != got[0] {
					t.Errorf("a connection %s besides the request's %s", c, got[0])
				}
			}
		}
	}
}
