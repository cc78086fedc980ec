package acp

import (
	"errors"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
)

// TestStopReason pins the mapping of endings to stop reasons that
// docs/acp.md documents.
func TestStopReason(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		end        agent.Ending
		stop, note string
		err        bool
	}{
		{agent.EndTurn, "end_turn", "", false},
		{agent.EndMaxTokens, "max_tokens", "why", false},
		{agent.EndMaxTurns, "max_turn_requests", "why", false},
		{agent.EndMaxToolCalls, "max_turn_requests", "why", false},
		{agent.EndRefusal, "refusal", "why", false},
		{agent.EndAborted, "cancelled", "", false},
		{agent.EndRepeatedFailure, "end_turn", "stopped (repeated_failure): why", false},
		{agent.EndEmptyResponse, "end_turn", "stopped (empty_response): why", false},
		{agent.EndError, "", "", true},
	} {
		stop, note, err := stopReason(agent.Result{Reason: c.end, Error: "why"})
		if stop != c.stop || note != c.note || (err != nil) != c.err {
			t.Errorf("%s: %q %q %v", c.end, stop, note, err)
		}
		var e *Error
		if c.err && (!errors.As(err, &e) || e.Code != CodeInternalError || !strings.Contains(e.Message, "why")) {
			t.Errorf("%s: error %v", c.end, err)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, args, title, kind, loc string
	}{
		{"read_file", `{"path":"main.go","offset":10,"limit":31}`, "Read main.go:10-40", "read", "/w/main.go"},
		{"read_file", `{"path":"a/b.go"}`, "Read a/b.go", "read", "/w/a/b.go"},
		{"str_replace", `{"path":"x.go","old_str":"a","new_str":"b"}`, "Edit x.go", "edit", "/w/x.go"},
		{"write_file", `{"path":"n.txt","content":""}`, "Write n.txt", "edit", "/w/n.txt"},
		{"grep", `{"pattern":"func main","path":"cmd"}`, "Search `func main` in cmd", "search", "/w/cmd"},
		{"glob", `{"pattern":"**/*.go"}`, "Find `**/*.go`", "search", ""},
		{"bash", `{"command":"go test ./...\n"}`, "Run go test ./...", "execute", ""},
		{"task", `{"description":"find the parser","prompt":"..."}`, "Task: find the parser", "think", ""},
		{"write_todos", `{"todos":[]}`, "Update the plan", "think", ""},
		{"mcp_thing", `not json`, "mcp_thing", "other", ""},
	} {
		title, kind, locs, raw := describe("/w", c.name, c.args)
		loc := ""
		if len(locs) > 0 {
			loc = locs[0].Path
		}
		if title != c.title || kind != c.kind || loc != c.loc || raw == nil {
			t.Errorf("%s %s: %q %q %q %v", c.name, c.args, title, kind, loc, raw)
		}
	}
}

func TestPromptText(t *testing.T) {
	t.Parallel()
	text := "x"
	got, err := promptText("/w", []contentBlock{
		{Type: "text", Text: "Look at "},
		{Type: "resource_link", URI: "file:///w/a.go", Name: "a.go"},
		{Type: "text", Text: " and "},
		{Type: "resource", Resource: &resource{URI: "file:///w/b.go", Text: &text}},
		{Type: "resource_link", URI: "https://example.com/doc", Name: "doc"},
	})
	want := "Look at @a.go and @b.go@https://example.com/doc\n\nContext from b.go (as the editor has it):\n```\nx\n```"
	if err != nil || got != want {
		t.Errorf("promptText:\n%q\nwant\n%q (%v)", got, want, err)
	}
	for _, bad := range [][]contentBlock{nil, {{Type: "text", Text: "  "}}, {{Type: "audio"}}, {{Type: "resource"}}, {{Type: "video"}}} {
		if _, err := promptText("/w", bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}
