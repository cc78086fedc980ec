package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

const secret = "sk-test-0123456789abcdef"

// record runs one session of two turns (an echo call, then an answer)
// into a new transcript under dir and returns its path.
func record(t *testing.T, dir, id string) string {
	t.Helper()
	fake := agenttest.NewFake(
		agenttest.Turn{Text: "Looking.", Calls: []agent.ToolCall{call("c1", "echo", `{"key":"`+secret+`"}`)}, Usage: agent.Usage{InputTokens: 100, OutputTokens: 10}},
		agenttest.Turn{Text: "The answer is 42.", Usage: agent.Usage{InputTokens: 120, OutputTokens: 5}},
	)
	tr, err := agent.CreateTranscript(dir, id, agent.TranscriptHeader{Workspace: "/ws", Model: "m"}, secret)
	if err != nil {
		t.Fatal(err)
	}
	s := agent.NewSession(id, "SYSTEM")
	s.Record(tr)
	a := agent.New(fake, &testTools{}, agent.Config{})
	if res := a.Run(context.Background(), s, "What is the answer? My key is "+secret, nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	s.SetTodos([]agent.Todo{{Content: "check", Status: agent.TodoPending}})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return tr.Path()
}

func TestTranscriptNeverHoldsTheKey(t *testing.T) {
	t.Parallel()
	path := record(t, t.TempDir(), "s1")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) {
		t.Fatal("the transcript holds the API key")
	}
	if !strings.Contains(string(data), "[REDACTED]") {
		t.Error("no redaction marker")
	}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(line, "{") || !strings.HasSuffix(line, "}") {
			t.Errorf("line %d is not one JSON object: %q", i+1, line)
		}
	}
}

func TestResumeAfterRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	record(t, dir, "s2")

	// A new process: a new agent, with a different tool set.
	l, err := agent.ResumeSession(dir, "s2", secret)
	if err != nil {
		t.Fatal(err)
	}
	s := l.Session
	if l.Usage.InputTokens != 220 || l.Last == nil || l.Last.Reason != agent.EndTurn {
		t.Errorf("loaded usage %+v, last %+v", l.Usage, l.Last)
	}
	if got := s.Todos(); len(got) != 1 || got[0].Content != "check" {
		t.Errorf("todos = %+v", got)
	}
	s.SetSystem("SYSTEM v2")
	fake := agenttest.NewFake(agenttest.Turn{Text: "Still 42."})
	a := agent.New(fake, &testTools{}, agent.Config{})
	if res := a.Run(context.Background(), s, "And again?", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if err := s.Transcript().Close(); err != nil {
		t.Fatal(err)
	}
	req := fake.Requests()[0]
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,user,user" {
		t.Errorf("roles = %s", got)
	}
	if req.Messages[0].Content != "SYSTEM v2" || !strings.Contains(req.Messages[4].Content, "42") {
		t.Errorf("resumed history = %+v", req.Messages)
	}
	if last := req.Messages[len(req.Messages)-1]; !strings.Contains(last.Content, "[ ] check") {
		t.Errorf("todo list not carried over: %q", last.Content)
	}
	// The current tools, not the recorded ones, are offered.
	names := map[string]bool{}
	for _, sp := range req.Tools {
		names[sp.Name] = true
	}
	if !names["echo"] || !names["write_todos"] {
		t.Errorf("tools = %v", names)
	}
	// The file holds both runs and loads again.
	l2, err := agent.LoadSession(filepath.Join(dir, "s2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l2.Session.Messages()); n != 7 {
		t.Errorf("reloaded %d messages, want 7", n)
	}
	if l2.Session.Messages()[0].Content != "SYSTEM v2" {
		t.Error("new system prompt not recorded")
	}
}

