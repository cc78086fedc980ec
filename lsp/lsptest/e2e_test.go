package lsptest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
	"github.com/agent-lsp/agent-lsp/tools"
)

func model(t *testing.T, replies ...agenttest.Reply) *agenttest.Server {
	t.Helper()
	s, err := agenttest.NewServer(replies...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func initOpts(m *agenttest.Server) lsptest.Options {
	return lsptest.Options{InitOptions: map[string]any{"baseUrl": m.URL, "model": "scripted", "apiKey": "k"}}
}

func TestPromptReadsUnsavedBuffer(t *testing.T) {
	t.Parallel()
	m := model(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		agenttest.Reply{Text: "It prints hello."},
	)
	e := lsptest.Connect(t, map[string]string{"main.go": "package main // on disk\n"}, initOpts(m))
	e.Open("main.go", "package main // UNSAVED\n")

	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "what does it do?"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != "end_turn" || res.Text != "It prints hello." || res.ToolCalls != 1 || res.SessionID == "" {
		t.Fatalf("result %+v", res)
	}
	reqs := m.Requests()
	got := reqs[len(reqs)-1].LastToolResult()
	if !strings.Contains(got, "UNSAVED") || strings.Contains(got, "on disk") {
		t.Fatalf("read_file saw %q, want the unsaved buffer", got)
	}
	// Events carry the session id, in order, ending with "end".
	end := e.Await(lsptest.EventKind("end"))
	var ev map[string]any
	_ = json.Unmarshal(end.Params, &ev)
	if ev["sessionId"] != res.SessionID || ev["reason"] != "end_turn" {
		t.Fatalf("end event %s", end.Params)
	}
	e.Await(lsptest.EventKind("tool_result"))
	if code := e.Close(); code != 0 {
		t.Fatalf("exit status %d after shutdown+exit", code)
	}
}

func TestSessionContinues(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "one"}, agenttest.Reply{Text: "two"})
	e := lsptest.Connect(t, nil, initOpts(m))
	var r1, r2 lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "first"}, &r1); err != nil {
		t.Fatal(err)
	}
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "second", SessionID: r1.SessionID}, &r2); err != nil {
		t.Fatal(err)
	}
	if r2.SessionID != r1.SessionID || r2.Text != "two" {
		t.Fatalf("second %+v", r2)
	}
	reqs := m.Requests()
	if n := len(reqs[1].Messages); n < 4 {
		t.Fatalf("second request has %d messages, want the first exchange too", n)
	}
}

func TestPromptWithDocumentContext(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "ok"})
	e := lsptest.Connect(t, map[string]string{"a.go": "disk\n"}, initOpts(m))
	e.Open("a.go", "line one\nline two 😀\nline three\n")
	p := lsp.PromptParams{Prompt: "explain"}
	p.TextDocument = &struct {
		URI string `json:"uri"`
	}{e.URI("a.go")}
	p.Range = &lsp.Range{Start: lsp.Position{Line: 1}, End: lsp.Position{Line: 1, Character: 11}}
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, p, &res); err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	last, _ := msgs[len(msgs)-1]["content"].(string)
	if !strings.Contains(last, "line three") || !strings.Contains(last, "selection (lines 2-2)") || !strings.Contains(last, "line two 😀") {
		t.Fatalf("prompt %q", last)
	}
}

func TestCancelRequestAborts(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "late", Delay: "30s"})
	e := lsptest.Connect(t, nil, initOpts(m))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan lsp.PromptResult, 1)
	idc := make(chan any, 1)
	go func() {
		var res lsp.PromptResult
		id, _ := e.Conn.Call(ctx, lsp.MethodPrompt, lsp.PromptParams{Prompt: "slow"}, &res)
		n, _ := id.Number()
		idc <- n
		done <- res
	}()
	// Wait until the run reached the model, then cancel the request. The
	// client-side Call returns at once; the server ends the run "aborted".
	awaitModel(t, m)
	cancel()
	e.Notify("$/cancelRequest", map[string]any{"id": <-idc})
	end := e.Await(lsptest.EventKind("end"))
	if !strings.Contains(string(end.Params), `"reason":"aborted"`) {
		t.Fatalf("end %s", end.Params)
	}
}

func TestAgentCancelAborts(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "late", Delay: "30s"})
	e := lsptest.Connect(t, nil, initOpts(m))
	done := make(chan lsp.PromptResult, 1)
	go func() {
		var res lsp.PromptResult
		if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "slow", SessionID: "mine"}, &res); err != nil {
			t.Error(err)
		}
		done <- res
	}()
	awaitModel(t, m)
	e.Notify(lsp.MethodCancel, lsp.CancelParams{SessionID: "mine"})
	res := <-done
	if res.Reason != "aborted" || res.SessionID != "mine" {
		t.Fatalf("result %+v", res)
	}
}

