package harness

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/config"
)

// TestNewProbesWithConfiguredHeaders: a session behind an authenticating
// proxy learns its context window, because the probe New makes carries
// the configuration's headers and key as the model calls do.
func TestNewProbesWithConfiguredHeaders(t *testing.T) {
	t.Parallel()
	var refused atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Proxy-Token") != "s3cret" || r.Header.Get("Authorization") != "Bearer sk-probe-key-1" {
			refused.Add(1)
			http.Error(w, "proxy: unauthorized", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/props" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"default_generation_settings":{"n_ctx":12288}}`))
	}))
	defer srv.Close()
	cfg := config.Config{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-probe-key-1", Headers: map[string]string{"X-Proxy-Token": "s3cret"}}
	h, err := New(Options{Root: t.TempDir(), Config: cfg, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if got := h.AgentConfig.Context.Window; got != 12288 || refused.Load() != 0 {
		t.Errorf("window %d, %d probe requests refused by the proxy", got, refused.Load())
	}
}
