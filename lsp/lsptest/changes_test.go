package lsptest_test

// The change journal through the editor: review through change
// annotations, agent/changes listing a turn's files (edited, created,
// changed by bash), agent/undo through applyEdit keeping unsaved text.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

var changeCaps = map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
	"documentChanges": true, "resourceOperations": []string{"create", "delete"}, "changeAnnotationSupport": map[string]any{"groupsOnLabel": true}}}}

func TestReviewAnnotatesEdits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		caps     map[string]any
		review   string
		reviewed bool
	}{
		{"confirm with support", changeCaps, "confirm", true},
		{"off", changeCaps, "off", false},
		{"confirm without support", nil, "confirm", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := model(t,
				call("r", "read_file", `{"path":"main.go"}`),
				call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new","reason":"the user asked for new things"}`),
				call("w", "write_file", `{"path":"n.txt","content":"n\n"}`),
				agenttest.Reply{Text: "done"},
			)
			opts := initOpts(m)
			opts.Capabilities = c.caps
			opts.InitOptions["review"] = c.review
			declined := false
			opts.OnApplyEdit = func(e *lsptest.Env, p lsptest.ApplyEditParams) lsptest.ApplyEditResult {
				if strings.Contains(p.Label, "write_file") && len(p.Edit.ChangeAnnotations) > 0 {
					declined = true
					return lsptest.ApplyEditResult{} // the user unticked it in the preview
				}
				return e.ApplyEdit(p)
			}
			e := lsptest.Connect(t, map[string]string{"main.go": diskMain}, opts)
			e.Open("main.go", unsavedMain)
			if res := prompt(t, e, "say new things"); res.Reason != "end_turn" {
				t.Fatalf("result %+v", res)
			}
			eds := applyEdits(e)
			if len(eds) != 2 {
				t.Fatalf("%d applyEdits", len(eds))
			}
			ann, ok := eds[0].Edit.ChangeAnnotations["agent-lsp.review"]
			if ok != c.reviewed {
				t.Fatalf("annotations %+v, want reviewed=%v", eds[0].Edit.ChangeAnnotations, c.reviewed)
			}
			des := eds[0].DocumentEdits()
			if (des[0].Edits[0].AnnotationID == "agent-lsp.review") != c.reviewed {
				t.Errorf("edit %+v", des[0].Edits[0])
			}
			if !c.reviewed {
				return
			}
			if !ann.NeedsConfirmation || ann.Label != "agent-lsp: str_replace main.go" || ann.Description != "the user asked for new things" {
				t.Errorf("annotation %+v", ann)
			}
			if cd := eds[1].DocumentEdits(); cd[0].Kind != "create" || cd[0].AnnotationID != "agent-lsp.review" {
				t.Errorf("create %+v", cd[0])
			}
			trs := toolResults(e)
			if !declined || !trs[2].IsError || !strings.Contains(trs[2].Result, "rejected it") || strings.Contains(trs[2].Result, "read it again") {
				t.Errorf("declined write: %+v", trs[2])
			}
		})
	}
}

func TestChangesAndUndoThroughTheEditor(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("r", "read_file", `{"path":"main.go"}`),
		call("s", "str_replace", `{"path":"main.go","old_str":"old","new_str":"new"}`),
		call("w", "write_file", `{"path":"pkg/new.txt","content":"fresh\n"}`),
		call("b", "bash", `{"command":"printf 'by bash\\n' > data.txt"}`),
		agenttest.Reply{Text: "done"},
	)
	opts := initOpts(m)
	opts.Capabilities = changeCaps
	opts.InitOptions["permissions"] = map[string]any{"bash": map[string]any{"allow": []string{"printf *"}}}
	e := lsptest.Connect(t, map[string]string{"main.go": diskMain, "data.txt": "original\n"}, opts)
	e.Open("main.go", unsavedMain)
	res := prompt(t, e, "say new things")
	if res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	for _, r := range toolResults(e) {
		if r.IsError {
			t.Fatalf("%s failed: %s", r.Name, r.Result)
		}
	}
	// The changes event, and the prompt's result, list the three files.
	ev := e.Await(lsptest.EventKind("changes"))
	var changed struct {
		Changes []struct{ Path, Kind string } `json:"changes"`
	}
	json.Unmarshal(ev.Params, &changed)
	if len(changed.Changes) != 3 || len(res.Changes) != 3 {
		t.Fatalf("changes event %s, result %+v", ev.Params, res.Changes)
	}
	var list lsp.ChangesResult
	if err := e.Call(lsp.MethodChanges, lsp.ChangesParams{SessionID: res.SessionID, Contents: true}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Turns) != 1 || list.Turns[0].Prompt != "say new things" || len(list.Turns[0].Files) != 3 {
		t.Fatalf("agent/changes: %+v", list)
	}
	kinds := map[string]lsp.ChangedFile{}
	for _, f := range list.Turns[0].Files {
		kinds[f.Path] = f
	}
	if f := kinds["main.go"]; f.Kind != "modified" || f.Tool != "str_replace" || f.URI != e.URI("main.go") || !strings.Contains(f.Diff, "-// 😀 say old things\n+// 😀 say new things") || f.Before == nil || *f.Before != unsavedMain {
		t.Errorf("main.go: %+v", f)
	}
	if kinds["pkg/new.txt"].Kind != "created" || kinds["data.txt"].Kind != "modified" || kinds["data.txt"].Tool != "bash" {
		t.Errorf("files: %+v", kinds)
	}

	// The user types more into main.go (unsaved), then undoes the turn.
	e.Edit("main.go", lsp.Range{}, "// mine\n")
	var u lsp.UndoResult
	if err := e.Call(lsp.MethodUndo, lsp.UndoParams{SessionID: res.SessionID}, &u); err != nil {
		t.Fatal(err)
	}
	if len(u.Conflicts) != 0 || len(u.Reverted) != 3 || len(u.Turns) != 1 {
		t.Fatalf("undo: %+v", u)
	}
	if got, _, _ := e.Text("main.go"); got != "// mine\n"+unsavedMain {
		t.Errorf("buffer %q: the agent's edit reverted, the unsaved text kept", got)
	}
	if _, err := os.Stat(e.Path("pkg/new.txt")); !os.IsNotExist(err) {
		t.Errorf("created file still there: %v", err)
	}
	if b, _ := os.ReadFile(e.Path("data.txt")); string(b) != "original\n" {
		t.Errorf("data.txt = %q", b)
	}
	deletes := 0
	for _, p := range applyEdits(e) {
		for _, d := range p.DocumentEdits() {
			if d.Kind == "delete" && d.URI == e.URI("pkg/new.txt") {
				deletes++
			}
		}
	}
	if deletes != 1 {
		t.Errorf("%d DeleteFile operations for the created file", deletes)
	}
	if err := e.Call(lsp.MethodChanges, lsp.ChangesParams{SessionID: res.SessionID}, &list); err != nil || !list.Turns[0].Undone {
		t.Errorf("turn not marked undone: %+v %v", list, err)
	}
	// Nothing left: an empty answer.
	if err := e.Call(lsp.MethodUndo, lsp.UndoParams{SessionID: res.SessionID, Turns: json.RawMessage(`"all"`)}, &u); err != nil || len(u.Turns) != 0 {
		t.Errorf("second undo: %+v %v", u, err)
	}
}

