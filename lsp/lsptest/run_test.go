package lsptest_test

// Runs driven by the scripted model through the fake editor: the write
// tools' edits, permission prompts from the bash tool, and no process
// outliving the client.

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
	"github.com/agent-lsp/agent-lsp/tools"
)

func call(id, name, args string) agenttest.Reply {
	return agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: id, Name: name, Arguments: args}}}
}

// toolResult is one tool_result event.
type toolResult struct {
	Name    string `json:"name"`
	Result  string `json:"result"`
	IsError bool   `json:"isError"`
}

func toolResults(e *lsptest.Env) []toolResult {
	var out []toolResult
	for _, n := range e.Notifications() {
		if lsptest.EventKind("tool_result")(n) {
			var r toolResult
			_ = json.Unmarshal(n.Params, &r)
			out = append(out, r)
		}
	}
	return out
}

func applyEdits(e *lsptest.Env) []lsptest.ApplyEditParams {
	var out []lsptest.ApplyEditParams
	for _, r := range e.Requests() {
		if r.Method == "workspace/applyEdit" {
			var p lsptest.ApplyEditParams
			_ = json.Unmarshal(r.Params, &p)
			out = append(out, p)
		}
	}
	return out
}

func prompt(t *testing.T, e *lsptest.Env, text string) lsp.PromptResult {
	t.Helper()
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: text}, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

const (
	diskMain    = "package main\n\nfunc main() {}\n"
	unsavedMain = "package main\n\n// 😀 say old things\nfunc main() {}\n"
)

func TestModelEditsThroughEditor(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r", "read_file", `{"path":"main.go"}`),
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		call("w", "write_file", `{"path":"pkg/new.txt","content":"fresh 😀\n"}`),
		agenttest.Reply{Text: "done"},
	)
	e := lsptest.Connect(t, map[string]string{"main.go": diskMain}, initOpts(m))
	e.Open("main.go", unsavedMain)

	start := time.Now()
	res := prompt(t, e, "say new things")
	if res.Reason != "end_turn" || res.ToolCalls != 3 {
		t.Fatalf("result %+v", res)
	}
	// This client never sends agent/diagnostics: the two edits must not
	// each wait tools.DiagnosticsWait (1.5 s) for diagnostics.
	if d := time.Since(start); d > 2*tools.DiagnosticsWait-500*time.Millisecond {
		t.Errorf("the run took %v", d)
	}
	for _, r := range toolResults(e) {
		if r.IsError {
			t.Fatalf("%s failed: %s", r.Name, r.Result)
		}
	}
	eds := applyEdits(e)
	if len(eds) != 2 {
		t.Fatalf("%d applyEdits, want 2", len(eds))
	}
	// str_replace: against the open buffer (version 1), only "old",
	// whose UTF-16 column counts the emoji as two units.
	des := eds[0].DocumentEdits()
	if eds[0].Label != "agent-lsp: str_replace main.go" || len(des) != 1 || des[0].TextDocument.URI != e.URI("main.go") ||
		des[0].TextDocument.Version == nil || *des[0].TextDocument.Version != 1 {
		t.Fatalf("str_replace edit %+v", eds[0])
	}
	want := lsp.Range{Start: lsp.Position{Line: 2, Character: 10}, End: lsp.Position{Line: 2, Character: 13}}
	if len(des[0].Edits) != 1 || des[0].Edits[0].Range != want || des[0].Edits[0].NewText != "new" {
		t.Fatalf("edits %+v, want %v -> new", des[0].Edits, want)
	}
	if got, v, _ := e.Text("main.go"); got != strings.Replace(unsavedMain, "old", "new", 1) || v != 2 {
		t.Fatalf("buffer v%d %q", v, got)
	}
	if b, _ := os.ReadFile(e.Path("main.go")); string(b) != diskMain {
		t.Fatalf("the disk changed: %q", b)
	}
	// write_file of a new file: CreateFile, then the insert.
	des = eds[1].DocumentEdits()
	if eds[1].Label != "agent-lsp: write_file pkg/new.txt" || len(des) != 2 || des[0].Kind != "create" || des[0].URI != e.URI("pkg/new.txt") ||
		des[1].TextDocument.URI != e.URI("pkg/new.txt") || len(des[1].Edits) != 1 || des[1].Edits[0].NewText != "fresh 😀\n" {
		t.Fatalf("write_file edit %+v", eds[1])
	}
	if b, _ := os.ReadFile(e.Path("pkg/new.txt")); string(b) != "fresh 😀\n" {
		t.Fatalf("new file %q", b)
	}
}

