package harness

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/provider/openai"
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

// TestHostedAPI: the window rule of the cut detector stays on for the
// user's own servers and is off for hosted APIs, which refuse an
// over-long prompt instead of cutting it.
func TestHostedAPI(t *testing.T) {
	for _, c := range []struct {
		url    string
		kind   openai.ServerKind
		hosted bool
	}{
		{"https://api.openai.com/v1", openai.ServerUnknown, true},
		{"https://openrouter.ai/api/v1", openai.ServerUnknown, true},
		{"https://8.8.8.8/v1", openai.ServerUnknown, true},
		{"http://localhost:11434/v1", openai.ServerUnknown, false},
		{"http://127.0.0.1:8080/v1", openai.ServerUnknown, false},
		{"http://[::1]:8080/v1", openai.ServerUnknown, false},
		{"http://192.168.1.20:1234/v1", openai.ServerUnknown, false},
		{"http://10.0.0.5:8000/v1", openai.ServerUnknown, false},
		{"http://gpu-box:8000/v1", openai.ServerUnknown, false},
		{"http://gpu.local:8000/v1", openai.ServerUnknown, false},
		{"https://ollama.example.com/v1", openai.ServerOllama, false},
		{"https://llm.example.com/v1", openai.ServerVLLM, false},
		{"::bad", openai.ServerUnknown, false},
	} {
		if got := hostedAPI(c.url, c.kind); got != c.hosted {
			t.Errorf("hostedAPI(%q, %q) = %v, want %v", c.url, c.kind, got, c.hosted)
		}
	}
}
