package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/provider/openai"
)

func TestProbeContextWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		path    string
		body    string
		want    int
		wantErr bool
	}{
		{"ollama loaded model", "/api/ps", `{"models":[{"name":"other:7b","context_length":2048},{"name":"m:latest","model":"m:latest","context_length":4096}]}`, 4096, false},
		{"ollama num_ctx wins", "/api/show", `{"parameters":"stop \"<|im_end|>\"\nnum_ctx 16384","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}`, 16384, false},
		{"ollama context_length", "/api/show", `{"parameters":"","model_info":{"llama.context_length":131072}}`, 131072, false},
		{"llama.cpp props", "/props", `{"default_generation_settings":{"n_ctx":8192},"total_slots":1}`, 8192, false},
		{"llama.cpp top-level n_ctx", "/props", `{"n_ctx":4096}`, 4096, false},
		{"neither", "/nothing", `{}`, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != c.path {
					http.NotFound(w, r)
					return
				}
				if r.URL.Path == "/api/show" {
					var req map[string]string
					if json.NewDecoder(r.Body).Decode(&req) != nil || req["model"] != "m" {
						http.Error(w, "bad", http.StatusBadRequest)
						return
					}
				}
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			n, _, err := openai.ProbeContextWindow(context.Background(), srv.Client(), srv.URL+"/v1", "m", "")
			if (err != nil) != c.wantErr || n != c.want {
				t.Errorf("got %d, %v; want %d (error %v)", n, err, c.want, c.wantErr)
			}
		})
	}
}

func TestWindowCacheProbesOnce(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/props" {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		_, _ = w.Write([]byte(`{"default_generation_settings":{"n_ctx":8192}}`))
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "windows.json")
	c := &openai.WindowCache{Path: path}
	for range 3 {
		if n, err := c.Window(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{}); err != nil || n != 8192 {
			t.Fatalf("Window = %d, %v", n, err)
		}
	}
	// A new process reads the file instead of probing.
	c2 := &openai.WindowCache{Path: path}
	if n, err := c2.Window(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{}); err != nil || n != 8192 {
		t.Fatalf("Window from file = %d, %v", n, err)
	}
	if hits.Load() != 1 {
		t.Errorf("probed %d times, want 1", hits.Load())
	}
	// Lookup answers from the file and never probes.
	c3 := &openai.WindowCache{Path: path}
	if ep, ok := c3.Lookup(srv.URL+"/v1/", "m"); !ok || ep.Window != 8192 {
		t.Errorf("Lookup = %+v, %v", ep, ok)
	}
	if _, ok := c3.Lookup(srv.URL+"/v1", "other"); ok {
		t.Error("Lookup found a model never probed")
	}
	if hits.Load() != 1 {
		t.Errorf("Lookup probed")
	}
}

