package lsptest_test

import (
	"context"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// TestDidChangeOrder sends 3,000 incremental changes, with emoji, while a
// run is going, and checks the server's text is exactly the editor's.
func TestDidChangeOrder(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "late", Delay: "30s"})
	e := lsptest.Connect(t, nil, initOpts(m))
	go func() {
		var res lsp.PromptResult
		_ = e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "busy", SessionID: "busy"}, &res)
	}()
	e.Open("a.go", "start\n")
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"x", "😀", "\n", "é", "ab\ncd", ""}
	for i := 0; i < 3000; i++ {
		text, _, _ := e.Text("a.go")
		mp := lsp.NewMapper(text)
		a := rng.Intn(len(text) + 1)
		z := min(len(text), a+rng.Intn(4))
		r := lsp.Range{Start: mp.Position(lsp.UTF16, a), End: mp.Position(lsp.UTF16, z)}
		e.Edit("a.go", r, pieces[rng.Intn(len(pieces))]+fmt.Sprint(i%10))
	}
	e.Sync()
	want, _, _ := e.Text("a.go")
	got, err := e.Server.Workspace().ReadFile(context.Background(), "a.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("server text differs from the editor's after 3000 changes (%d vs %d bytes)", len(got), len(want))
	}
	e.Notify(lsp.MethodCancel, lsp.CancelParams{SessionID: "busy"})
}

func TestLargeDocument(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, nil)
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 20<<20/len(line)+1) // just over 20 MiB
	e.Open("big.txt", big)
	e.Edit("big.txt", lsp.Range{Start: lsp.Position{Line: 100000, Character: 0}, End: lsp.Position{Line: 100000, Character: 2}}, "😀")
	e.Sync()
	got, err := e.Server.Workspace().ReadFile(context.Background(), "big.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := e.Text("big.txt")
	if string(got) != want || len(got) < 20<<20 {
		t.Fatalf("big document: %d bytes, want %d", len(got), len(want))
	}
}

func TestRequestsBeforeInitializeAndUnknown(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, nil)
	// Unknown request: method not found; unknown notification: logged.
	err := e.Call("no/such", map[string]any{}, nil)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown method: %v", err)
	}
	e.Notify("no/such/notification", map[string]any{})
	// Bad params: invalid params, and the server keeps going.
	err = e.Call(lsp.MethodPrompt, map[string]any{"prompt": 42}, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid params") {
		t.Fatalf("bad params: %v", err)
	}
	e.Notify("textDocument/didChange", map[string]any{"textDocument": "oops"})
	e.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": e.URI("nope.go"), "version": 2}, "contentChanges": []any{map[string]any{"text": "x"}}})
	e.Sync()
	if err := e.Call("initialize", map[string]any{}, nil); err == nil {
		t.Fatal("a second initialize was accepted")
	}
}

func TestEditorProcessGone(t *testing.T) {
	t.Parallel()
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	e := lsptest.Connect(t, nil, lsptest.Options{ProcessID: editor.Process.Pid})
	_ = editor.Process.Kill()
	_ = editor.Wait()
	if code := e.WaitExit(); code != 1 {
		t.Fatalf("exit status %d", code)
	}
}

func TestLogsReachTheEditor(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, nil)
	e.Await(func(n lsptest.Notification) bool {
		return n.Method == "window/logMessage" && strings.Contains(string(n.Params), "Configuration")
	})
}
