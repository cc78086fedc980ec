package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// TestResumeSessionsReplay records a session, continues it in a second
// process, lists it, and replays it against the workspace.
func TestResumeSessionsReplay(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	writeFile(t, filepath.Join(ws, "facts.txt"), "the port is 8123\n")
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "r1", Name: "read_file", Arguments: `{"path":"facts.txt"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "t1", Name: "write_todos", Arguments: `{"todos":[{"content":"Tell the port","status":"completed"}]}`}}},
		agenttest.Reply{Text: "The port is 8123."},
		agenttest.Reply{Text: "You asked about the port; it is 8123."},
	)
	r := runBinary(t, home, "run", "--workspace", ws, "--base-url", srv.URL, "What is the port?")
	if r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "todos:") || !strings.Contains(r.stderr, "Tell the port") {
		t.Errorf("todos not printed:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "continue with --resume ") {
		t.Fatalf("no session id printed:\n%s", r.stderr)
	}

	// A new process continues the conversation: the model sees it all.
	r = runBinary(t, home, "run", "--json", "--workspace", ws, "--base-url", srv.URL, "--resume", "last", "What did I ask before?")
	if r.code != 0 {
		t.Fatalf("resumed run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var first map[string]string
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first); err != nil || first["type"] != "session" || first["sessionId"] == "" {
		t.Fatalf("first JSON line %q", strings.SplitN(r.stdout, "\n", 2)[0])
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	var saw []string
	for _, m := range last.Messages {
		if c, _ := m["content"].(string); c != "" {
			saw = append(saw, c)
		}
	}
	joined := strings.Join(saw, "\n")
	for _, want := range []string{"What is the port?", "1\tthe port is 8123", "The port is 8123.", "What did I ask before?"} {
		if !strings.Contains(joined, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
	if len(last.Tools) == 0 {
		t.Error("a resumed session must keep its tools")
	}

	r = runBinary(t, home, "sessions", "--json")
	if r.code != 0 {
		t.Fatalf("sessions: exit %d %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var info struct {
		ID          string `json:"id"`
		FirstPrompt string `json:"firstPrompt"`
		Messages    int    `json:"messages"`
	}
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &info) != nil || info.ID != first["sessionId"] || info.FirstPrompt != "What is the port?" {
		t.Fatalf("sessions listed %q", r.stdout)
	}
	if r = runBinary(t, home, "sessions"); !strings.Contains(r.stdout, info.ID) || !strings.Contains(r.stdout, "What is the port?") {
		t.Errorf("sessions text: %q", r.stdout)
	}

	// Replay against the same workspace: every tool result matches.
	r = runBinary(t, home, "replay", "--workspace", ws, "--base-url", srv.URL, info.ID)
	if r.code != 0 {
		t.Fatalf("replay: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// Change the file: the replayed read_file result differs.
	if err := os.WriteFile(filepath.Join(ws, "facts.txt"), []byte("the port is 9999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runBinary(t, home, "replay", "--workspace", ws, info.ID)
	if r.code != 1 || !strings.Contains(r.stdout, "read_file") {
		t.Fatalf("replay after a change: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r = runBinary(t, home, "replay", "--workspace", ws, "no-such-session"); r.code != 2 {
		t.Errorf("replay of an unknown session: exit %d", r.code)
	}
}

func TestTranscriptHoldsNoAPIKey(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	srv := newServer(t, agenttest.Reply{Text: "hi"})
	const key = "sk-test-very-secret-key-123"
	cmdEnv := []string{"AGENT_LSP_API_KEY=" + key}
	r := runBinaryEnv(t, home, cmdEnv, "run", "--base-url", srv.URL, "say hi, my key is "+key)
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Errorf("Authorization = %q", got)
	}
	err := filepath.Walk(filepath.Join(home, ".state"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), key) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
