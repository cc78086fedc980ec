package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// chattyTools has one tool that prints two lines through the live sink:
// the second only after the observer got the first, which proves the
// output reaches the observer while the call runs.
type chattyTools struct{ seen chan struct{} }

func (c *chattyTools) Specs() []tools.Spec {
	return []tools.Spec{{Name: "chatty", Description: "prints", Parameters: []byte(`{"type":"object"}`)}}
}

func (c *chattyTools) Dispatch(ctx context.Context, call tools.Call) tools.Result {
	sink := tools.LiveOutput(ctx)
	if sink == nil {
		return tools.Result{Text: "no sink", IsError: true}
	}
	sink("one\n")
	<-c.seen
	sink("two\n")
	return tools.Result{Text: "one\ntwo\n"}
}

func TestToolOutputEvents(t *testing.T) {
	t.Parallel()
	fake := agenttest.NewFake(
		agenttest.Turn{Calls: []agent.ToolCall{call("c1", "chatty", `{}`)}},
		agenttest.Turn{Text: "done"},
	)
	ct := &chattyTools{seen: make(chan struct{})}
	var got []agent.Event
	obs := func(e agent.Event) {
		got = append(got, e)
		if e.Type == agent.EvToolOutput && e.Text == "one\n" {
			close(ct.seen)
		}
	}
	res := agent.New(fake, ct, agent.Config{}).Run(context.Background(), agent.NewSession("s", "sys"), "go", obs)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result %+v", res)
	}
	var order []string
	var live strings.Builder
	for _, e := range got {
		switch e.Type {
		case agent.EvToolStart, agent.EvToolEnd:
			order = append(order, string(e.Type))
		case agent.EvToolOutput:
			if e.Tool == nil || e.Tool.ID != "c1" || e.Tool.Name != "chatty" {
				t.Fatalf("tool_output names %+v", e.Tool)
			}
			if len(order) == 0 || order[len(order)-1] != "tool_output" {
				order = append(order, "tool_output")
			}
			live.WriteString(e.Text)
		}
	}
	if strings.Join(order, ",") != "tool_start,tool_output,tool_result" || live.String() != "one\ntwo\n" {
		t.Fatalf("events %v, live output %q", order, live.String())
	}
}