func TestTruncatedTranscriptLoads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A run that crashed after the model asked for two calls, one
	// answered, while writing the next line.
	tr, err := agent.CreateTranscript(dir, "s3", agent.TranscriptHeader{})
	if err != nil {
		t.Fatal(err)
	}
	s := agent.NewSession("s3", "SYSTEM")
	s.Record(tr)
	s.Append(agent.Message{Role: agent.RoleUser, Content: "go"})
	s.Append(agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{call("a", "echo", "{}"), call("b", "echo", "{}")}})
	s.Append(agent.Message{Role: agent.RoleTool, ToolCallID: "a", Name: "echo", Content: "echo {}"})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(tr.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"message","time":"2026-01-01T00:00:00Z","message":{"role":"tool","toolCallId":"b","con`)
	f.Close()

	l, err := agent.LoadSession(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !l.Damaged || l.Repaired != 1 {
		t.Errorf("damaged %v, repaired %d", l.Damaged, l.Repaired)
	}
	checkPairing(t, l.Session.Messages())

	// Resuming continues the file on a new line; it loads again.
	l, err = agent.ResumeSession(dir, "s3")
	if err != nil {
		t.Fatal(err)
	}
	fake := agenttest.NewFake(agenttest.Turn{Text: "ok"})
	if res := agent.New(fake, &testTools{}, agent.Config{}).Run(context.Background(), l.Session, "continue", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	checkPairing(t, fake.Requests()[0].Messages)
	l.Session.Transcript().Close()
	l2, err := agent.LoadSession(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	if l2.Repaired != 0 || len(l2.Session.Messages()) != 7 {
		t.Errorf("reloaded: repaired %d, %d messages", l2.Repaired, len(l2.Session.Messages()))
	}
}

func TestListSessions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	record(t, dir, "20260101-000000-aaaaaa")
	record(t, dir, "20260102-000000-bbbbbb")
	if err := os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := agent.ListSessions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("list = %+v", list)
	}
	for _, si := range list {
		if !strings.HasPrefix(si.FirstPrompt, "What is the answer?") || si.Size == 0 || si.Created.IsZero() || si.Workspace != "/ws" || si.Messages != 5 || si.Usage.InputTokens != 220 {
			t.Errorf("info = %+v", si)
		}
		if strings.Contains(si.FirstPrompt, secret) {
			t.Error("listing shows the key")
		}
	}
	if list, err := agent.ListSessions(filepath.Join(dir, "missing")); err != nil || len(list) != 0 {
		t.Errorf("missing dir: %v, %v", list, err)
	}

	// Written within one tick of the file system's coarse clock (equal
	// modification times): the last records' times still order them, the
	// one written last first, not in the order of their ids or names.
	tie := t.TempDir()
	ids := []string{"20260101-000000-bbbbbb", "20260101-000000-cccccc", "20260101-000000-aaaaaa"}
	mtime := time.Now().Add(-time.Hour)
	for _, id := range ids {
		record(t, tie, id)
		if err := os.Chtimes(filepath.Join(tie, id+".jsonl"), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	list, err = agent.ListSessions(tie)
	if err != nil || len(list) != 3 || list[0].ID != ids[2] || list[1].ID != ids[1] || list[2].ID != ids[0] {
		t.Errorf("tied modification times: %+v, %v", list, err)
	}
}

func TestBadSessionID(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := agent.CreateTranscript(t.TempDir(), id, agent.TranscriptHeader{}); err == nil {
			t.Errorf("id %q accepted", id)
		}
	}
}

func TestReplayReportsChangedResults(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "alpha\n")
	write("b.txt", "beta\n")
	disk, err := tools.NewDiskWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	ts := tools.NewDispatcher(tools.NewRegistry(tools.ReadOnlyTools(disk)...))

	dir := t.TempDir()
	tr, err := agent.CreateTranscript(dir, "r1", agent.TranscriptHeader{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	s := agent.NewSession("r1", "SYSTEM")
	s.Record(tr)
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("1", "read_file", `{"path":"a.txt"}`), call("2", "read_file", `{"path":"b.txt"}`)}},
		agenttest.Turn{Text: "done"},
	)
	if res := agent.New(fake, ts, agent.Config{}).Run(context.Background(), s, "read both", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	tr.Close()

	rep, err := agent.Replay(context.Background(), tr.Path(), ts, agent.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Same != 2 || rep.Turns != 2 {
		t.Fatalf("unchanged workspace: %s", rep.Format())
	}
	write("b.txt", "gamma\n")
	rep, err = agent.Replay(context.Background(), tr.Path(), ts, agent.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Diffs) != 1 || rep.Diffs[0].Call != 2 || !strings.Contains(rep.Diffs[0].Got, "gamma") {
		t.Fatalf("changed workspace: %+v\n%s", rep.Diffs, rep.Format())
	}
	t.Log("\n" + rep.Format())
}

func TestStore(t *testing.T) {
	t.Parallel()
	st := agent.NewStore(t.TempDir(), secret)
	s, err := st.Create("SYSTEM", agent.TranscriptHeader{Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	fake := agenttest.NewFake(agenttest.Turn{Text: "hi"})
	if res := agent.New(fake, nil, agent.Config{}).Run(context.Background(), s, "hello "+secret, nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	s.Transcript().Close()
	for _, id := range []string{s.ID, "last", s.ID[:10]} {
		l, err := st.Resume(id, "SYSTEM 2")
		if err != nil {
			t.Fatalf("Resume(%q): %v", id, err)
		}
		if l.Session.ID != s.ID || len(l.Session.Messages()) != 3 || l.Session.Messages()[0].Content != "SYSTEM 2" {
			t.Errorf("Resume(%q) = %+v", id, l.Session.Messages())
		}
		l.Session.Transcript().Close()
	}
	if _, err := st.Resume("nope", ""); err == nil {
		t.Error("unknown id resumed")
	}
	if p, err := st.Path("last"); err != nil || filepath.Base(p) != s.ID+".jsonl" {
		t.Errorf("Path = %q, %v", p, err)
	}
}

func TestDamagedLineInTheMiddle(t *testing.T) {
	t.Parallel()
	path := record(t, t.TempDir(), "s4")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Lose the line of the assistant message that made the call.
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if strings.Contains(line, `"toolCalls"`) {
			lines[i] = line[:len(line)/2]
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := agent.LoadSession(path)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Damaged || l.Repaired != 1 {
		t.Errorf("damaged %v, repaired %d", l.Damaged, l.Repaired)
	}
	checkPairing(t, l.Session.Messages())
}

func TestResumedSessionCanReadItsSpillFiles(t *testing.T) {
	t.Parallel()
	st := agent.NewStore(t.TempDir())
	s, err := st.Create("SYSTEM", agent.TranscriptHeader{})
	if err != nil {
		t.Fatal(err)
	}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("a", "read_file", `{"path":"big"}`)}},
		agenttest.Turn{Text: "done"},
	)
	spillDir := st.SpillDir(s.ID)
	cfg := agent.Config{Spill: tools.NewSpill(spillDir), Context: agent.ContextConfig{MaxResultBytes: 1000}}
	if res := agent.New(fake, bigTools{n: 5000}, cfg).Run(context.Background(), s, "go", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	s.Transcript().Close()
	var path string
	for _, m := range s.Messages() {
		if sm := regexp.MustCompile(`The full text is in (\S+):`).FindStringSubmatch(m.Content); sm != nil {
			path = sm[1]
		}
	}
	if path == "" {
		t.Fatal("no spill file")
	}
	// A new process: a new Spill, in a directory of its own, as the
	// harness makes one per process.
	l, err := st.Resume(s.ID, "SYSTEM")
	if err != nil {
		t.Fatal(err)
	}
	spill := tools.NewSpill(t.TempDir())
	cfg.Spill = spill
	fake2 := agenttest.NewFake(agenttest.Turn{Text: "ok"})
	if res := agent.New(fake2, bigTools{n: 10}, cfg).Run(context.Background(), l.Session, "again", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if !spill.Owns(path) {
		t.Error("the resumed session cannot read its spill file back")
	}
}

// Whatever byte a crash stops the file at, the session loads, its
// history is valid to send, and it can be resumed and loaded again.
func TestTranscriptCutAnywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := record(t, dir, "full")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	header := strings.IndexByte(string(data), '\n') + 1
	for cut := header; cut <= len(data); cut += 5 {
		p := filepath.Join(dir, "cut.jsonl")
		if err := os.WriteFile(p, data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := agent.LoadSession(p)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		checkPairing(t, l.Session.Messages())
		r, err := agent.ResumeSession(dir, "cut")
		if err != nil {
			t.Fatalf("cut at %d: resume: %v", cut, err)
		}
		r.Session.Append(agent.Message{Role: agent.RoleUser, Content: "next"})
		r.Session.Transcript().Close()
		l2, err := agent.LoadSession(p)
		if err != nil || l2.Damaged {
			t.Fatalf("cut at %d: reload after resume: damaged %v, %v", cut, l2 != nil && l2.Damaged, err)
		}
		checkPairing(t, l2.Session.Messages())
	}
}

// TestTranscriptNotCreated: the file of a new transcript is created in the
// background, so a file that cannot be created is not an error of
// CreateTranscript: Err reports it, no record goes anywhere, and the run
// warns once that the session cannot be resumed.
func TestTranscriptNotCreated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "s9.jsonl"), 0o700); err != nil { // in the way
		t.Fatal(err)
	}
	tr, err := agent.CreateTranscript(dir, "s9", agent.TranscriptHeader{Workspace: "/ws", Model: "m"})
	if err != nil {
		t.Fatalf("CreateTranscript = %v, want the failure reported by Err", err)
	}
	s := agent.NewSession("s9", "SYSTEM")
	s.Record(tr)
	var warnings []string
	obs := func(ev agent.Event) {
		if ev.Type == agent.EvWarning {
			warnings = append(warnings, ev.Text)
		}
	}
	a := agent.New(agenttest.NewFake(agenttest.Turn{Text: "One."}, agenttest.Turn{Text: "Two."}), &testTools{}, agent.Config{})
	for _, prompt := range []string{"first", "second"} {
		if res := a.Run(context.Background(), s, prompt, obs); res.Reason != agent.EndTurn {
			t.Fatalf("result = %+v", res)
		}
	}
	if err := tr.Err(); err == nil || !strings.Contains(err.Error(), "transcript") {
		t.Errorf("Err = %v, want the creation failure", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "not recorded") {
		t.Errorf("warnings = %q, want one saying the session is not recorded", warnings)
	}
	if err := tr.Close(); err == nil {
		t.Error("Close = nil, want the creation failure")
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "s9.jsonl")); len(entries) != 0 {
		t.Errorf("something was written into the directory in the way: %v", entries)
	}
}

// sentProbe checks, at each request, that a new session's transcript file
// is not made before the request is out, then reports it sent.
type sentProbe struct {
	t    *testing.T
	path string
	next agent.Provider
	sent int
}

func (p *sentProbe) Stream(ctx context.Context, req agent.Request) (provider.Stream, error) {
	if p.sent == 0 {
		if _, err := os.Stat(p.path); err == nil {
			p.t.Error("the transcript's file was made before the first request was sent")
		}
	}
	if req.Sent == nil {
		p.t.Error("the request has no Sent")
	} else {
		req.Sent()
		p.sent++
	}
	return p.next.Stream(ctx, req)
}

// TestTranscriptFileAfterTheRequest: a new session's file is made once its
// first request is sent, and holds every record written before.
func TestTranscriptFileAfterTheRequest(t *testing.T) {
	t.Parallel()
	st := agent.NewStore(t.TempDir())
	s, err := st.Create("SYSTEM", agent.TranscriptHeader{Workspace: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	probe := &sentProbe{t: t, path: s.Transcript().Path(), next: agenttest.NewFake(agenttest.Turn{Text: "hi"})}
	if res := agent.New(probe, nil, agent.Config{}).Run(context.Background(), s, "hello", nil); res.Reason != agent.EndTurn || probe.sent != 1 {
		t.Fatalf("result = %+v after %d requests", res, probe.sent)
	}
	if err := s.Transcript().Close(); err != nil {
		t.Fatal(err)
	}
	l, err := agent.LoadSession(s.Transcript().Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Session.Messages(); len(got) != 3 || got[0].Content != "SYSTEM" || got[1].Content != "hello" || got[2].Content != "hi" {
		t.Errorf("recorded %+v", got)
	}
}
