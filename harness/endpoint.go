package harness

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/provider/openai"
)

// probeEndpoint asks the server what it is, the model's window and its
// tool support, with the configured key and headers (probed once and
// cached for a day). A failed probe leaves what it learnt (the server
// kind, perhaps) and no window.
func probeEndpoint(cfg config.Config, state string, log *slog.Logger) openai.Endpoint {
	cache := &openai.WindowCache{Path: filepath.Join(state, "windows.json"), TTL: 24 * time.Hour, ProbeTimeout: 3 * time.Second}
	ep, err := cache.Endpoint(context.Background(), &http.Client{Timeout: 3 * time.Second}, cfg.BaseURL, cfg.Model, openai.Auth{APIKey: cfg.APIKey, Headers: cfg.Headers})
	if err != nil {
		log.Debug("Context window not probed; using the default", "err", err)
	}
	return ep
}

// OllamaNumCtx is the context size a run asks of Ollama through its
// native /api/chat, or 0 to use /v1/chat/completions: not Ollama, or
// ollama_native = false (provider/openai OllamaContext says how it is
// chosen).
func OllamaNumCtx(cfg config.Config, ep openai.Endpoint) int {
	if !cfg.UseOllamaNative() {
		return 0
	}
	return openai.OllamaContext(ep, cfg.ContextWindow)
}

// endpointNotices are the warnings the first run shows about the endpoint.
func endpointNotices(cfg config.Config, ep openai.Endpoint, window int) []string {
	var out []string
	if ep.Tools == openai.SupportNo {
		out = append(out, fmt.Sprintf("%s does not declare tool support on %s: its tool calls may arrive as text (agent-lsp recovers the usual formats) or not at all; a model that lists tools works better", cfg.Model, ep.Server))
	}
	if window > 0 && window < agent.SmallWindow {
		src := ep.WindowSource
		if cfg.ContextWindow > 0 {
			src = "context_window in the configuration"
		}
		out = append(out, fmt.Sprintf("%s runs with a %d-token context window (%s): agent-lsp shortens the tool descriptions and caps tool results to fit; to give it more room, %s", cfg.Model, window, src, openai.WindowSetting(ep.Server)))
	}
	return out
}

// hostedAPI says whether baseURL is a hosted API rather than a model server
// of the user's: no known local server answered the probe and the host is
// neither loopback nor a private or link-local address (nor "localhost" or
// a single-label or .local name). Hosted APIs refuse a prompt longer than
// the window; Ollama, and some llama.cpp and LM Studio versions, cut it.
func hostedAPI(baseURL string, kind openai.ServerKind) bool {
	if kind != openai.ServerUnknown {
		return false
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if ip, err := netip.ParseAddr(host); err == nil {
		return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
	}
	return host != "localhost" && !strings.HasSuffix(host, ".localhost") && !strings.HasSuffix(host, ".local") &&
		!strings.HasSuffix(host, ".internal") && strings.Contains(host, ".")
}
