package lsptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
	"github.com/agent-lsp/agent-lsp/tools"
)

type action struct {
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Command struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
}

func TestCodeActionsAndFix(t *testing.T) {
	t.Parallel()
	m := model(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "d", Name: "diagnostics", Arguments: `{"path":"a.go"}`}}},
		agenttest.Reply{Text: "fixed"},
	)
	e := lsptest.Connect(t, map[string]string{"a.go": "package a\n"}, initOpts(m))
	e.Open("a.go", "package a\nfunc f() { x }\n")
	diag := lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: 1, Character: 11}, End: lsp.Position{Line: 1, Character: 12}}, Severity: 1, Source: "compiler", Message: "undefined: x"}
	e.Notify(lsp.MethodDiagnostics, lsp.DiagnosticsParams{URI: e.URI("a.go"), Diagnostics: []lsp.Diagnostic{diag}})

	var actions []action
	start := time.Now()
	if err := e.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": e.URI("a.go")},
		"range":        lsp.Range{Start: lsp.Position{Line: 1}, End: lsp.Position{Line: 1, Character: 5}},
		"context":      map[string]any{"diagnostics": []lsp.Diagnostic{diag}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(m.Requests()) != 0 {
		t.Fatal("listing code actions called the model")
	}
	if len(actions) != 2 || actions[0].Kind != "quickfix" || actions[0].Title != "Fix with agent: undefined: x" ||
		actions[1].Kind != "refactor.rewrite" || actions[1].Command.Command != "agent-lsp.rewrite" {
		t.Fatalf("actions %+v (in %v)", actions, time.Since(start))
	}
	var res lsp.PromptResult
	if err := e.Call("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != "end_turn" || res.Text != "fixed" {
		t.Fatalf("fix result %+v", res)
	}
	reqs := m.Requests()
	first := reqs[0].Messages[len(reqs[0].Messages)-1]["content"].(string)
	if !strings.Contains(first, "undefined: x") || !strings.Contains(first, "func f() { x }") {
		t.Fatalf("fix prompt %q", first)
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "a.go:2:12: error [compiler]: undefined: x") {
		t.Fatalf("diagnostics tool said %q", got)
	}
	// The system prompt names every tool the model is offered, the
	// editor's diagnostics tool included.
	if sys := reqs[0].Messages[0]["content"].(string); !strings.Contains(sys, "diagnostics") || !reqs[0].HasTool("diagnostics") {
		t.Fatalf("diagnostics offered %v, system prompt %q", reqs[0].HasTool("diagnostics"), sys)
	}
}

// A code action's run that edits another file gets the refusal as a tool
// result it can act on, worded once, and the other file is untouched.
func TestCodeActionOtherFileIsAResult(t *testing.T) {
	t.Parallel()
	m := model(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r", Name: "read_file", Arguments: `{"path":"b.go"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "w", Name: "str_replace", Arguments: `{"path":"b.go","old_str":"package b","new_str":"package c"}`}}},
		agenttest.Reply{Text: "could not"},
	)
	e := lsptest.Connect(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n"}, initOpts(m))
	e.Open("a.go", "package a\n")
	args := map[string]any{"uri": e.URI("a.go"), "range": lsp.Range{End: lsp.Position{Character: 9}}}
	var res lsp.PromptResult
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agent-lsp.rewrite", "arguments": []any{args}}, &res); err != nil {
		t.Fatal(err)
	}
	got := m.Requests()[2].LastToolResult()
	if res.Reason != "end_turn" || !strings.Contains(got, "only edit the file the code action is about (a.go)") ||
		strings.Contains(got, "harness") || strings.Count(got, "b.go") != 1 {
		t.Fatalf("result %+v, the model was told %q", res, got)
	}
	if b, _ := os.ReadFile(e.Path("b.go")); string(b) != "package b\n" {
		t.Fatalf("b.go is %q", b)
	}
}

func TestDiagnosticsAfterEdit(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, nil)
	e.Open("a.go", "package a\n")
	// Write tools wait for diagnostics only from clients that send them.
	e.Notify(lsp.MethodDiagnostics, lsp.DiagnosticsParams{URI: e.URI("b.go"), Diagnostics: []lsp.Diagnostic{}})
	e.Sync()
	ws := e.Server.Workspace()
	var d tools.Diagnoser = ws
	gen := d.DiagnosticsGeneration()
	if err := ws.ApplyEdit(context.Background(), tools.Change{Path: "a.go", Old: []byte("package a\n"), New: []byte("package a\nvar x = y\n")}); err != nil {
		t.Fatal(err)
	}
	e.Notify(lsp.MethodDiagnostics, lsp.DiagnosticsParams{URI: e.URI("a.go"), Diagnostics: []lsp.Diagnostic{{Message: "undefined: y", Range: lsp.Range{Start: lsp.Position{Line: 1, Character: 8}}}}})
	got := d.DiagnosticsAfterEdit(context.Background(), "a.go", gen, 5*time.Second)
	if !strings.Contains(got, "a.go:2:9: error: undefined: y") {
		t.Fatalf("got %q", got)
	}
	// Nothing new: empty after the wait.
	if got := d.DiagnosticsAfterEdit(context.Background(), "a.go", d.DiagnosticsGeneration(), 10*time.Millisecond); got != "" {
		t.Fatalf("got %q", got)
	}
}

