package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/rawfile"
)

// ProbeContextWindow asks the server behind an OpenAI-compatible base URL
// for the model's context window, in tokens, and says where the number
// came from (see Probe for the order).
func ProbeContextWindow(ctx context.Context, client *http.Client, baseURL, model, apiKey string) (int, string, error) {
	ep, err := Probe(ctx, client, baseURL, model, Auth{APIKey: apiKey})
	return ep.Window, ep.WindowSource, err
}

// Auth is what every probe request carries: the API key and the
// configured extra headers, so that an endpoint behind an authenticating
// proxy is probed as it is called.
type Auth struct {
	APIKey  string
	Headers map[string]string
}

func probeGet(ctx context.Context, client *http.Client, method, url string, auth Auth, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+auth.APIKey)
	}
	for k, v := range auth.Headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %w", method, url, resp.Status, errStatus)
	}
	return data, nil
}

// errStatus marks a probe the server answered with another status than
// 200: it is there, it just does not have that endpoint.
var errStatus = errors.New("not 200")

// ErrNoWindow is the probe's error when the server answered but told no
// context window for the model (OpenAI, OpenRouter, most hosted APIs). It
// is cached like a window, so a run does not ask again.
var ErrNoWindow = errors.New("the server does not report the context window")

// ollamaRunning reads the context_length of model among the loaded ones.
func ollamaRunning(data []byte, model string) int {
	var ps struct {
		Models []struct {
			Name          string  `json:"name"`
			Model         string  `json:"model"`
			ContextLength float64 `json:"context_length"`
		} `json:"models"`
	}
	if json.Unmarshal(data, &ps) != nil {
		return 0
	}
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			s += ":latest"
		}
		return s
	}
	for _, m := range ps.Models {
		if norm(m.Name) == norm(model) || norm(m.Model) == norm(model) {
			return int(m.ContextLength)
		}
	}
	return 0
}

// llamaCppWindow reads default_generation_settings.n_ctx, or a top-level
// n_ctx.
func llamaCppWindow(data []byte) int {
	var props struct {
		NCtx     float64 `json:"n_ctx"`
		Defaults struct {
			NCtx float64 `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if json.Unmarshal(data, &props) != nil {
		return 0
	}
	if props.Defaults.NCtx > 0 {
		return int(props.Defaults.NCtx)
	}
	return int(props.NCtx)
}

// WindowCache remembers probed endpoints per server and model, in
// memory and, when Path is set, in a JSON file, so a server is probed
// once, not on every start. Entries older than TTL (if set) are probed
// again: the user may have restarted Ollama with a larger context. A
// probe gets at most ProbeTimeout (if set); the deadline is only made for
// a probe, as a hit on the cache needs none.
type WindowCache struct {
	Path         string
	TTL          time.Duration
	ProbeTimeout time.Duration
	mu           sync.Mutex
	m            map[string]windowEntry
}

type windowEntry struct {
	Tokens int       `json:"tokens"`
	Probed time.Time `json:"probed"`
	// The rest of the Endpoint; absent in caches written before.
	Source string     `json:"source,omitempty"`
	Server ServerKind `json:"server,omitempty"`
	Native int        `json:"native,omitempty"`
	Tools  Support    `json:"tools,omitempty"`
	// NoWindow records a server that answered without a window.
	NoWindow bool `json:"noWindow,omitempty"`
}

// Window returns the cached window of model at baseURL, probing it on a
// miss. A failed probe is not cached.
func (c *WindowCache) Window(ctx context.Context, client *http.Client, baseURL, model string, auth Auth) (int, error) {
	ep, err := c.Endpoint(ctx, client, baseURL, model, auth)
	return ep.Window, err
}

// loadLocked reads the cache file on first use.
func (c *WindowCache) loadLocked() {
	if c.m == nil {
		c.m = map[string]windowEntry{}
		if c.Path != "" {
			if data, err := rawfile.ReadFile(c.Path); err == nil {
				if m, ok := readWindows(data); ok {
					c.m = m
				} else {
					_ = json.Unmarshal(data, &c.m)
				}
			}
			if c.m == nil { // the file held null
				c.m = map[string]windowEntry{}
			}
		}
	}
}

// Lookup returns what the cache knows of model at baseURL without probing
// (a model list shows the windows already learnt).
func (c *WindowCache) Lookup(baseURL, model string) (Endpoint, bool) {
	key := strings.TrimRight(baseURL, "/") + " " + model
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	e, ok := c.m[key]
	if !ok || e.Tokens <= 0 {
		return Endpoint{}, false
	}
	return Endpoint{Server: e.Server, Window: e.Tokens, WindowSource: e.Source, NativeWindow: e.Native, Tools: e.Tools}, true
}

// Endpoint returns what the cache knows of model at baseURL, probing it
// on a miss (or when the entry is older than TTL). A probe that found no
// window is not cached.
func (c *WindowCache) Endpoint(ctx context.Context, client *http.Client, baseURL, model string, auth Auth) (Endpoint, error) {
	key := strings.TrimRight(baseURL, "/") + " " + model
	c.mu.Lock()
	c.loadLocked()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && (e.Tokens > 0 || e.NoWindow) && (c.TTL <= 0 || time.Since(e.Probed) < c.TTL) {
		ep := Endpoint{Server: e.Server, Window: e.Tokens, WindowSource: e.Source, NativeWindow: e.Native, Tools: e.Tools}
		if e.NoWindow {
			return ep, noWindow(baseURL, model)
		}
		return ep, nil
	}
	if c.ProbeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.ProbeTimeout)
		defer cancel()
	}
	ep, err := Probe(ctx, client, baseURL, model, auth)
	if err != nil && !errors.Is(err, ErrNoWindow) {
		return ep, err // the server did not answer: ask again next time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = windowEntry{Tokens: ep.Window, Probed: time.Now().UTC(), Source: ep.WindowSource, Server: ep.Server, Native: ep.NativeWindow, Tools: ep.Tools, NoWindow: err != nil}
	if c.Path != "" {
		if werr := writeJSON(c.Path, c.m); werr != nil {
			return ep, errors.Join(errors.New("could not save the window cache"), werr, err)
		}
	}
	return ep, err
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ServerKind names the software behind an OpenAI-compatible endpoint.
type ServerKind string

// The servers the probe recognises.
const (
	ServerUnknown  ServerKind = ""
	ServerOllama   ServerKind = "ollama"
	ServerLlamaCpp ServerKind = "llama.cpp"
	ServerVLLM     ServerKind = "vllm"
	ServerLMStudio ServerKind = "lmstudio"
)
