package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

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
		if n, err := c.Window(context.Background(), srv.Client(), srv.URL+"/v1", "m", ""); err != nil || n != 8192 {
			t.Fatalf("Window = %d, %v", n, err)
		}
	}
	// A new process reads the file instead of probing.
	c2 := &openai.WindowCache{Path: path}
	if n, err := c2.Window(context.Background(), srv.Client(), srv.URL+"/v1", "m", ""); err != nil || n != 8192 {
		t.Fatalf("Window from file = %d, %v", n, err)
	}
	if hits.Load() != 1 {
		t.Errorf("probed %d times, want 1", hits.Load())
	}
}
