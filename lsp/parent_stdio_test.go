package lsp_test

import (
	"os/exec"
	"testing"
)

// TestStdioEditorProcessGone runs the real binary with initialize's
// processId naming a real process; when that process dies (its pipes to
// the server stay open) the server exits with status 1.
func TestStdioEditorProcessGone(t *testing.T) {
	t.Parallel()
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = editor.Process.Kill(); _ = editor.Wait() })
	p := start(t, "serve")
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"processId": editor.Process.Pid, "rootUri": "file://" + p.cmd.Dir, "capabilities": map[string]any{}}})
	p.response(1)
	p.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	_ = editor.Process.Kill()
	_ = editor.Wait()
	if code := p.wait(); code != 1 {
		t.Fatalf("exit status %d, want 1; stderr %s", code, p.stderr.String())
	}
}
