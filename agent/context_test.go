package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// bigTools answers read_file with n bytes of text naming the path, and
// anything else with "ok".
type bigTools struct{ n int }

func (bigTools) Specs() []tools.Spec {
	return []tools.Spec{{Name: "read_file", Description: "read", Parameters: []byte(`{"type":"object"}`)}}
}

func (b bigTools) Dispatch(_ context.Context, c tools.Call) tools.Result {
	if c.Name != "read_file" {
		return tools.Result{Text: "ok"}
	}
	head := "contents for " + c.Arguments + "\n"
	return tools.Result{Text: head + strings.Repeat("x", max(b.n-len(head), 0))}
}

func isSummaryRequest(req agent.Request) bool {
	last := req.Messages[len(req.Messages)-1]
	return last.Role == agent.RoleUser && strings.Contains(last.Content, "about to be compacted")
}

// scripted replies: write_todos, then read_file calls, then an answer.
// Summary requests get a structured summary (or fail when summaryErr).
type compactionScript struct {
	mu         sync.Mutex
	n, reads   int
	summaries  int
	summaryErr error
	scale      int // reported prompt_tokens = scale × estimate (0: none)
}

func (c *compactionScript) reply(req agent.Request) agenttest.Turn {
	c.mu.Lock()
	defer c.mu.Unlock()
	var u agent.Usage
	if c.scale > 0 {
		u.InputTokens = c.scale * agent.RawTokens(req)
	}
	if isSummaryRequest(req) {
		c.summaries++
		if c.summaryErr != nil {
			return agenttest.Turn{Err: c.summaryErr}
		}
		return agenttest.Turn{Usage: u, Text: "## Goal\nRead the files.\n## Decisions\nNone.\n## Files touched\nsub/a.go\n## State of the work\nReading.\n## Next steps\nAnswer."}
	}
	c.n++
	switch {
	case c.n == 1:
		return agenttest.Turn{Usage: u, Calls: []agent.ToolCall{{ID: "todo", Name: "write_todos", Arguments: `{"todos":[{"content":"read the files","status":"in_progress"},{"content":"answer","status":"pending"}]}`}}}
	case c.n <= c.reads+1:
		// Two calls per message, so a split would show.
		return agenttest.Turn{Usage: u, Calls: []agent.ToolCall{
			{ID: fmt.Sprintf("r%da", c.n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"sub/f%d.go"}`, c.n)},
			{ID: fmt.Sprintf("r%db", c.n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"g%d.go"}`, c.n)},
		}}
	default:
		return agenttest.Turn{Usage: u, Text: "done"}
	}
}

// sent strips the volatile tail, the one message not kept in history.
func sent(req agent.Request) []agent.Message {
	msgs := req.Messages
	if last := msgs[len(msgs)-1]; last.Role == agent.RoleUser && strings.HasPrefix(last.Content, "<context-update>") {
		return msgs[:len(msgs)-1]
	}
	return msgs
}

