package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestStdioNoProcessOutlivesTheClient runs a long bash command (allowed by
// the user's configuration) in the real binary, then the editor goes away:
// it closes the server's stdin, or the server itself is killed. Once the
// server has exited, no process of the command may be left.
func TestStdioNoProcessOutlivesTheClient(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"stdin closed", "server killed"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			t.Parallel()
			marker := fmt.Sprintf("1000.%d", time.Now().UnixNano()%1_000_000_000)
			m, err := agenttest.NewServer(
				agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "b", Name: "bash", Arguments: `{"command":"sleep ` + marker + `"}`}}},
				agenttest.Reply{Text: "done"},
			)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			p := start(t, "serve")
			cfg := filepath.Join(p.cmd.Dir, ".config", "agent-lsp")
			if err := os.MkdirAll(cfg, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("[permissions.bash]\nallow = [\"sleep *\"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
				"rootUri": "file://" + p.cmd.Dir, "capabilities": map[string]any{},
				"initializationOptions": map[string]any{"baseUrl": m.URL, "model": "scripted", "apiKey": "k"}}})
			p.response(1)
			p.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
			p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "agent/prompt", "params": map[string]any{"prompt": "wait"}})
			go func() { // keep reading stdout so the server never blocks on it
				buf := make([]byte, 4096)
				for {
					if _, err := p.out.Read(buf); err != nil {
						return
					}
				}
			}()
			deadline := time.Now().Add(20 * time.Second)
			for len(proctest.Live(marker)) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("the sleep never started; stderr %s", p.stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if how == "stdin closed" {
				p.in.Close()
				if code := p.wait(); code != 1 {
					t.Fatalf("exit status %d, want 1", code)
				}
				if pids := proctest.Live(marker); len(pids) > 0 {
					t.Fatalf("still running after the server exited: %v", pids)
				}
				return
			}
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			p.wait()
			// Nothing reaps the command for a killed server; its processes
			// must die with it (at once, or very soon).
			deadline = time.Now().Add(2 * time.Second)
			for pids := proctest.Live(marker); len(pids) > 0; pids = proctest.Live(marker) {
				if time.Now().After(deadline) {
					t.Fatalf("still running after the server was killed: %v", pids)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}
