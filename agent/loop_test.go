package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// testTools is a small Tools: "echo" answers its arguments, "fail" always
// fails, "block" waits for cancellation.
type testTools struct {
	mu    sync.Mutex
	calls []agent.ToolCall
	// started is closed when a "block" call starts, if set.
	started chan struct{}
}

func (t *testTools) Specs() []tools.Spec {
	return []tools.Spec{
		{Name: "echo", Description: "echo", Parameters: []byte(`{"type":"object"}`)},
		{Name: "fail", Description: "fail", Parameters: []byte(`{"type":"object"}`)},
		{Name: "block", Description: "block", Parameters: []byte(`{"type":"object"}`)},
	}
}

func (t *testTools) Dispatch(ctx context.Context, c tools.Call) tools.Result {
	t.mu.Lock()
	t.calls = append(t.calls, c)
	t.mu.Unlock()
	switch c.Name {
	case "echo":
		return tools.Result{Text: "echo " + c.Arguments}
	case "block":
		if t.started != nil {
			close(t.started)
		}
		<-ctx.Done()
		return tools.Result{Text: "cancelled by user", IsError: true}
	default:
		return tools.Result{Text: "it failed", IsError: true}
	}
}

func (t *testTools) ran() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.calls)
}

func call(id, name, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Arguments: args}
}

// checkPairing asserts invariants 2 and 3 of the model cases: every call
// has exactly one result, no result lacks a call, ids are unique and set.
func checkPairing(t testing.TB, msgs []agent.Message) {
	t.Helper()
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Role == agent.RoleAssistant && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Errorf("message %d: empty assistant message stored", i)
		}
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			if m.Role == agent.RoleTool && !seen[m.ToolCallID] {
				t.Errorf("message %d: result for unknown call %q", i, m.ToolCallID)
			}
			continue
		}
		for j, c := range m.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				t.Errorf("message %d: call id %q empty or duplicated", i, c.ID)
			}
			seen[c.ID] = true
			k := i + 1 + j
			if k >= len(msgs) || msgs[k].Role != agent.RoleTool || msgs[k].ToolCallID != c.ID {
				t.Errorf("message %d: call %q not answered right after its message", i, c.ID)
			}
		}
		k := i + 1 + len(m.ToolCalls)
		if k < len(msgs) && msgs[k].Role == agent.RoleTool {
			t.Errorf("message %d: extra tool result %q", k, msgs[k].ToolCallID)
		}
	}
}

type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) observe(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) count(ty agent.EventType) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.events {
		if e.Type == ty {
			n++
		}
	}
	return n
}

func (r *recorder) last() agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[len(r.events)-1]
}

func runFake(t *testing.T, cfg agent.Config, p agent.Provider, tools agent.Tools) (agent.Result, *agent.Session, *recorder) {
	t.Helper()
	s := agent.NewSession("s1", "system prompt")
	rec := &recorder{}
	res := agent.New(p, tools, cfg).Run(context.Background(), s, "do it", rec.observe)
	checkPairing(t, s.Messages())
	if e := rec.last(); e.Type != agent.EvEnd || e.Result == nil || e.Result.Reason != res.Reason {
		t.Errorf("last event = %+v, want end with %s", e, res.Reason)
	}
	return res, s, rec
}

func TestEndTurn(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Text: "Let me look.", Calls: []agent.ToolCall{call("c1", "echo", `{"x":1}`)}, Usage: agent.Usage{InputTokens: 10, OutputTokens: 5}},
		agenttest.Turn{Text: "Done.", Usage: agent.Usage{InputTokens: 20, OutputTokens: 3}},
	)
	res, s, rec := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndTurn || res.Turns != 2 || res.ToolCalls != 1 || res.Text != "Done." {
		t.Fatalf("result = %+v", res)
	}
	if res.Usage.InputTokens != 30 || res.Usage.OutputTokens != 8 {
		t.Errorf("usage = %+v", res.Usage)
	}
	reqs := fake.Requests()
	last := reqs[1].Messages[len(reqs[1].Messages)-1]
	if last.Role != agent.RoleTool || last.ToolCallID != "c1" || last.Content != `echo {"x":1}` {
		t.Errorf("second request ends with %+v", last)
	}
	if n := rec.count(agent.EvToolStart); n != 1 {
		t.Errorf("tool_start events = %d", n)
	}
	if got := len(s.Messages()); got != 5 { // system, user, assistant, tool, assistant
		t.Errorf("history has %d messages", got)
	}
}