func TestModelEditRetriedAfterRefusal(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r", "read_file", `{"path":"main.go"}`),
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		agenttest.Reply{Text: "done"},
	)
	var mu sync.Mutex
	refused := false
	opts := initOpts(m)
	opts.OnApplyEdit = func(e *lsptest.Env, p lsptest.ApplyEditParams) lsptest.ApplyEditResult {
		mu.Lock()
		defer mu.Unlock()
		if !refused {
			refused = true
			return lsptest.ApplyEditResult{FailureReason: "busy"}
		}
		return e.ApplyEdit(p)
	}
	e := lsptest.Connect(t, map[string]string{"main.go": diskMain}, opts)
	e.Open("main.go", unsavedMain)
	res := prompt(t, e, "say new things")
	if res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	trs := toolResults(e)
	if len(trs) != 2 || trs[1].IsError {
		t.Fatalf("tool results %+v", trs)
	}
	if n := len(applyEdits(e)); n != 2 {
		t.Fatalf("%d applyEdits, want the refused one and its retry", n)
	}
	if got, _, _ := e.Text("main.go"); got != strings.Replace(unsavedMain, "old", "new", 1) {
		t.Fatalf("buffer %q", got)
	}
}

func TestModelEditConflictWhenBufferChanged(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r", "read_file", `{"path":"main.go"}`),
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		agenttest.Reply{Text: "done"},
	)
	opts := initOpts(m)
	opts.OnApplyEdit = func(e *lsptest.Env, p lsptest.ApplyEditParams) lsptest.ApplyEditResult {
		// The user typed at the top while the edit was on its way.
		e.Edit("main.go", lsp.Range{}, "// typed\n")
		return lsptest.ApplyEditResult{FailureReason: "version changed"}
	}
	e := lsptest.Connect(t, map[string]string{"main.go": diskMain}, opts)
	e.Open("main.go", unsavedMain)
	res := prompt(t, e, "say new things")
	if res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	trs := toolResults(e)
	if len(trs) != 2 || !trs[1].IsError || !strings.Contains(trs[1].Result, "changed") || !strings.Contains(trs[1].Result, "since you read it") {
		t.Fatalf("tool results %+v", trs)
	}
	if n := len(applyEdits(e)); n != 1 {
		t.Fatalf("%d applyEdits, want 1 (no retry over the user's change)", n)
	}
	if got, _, _ := e.Text("main.go"); got != "// typed\n"+unsavedMain {
		t.Fatalf("buffer %q", got)
	}
}

// answering is a showMessageRequest handler that records the prompts
// and answers with title ("" waits for the server to withdraw it).
type answering struct {
	mu    sync.Mutex
	asked []string
	title string
}

func (a *answering) handle(ctx context.Context, e *lsptest.Env, p json.RawMessage) any {
	a.mu.Lock()
	a.asked = append(a.asked, string(p))
	title := a.title
	a.mu.Unlock()
	if title == "" {
		select {
		case <-ctx.Done():
		case <-time.After(lsptest.Timeout):
		}
		return nil
	}
	return map[string]string{"title": title}
}

func (a *answering) prompts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

func TestBashPermissionPrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		second       bool // a second, similar command follows
		wantFiles    []string
		wantPrompts  int
	}{
		{name: "allow", answer: lsp.ActionAllow, wantFiles: []string{"x.txt"}, wantPrompts: 1},
		{name: "session", answer: lsp.ActionSession, second: true, wantFiles: []string{"x.txt", "y.txt"}, wantPrompts: 1},
		{name: "deny", answer: lsp.ActionDeny, wantPrompts: 1},
		{name: "timeout", answer: "", wantPrompts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			replies := []agenttest.Reply{call("b1", "bash", `{"command":"touch x.txt"}`)}
			if tc.second {
				replies = append(replies, call("b2", "bash", `{"command":"touch y.txt"}`))
			}
			m := model(t, append(replies, agenttest.Reply{Text: "done"})...)
			a := &answering{title: tc.answer}
			opts := initOpts(m)
			opts.InitOptions["approvalTimeout"] = "300ms"
			opts.OnShowMessageRequest = a.handle
			e := lsptest.Connect(t, nil, opts)
			start := time.Now()
			res := prompt(t, e, "make x")
			if res.Reason != "end_turn" {
				t.Fatalf("result %+v", res)
			}
			asked := a.prompts()
			if len(asked) != tc.wantPrompts {
				t.Fatalf("%d prompts, want %d: %v", len(asked), tc.wantPrompts, asked)
			}
			var p struct {
				Type    int    `json:"type"`
				Message string `json:"message"`
				Actions []struct {
					Title string `json:"title"`
				} `json:"actions"`
			}
			_ = json.Unmarshal([]byte(asked[0]), &p)
			if p.Type != 2 || len(p.Actions) != 3 || p.Actions[0].Title != lsp.ActionDeny || p.Actions[1].Title != lsp.ActionAllow || p.Actions[2].Title != lsp.ActionSession {
				t.Fatalf("prompt %s", asked[0])
			}
			for _, want := range []string{"wants to run `touch x.txt`", "`touch x.txt` is not in your allow list", "`touch *`"} {
				if !strings.Contains(p.Message, want) {
					t.Fatalf("prompt %q lacks %q", p.Message, want)
				}
			}
			for _, f := range []string{"x.txt", "y.txt"} {
				_, err := os.Stat(e.Path(f))
				want := contains(tc.wantFiles, f)
				if (err == nil) != want {
					t.Errorf("%s exists: %v, want %v", f, err == nil, want)
				}
			}
			trs := toolResults(e)
			denied := tc.answer == lsp.ActionDeny || tc.answer == ""
			if len(trs) == 0 || denied != strings.Contains(trs[0].Result, "the user refused it") {
				t.Fatalf("tool results %+v", trs)
			}
			if tc.answer == "" {
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("the timed-out prompt took %v", d)
				}
				e.Await(lsptest.Method("$/cancelRequest"))
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestNoProcessOutlivesTheClient starts a long command (allowed by the
// user's configuration, so no prompt) and drops the connection.
func TestNoProcessOutlivesTheClient(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("1000.%d", time.Now().UnixNano()%1_000_000_000)
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "agent-lsp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "agent-lsp", "config.toml"), []byte("[permissions.bash]\nallow = [\"sleep *\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := model(t, call("b", "bash", `{"command":"sleep `+marker+`"}`), agenttest.Reply{Text: "done"})
	opts := initOpts(m)
	opts.Env = map[string]string{"XDG_CONFIG_HOME": cfg}
	opts.OnShowMessageRequest = func(context.Context, *lsptest.Env, json.RawMessage) any {
		t.Error("asked although the configuration allows sleep")
		return nil
	}
	e := lsptest.Connect(t, nil, opts)
	go func() {
		var res lsp.PromptResult
		_ = e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "wait"}, &res)
	}()
	deadline := time.Now().Add(lsptest.Timeout)
	for len(proctest.Live(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sleep never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code := e.Disconnect(); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
	// Serve has returned: the command's processes are gone already.
	if pids := proctest.Live(marker); len(pids) > 0 {
		t.Fatalf("still running after the client left: %v", pids)
	}
}

// bufferedEditor applies edits of open documents to their buffers and
// keeps edits of other files in (unsaved) buffers of its own, as editors
// do, never writing the disk.
func bufferedEditor(e *lsptest.Env, p lsptest.ApplyEditParams) lsptest.ApplyEditResult {
	for _, te := range p.DocumentEdits() {
		if te.Kind != "" || te.TextDocument.Version == nil {
			return lsptest.ApplyEditResult{Applied: true}
		}
	}
	return e.ApplyEdit(p)
}

const syncScript = "b.txt: one\n"

func syncModel(t *testing.T) *agenttest.Server {
	return model(t,
		call("r1", "read_file", `{"path":"b.txt"}`),
		call("s1", "str_replace", `{"path":"b.txt","old_str":"one","new_str":"ONE"}`),
		call("r2", "read_file", `{"path":"main.go"}`),
		call("s2", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		call("b", "bash", `{"command":"cat b.txt main.go"}`),
		agenttest.Reply{Text: "done"},
	)
}

// TestRunSyncPlainClient: before a command, the server writes the edited
// file that was not open; the open one stays unsaved, so the command sees
// its disk text.
func TestRunSyncPlainClient(t *testing.T) {
	t.Parallel()
	opts := initOpts(syncModel(t))
	opts.OnApplyEdit = bufferedEditor
	e := lsptest.Connect(t, map[string]string{"b.txt": syncScript, "main.go": diskMain}, opts)
	e.Open("main.go", unsavedMain)
	if res := prompt(t, e, "edit, then cat"); res.Reason != "end_turn" || res.ToolCalls != 5 {
		t.Fatalf("result %+v", res)
	}
	trs := toolResults(e)
	out := trs[len(trs)-1].Result
	if !strings.Contains(out, "b.txt: ONE") || !strings.Contains(out, "func main() {}") || strings.Contains(out, "things") {
		t.Fatalf("the command saw %q", out)
	}
	if b, _ := os.ReadFile(e.Path("b.txt")); string(b) != "b.txt: ONE\n" {
		t.Fatalf("b.txt on disk %q", b)
	}
	if b, _ := os.ReadFile(e.Path("main.go")); string(b) != diskMain {
		t.Fatalf("main.go on disk %q: the server wrote under an open buffer", b)
	}
	for _, r := range e.Requests() {
		if r.Method == lsp.MethodSaveDocuments {
			t.Fatal("agent/saveDocuments sent to a client that did not ask for it")
		}
	}
}

// TestRunSyncCapableClient: a client declaring saveRequest is asked to
// save both edited files, and the server writes nothing itself.
func TestRunSyncCapableClient(t *testing.T) {
	t.Parallel()
	opts := initOpts(syncModel(t))
	opts.OnApplyEdit = bufferedEditor
	opts.Capabilities = map[string]any{
		"workspace":    map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}},
		"experimental": map[string]any{"agentLsp": map[string]any{"saveRequest": true}},
	}
	e := lsptest.Connect(t, map[string]string{"b.txt": syncScript, "main.go": diskMain}, opts)
	e.Open("main.go", unsavedMain)
	if res := prompt(t, e, "edit, then cat"); res.Reason != "end_turn" || res.ToolCalls != 5 {
		t.Fatalf("result %+v", res)
	}
	var saves []string
	for _, r := range e.Requests() {
		if r.Method == lsp.MethodSaveDocuments {
			saves = append(saves, string(r.Params))
		}
	}
	if len(saves) != 1 || !strings.Contains(saves[0], e.URI("b.txt")) || !strings.Contains(saves[0], e.URI("main.go")) {
		t.Fatalf("saveDocuments %v", saves)
	}
	// This fake editor does not really save: the disk is untouched.
	if b, _ := os.ReadFile(e.Path("b.txt")); string(b) != syncScript {
		t.Fatalf("b.txt on disk %q: the server wrote it for a saving client", b)
	}
}

// TestRunEditsFileNotOpenTwice: an editor that keeps the edit of a file
// that was not open in a buffer it never reports (Neovim loads it into a
// buffer it does not attach) still holds the old text on disk. The next
// read and edit must see the edited text, not the disk.
func TestRunEditsFileNotOpenTwice(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r1", "read_file", `{"path":"b.txt"}`),
		call("s1", "str_replace", `{"path":"b.txt","old_str":"one","new_str":"ONE"}`),
		call("s2", "str_replace", `{"path":"b.txt","old_str":"ONE","new_str":"TWO"}`),
		call("w", "write_file", `{"path":"c.txt","content":"new file\n"}`),
		call("r2", "read_file", `{"path":"b.txt"}`),
		call("r3", "read_file", `{"path":"c.txt"}`),
		call("b", "bash", `{"command":"cat b.txt c.txt"}`),
		agenttest.Reply{Text: "done"},
	)
	opts := initOpts(m)
	opts.OnApplyEdit = bufferedEditor
	e := lsptest.Connect(t, map[string]string{"b.txt": "b.txt: one\n"}, opts)
	if res := prompt(t, e, "edit twice"); res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	trs := toolResults(e)
	if len(trs) != 7 {
		t.Fatalf("tool results %+v", trs)
	}
	for _, r := range trs {
		if r.IsError {
			t.Fatalf("%s failed: %s", r.Name, r.Result)
		}
	}
	if !strings.Contains(trs[4].Result, "b.txt: TWO") || !strings.Contains(trs[5].Result, "new file") {
		t.Fatalf("reads after the edits: %q, %q", trs[4].Result, trs[5].Result)
	}
	// The second edit was computed against the first one's text.
	eds := applyEdits(e)
	if len(eds) != 3 || eds[1].DocumentEdits()[0].Edits[0].Range != (lsp.Range{Start: lsp.Position{Character: 7}, End: lsp.Position{Character: 10}}) {
		t.Fatalf("edits %+v", eds)
	}
	if out := trs[6].Result; !strings.Contains(out, "b.txt: TWO") || !strings.Contains(out, "new file") {
		t.Fatalf("the command saw %q", out)
	}
}

// TestModelWritesNewFileWithoutCreate: a client that cannot create files
// through a WorkspaceEdit gets no applyEdit; the server creates the file.
func TestModelWritesNewFileWithoutCreate(t *testing.T) {
	t.Parallel()
	m := model(t, call("w", "write_file", `{"path":"pkg/new.txt","content":"fresh\n"}`), agenttest.Reply{Text: "done"})
	opts := initOpts(m)
	opts.Capabilities = map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}}}
	e := lsptest.Connect(t, nil, opts)
	if res := prompt(t, e, "write"); res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	if trs := toolResults(e); len(trs) != 1 || trs[0].IsError {
		t.Fatalf("tool results %+v", trs)
	}
	if n := len(applyEdits(e)); n != 0 {
		t.Fatalf("%d applyEdits, want none", n)
	}
	if b, _ := os.ReadFile(e.Path("pkg/new.txt")); string(b) != "fresh\n" {
		t.Fatalf("new file %q", b)
	}
}
