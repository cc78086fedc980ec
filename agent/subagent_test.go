package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// echoOnly is a read-only tool set with one tool.
type echoOnly struct{}

func (echoOnly) Specs() []tools.Spec {
	return []tools.Spec{{Name: "echo", Description: "echo", Parameters: []byte(`{"type":"object"}`)}}
}
func (echoOnly) Dispatch(_ context.Context, c tools.Call) tools.Result {
	return tools.Result{Text: "SECRET INTERMEDIATE " + c.Arguments}
}

func isChild(req agent.Request) bool {
	return strings.HasPrefix(req.Messages[0].Content, "You are a subagent")
}

func TestSubagentIsolation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var childReqs []agent.Request
	parentTurn, childTurn := 0, 0
	fake := agenttest.NewFunc(func(req agent.Request) agenttest.Turn {
		mu.Lock()
		defer mu.Unlock()
		u := agent.Usage{InputTokens: 100, OutputTokens: 10}
		if isChild(req) {
			childReqs = append(childReqs, req)
			childTurn++
			if childTurn == 1 {
				return agenttest.Turn{Usage: u, Calls: []agent.ToolCall{call("k1", "echo", `{"q":1}`)}}
			}
			return agenttest.Turn{Usage: u, Text: "X is defined in a.go:3."}
		}
		parentTurn++
		if parentTurn == 1 {
			return agenttest.Turn{Usage: u, Calls: []agent.ToolCall{call("t1", "task", `{"description":"find X","prompt":"Find where X is defined."}`)}}
		}
		return agenttest.Turn{Usage: u, Text: "X is in a.go."}
	})
	cfg := agent.Config{Subagent: &agent.SubagentConfig{Tools: echoOnly{}, Config: agent.Config{MaxTurns: 5}}}
	a := agent.New(fake, &testTools{}, cfg)
	s := agent.NewSession("parent", "PARENT SYSTEM")
	res := a.Run(context.Background(), s, "PARENT REQUEST", nil)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	// Four requests of 100 tokens: two parent, two child.
	if res.Usage.InputTokens != 400 || res.Usage.OutputTokens != 40 {
		t.Errorf("usage = %+v, want the child's added", res.Usage)
	}
	if len(childReqs) != 2 {
		t.Fatalf("%d child requests", len(childReqs))
	}
	first := childReqs[0]
	if len(first.Messages) != 2 || first.Messages[1].Content != "Find where X is defined." {
		t.Errorf("child context is not fresh: %+v", first.Messages)
	}
	for _, m := range first.Messages {
		if strings.Contains(m.Content, "PARENT") {
			t.Error("the child saw the parent's conversation")
		}
	}
	var names []string
	for _, sp := range first.Tools {
		names = append(names, sp.Name)
	}
	if strings.Join(names, ",") != "echo" {
		t.Errorf("child tools = %v", names)
	}
	var result string
	for _, m := range s.Messages() {
		if m.Role == agent.RoleTool && m.ToolCallID == "t1" {
			result = m.Content
		}
	}
	if !strings.Contains(result, "X is defined in a.go:3.") || strings.Contains(result, "SECRET INTERMEDIATE") {
		t.Errorf("task result = %q", result)
	}
	// The parent offers task; the child never does.
	var parentTools []string
	for _, sp := range fake.Requests()[0].Tools {
		parentTools = append(parentTools, sp.Name)
	}
	if got := strings.Join(parentTools, ","); got != "echo,fail,block,"+strings.Join(agent.BuiltinNames(cfg), ",") || !strings.HasSuffix(got, "task,write_todos") {
		t.Errorf("parent tools = %v", parentTools)
	}
}

func TestSubagentCancelledWithParent(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	var once sync.Once
	fake := agenttest.NewFunc(func(req agent.Request) agenttest.Turn {
		if isChild(req) {
			once.Do(func() { close(started) })
			return agenttest.Turn{Block: true}
		}
		return agenttest.Turn{Calls: []agent.ToolCall{call("t1", "task", `{"description":"slow","prompt":"Take forever."}`)}}
	})
	a := agent.New(fake, &testTools{}, agent.Config{Subagent: &agent.SubagentConfig{Tools: echoOnly{}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan agent.Result, 1)
	s := agent.NewSession("parent", "PARENT SYSTEM")
	go func() { done <- a.Run(ctx, s, "go", nil) }()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the subagent did not start")
	}
	cancel()
	select {
	case res := <-done:
		if res.Reason != agent.EndAborted {
			t.Errorf("result = %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not end the subagent")
	}
	checkPairing(t, s.Messages())
}
