package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestResumeAndReplayUseTheSessionsWorkspace: a session recorded in one
// workspace is resumed and replayed from another directory, without
// --workspace, as the README shows it: both act on the recorded workspace,
// not on the current directory (which holds a decoy of the same file). A
// --workspace naming another directory is refused.
func TestResumeAndReplayUseTheSessionsWorkspace(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := filepath.Join(home, "project")
	elsewhere := filepath.Join(home, "elsewhere")
	writeFile(t, filepath.Join(ws, "facts.txt"), "the port is 8123\n")
	writeFile(t, filepath.Join(elsewhere, "facts.txt"), "wrong tree\n")
	// One home and state directory for every command, whichever directory
	// it runs in.
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	runIn := func(dir string, args ...string) runOut { return runBinaryEnv(t, dir, env, args...) }
	read := agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r1", Name: "read_file", Arguments: `{"path":"facts.txt"}`}}}
	srv := newServer(t, read, agenttest.Reply{Text: "8123"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r2", Name: "read_file", Arguments: `{"path":"facts.txt"}`}}},
		agenttest.Reply{Text: "still 8123"},
		read, agenttest.Reply{Text: "8123"}, // the replay's first run
	)
	if r := runIn(elsewhere, "run", "--workspace", ws, "--base-url", srv.URL, "What is the port?"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}

	r := runIn(elsewhere, "run", "--base-url", srv.URL, "--resume", "last", "Read it again")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	got := srv.Requests()[3].LastToolResult()
	if !strings.Contains(got, "the port is 8123") || strings.Contains(got, "wrong tree") {
		t.Fatalf("the resumed run read %q: not the session's workspace", got)
	}

	r = runIn(elsewhere, "sessions", "--json")
	var info struct{ ID, Workspace string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &info); err != nil || info.Workspace != ws {
		t.Fatalf("sessions --json: %q (%v)", r.stdout, err)
	}
	if r = runIn(elsewhere, "sessions"); !strings.Contains(r.stdout, "~/project") {
		t.Errorf("sessions does not show the workspace:\n%s", r.stdout)
	}

	// The replay reads facts.txt in the session's workspace: the results
	// match. In elsewhere/ they would differ (exit 1).
	r = runIn(elsewhere, "replay", "--base-url", srv.URL, info.ID[:15])
	if r.code != 0 {
		t.Fatalf("replay from another directory: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	// --workspace naming another tree is refused, before any model call.
	n := len(srv.Requests())
	for _, args := range [][]string{
		{"run", "--workspace", elsewhere, "--base-url", srv.URL, "--resume", "last", "go on"},
		{"replay", "--workspace", elsewhere, "--base-url", srv.URL, "last"},
	} {
		r = runIn(home, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "belongs to the workspace "+ws) || !strings.Contains(r.stderr, "without --workspace") {
			t.Errorf("%s with another --workspace: exit %d, stderr %q", args[0], r.code, r.stderr)
		}
	}
	// The same tree by another spelling is accepted.
	srv.SetFunc(func(agenttest.ChatRequest) agenttest.Reply { return agenttest.Reply{Text: "ok"} })
	if r = runIn(home, "run", "--workspace", "project/../project", "--base-url", srv.URL, "--resume", "last", "go on"); r.code != 0 {
		t.Errorf("resume with the same workspace spelt differently: exit %d\n%s", r.code, r.stderr)
	}
	if len(srv.Requests()) != n+1 {
		t.Errorf("%d model requests after the refusals, want %d", len(srv.Requests()), n+1)
	}
}