func TestLimitedWorkspace(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"a.go": "a\n", "b.go": "b\n"})
	ws := e.Server.Workspace().LimitTo(e.Path("a.go"))
	err := ws.ApplyEdit(context.Background(), tools.Change{Path: "b.go", Old: []byte("b\n"), New: []byte("B\n")})
	if !errors.Is(err, lsp.ErrOtherFile) {
		t.Fatalf("edit of another file: %v", err)
	}
	if err := ws.ApplyEdit(context.Background(), tools.Change{Path: "a.go", Old: []byte("a\n"), New: []byte("A\n")}); err != nil {
		t.Fatal(err)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "late", Delay: "30s"})
	o := initOpts(m)
	o.Capabilities = map[string]any{"window": map[string]any{"workDoneProgress": true}}
	e := lsptest.Connect(t, nil, o)
	done := make(chan lsp.PromptResult, 1)
	go func() {
		var res lsp.PromptResult
		_ = e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "refactor the parser"}, &res)
		done <- res
	}()
	begin := e.Await(func(n lsptest.Notification) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"begin"`)
	})
	var p struct {
		Token string `json:"token"`
		Value struct {
			Title       string `json:"title"`
			Cancellable bool   `json:"cancellable"`
		} `json:"value"`
	}
	_ = json.Unmarshal(begin.Params, &p)
	if p.Value.Title != "refactor the parser" || !p.Value.Cancellable {
		t.Fatalf("begin %s", begin.Params)
	}
	e.Notify("window/workDoneProgress/cancel", map[string]any{"token": p.Token})
	if res := <-done; res.Reason != "aborted" {
		t.Fatalf("result %+v", res)
	}
	e.Await(func(n lsptest.Notification) bool {
		return n.Method == "$/progress" && strings.Contains(string(n.Params), `"end"`)
	})
}

func TestSyncPlainClientWritesNotOpenFiles(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"b.txt": "old\n"}, lsptest.Options{
		OnApplyEdit: func(*lsptest.Env, lsptest.ApplyEditParams) lsptest.ApplyEditResult {
			return lsptest.ApplyEditResult{Applied: true} // kept in an unsaved buffer
		}})
	ws := e.Server.Workspace()
	if err := ws.ApplyEdit(context.Background(), tools.Change{Path: "b.txt", Old: []byte("old\n"), New: []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(e.Path("b.txt")); string(b) != "old\n" {
		t.Fatalf("disk %q before sync", b)
	}
	var s tools.Syncer = ws
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(e.Path("b.txt")); string(b) != "new\n" {
		t.Fatalf("disk %q after sync", b)
	}
}

func TestSyncAsksCapableClient(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"b.txt": "old\n"}, lsptest.Options{
		Capabilities: map[string]any{"experimental": map[string]any{"agentLsp": map[string]any{"saveRequest": true}}},
		OnApplyEdit: func(*lsptest.Env, lsptest.ApplyEditParams) lsptest.ApplyEditResult {
			return lsptest.ApplyEditResult{Applied: true}
		}})
	ws := e.Server.Workspace()
	if err := ws.ApplyEdit(context.Background(), tools.Change{Path: "b.txt", Old: []byte("old\n"), New: []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	if err := ws.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := e.AwaitRequest(func(r lsptest.Request) bool { return r.Method == lsp.MethodSaveDocuments })
	if !strings.Contains(string(r.Params), e.URI("b.txt")) {
		t.Fatalf("saveDocuments %s", r.Params)
	}
}

func TestDidChangeConfiguration(t *testing.T) {
	t.Parallel()
	m1 := model(t, agenttest.Reply{Text: "from one"})
	m2 := model(t, agenttest.Reply{Text: "from two"})
	e := lsptest.Connect(t, nil, initOpts(m1))
	e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agentLsp": map[string]any{"baseUrl": m2.URL, "model": "scripted"}}})
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "hi"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Text != "from two" {
		t.Fatalf("result %+v", res)
	}
}

// TestDidChangeConfigurationNotForUs: clients send an empty configuration
// (eglot, on connect) or other servers' sections; neither may wipe the
// settings from initializationOptions.
func TestDidChangeConfigurationNotForUs(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "still here"})
	e := lsptest.Connect(t, nil, initOpts(m))
	for _, settings := range []any{map[string]any{}, nil, map[string]any{"gopls": map[string]any{"staticcheck": true}}} {
		e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": settings})
	}
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "hi"}, &res); err != nil || res.Text != "still here" {
		t.Fatalf("result %+v %v", res, err)
	}
}

func TestEnvConfiguration(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "env"})
	e := lsptest.Connect(t, nil, lsptest.Options{Env: map[string]string{"AGENT_LSP_BASE_URL": m.URL, "AGENT_LSP_MODEL": "scripted"}})
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "hi"}, &res); err != nil || res.Text != "env" {
		t.Fatalf("result %+v %v", res, err)
	}
}

// A client that sends each server only its own diagnostics (Neovim 0.11+)
// still gets "Fix with agent" for the ones it forwarded on those lines.
func TestCodeActionFromForwardedDiagnostics(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"a.go": "package a\n"})
	e.Open("a.go", "package a\nfunc f() { x }\n")
	diag := lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: 1, Character: 11}, End: lsp.Position{Line: 1, Character: 12}}, Severity: 1, Source: "gopls", Message: "undefined: x"}
	other := lsp.Diagnostic{Range: lsp.Range{Start: lsp.Position{Line: 0}, End: lsp.Position{Line: 0, Character: 1}}, Severity: 2, Source: "gopls", Message: "elsewhere"}
	e.Notify(lsp.MethodDiagnostics, lsp.DiagnosticsParams{URI: e.URI("a.go"), Diagnostics: []lsp.Diagnostic{diag, other}})
	var actions []action
	if err := e.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": e.URI("a.go")},
		"range":        lsp.Range{Start: lsp.Position{Line: 1}, End: lsp.Position{Line: 1}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) != 1 || actions[0].Title != "Fix with agent: undefined: x" {
		t.Fatalf("actions %+v", actions)
	}
}
