package agent_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// benchProvider replies with one tool call per turn, then an answer,
// without recording anything, so the benchmark measures the loop.
type benchProvider struct{ left int }

func (p *benchProvider) Stream(ctx context.Context, req agent.Request) (provider.Stream, error) {
	p.left--
	end := &agent.MessageEnd{StopReason: provider.StopEndTurn, Message: agent.Message{Content: "done"}}
	if p.left > 0 {
		end = &agent.MessageEnd{StopReason: provider.StopToolCalls, Message: agent.Message{
			Content:   "step",
			ToolCalls: []agent.ToolCall{{ID: fmt.Sprintf("c%d", p.left), Name: "echo", Arguments: `{"n":1}`}},
		}}
	}
	return &benchStream{evs: []provider.StreamEvent{
		{Type: provider.EventTextDelta, Text: "step"},
		{Type: provider.EventMessageEnd, End: end},
	}}, nil
}

type benchStream struct{ evs []provider.StreamEvent }

func (s *benchStream) Recv() (provider.StreamEvent, error) {
	if len(s.evs) == 0 {
		return provider.StreamEvent{}, io.EOF
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}
func (s *benchStream) Close() error { return nil }

type echoTools struct{}

func (echoTools) Specs() []tools.Spec { return []tools.Spec{{Name: "echo"}} }
func (echoTools) Dispatch(_ context.Context, c tools.Call) tools.Result {
	return tools.Result{Text: "ok"}
}

// BenchmarkLoopTurn measures the loop's own cost per turn (one model
// request, one tool call, its result) with the history already holding N
// messages: it should be far under a millisecond and flat in N. Each run
// of 200 turns starts from the same N-message history, so N is what is
// measured, not a history that grows with b.N.
func BenchmarkLoopTurn(b *testing.B) {
	for _, hist := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("history=%d", hist), func(b *testing.B) {
			const turnsPerRun = 200
			base := make([]agent.Message, 0, hist)
			for i := range hist {
				base = append(base, agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("message %d of the earlier conversation", i)})
			}
			cfg := agent.Config{MaxTurns: 1 << 30, MaxToolCalls: 1 << 30, Context: agent.ContextConfig{Window: 1 << 30}}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += turnsPerRun {
				b.StopTimer()
				s := agent.NewSession("bench", "system")
				for _, m := range base {
					s.Append(m)
				}
				p := &benchProvider{left: turnsPerRun}
				a := agent.New(p, echoTools{}, cfg)
				b.StartTimer()
				if res := a.Run(context.Background(), s, "go", nil); res.Reason != agent.EndTurn {
					b.Fatal(res)
				}
			}
		})
	}
}
