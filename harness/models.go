package harness

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/agent-lsp/agent-lsp/provider/openai"
)

// ModelInfo is one model the endpoint serves, for a model picker.
type ModelInfo struct {
	ID string `json:"id"`
	// ContextWindow is the probed window in tokens, when known (0 else).
	ContextWindow int `json:"contextWindow,omitempty"`
}

// Models lists the models of the configured endpoint (GET /models). The
// configured model's window is probed (cached for a day, as sessions do);
// the others' come from that cache only, so listing costs one request
// however many models there are. The configured model is added when the
// endpoint does not list it, so a failed list still names it (with the
// error).
func (f *Factory) Models(ctx context.Context) (current string, models []ModelInfo, err error) {
	cfg := f.Config()
	auth := openai.Auth{APIKey: cfg.APIKey, Headers: cfg.Headers}
	ids, err := openai.ListModels(ctx, &http.Client{Timeout: 5 * time.Second}, cfg.BaseURL, auth)
	if cfg.Model != "" && !slices.Contains(ids, cfg.Model) {
		ids = append([]string{cfg.Model}, ids...)
	}
	cache := &openai.WindowCache{Path: filepath.Join(f.opts.StateDir, "windows.json"), TTL: 24 * time.Hour}
	for _, id := range ids {
		m := ModelInfo{ID: id}
		if id == cfg.Model {
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			ep, _ := cache.Endpoint(pctx, &http.Client{Timeout: 3 * time.Second}, cfg.BaseURL, id, auth)
			cancel()
			m.ContextWindow = ep.Window
		} else if ep, ok := cache.Lookup(cfg.BaseURL, id); ok {
			m.ContextWindow = ep.Window
		}
		models = append(models, m)
	}
	if cfg.ContextWindow > 0 {
		for i := range models {
			if models[i].ID == cfg.Model {
				models[i].ContextWindow = cfg.ContextWindow
			}
		}
	}
	return cfg.Model, models, err
}