func TestDisconnectCancelsRuns(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "late", Delay: "30s"})
	e := lsptest.Connect(t, nil, initOpts(m))
	go func() {
		var res lsp.PromptResult
		_ = e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "slow"}, &res)
	}()
	awaitModel(t, m)
	if code := e.Disconnect(); code != 1 {
		t.Fatalf("exit status %d after the client vanished, want 1", code)
	}
	// Serve returned, which means every run finished (it waits for them).
}

// awaitModel waits until the model server has received a request; its
// scripted reply is still in its delay.
func awaitModel(t *testing.T, m *agenttest.Server) {
	t.Helper()
	<-m.Arrived()
}

func TestApplyEditVersionAndUTF16(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"a.go": "x"})
	text := "first\nemoji 😀 old tail\nlast\n"
	e.Open("a.go", text)
	e.Sync()
	ws := e.Server.Workspace()
	start := strings.Index(text, "old")
	c := tools.Change{Path: "a.go", Old: []byte(text), New: []byte(strings.Replace(text, "old", "new", 1)),
		Replacements: []tools.Replacement{{Start: start, End: start + 3, Text: "new"}}, Label: "agent-lsp: str_replace a.go"}
	if err := ws.ApplyEdit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	r := e.AwaitRequest(func(r lsptest.Request) bool { return r.Method == "workspace/applyEdit" })
	var p lsptest.ApplyEditParams
	_ = json.Unmarshal(r.Params, &p)
	des := p.DocumentEdits()
	if p.Label != c.Label || len(des) != 1 || des[0].TextDocument.Version == nil || *des[0].TextDocument.Version != 1 {
		t.Fatalf("applyEdit %s", r.Params)
	}
	ed := des[0].Edits
	// "emoji 😀 " is 6 + 2 + 1 = 9 UTF-16 units.
	if len(ed) != 1 || ed[0].Range.Start != (lsp.Position{Line: 1, Character: 9}) || ed[0].Range.End != (lsp.Position{Line: 1, Character: 12}) || ed[0].NewText != "new" {
		t.Fatalf("edits %+v", ed)
	}
	got, v, _ := e.Text("a.go")
	if got != string(c.New) || v != 2 {
		t.Fatalf("buffer %q v%d", got, v)
	}
	// The server saw the didChange: a read returns the new text.
	b, err := ws.ReadFile(context.Background(), "a.go")
	if err != nil || string(b) != string(c.New) {
		t.Fatalf("read back %q %v", b, err)
	}
	// A change computed against the old text now conflicts, unsent.
	before := len(e.Requests())
	if err := ws.ApplyEdit(context.Background(), c); !errors.Is(err, tools.ErrConflict) {
		t.Fatalf("stale change: %v", err)
	}
	if len(e.Requests()) != before {
		t.Fatal("a stale change was sent")
	}
}

func TestApplyEditRejected(t *testing.T) {
	t.Parallel()
	rejected := 0
	var mu sync.Mutex
	e := lsptest.Connect(t, map[string]string{"a.go": "x"}, lsptest.Options{
		Capabilities: map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}}},
		OnApplyEdit: func(e *lsptest.Env, p lsptest.ApplyEditParams) lsptest.ApplyEditResult {
			mu.Lock()
			defer mu.Unlock()
			if rejected == 0 {
				rejected++
				return lsptest.ApplyEditResult{Applied: false, FailureReason: "user typed"}
			}
			return e.ApplyEdit(p)
		}})
	e.Open("a.go", "hello\n")
	e.Sync()
	ws := e.Server.Workspace()
	c := tools.Change{Path: "a.go", Old: []byte("hello\n"), New: []byte("hello world\n")}
	if err := ws.ApplyEdit(context.Background(), c); !errors.Is(err, tools.ErrConflict) {
		t.Fatalf("first: %v, want ErrConflict", err)
	}
	if err := ws.ApplyEdit(context.Background(), c); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if got, _, _ := e.Text("a.go"); got != "hello world\n" {
		t.Fatalf("buffer %q", got)
	}
}