func TestMaxTurns(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	n := 0
	fake := agenttest.NewFunc(func(agent.Request) agenttest.Turn {
		n++
		return agenttest.Turn{Calls: []agent.ToolCall{call("", "echo", fmt.Sprintf(`{"n":%d}`, n))}}
	})
	res, _, _ := runFake(t, agent.Config{MaxTurns: 4}, fake, tt)
	if res.Reason != agent.EndMaxTurns || res.Turns != 4 || res.ToolCalls != 4 {
		t.Fatalf("result = %+v", res)
	}
}

func TestMaxToolCalls(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("a", "echo", `{"i":1}`), call("b", "echo", `{"i":2}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("c", "echo", `{"i":3}`), call("d", "echo", `{"i":4}`), call("e", "echo", `{"i":5}`)}},
	)
	res, s, _ := runFake(t, agent.Config{MaxToolCalls: 3}, fake, tt)
	if res.Reason != agent.EndMaxToolCalls || res.ToolCalls != 3 || tt.ran() != 3 {
		t.Fatalf("result = %+v, ran %d", res, tt.ran())
	}
	msgs := s.Messages()
	if last := msgs[len(msgs)-1]; !last.IsError || !strings.Contains(last.Content, "limit of 3 tool calls") {
		t.Errorf("last result = %+v", last)
	}
}

func TestRepeatedFailure(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	same := agenttest.Turn{Calls: []agent.ToolCall{call("", "fail", `{"p":"x"}`)}}
	fake := agenttest.NewFake(same, same, same)
	res, _, rec := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndRepeatedFailure || res.ToolCalls != 3 {
		t.Fatalf("result = %+v", res)
	}
	if rec.count(agent.EvWarning) != 1 || !strings.Contains(res.Error, "fail failed 3 times") {
		t.Errorf("warnings = %d, error = %q", rec.count(agent.EvWarning), res.Error)
	}
}

func TestFailuresWithDifferentArgumentsGoOn(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("", "fail", `{"p":1}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("", "fail", `{"p":2}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("", "fail", `{"p":3}`)}},
		agenttest.Turn{Text: "I give up on that."},
	)
	res, _, _ := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
}

func TestEmptyResponse(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(agenttest.Turn{}, agenttest.Turn{})
	res, s, _ := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndEmptyResponse || res.Turns != 2 {
		t.Fatalf("result = %+v", res)
	}
	reqs := fake.Requests()
	nudge := reqs[1].Messages[len(reqs[1].Messages)-1]
	if nudge.Role != agent.RoleUser || !strings.Contains(nudge.Content, "echo, fail, block") {
		t.Errorf("nudge = %+v", nudge)
	}
	for _, m := range s.Messages() {
		if m.Role == agent.RoleAssistant {
			t.Errorf("empty reply stored: %+v", m)
		}
	}
}

func TestEmptyResponseThenAnswer(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(agenttest.Turn{Reasoning: "hmm"}, agenttest.Turn{Text: "Here."})
	res, _, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndTurn || res.Text != "Here." {
		t.Fatalf("result = %+v", res)
	}
}

func TestMaxTokens(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(agenttest.Turn{Text: "The answer is", Stop: provider.StopLength})
	res, _, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndMaxTokens || res.Text != "The answer is" {
		t.Fatalf("result = %+v", res)
	}
}

func TestTruncatedToolCallIsNotRun(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("a", "echo", `{"content":"abc"}`)}, Stop: provider.StopLength},
		agenttest.Turn{Text: "ok"},
	)
	res, s, _ := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndTurn || tt.ran() != 0 {
		t.Fatalf("result = %+v, ran %d", res, tt.ran())
	}
	if m := s.Messages()[3]; !m.IsError || !strings.Contains(m.Content, "cut off") {
		t.Errorf("result = %+v", m)
	}
}

func TestRefusal(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(agenttest.Turn{Stop: provider.StopRefusal, Refusal: "I can't help with that."})
	res, _, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndRefusal || res.Error != "I can't help with that." {
		t.Fatalf("result = %+v", res)
	}
}

func TestProviderError(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("a", "echo", `{}`)}},
		agenttest.Turn{Err: errors.New("nothing answers at http://127.0.0.1:1/v1")},
	)
	res, _, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndError || !strings.Contains(res.Error, "nothing answers") || res.ToolCalls != 1 {
		t.Fatalf("result = %+v", res)
	}
}

func TestStreamErrorMidReply(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(agenttest.Turn{Text: "partial", RecvErr: errors.New("stream ended before the reply was complete")})
	res, s, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndError || !strings.Contains(res.Error, "before the reply was complete") {
		t.Fatalf("result = %+v", res)
	}
	for _, m := range s.Messages() {
		if m.Role == agent.RoleAssistant {
			t.Errorf("incomplete reply stored: %+v", m)
		}
	}
}

func TestAbortedDuringStream(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	fake := agenttest.NewFake(agenttest.Turn{Text: "thinking", Block: true})
	s := agent.NewSession("s", "")
	streaming := make(chan struct{}, 1)
	obs := func(e agent.Event) {
		if e.Type == agent.EvText {
			streaming <- struct{}{}
		}
	}
	done := make(chan agent.Result)
	go func() { done <- agent.New(fake, &testTools{}, agent.Config{}).Run(ctx, s, "go", obs) }()
	<-streaming
	cancel()
	res := <-done
	if res.Reason != agent.EndAborted {
		t.Fatalf("result = %+v", res)
	}
	checkPairing(t, s.Messages())
}

func TestAbortedDuringToolCalls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	tt := &testTools{started: make(chan struct{})}
	fake := agenttest.NewFake(agenttest.Turn{Calls: []agent.ToolCall{
		call("a", "echo", `{}`), call("b", "block", `{}`), call("c", "echo", `{"late":1}`), call("d", "echo", `{"late":2}`),
	}})
	s := agent.NewSession("s", "")
	done := make(chan agent.Result)
	go func() { done <- agent.New(fake, tt, agent.Config{}).Run(ctx, s, "go", nil) }()
	<-tt.started
	cancel()
	res := <-done
	if res.Reason != agent.EndAborted || tt.ran() != 2 {
		t.Fatalf("result = %+v, ran %d", res, tt.ran())
	}
	msgs := s.Messages()
	checkPairing(t, msgs)
	for _, m := range msgs[len(msgs)-3:] {
		if !m.IsError || !strings.Contains(m.Content, "cancel") {
			t.Errorf("pending call answered with %+v", m)
		}
	}
}

func TestIDsAreMadeUnique(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("call_1", "echo", `{"a":1}`), call("call_1", "echo", `{"a":2}`), call("", "echo", `{"a":3}`), call(strings.Repeat("x", 1000), "echo", `{"a":4}`), call("bad\nid", "echo", `{}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("call_1", "echo", `{"b":1}`)}},
		agenttest.Turn{Text: "done"},
	)
	res, _, _ := runFake(t, agent.Config{}, fake, &testTools{})
	if res.Reason != agent.EndTurn || res.ToolCalls != 6 {
		t.Fatalf("result = %+v", res)
	}
}

