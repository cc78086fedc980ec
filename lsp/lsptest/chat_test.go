package lsptest_test

// The chat's server side (issue 16): the rich approval prompt, sessions
// and their history, models, mentions, and the events a chat draws
// (run_start, context, tool_output).

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// richCaps declares agent/approve support, as our editors do.
var richCaps = map[string]any{
	"workspace":    map[string]any{"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create"}}},
	"experimental": map[string]any{"agentLsp": map[string]any{"approve": true}},
}

func events(e *lsptest.Env, typ string) []map[string]any {
	var out []map[string]any
	for _, n := range e.Notifications() {
		if lsptest.EventKind(typ)(n) {
			var m map[string]any
			_ = json.Unmarshal(n.Params, &m)
			out = append(out, m)
		}
	}
	return out
}

// TestApproveRequest: a client declaring experimental.agentLsp.approve
// gets agent/approve, never window/showMessageRequest: the call id, the
// session, the command, the reason in plain words, the choices with Deny
// first; "allow for this session" adds the rule, so the next matching
// command is not asked.
func TestApproveRequest(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("c1", "bash", `{"command":"touch a.txt"}`),
		call("c2", "bash", `{"command":"touch b.txt"}`),
		agenttest.Reply{Text: "done"})
	opts := initOpts(m)
	opts.Capabilities = richCaps
	var asked []lsp.ApproveParams
	opts.OnApprove = func(_ context.Context, _ *lsptest.Env, p lsp.ApproveParams) any {
		asked = append(asked, p)
		return lsp.ApproveResult{Choice: lsp.ChoiceSession}
	}
	opts.OnShowMessageRequest = func(context.Context, *lsptest.Env, json.RawMessage) any {
		t.Error("showMessageRequest sent to a client that takes agent/approve")
		return nil
	}
	e := lsptest.Connect(t, nil, opts)
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "make files", SessionID: "chat-1"}, &res); err != nil || res.Reason != "end_turn" {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times: %+v", len(asked), asked)
	}
	p := asked[0]
	if p.SessionID != "chat-1" || p.CallID != "c1" || p.Tool != "bash" || p.Subject != "touch a.txt" || p.Action != "run" {
		t.Fatalf("params %+v", p)
	}
	if len(p.Reasons) != 1 || p.Reasons[0] != "`touch a.txt` is not in your allow list" || p.SessionRule != "touch *" {
		t.Fatalf("reasons %q, rule %q", p.Reasons, p.SessionRule)
	}
	var ids []string
	for _, c := range p.Choices {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != "deny,allow,allow_session" || p.Choices[2].Rule != "touch *" || p.TimeoutSeconds != 300 {
		t.Fatalf("choices %+v timeout %d", p.Choices, p.TimeoutSeconds)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(e.Path(f)); err != nil {
			t.Errorf("%s not made: %v", f, err)
		}
	}
}

// TestApproveNullDenies: a dismissed card (null) and an unknown choice
// deny.
func TestApproveNullDenies(t *testing.T) {
	t.Parallel()
	for _, answer := range []any{nil, lsp.ApproveResult{Choice: "maybe"}} {
		m := model(t, call("c1", "bash", `{"command":"touch a.txt"}`), agenttest.Reply{Text: "ok"})
		opts := initOpts(m)
		opts.Capabilities = richCaps
		opts.OnApprove = func(context.Context, *lsptest.Env, lsp.ApproveParams) any { return answer }
		e := lsptest.Connect(t, nil, opts)
		prompt(t, e, "make a file")
		if _, err := os.Stat(e.Path("a.txt")); err == nil {
			t.Errorf("answer %v: the command ran", answer)
		}
		if rs := toolResults(e); len(rs) != 1 || !rs[0].IsError || !strings.Contains(rs[0].Result, "refused") {
			t.Errorf("answer %v: results %+v", answer, rs)
		}
	}
}