func TestCompactionKeepsPinnedContent(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "AGENTS.md"), []byte("Use tabs in sub/."), 0o644); err != nil {
		t.Fatal(err)
	}
	script := &compactionScript{reads: 8}
	fake := agenttest.NewFunc(script.reply)
	cfg := agent.Config{Root: root, Spill: tools.NewSpill(t.TempDir()),
		Context: agent.ContextConfig{Window: 12000, PruneAbove: 1 << 20, KeepRecent: 2000}}
	a := agent.New(fake, bigTools{n: 6000}, cfg)
	s := agent.NewSession("c", "SYSTEM PROMPT")
	rec := &recorder{}
	res := a.Run(context.Background(), s, "ORIGINAL REQUEST", rec.observe)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if rec.count(agent.EvCompaction) == 0 || script.summaries == 0 {
		t.Fatalf("no compaction: %d events, %d summaries", rec.count(agent.EvCompaction), script.summaries)
	}
	if rec.count(agent.EvTodos) != 1 {
		t.Errorf("todos events = %d", rec.count(agent.EvTodos))
	}
	reqs := fake.Requests()
	compacted := 0
	for i, req := range reqs {
		if isSummaryRequest(req) {
			continue
		}
		msgs := sent(req)
		checkPairing(t, msgs)
		if tokens := agent.RawTokens(req); tokens > 12000 {
			t.Errorf("request %d: %d tokens, over the window", i, tokens)
		}
		if msgs[0].Role != agent.RoleSystem || msgs[0].Content != "SYSTEM PROMPT" {
			t.Errorf("request %d: system prompt not first: %+v", i, msgs[0])
		}
		all := ""
		for _, m := range msgs {
			all += m.Content + "\n"
		}
		if !strings.Contains(all, "ORIGINAL REQUEST") {
			t.Errorf("request %d lost the original request", i)
		}
		if i >= 3 && !strings.Contains(all, "Use tabs in sub/.") {
			t.Errorf("request %d lost the AGENTS.md of sub/", i)
		}
		if strings.Contains(all, "## Next steps") {
			compacted++
		}
		// The todo list is the last message of every request after it
		// was written, and never in the stored history.
		if i >= 1 {
			last := req.Messages[len(req.Messages)-1]
			if !strings.Contains(last.Content, "[~] read the files") {
				t.Errorf("request %d: todo list not at the end: %q", i, clip(last.Content))
			}
		}
	}
	if compacted == 0 {
		t.Error("no request carried the summary")
	}
	t.Logf("%d requests, %d compactions, %d carried a summary", len(reqs), rec.count(agent.EvCompaction), compacted)
	// After two compactions, the first result is still reachable through
	// the index of earlier outputs.
	lastReq := sent(reqs[len(reqs)-1])
	idx := regexp.MustCompile(`- read_file \{"path":"sub/f2.go"\}: (/\S+)`)
	found := false
	for _, m := range lastReq {
		if sm := idx.FindStringSubmatch(m.Content); sm != nil {
			data, err := os.ReadFile(sm[1])
			found = err == nil && strings.Contains(string(data), "sub/f2.go")
		}
	}
	if !found {
		t.Error("the first result is out of reach after the compactions")
	}
	for _, m := range s.Messages() {
		if strings.Contains(m.Content, "<context-update>") {
			t.Error("the volatile tail was stored in the history")
		}
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func TestCompactionFallsBackWhenTheSummaryFails(t *testing.T) {
	t.Parallel()
	script := &compactionScript{reads: 6, summaryErr: errors.New("server down")}
	fake := agenttest.NewFunc(script.reply)
	a := agent.New(fake, bigTools{n: 6000}, agent.Config{Context: agent.ContextConfig{Window: 10000, PruneAbove: 1 << 20, KeepRecent: 1500}})
	s := agent.NewSession("c", "SYSTEM")
	var infos []agent.CompactionInfo
	res := a.Run(context.Background(), s, "ORIGINAL REQUEST", func(e agent.Event) {
		if e.Type == agent.EvCompaction {
			infos = append(infos, *e.Compaction)
		}
	})
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if len(infos) == 0 || !infos[0].Fallback || !strings.Contains(infos[0].Summary, "sub/f2.go") {
		t.Fatalf("compactions = %+v", infos)
	}
	if infos[0].TokensAfter >= infos[0].TokensBefore {
		t.Errorf("compaction did not shrink the prompt: %+v", infos[0])
	}
	checkPairing(t, s.Messages())
}

// A server whose prompt_tokens are far above the estimate (a tokenizer
// that counts more) makes compaction start earlier: the trigger is the
// real prompt size, not the estimate.
func TestCompactionFollowsServerUsage(t *testing.T) {
	t.Parallel()
	for _, scale := range []int{0, 3} {
		script := &compactionScript{reads: 3, scale: scale}
		fake := agenttest.NewFunc(script.reply)
		a := agent.New(fake, bigTools{n: 4000}, agent.Config{Context: agent.ContextConfig{Window: 16000, PruneAbove: 1 << 20}})
		res := a.Run(context.Background(), agent.NewSession("c", "SYSTEM"), "go", nil)
		if res.Reason != agent.EndTurn {
			t.Fatalf("result = %+v", res)
		}
		if got := script.summaries > 0; got != (scale == 3) {
			t.Errorf("scale %d: compacted = %v", scale, got)
		}
	}
}

var stubPath = regexp.MustCompile(`Full text: (\S+) \(read it`)

func TestPruningStubsPointToSpillFiles(t *testing.T) {
	t.Parallel()
	script := &compactionScript{reads: 12}
	fake := agenttest.NewFunc(script.reply)
	spillDir := t.TempDir()
	a := agent.New(fake, bigTools{n: 4000}, agent.Config{Spill: tools.NewSpill(spillDir), Context: agent.ContextConfig{Window: 200000, PruneAbove: 6000, PruneTo: 2500}})
	s := agent.NewSession("p", "SYSTEM")
	rec := &recorder{}
	if res := a.Run(context.Background(), s, "go", rec.observe); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if script.summaries != 0 {
		t.Errorf("compacted %d times; pruning should have been enough", script.summaries)
	}
	batches := rec.count(agent.EvPruned)
	if batches == 0 || batches > 6 {
		t.Errorf("%d pruning batches for 24 results", batches)
	}
	stubs := 0
	for _, m := range s.Messages() {
		if m.Role != agent.RoleTool || !strings.HasPrefix(m.Content, "[Pruned") {
			continue
		}
		stubs++
		sm := stubPath.FindStringSubmatch(m.Content)
		if sm == nil || filepath.Dir(sm[1]) != spillDir {
			t.Fatalf("stub without a spill file: %s", m.Content)
		}
		data, err := os.ReadFile(sm[1])
		if err != nil || !strings.Contains(string(data), "contents for") || len(data) != 4000 {
			t.Errorf("spill file %s: %d bytes, %v", sm[1], len(data), err)
		}
	}
	if stubs < 10 {
		t.Errorf("%d stubs", stubs)
	}
	checkPairing(t, s.Messages())
	// Between batches each request extends the previous one.
	reqs := fake.Requests()
	breaks := 0
	for i := 1; i < len(reqs); i++ {
		prev, cur := sent(reqs[i-1]), sent(reqs[i])
		for j := range prev {
			if j >= len(cur) || cur[j].Content != prev[j].Content {
				breaks++
				break
			}
		}
	}
	if breaks != batches {
		t.Errorf("prefix changed %d times for %d batches", breaks, batches)
	}
}

func TestLargeResultIsCutAndSpilled(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"path":"big"}`}}},
		agenttest.Turn{Text: "done"},
	)
	dir := t.TempDir()
	a := agent.New(fake, bigTools{n: 100000}, agent.Config{Spill: tools.NewSpill(dir), Context: agent.ContextConfig{MaxResultBytes: 8 << 10}})
	s := agent.NewSession("big", "SYSTEM")
	if res := a.Run(context.Background(), s, "go", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	msgs := s.Messages()
	var result agent.Message
	for _, m := range msgs {
		if m.Role == agent.RoleTool {
			result = m
		}
	}
	if len(result.Content) > 9<<10 {
		t.Errorf("result is %d bytes, over the cap", len(result.Content))
	}
	sm := regexp.MustCompile(`The full text is in (\S+):`).FindStringSubmatch(result.Content)
	if sm == nil {
		t.Fatalf("no spill path in %q", result.Content[len(result.Content)-300:])
	}
	data, err := os.ReadFile(sm[1])
	if err != nil || len(data) != 100000 {
		t.Errorf("spill file: %d bytes, %v", len(data), err)
	}
}

// A server that refuses a prompt as too long, under a configured window
// that was too big, gets a compacted prompt once, then the run goes on.
func TestContextOverflowCompactsAndRetries(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	n, refused := 0, 0
	fake := agenttest.NewFunc(func(req agent.Request) agenttest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if isSummaryRequest(req) {
			return agenttest.Turn{Text: "## Goal\ng\n## Decisions\n-\n## Files touched\n-\n## State of the work\n-\n## Next steps\n-"}
		}
		if agent.RawTokens(req) > 9000 {
			refused++
			return agenttest.Turn{Err: errors.New(`model provider failed: 400 Bad Request: This model's maximum context length is 9000 tokens`)}
		}
		n++
		if n <= 6 {
			return agenttest.Turn{Calls: []agent.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d"}`, n)}}}
		}
		return agenttest.Turn{Text: "done"}
	})
	a := agent.New(fake, bigTools{n: 8000}, agent.Config{Context: agent.ContextConfig{Window: 100000, PruneAbove: 1 << 20}})
	s := agent.NewSession("o", "SYSTEM")
	rec := &recorder{}
	res := a.Run(context.Background(), s, "go", rec.observe)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if refused == 0 || rec.count(agent.EvCompaction) == 0 {
		t.Errorf("refused %d, compactions %d", refused, rec.count(agent.EvCompaction))
	}
	checkPairing(t, s.Messages())
}