func TestTooManyCallsInOneReply(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	var calls []agent.ToolCall
	for i := range 500 {
		calls = append(calls, call(fmt.Sprintf("c%d", i), "echo", fmt.Sprintf(`{"i":%d}`, i)))
	}
	fake := agenttest.NewFake(agenttest.Turn{Calls: calls}, agenttest.Turn{Text: "ok"})
	res, s, _ := runFake(t, agent.Config{MaxToolCalls: 1000}, fake, tt)
	if res.Reason != agent.EndTurn || tt.ran() != 64 {
		t.Fatalf("result = %+v, ran %d", res, tt.ran())
	}
	if m := s.Messages()[3+64]; !m.IsError || !strings.Contains(m.Content, "too many tool calls") {
		t.Errorf("call 65 answered with %+v", m)
	}
}

func TestNoToolsSession(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(agenttest.Turn{Calls: []agent.ToolCall{call("a", "echo", `{}`)}}, agenttest.Turn{Text: "fine"})
	res, _, _ := runFake(t, agent.Config{}, fake, nil)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
}

func TestOversizedCallIsAnsweredNotRun(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("dup", "echo", `{"a":1}`), call("big", "echo", ``)}, Oversized: []string{"big"}},
		agenttest.Turn{Calls: []agent.ToolCall{call("dup", "echo", `{"a":2}`)}},
		agenttest.Turn{Text: "ok"},
	)
	res, s, _ := runFake(t, agent.Config{}, fake, tt)
	if res.Reason != agent.EndTurn || tt.ran() != 2 {
		t.Fatalf("result = %+v, ran %d", res, tt.ran())
	}
	if m := s.Messages()[4]; !m.IsError || !strings.Contains(m.Content, "too large") {
		t.Errorf("oversized call answered with %+v", m)
	}
}
