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
	"strconv"
	"strings"
	"sync"
	"time"
)

// ProbeContextWindow asks the server behind an OpenAI-compatible base URL
// for the model's context window, in tokens, and says where the number
// came from. In order:
//
//  1. Ollama's GET /api/ps: the context_length the loaded model runs with;
//  2. Ollama's POST /api/show: num_ctx from the parameters, else the
//     model's own context_length (the server may run it with less:
//     OLLAMA_CONTEXT_LENGTH, which defaults to 4k on small GPUs);
//  3. llama.cpp's GET /props: n_ctx.
//
// Other servers do not say; the error then tells the user to set it.
func ProbeContextWindow(ctx context.Context, client *http.Client, baseURL, model, apiKey string) (int, string, error) {
	if client == nil {
		client = http.DefaultClient
	}
	root := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1")
	if data, err := probeGet(ctx, client, http.MethodGet, root+"/api/ps", apiKey, nil); err == nil {
		if n := ollamaRunning(data, model); n > 0 {
			return n, "ollama /api/ps", nil
		}
	}
	body, _ := json.Marshal(map[string]string{"model": model, "name": model})
	if data, err := probeGet(ctx, client, http.MethodPost, root+"/api/show", apiKey, body); err == nil {
		if n := ollamaWindow(data); n > 0 {
			return n, "ollama /api/show", nil
		}
	}
	if data, err := probeGet(ctx, client, http.MethodGet, root+"/props", apiKey, nil); err == nil {
		if n := llamaCppWindow(data); n > 0 {
			return n, "llama.cpp /props", nil
		}
	}
	if ctx.Err() != nil {
		return 0, "", ctx.Err()
	}
	return 0, "", fmt.Errorf("%s does not report the context window of %s; set context_window in the configuration", baseURL, model)
}

func probeGet(ctx context.Context, client *http.Client, method, url, apiKey string, body []byte) ([]byte, error) {
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
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
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
		return nil, fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return data, nil
}

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

// ollamaWindow reads num_ctx from the parameters text, else
// <arch>.context_length from model_info.
func ollamaWindow(data []byte) int {
	var show struct {
		Parameters string                     `json:"parameters"`
		ModelInfo  map[string]json.RawMessage `json:"model_info"`
	}
	if json.Unmarshal(data, &show) != nil {
		return 0
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			var n float64
			if json.Unmarshal(v, &n) == nil && n > 0 {
				return int(n)
			}
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

// WindowCache remembers probed context windows per server and model, in
// memory and, when Path is set, in a JSON file, so a server is probed
// once, not on every start. Entries older than TTL (if set) are probed
// again: the user may have restarted Ollama with a larger context.
type WindowCache struct {
	Path string
	TTL  time.Duration
	mu   sync.Mutex
	m    map[string]windowEntry
}

type windowEntry struct {
	Tokens int       `json:"tokens"`
	Probed time.Time `json:"probed"`
}

// Window returns the cached window of model at baseURL, probing it on a
// miss. A failed probe is not cached.
func (c *WindowCache) Window(ctx context.Context, client *http.Client, baseURL, model, apiKey string) (int, error) {
	key := strings.TrimRight(baseURL, "/") + " " + model
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]windowEntry{}
		if c.Path != "" {
			if data, err := os.ReadFile(c.Path); err == nil {
				_ = json.Unmarshal(data, &c.m)
			}
		}
	}
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && e.Tokens > 0 && (c.TTL <= 0 || time.Since(e.Probed) < c.TTL) {
		return e.Tokens, nil
	}
	n, _, err := ProbeContextWindow(ctx, client, baseURL, model, apiKey)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = windowEntry{Tokens: n, Probed: time.Now().UTC()}
	if c.Path != "" {
		if err := writeJSON(c.Path, c.m); err != nil {
			return n, errors.Join(errors.New("could not save the window cache"), err)
		}
	}
	return n, nil
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
