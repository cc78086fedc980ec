package mcp

import (
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// baseEnv are the variables a stdio server inherits from agent-lsp's
// environment (Codex's list, plus locale, XDG, proxy and CA settings
// that node and python need to work behind a corporate proxy). Nothing
// else: not the API key, not any *_TOKEN of the user's shell. A server
// that needs a secret gets it from its own env table.
var baseEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// serverEnv is the base variables of environ plus the server's table
// (which wins), sorted so that a definition gives the same environment
// every time.
func serverEnv(environ []string, table map[string]string) []string {
	vals := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && slices.Contains(baseEnv, k) {
			vals[k] = v
		}
	}
	for k, v := range table {
		vals[k] = v
	}
	out := make([]string, 0, len(vals))
	for _, k := range slices.Sorted(mapKeys(vals)) {
		out = append(out, k+"="+vals[k])
	}
	return out
}

// Caps on a server's stderr: what goes to the log, and what is kept for
// an error message.
const (
	maxStderrLog  = 64 << 10
	maxStderrTail = 2 << 10
	maxStderrLine = 1 << 10
)

// stderrLog sends a server's stderr to the log line by line, up to
// maxStderrLog bytes, and keeps its last maxStderrTail bytes for the
// message of a failed start.
type stderrLog struct {
	log    *slog.Logger
	server string

	mu      sync.Mutex
	line    []byte
	logged  int
	dropped bool
	tail    []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tail = append(w.tail, p...)
	if len(w.tail) > maxStderrTail {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-maxStderrTail:]...)
	}
	for _, c := range p {
		if c == '\n' || len(w.line) >= maxStderrLine {
			w.flush()
			if c == '\n' {
				continue
			}
		}
		w.line = append(w.line, c)
	}
	return len(p), nil
}

func (w *stderrLog) flush() {
	line := strings.ToValidUTF8(strings.TrimRight(string(w.line), "\r"), "\uFFFD")
	w.line = w.line[:0]
	if line == "" {
		return
	}
	if w.logged+len(line) > maxStderrLog {
		if !w.dropped {
			w.dropped = true
			w.log.Info("MCP server stderr: further output dropped", "server", w.server, "cap", maxStderrLog)
		}
		return
	}
	w.logged += len(line)
	w.log.Info("MCP server stderr", "server", w.server, "line", line)
}

// Tail is the end of what the server wrote to stderr, on one line.
func (w *stderrLog) Tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return clipLine(strings.ToValidUTF8(string(w.tail), "\uFFFD"), 400)
}
