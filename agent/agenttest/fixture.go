package agenttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// NeedClient skips a test whose client program (an editor, a protocol
// client library) is missing, except in CI or under scripts/test
// (AGENT_LSP_REQUIRE_CLIENTS set), which install every client: there it
// fails.
func NeedClient(t testing.TB, what, hint string) {
	t.Helper()
	proctest.Need(t, what, hint)
}

// Fixture starts a scripted model server (closed at the end of the test)
// and writes files (paths relative, directories made) into a fresh
// workspace, whose real path it returns: what the real-client tests start
// from.
func Fixture(t testing.TB, files map[string]string, replies ...Reply) (*Server, string) {
	t.Helper()
	m, err := NewServer(replies...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ws := t.TempDir()
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	for name, text := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m, ws
}
