package harness

import (
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/config"
)

// secretValues are the values of the environment's credential-like
// variables and the API key, for the bash tool to redact. Only names that
// say key, token, secret, password, credential or cookie count (the sandbox
// scrubs more, such as every GITHUB_ variable, but redacting a workspace
// path would blind the agent), and paths are not secrets.
func secretValues(env []string, more ...string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= 8 && !strings.HasPrefix(v, "/") && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		n := strings.ToUpper(name)
		if strings.HasSuffix(n, "_PAT") || strings.HasSuffix(n, "_AUTH") || slices.ContainsFunc(
			[]string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "COOKIE"},
			func(s string) bool { return strings.Contains(n, s) }) {
			add(val)
		}
	}
	for _, v := range more {
		add(v)
	}
	return out
}

// secrets are the values no transcript may hold.
func secrets(cfg config.Config) []string {
	var out []string
	if cfg.APIKey != "" {
		out = append(out, cfg.APIKey)
	}
	for _, v := range cfg.Headers {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
