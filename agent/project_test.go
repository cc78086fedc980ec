package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadSkills(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".agents/skills/release/SKILL.md": "---\nname: release\ndescription: \"How to cut a release: tag, changelog, push.\"\n---\n# Release\n1. Update CHANGELOG.md\n",
		".agents/skills/nodesc/SKILL.md":  "---\nname: nodesc\n---\nbody\n",
		".agents/skills/plain/SKILL.md":   "---\ndescription: Uses the directory name\n---\nPlain body.\n",
		".agents/skills/empty/README.md":  "not a skill",
	})
	skills, errs := agent.LoadSkills(root)
	if len(skills) != 2 || skills[0].Name != "plain" || skills[1].Name != "release" || skills[1].Description != "How to cut a release: tag, changelog, push." {
		t.Fatalf("skills = %+v", skills)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no description") {
		t.Errorf("errs = %v", errs)
	}
	if none, errs := agent.LoadSkills(t.TempDir()); len(none) != 0 || len(errs) != 0 {
		t.Errorf("no skills dir: %v %v", none, errs)
	}
	prompt := agent.BuildSystemPrompt(root, []string{"read_file"}, "Run make test.", skills)
	for _, want := range []string{"- release: How to cut a release", "read_skill", "Run make test.", "<project-instructions>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}

	// read_skill loads one on demand.
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("s1", "read_skill", `{"name":"release"}`), call("s2", "read_skill", `{"name":"nope"}`)}},
		agenttest.Turn{Text: "ok"},
	)
	s := agent.NewSession("sk", "SYSTEM")
	if res := agent.New(fake, &testTools{}, agent.Config{Skills: skills}).Run(context.Background(), s, "release it", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	msgs := s.Messages()
	if r := msgs[3]; r.IsError || !strings.Contains(r.Content, "1. Update CHANGELOG.md") || strings.Contains(r.Content, "description:") {
		t.Errorf("read_skill release = %+v", r)
	}
	if r := msgs[4]; !r.IsError || !strings.Contains(r.Content, "plain, release") {
		t.Errorf("read_skill nope = %+v", r)
	}
}

func TestProjectInstructions(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"AGENTS.md":            "Root rules.",
		"pkg/AGENTS.md":        "Pkg rules.",
		"pkg/deep/AGENTS.md":   "Deep rules.",
		"pkg/deep/x.go":        "package deep",
		"other/y.go":           "package other",
		"outside-link/keep.md": "",
	})
	text, err := agent.LoadInstructions(root)
	if err != nil || text != "Root rules." {
		t.Fatalf("LoadInstructions = %q, %v", text, err)
	}
	if text, err := agent.LoadInstructions(t.TempDir()); err != nil || text != "" {
		t.Errorf("no AGENTS.md: %q, %v", text, err)
	}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("1", "echo", `{"path":"pkg/deep/x.go"}`), call("2", "echo", `{"path":"other/y.go"}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("3", "echo", `{"path":"pkg/deep/x.go"}`)}},
		agenttest.Turn{Text: "ok"},
	)
	s := agent.NewSession("in", "SYSTEM")
	if res := agent.New(fake, &testTools{}, agent.Config{Root: root}).Run(context.Background(), s, "work", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	var found []string
	for _, m := range s.Messages() {
		if m.Role == agent.RoleUser && strings.Contains(m.Content, "<project-instructions>") {
			found = append(found, m.Content)
		}
	}
	if len(found) != 2 || !strings.Contains(found[0], "Pkg rules.") || !strings.Contains(found[1], "Deep rules.") {
		t.Fatalf("instructions = %q", found)
	}
	if len(s.Pinned()) != 3 { // the request and both files
		t.Errorf("pinned = %+v", s.Pinned())
	}
	checkPairing(t, s.Messages())
}

func TestTodosEvent(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("1", "write_todos", `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("2", "write_todos", `{"todos":[{"content":"c","status":"bogus"}]}`)}},
		agenttest.Turn{Text: "ok"},
	)
	var lines []string
	s := agent.NewSession("td", "SYSTEM")
	res := agent.New(fake, &testTools{}, agent.Config{}).Run(context.Background(), s, "plan", func(e agent.Event) {
		if e.Type == agent.EvTodos || e.Type == agent.EvCompaction {
			b, err := json.Marshal(e)
			if err != nil {
				t.Error(err)
			}
			lines = append(lines, string(b))
		}
	})
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	want := `{"type":"todos","todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress"}]}`
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("events = %v", lines)
	}
	if got := agent.FormatTodos(s.Todos()); got != "[x] a\n[~] b\n" {
		t.Errorf("FormatTodos = %q", got)
	}
	// A bad status is refused by the schema, and the list kept.
	if m := s.Messages()[5]; !m.IsError {
		t.Errorf("bad status accepted: %+v", m)
	}
	b, _ := json.Marshal(agent.Event{Type: agent.EvCompaction, Compaction: &agent.CompactionInfo{TokensBefore: 9, TokensAfter: 3, Messages: 4, Summary: "s"}})
	if string(b) != `{"type":"compaction","tokensBefore":9,"tokensAfter":3,"messages":4,"summary":"s"}` {
		t.Errorf("compaction event = %s", b)
	}
}