func TestManualCompact(t *testing.T) {
	t.Parallel()
	script := &compactionScript{reads: 3}
	fake := agenttest.NewFunc(script.reply)
	a := agent.New(fake, bigTools{n: 2000}, agent.Config{Context: agent.ContextConfig{KeepRecent: 100}})
	s := agent.NewSession("m", "SYSTEM")
	if res := a.Run(context.Background(), s, "ORIGINAL REQUEST", nil); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	before := len(s.Messages())
	rec := &recorder{}
	if err := a.Compact(context.Background(), s, rec.observe); err != nil {
		t.Fatal(err)
	}
	msgs := s.Messages()
	if rec.count(agent.EvCompaction) != 1 || len(msgs) >= before {
		t.Fatalf("compaction: %d events, %d → %d messages", rec.count(agent.EvCompaction), before, len(msgs))
	}
	if msgs[0].Content != "SYSTEM" || msgs[1].Content != "ORIGINAL REQUEST" || !strings.Contains(msgs[2].Content, "## Goal") {
		t.Errorf("compacted = %+v", msgs[:3])
	}
	checkPairing(t, msgs)
}

// A server that counts far fewer prompt tokens than were sent is cutting
// the prompt: the user is warned once and the count is not trusted.
func TestServerCuttingThePromptIsReported(t *testing.T) {
	t.Parallel()
	n := 0
	fake := agenttest.NewFunc(func(req agent.Request) agenttest.Turn {
		n++
		var u agent.Usage
		if n > 1 {
			u.InputTokens = 300 // of a prompt of 3,000 tokens and more
		}
		if n <= 3 {
			return agenttest.Turn{Usage: u, Calls: []agent.ToolCall{{ID: fmt.Sprintf("c%d", n), Name: "read_file", Arguments: `{"path":"x"}`}}}
		}
		return agenttest.Turn{Usage: u, Text: "done"}
	})
	a := agent.New(fake, bigTools{n: 12000}, agent.Config{Context: agent.ContextConfig{PruneAbove: 1 << 20}})
	rec := &recorder{}
	if res := a.Run(context.Background(), agent.NewSession("cut", "SYSTEM"), "go", rec.observe); res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	warned := 0
	for _, e := range rec.events {
		if e.Type == agent.EvWarning && strings.Contains(e.Text, "cutting the prompt") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings, want 1", warned)
	}
	raw := agent.RawTokens(agent.Request{Messages: []agent.Message{{Content: strings.Repeat("x", 40000)}}})
	if got := a.Estimator().Tokens(agent.Request{Messages: []agent.Message{{Content: strings.Repeat("x", 40000)}}}); got != raw {
		t.Errorf("estimator calibrated by a cut count: %d, raw %d", got, raw)
	}
}
