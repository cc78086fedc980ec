package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// gitState is what .git holds that an undo must never change.
func gitState(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range []string{"HEAD", "index", "refs/heads/main", "config"} {
		b, err := os.ReadFile(filepath.Join(ws, ".git", p))
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The headless scenario: a turn edits a file, creates one and
// changes a third through bash; the user edits another line of the
// first; `agent-lsp undo` from another directory restores all three and
// keeps the user's line. A second turn whose change the user overwrote
// is left as the user has it, named, with exit status 1. .git is
// unchanged throughout.
func TestUndoHeadless(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := filepath.Join(home, "project")
	writeFile(t, filepath.Join(ws, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(ws, "c.txt"), "keep\n")
	writeFile(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(ws, ".git", "index"), "DIRC\x00\x00\x00\x02binary index")
	writeFile(t, filepath.Join(ws, ".git", "refs", "heads", "main"), "0123456789abcdef0123456789abcdef01234567\n")
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\tbare = false\n")
	os.MkdirAll(filepath.Join(ws, ".git", "objects"), 0o755)
	git := gitState(t, ws)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}

	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{
			{ID: "e", Name: "str_replace", Arguments: `{"path":"a.txt","old_str":"two","new_str":"TWO"}`},
			{ID: "w", Name: "write_file", Arguments: `{"path":"new.txt","content":"brand new\n"}`},
			{ID: "b", Name: "bash", Arguments: `{"command":"echo changed by bash > c.txt"}`},
		}},
		agenttest.Reply{Text: "Done."},
	)
	r := runBinaryEnv(t, ws, env, "run", "--json", "--ask=allow", "--base-url", srv.URL, "--model", "scripted", "change three files")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var end struct {
		Type    string `json:"type"`
		Changes []struct {
			Path, Kind     string
			Added, Removed int
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(lastLine(r.stdout)), &end); err != nil || end.Type != "end" {
		t.Fatalf("last line %q: %v", lastLine(r.stdout), err)
	}
	got := map[string]string{}
	for _, c := range end.Changes {
		got[c.Path] = c.Kind
	}
	if len(got) != 3 || got["a.txt"] != "modified" || got["new.txt"] != "created" || got["c.txt"] != "modified" {
		t.Fatalf("changes = %+v\n%s", end.Changes, r.stderr)
	}
	if !strings.Contains(r.stdout, `{"type":"changes","changes":[`) {
		t.Errorf("no changes event in\n%s", r.stdout)
	}

	// The user edits another line of a.txt.
	writeFile(t, filepath.Join(ws, "a.txt"), "one\nTWO\nthree (the user's)\n")
	elsewhere := t.TempDir()
	u := runBinaryEnv(t, elsewhere, env, "undo")
	if u.code != 0 {
		t.Fatalf("undo: exit %d\n%s\n%s", u.code, u.stdout, u.stderr)
	}
	if got := readText(t, filepath.Join(ws, "a.txt")); got != "one\ntwo\nthree (the user's)\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := readText(t, filepath.Join(ws, "c.txt")); got != "keep\n" {
		t.Errorf("c.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt still there: %v", err)
	}

	// A second turn; the user then overwrites its change.
	srv2 := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r2", Name: "read_file", Arguments: `{"path":"a.txt"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "e2", Name: "str_replace", Arguments: `{"path":"a.txt","old_str":"one","new_str":"ONE"}`}}},
		agenttest.Reply{Text: "Done again."},
	)
	r = runBinaryEnv(t, ws, env, "run", "--resume", "last", "--ask=allow", "--base-url", srv2.URL, "--model", "scripted", "capitalise one")
	if r.code != 0 {
		t.Fatalf("second run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "M a.txt +1 -1") {
		t.Errorf("no changed-files summary in\n%s", r.stderr)
	}
	// The model heard about the undo on this turn.
	reqs := srv2.Requests()
	told, _ := json.Marshal(reqs)
	if !strings.Contains(string(told), "The user undid some of your changes") {
		t.Errorf("the model was not told of the undo")
	}
	mine := "mine, not the agent's\ntwo\nthree (the user's)\n"
	writeFile(t, filepath.Join(ws, "a.txt"), mine)
	u = runBinaryEnv(t, elsewhere, env, "undo")
	if u.code != 1 || !strings.Contains(u.stderr, "kept a.txt") {
		t.Fatalf("undo of the overwritten turn: exit %d\n%s\n%s", u.code, u.stdout, u.stderr)
	}
	if got := readText(t, filepath.Join(ws, "a.txt")); got != mine {
		t.Errorf("a.txt = %q, want the user's", got)
	}
	l := runBinaryEnv(t, elsewhere, env, "undo", "--list")
	if l.code != 0 || strings.Count(l.stdout, "(undone)") != 2 {
		t.Errorf("undo --list:\n%s%s", l.stdout, l.stderr)
	}
	for k, v := range gitState(t, ws) {
		if git[k] != v {
			t.Errorf(".git/%s changed: %q", k, v)
		}
	}
}