// TestUndoRightAfterEnd: a client that undoes the moment the run's end
// event arrives (Neovim does) finds the run over, not "still running".
func TestUndoRightAfterEnd(t *testing.T) {
	t.Parallel()
	const rounds = 20
	var replies []agenttest.Reply
	for i := range rounds {
		replies = append(replies,
			agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("w%d", i), Name: "write_file", Arguments: fmt.Sprintf(`{"path":"f%d.txt","content":"x\n"}`, i)}}},
			agenttest.Reply{Text: "done"})
	}
	m := model(t, replies...)
	e := lsptest.Connect(t, nil, initOpts(m))
	for i := range rounds {
		sid := fmt.Sprintf("undo-after-end-%d", i)
		done := make(chan error, 1)
		go func() {
			var res lsp.PromptResult
			done <- e.Call(lsp.MethodPrompt, lsp.PromptParams{Prompt: "write it", SessionID: sid}, &res)
		}()
		e.Await(func(n lsptest.Notification) bool {
			return lsptest.EventKind("end")(n) && strings.Contains(string(n.Params), `"`+sid+`"`)
		})
		var u lsp.UndoResult
		if err := e.Call(lsp.MethodUndo, lsp.UndoParams{SessionID: sid}, &u); err != nil {
			t.Fatalf("round %d: undo right after the end event: %v", i, err)
		}
		if len(u.Reverted) != 1 {
			t.Fatalf("round %d: undo %+v", i, u)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestReviewFromDidChangeConfiguration: the review setting also comes
// from workspace/didChangeConfiguration (VS Code sends it when
// agentLsp.review changes): "confirm" annotates the next edits, and
// settings without it (review "off" is not sent) make them plain again.
func TestReviewFromDidChangeConfiguration(t *testing.T) {
	t.Parallel()
	m := model(t,
		call("w1", "write_file", `{"path":"one.txt","content":"1\n"}`),
		agenttest.Reply{Text: "done"},
		call("w2", "write_file", `{"path":"two.txt","content":"2\n"}`),
		agenttest.Reply{Text: "done"},
		call("w3", "write_file", `{"path":"three.txt","content":"3\n"}`),
		agenttest.Reply{Text: "done"},
	)
	opts := initOpts(m)
	opts.Capabilities = changeCaps
	e := lsptest.Connect(t, nil, opts)
	settings := func(review string) {
		st := map[string]any{"baseUrl": m.URL, "model": "scripted", "apiKey": "k"}
		if review != "" {
			st["review"] = review
		}
		e.Notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"agentLsp": st}})
	}
	var want []bool
	for _, c := range []struct {
		review   string
		reviewed bool
	}{{"", false}, {"confirm", true}, {"", false}} {
		if c.review != "" || len(want) > 0 {
			settings(c.review)
		}
		if res := prompt(t, e, "write a file"); res.Reason != "end_turn" {
			t.Fatalf("result %+v", res)
		}
		want = append(want, c.reviewed)
	}
	eds := applyEdits(e)
	if len(eds) != len(want) {
		t.Fatalf("%d applyEdits, want %d", len(eds), len(want))
	}
	for i, ed := range eds {
		ann, ok := ed.Edit.ChangeAnnotations["agent-lsp.review"]
		if ok != want[i] || ok && !ann.NeedsConfirmation {
			t.Errorf("edit %d (%s): annotations %+v, want reviewed=%v", i, ed.Label, ed.Edit.ChangeAnnotations, want[i])
		}
	}
}