// TestSessionsAndHistory: two chats are listed (most recent first, titled
// by their prompts), the history shows the prompt without the editor's
// context and the tool call with its result; rename and delete.
func TestSessionsAndHistory(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r1", "read_file", `{"path":"main.go"}`),
		agenttest.Reply{Text: "It is a main package."},
		agenttest.Reply{Text: "Second answer."})
	e := lsptest.Connect(t, map[string]string{"main.go": "package main\n"}, initOpts(m))
	e.Open("main.go", "package main // unsaved\n")
	var res lsp.PromptResult
	p := lsp.PromptParams{Prompt: "What is main.go?", SessionID: "s-one"}
	p.TextDocument = &struct {
		URI string `json:"uri"`
	}{e.URI("main.go")}
	if err := e.Call(lsp.MethodPrompt, p, &res); err != nil {
		t.Fatal(err)
	}
	if err := e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "Another chat", SessionID: "s-two"}, &res); err != nil {
		t.Fatal(err)
	}
	var list lsp.SessionsResult
	if err := e.Call(lsp.MethodSessions, lsp.SessionsParams{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 2 || list.Sessions[0].ID != "s-two" || list.Sessions[1].Title != "What is main.go?" ||
		list.Sessions[1].Messages < 4 || list.Sessions[1].Workspace != e.Root {
		t.Fatalf("sessions %+v", list.Sessions)
	}
	var h lsp.SessionHistory
	if err := e.Call(lsp.MethodSessionHistory, lsp.SessionRef{SessionID: "s-one"}, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Turns) != 3 || h.Turns[0].Role != "user" || h.Turns[0].Text != "What is main.go?" {
		t.Fatalf("history %+v", h.Turns)
	}
	if c := h.Turns[1].ToolCalls; len(c) != 1 || c[0].Name != "read_file" || !strings.Contains(c[0].Result, "unsaved") {
		t.Fatalf("tool calls %+v", h.Turns[1])
	}
	if h.Turns[2].Text != "It is a main package." || h.Turns[2].Ending != "end_turn" {
		t.Fatalf("answer %+v", h.Turns[2])
	}
	if err := e.Call(lsp.MethodRenameSession, lsp.RenameSessionParams{SessionID: "s-one", Title: "About main"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Call(lsp.MethodDeleteSession, lsp.SessionRef{SessionID: "s-two"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Call(lsp.MethodSessions, lsp.SessionsParams{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].Title != "About main" {
		t.Fatalf("after rename and delete: %+v", list.Sessions)
	}
	for _, bad := range []string{"", "../x", "nope"} {
		if err := e.Call(lsp.MethodSessionHistory, lsp.SessionRef{SessionID: bad}, &h); err == nil {
			t.Errorf("history of %q: no error", bad)
		}
	}
}

// TestModelsAndModelParam: agent/models lists the endpoint's models; a
// prompt's model reaches the endpoint and stays for the session's next
// prompt, which keeps the conversation.
func TestModelsAndModelParam(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "one"}, agenttest.Reply{Text: "two"}, agenttest.Reply{Text: "three"})
	m.SetModels("scripted", "big-model")
	e := lsptest.Connect(t, nil, initOpts(m))
	var ms lsp.ModelsResult
	if err := e.Call(lsp.MethodModels, lsp.ModelsParams{}, &ms); err != nil {
		t.Fatal(err)
	}
	if ms.Current != "scripted" || len(ms.Models) != 2 || ms.Models[1].ID != "big-model" || ms.Error != "" {
		t.Fatalf("models %+v", ms)
	}
	var res lsp.PromptResult
	for _, p := range []lsp.PromptParams{
		{Prompt: "first", SessionID: "m1"},
		{Prompt: "second", SessionID: "m1", Model: "big-model"},
		{Prompt: "third", SessionID: "m1"},
	} {
		if err := e.Call(lsp.MethodPrompt, p, &res); err != nil || res.Reason != "end_turn" {
			t.Fatalf("%s: %+v %v", p.Prompt, res, err)
		}
	}
	reqs := m.Requests()
	if len(reqs) != 3 || reqs[0].Model != "scripted" || reqs[1].Model != "big-model" || reqs[2].Model != "big-model" {
		t.Fatalf("models sent: %v", []string{reqs[0].Model, reqs[1].Model, reqs[2].Model})
	}
	if b, _ := json.Marshal(reqs[1].Messages); !strings.Contains(string(b), "first") {
		t.Fatalf("the switched session lost its history: %s", b)
	}
}

// TestPromptContextMentions: mentioned files reach the model with their
// paths (an open document's unsaved text wins), a range only its lines,
// a folder as a listing; nothing outside the workspace is read.
func TestPromptContextMentions(t *testing.T) {
	t.Parallel()
	m := model(t, agenttest.Reply{Text: "seen"})
	e := lsptest.Connect(t, map[string]string{
		"a.go": "package a // disk\n", "pkg/b.go": "line1\nline2\nline3\n", "pkg/sub/c.go": "c\n",
	}, initOpts(m))
	e.Open("a.go", "package a // UNSAVED\n")
	r := lsp.Range{Start: lsp.Position{Line: 1}, End: lsp.Position{Line: 2}}
	p := lsp.PromptParams{Prompt: "look", Context: []lsp.ContextItem{
		{URI: e.URI("a.go")}, {URI: e.URI("pkg/b.go"), Range: &r}, {URI: e.URI("pkg")}, {URI: "file:///etc/passwd"},
	}}
	var res lsp.PromptResult
	if err := e.Call(lsp.MethodPrompt, p, &res); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(m.Requests()[0].Messages)
	got := string(b)
	for _, want := range []string{"a.go", "UNSAVED", "pkg/b.go, lines 2-3", "line2", "the folder pkg/", "sub/", "b.go"} {
		if !strings.Contains(got, want) {
			t.Errorf("the model did not get %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"// disk", "line3", "root:"} {
		if strings.Contains(got, not) {
			t.Errorf("the model got %q", not)
		}
	}
}

// TestChatEvents: every run opens with run_start; usage is followed by a
// context event with the last request's prompt tokens (not the running
// total); bash output streams as tool_output before its result.
func TestChatEvents(t *testing.T) {
	t.Parallel()
	m := model(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "b1", Name: "bash", Arguments: `{"command":"echo streamed"}`}}, PromptTokens: 40, CompletionTokens: 5},
		agenttest.Reply{Text: "done", PromptTokens: 60, CompletionTokens: 5})
	opts := initOpts(m)
	opts.InitOptions["permissions"] = map[string]any{"bash": map[string]any{"allow": []string{"echo *"}}}
	e := lsptest.Connect(t, nil, opts)
	prompt(t, e, "run it")
	starts := events(e, "run_start")
	if len(starts) != 1 || starts[0]["origin"] != "prompt" || starts[0]["prompt"] != "run it" {
		t.Fatalf("run_start %+v", starts)
	}
	ctxs := events(e, "context")
	if len(ctxs) != 2 || ctxs[0]["tokens"] != float64(40) || ctxs[1]["tokens"] != float64(60) || ctxs[1]["window"] != float64(agent.DefaultWindow) {
		t.Fatalf("context events %+v", ctxs)
	}
	outs := events(e, "tool_output")
	if len(outs) == 0 || outs[0]["id"] != "b1" || !strings.Contains(outs[0]["text"].(string), "streamed") {
		t.Fatalf("tool_output %+v", outs)
	}
	var order []string
	for _, n := range e.Notifications() {
		for _, k := range []string{"tool_output", "tool_result"} {
			if lsptest.EventKind(k)(n) {
				order = append(order, k)
			}
		}
	}
	if order[len(order)-1] != "tool_result" || order[0] != "tool_output" {
		t.Fatalf("order %v", order)
	}
}

// TestInlineEdit: agent-lsp.edit runs the instruction on the selection as
// a bounded run announced as an "edit" run; no instruction is an error.
func TestInlineEdit(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		agenttest.Reply{Text: "edited"})
	e := lsptest.Connect(t, map[string]string{"main.go": "package main\n// old\n"}, initOpts(m))
	e.Open("main.go", "package main\n// old\n")
	arg := map[string]any{"uri": e.URI("main.go"), "range": lsp.Range{Start: lsp.Position{Line: 1}, End: lsp.Position{Line: 1, Character: 6}}, "instruction": "say new"}
	var res lsp.PromptResult
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agent-lsp.edit", "arguments": []any{arg}}, &res); err != nil || res.Reason != "end_turn" {
		t.Fatalf("edit: %+v %v", res, err)
	}
	if text, _, _ := e.Text("main.go"); text != "package main\n// new\n" {
		t.Fatalf("buffer %q", text)
	}
	if s := events(e, "run_start"); len(s) != 1 || s[0]["origin"] != "edit" || s[0]["context"] != "main.go:2" {
		t.Fatalf("run_start %+v", s)
	}
	if b, _ := json.Marshal(m.Requests()[0].Messages); !strings.Contains(string(b), "say new") {
		t.Fatalf("instruction not sent: %s", b)
	}
	delete(arg, "instruction")
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agent-lsp.edit", "arguments": []any{arg}}, &res); err == nil {
		t.Fatal("an edit without an instruction ran")
	}
}