func TestApplyEditNotOpenAndNewFile(t *testing.T) {
	t.Parallel()
	e := lsptest.Connect(t, map[string]string{"b.txt": "one\ntwo\nthree\n"})
	ws := e.Server.Workspace()
	c := tools.Change{Path: "b.txt", Old: []byte("one\ntwo\nthree\n"), New: []byte("one\nTWO\nthree\n")}
	if err := ws.ApplyEdit(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	r := e.AwaitRequest(func(r lsptest.Request) bool { return r.Method == "workspace/applyEdit" })
	var p lsptest.ApplyEditParams
	_ = json.Unmarshal(r.Params, &p)
	des := p.DocumentEdits()
	if len(des) != 1 || des[0].TextDocument.Version != nil {
		t.Fatalf("not-open edit should have a null version: %s", r.Params)
	}
	if err := ws.ApplyEdit(context.Background(), tools.Change{Path: "new/c.txt", New: []byte("made\n")}); err != nil {
		t.Fatal(err)
	}
	r = e.AwaitRequest(func(r lsptest.Request) bool {
		return r.Method == "workspace/applyEdit" && strings.Contains(string(r.Params), `"kind":"create"`)
	})
	if !strings.Contains(string(r.Params), "made") {
		t.Fatalf("create %s", r.Params)
	}
}

func TestApproverAnswers(t *testing.T) {
	t.Parallel()
	answers := make(chan any, 4)
	var msgs []string
	var mu sync.Mutex
	e := lsptest.Connect(t, nil, lsptest.Options{OnShowMessageRequest: func(ctx context.Context, e *lsptest.Env, p json.RawMessage) any {
		mu.Lock()
		msgs = append(msgs, string(p))
		mu.Unlock()
		select {
		case a := <-answers:
			return a
		case <-ctx.Done():
			return nil
		}
	}})
	ap := e.Server.Approver()
	req := harness.ApprovalRequest{Tool: "bash", Subject: "rm -rf build", Reason: "deletes files", SessionRule: "bash rm *"}
	for _, tc := range []struct {
		answer any
		want   harness.Approval
	}{
		{map[string]string{"title": lsp.ActionAllow}, harness.Allow},
		{map[string]string{"title": lsp.ActionSession}, harness.AllowForSession},
		{map[string]string{"title": lsp.ActionDeny}, harness.Deny},
		{nil, harness.Deny}, // dismissed
	} {
		answers <- tc.answer
		got, err := ap.Approve(context.Background(), req)
		if err != nil || got != tc.want {
			t.Fatalf("answer %v: got %v, %v; want %v", tc.answer, got, err, tc.want)
		}
	}
	mu.Lock()
	first := msgs[0]
	mu.Unlock()
	for _, want := range []string{"wants to run `rm -rf build`", "Deletes files", "Allow for this session"} {
		if !strings.Contains(first, want) {
			t.Fatalf("prompt %s lacks %q", first, want)
		}
	}
}

func TestApproverTimeoutDenies(t *testing.T) {
	t.Parallel()
	withdrawn := make(chan struct{})
	e := lsptest.Connect(t, nil, lsptest.Options{
		InitOptions: map[string]any{"approvalTimeout": "50ms"},
		OnShowMessageRequest: func(ctx context.Context, e *lsptest.Env, p json.RawMessage) any {
			<-ctx.Done() // never answers; the server withdraws the prompt
			close(withdrawn)
			return nil
		}})
	got, err := e.Server.Approver().Approve(context.Background(), harness.ApprovalRequest{Tool: "bash", Subject: "make"})
	if err != nil || got != harness.Deny {
		t.Fatalf("got %v %v", got, err)
	}
	// The editor is told to take the prompt down: $/cancelRequest for it.
	e.Await(func(n lsptest.Notification) bool { return n.Method == "$/cancelRequest" })
	select {
	case <-withdrawn:
	case <-time.After(lsptest.Timeout):
		t.Fatal("the $/cancelRequest did not name the prompt")
	}
}

func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	m := model(t)
	release := make(chan struct{})
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	m.SetFunc(func(r agenttest.ChatRequest) agenttest.Reply {
		mu.Lock()
		arrived++
		if arrived == 2 {
			close(both)
		}
		mu.Unlock()
		<-release
		last, _ := r.Messages[len(r.Messages)-1]["content"].(string)
		return agenttest.Reply{Text: "answer to " + last}
	})
	e := lsptest.Connect(t, nil, initOpts(m))
	results := make(chan lsp.PromptResult, 2)
	for _, id := range []string{"a", "b"} {
		go func() {
			var res lsp.PromptResult
			if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "q" + id, SessionID: id}, &res); err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	<-both // both runs reached the model at once
	// A second prompt to a running session is refused.
	err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "again", SessionID: "a"}, nil)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("busy session: %v", err)
	}
	close(release)
	got := map[string]string{}
	for range 2 {
		r := <-results
		got[r.SessionID] = r.Text
	}
	if got["a"] != "answer to qa" || got["b"] != "answer to qb" {
		t.Fatalf("results %v", got)
	}
}

func TestApproverOneAtATime(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	outstanding, most := 0, 0
	e := lsptest.Connect(t, nil, lsptest.Options{OnShowMessageRequest: func(ctx context.Context, e *lsptest.Env, p json.RawMessage) any {
		mu.Lock()
		outstanding++
		most = max(most, outstanding)
		mu.Unlock()
		defer func() { mu.Lock(); outstanding--; mu.Unlock() }()
		// Another prompt must not arrive while this one is shown: wait
		// for a request count change or answer after one round trip.
		e.Sync()
		return map[string]string{"title": lsp.ActionAllow}
	}})
	ap := e.Server.Approver()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := ap.Approve(context.Background(), harness.ApprovalRequest{Tool: "bash", Subject: fmt.Sprint("cmd ", i)})
			if err != nil || got != harness.Allow {
				t.Errorf("got %v %v", got, err)
			}
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d prompts were shown at once", most)
	}
}