// TestProbeSendsHeaders: an endpoint behind an authenticating proxy is
// probed with the configured headers and key, as it is called.
func TestProbeSendsHeaders(t *testing.T) {
	t.Parallel()
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Proxy-Token") != "s3cret" || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "proxy: unauthorized", http.StatusUnauthorized)
			return
		}
		seen.Add(1)
		if r.URL.Path != "/props" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"default_generation_settings":{"n_ctx":8192}}`))
	}))
	defer srv.Close()
	auth := openai.Auth{APIKey: "k", Headers: map[string]string{"X-Proxy-Token": "s3cret"}}
	ep, err := openai.Probe(context.Background(), srv.Client(), srv.URL+"/v1", "m", auth)
	if err != nil || ep.Window != 8192 || ep.Server != openai.ServerLlamaCpp {
		t.Fatalf("Probe = %+v, %v", ep, err)
	}
	if _, err := openai.Probe(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{APIKey: "k"}); err == nil {
		t.Error("without the header the proxy refuses, so the probe must fail")
	}
	c := &openai.WindowCache{}
	if n, err := c.Window(context.Background(), srv.Client(), srv.URL+"/v1", "m", auth); err != nil || n != 8192 {
		t.Errorf("WindowCache.Window = %d, %v", n, err)
	}
	if seen.Load() < 2 {
		t.Errorf("%d authorised requests", seen.Load())
	}
}

// TestProbeServers: each server kind, its window and tool support.
func TestProbeServers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		routes map[string]string
		want   openai.Endpoint
	}{
		{"ollama loaded, tools", map[string]string{
			"/api/ps":   `{"models":[{"name":"m:latest","model":"m:latest","context_length":4096}]}`,
			"/api/show": `{"parameters":"","model_info":{"qwen2.context_length":32768},"capabilities":["completion","tools"]}`,
		}, openai.Endpoint{Server: openai.ServerOllama, Window: 4096, NativeWindow: 32768, Tools: openai.SupportYes}},
		{"ollama not loaded, no tools", map[string]string{
			"/api/ps":   `{"models":[]}`,
			"/api/show": `{"parameters":"num_ctx 2048","model_info":{"gemma3.context_length":131072},"capabilities":["completion"]}`,
		}, openai.Endpoint{Server: openai.ServerOllama, Window: 2048, NativeWindow: 131072, Tools: openai.SupportNo}},
		{"llama.cpp with template caps", map[string]string{
			"/props": `{"default_generation_settings":{"n_ctx":16384},"chat_template_caps":{"supports_tool_calls":true}}`,
		}, openai.Endpoint{Server: openai.ServerLlamaCpp, Window: 16384, Tools: openai.SupportYes}},
		{"lm studio", map[string]string{
			"/api/v0/models": `{"data":[{"id":"other","max_context_length":1},{"id":"m","type":"llm","max_context_length":32768,"loaded_context_length":8192,"capabilities":["tool_use"]}]}`,
		}, openai.Endpoint{Server: openai.ServerLMStudio, Window: 8192, Tools: openai.SupportYes}},
		{"vllm", map[string]string{
			"/v1/models": `{"object":"list","data":[{"id":"m","object":"model","owned_by":"vllm","max_model_len":12288}]}`,
		}, openai.Endpoint{Server: openai.ServerVLLM, Window: 12288}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := c.routes[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			ep, err := openai.Probe(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{})
			ep.WindowSource = ""
			if err != nil || ep != c.want {
				t.Errorf("Probe = %+v, %v; want %+v", ep, err, c.want)
			}
		})
	}
}

// A server that answers without telling the window (OpenAI, OpenRouter) is
// asked once: the answer is cached like a window, so later runs send their
// first request at once. A server that does not answer is asked again.
func TestNoWindowIsCached(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cache := &openai.WindowCache{Path: filepath.Join(t.TempDir(), "windows.json"), TTL: time.Hour}
	for i := range 2 {
		ep, err := cache.Endpoint(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{})
		if !errors.Is(err, openai.ErrNoWindow) || ep.Window != 0 {
			t.Fatalf("probe %d: %+v, %v", i, ep, err)
		}
	}
	first := hits.Load()
	if first == 0 {
		t.Fatal("the server was never asked")
	}
	again := &openai.WindowCache{Path: cache.Path, TTL: time.Hour} // a new run
	if _, err := again.Endpoint(context.Background(), srv.Client(), srv.URL+"/v1", "m", openai.Auth{}); !errors.Is(err, openai.ErrNoWindow) || hits.Load() != first {
		t.Fatalf("a cached answer asked the server again: %d requests after %d, %v", hits.Load(), first, err)
	}

	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL + "/v1"
	down.Close()
	for i := range 2 {
		if _, err := cache.Endpoint(context.Background(), http.DefaultClient, url, "m", openai.Auth{}); err == nil || errors.Is(err, openai.ErrNoWindow) {
			t.Fatalf("probe %d of a server that is down: %v", i, err)
		}
	}
}
