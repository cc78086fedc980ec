package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// preparingCheckpoints records the order of its calls, and where the run
// was when Prepare came.
type preparingCheckpoints struct {
	mu    sync.Mutex
	fake  *agenttest.Fake
	tools *testTools
	calls []string
	at    []int // requests the provider had when Prepare came
	ran   []int // tool calls run by then
}

func (c *preparingCheckpoints) BeginRun(string, string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "begin")
	return ""
}

func (c *preparingCheckpoints) EndRun(string) []agent.FileChange {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "end")
	return nil
}

func (c *preparingCheckpoints) Prepare() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "prepare")
	c.at = append(c.at, len(c.fake.Requests()))
	c.ran = append(c.ran, c.tools.ran())
}

// TestPrepareAtFirstToolCall: a Checkpoints that is a Preparer is
// prepared once per run, when the model first asks for a tool and before
// that call runs; a run answered in text, or whose request failed, is
// never prepared.
func TestPrepareAtFirstToolCall(t *testing.T) {
	t.Parallel()
	tt := &testTools{}
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("c1", "echo", `{}`)}},
		agenttest.Turn{Calls: []agent.ToolCall{call("c2", "echo", `{}`)}},
		agenttest.Turn{Text: "done"},
		agenttest.Turn{Text: "just text"},
		agenttest.Turn{Err: errors.New("server down")},
	)
	cp := &preparingCheckpoints{fake: fake, tools: tt}
	a := agent.New(fake, tt, agent.Config{Checkpoints: cp})
	s := agent.NewSession("s", "system")
	if res := a.Run(context.Background(), s, "first", nil); res.Reason != agent.EndTurn || res.Turns != 3 {
		t.Fatalf("first run: %+v", res)
	}
	if res := a.Run(context.Background(), s, "second", nil); res.Reason != agent.EndTurn {
		t.Fatalf("second run: %+v", res)
	}
	a.Run(context.Background(), s, "third", nil) // the provider fails it
	want := []string{"begin", "prepare", "end", "begin", "end", "begin", "end"}
	if !slices.Equal(cp.calls, want) {
		t.Fatalf("calls %v, want %v", cp.calls, want)
	}
	if !slices.Equal(cp.at, []int{1}) || !slices.Equal(cp.ran, []int{0}) {
		t.Fatalf("Prepare came after request %v and tool call %v, want during the first reply, before any call ran ([1], [0])", cp.at, cp.ran)
	}
}
