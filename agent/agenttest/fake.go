// Package agenttest provides a scripted fake provider for the agent loop's
// tests: each scripted Turn is one model reply.
package agenttest

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/provider"
)

// Turn is one scripted model reply.
type Turn struct {
	Text      string
	Reasoning string
	Calls     []agent.ToolCall
	// Stop defaults to tool_calls when Calls is set, else stop.
	Stop    provider.StopReason
	Refusal string
	Usage   agent.Usage
	// Oversized lists ids of calls reported as too large to keep.
	Oversized []string
	// Err makes Stream fail before any event (a provider that gave up).
	Err error
	// RecvErr ends the stream with this error after the deltas.
	RecvErr error
	// Block makes the stream wait for the context to be cancelled after
	// sending Text, as a slow model would.
	Block bool
}

// Fake is a Provider that replays turns in order and records requests.
type Fake struct {
	mu       sync.Mutex
	turns    []Turn
	next     func(req agent.Request) Turn
	requests []agent.Request
}

// NewFake returns a provider that replays turns in order; a request past
// the script fails, so a test sees an unexpected extra turn.
func NewFake(turns ...Turn) *Fake { return &Fake{turns: turns} }

// NewFunc returns a provider that asks fn for each reply.
func NewFunc(fn func(req agent.Request) Turn) *Fake { return &Fake{next: fn} }

// Requests returns copies of the requests received so far.
func (f *Fake) Requests() []agent.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]agent.Request(nil), f.requests...)
}

// Stream implements agent.Provider.
func (f *Fake) Stream(ctx context.Context, req agent.Request) (provider.Stream, error) {
	f.mu.Lock()
	req.Messages = append([]agent.Message(nil), req.Messages...)
	f.requests = append(f.requests, req)
	var t Turn
	switch {
	case f.next != nil:
		f.mu.Unlock()
		t = f.next(req)
	case len(f.turns) == 0:
		f.mu.Unlock()
		return nil, errors.New("fake provider: no more scripted turns")
	default:
		t = f.turns[0]
		f.turns = f.turns[1:]
		f.mu.Unlock()
	}
	if t.Err != nil {
		return nil, t.Err
	}
	return &stream{ctx: ctx, events: events(t), turn: t}, nil
}

func events(t Turn) []provider.StreamEvent {
	var evs []provider.StreamEvent
	if t.Reasoning != "" {
		evs = append(evs, provider.StreamEvent{Type: provider.EventReasoningDelta, Text: t.Reasoning})
	}
	if t.Text != "" {
		evs = append(evs, provider.StreamEvent{Type: provider.EventTextDelta, Text: t.Text})
	}
	for i, c := range t.Calls {
		evs = append(evs, provider.StreamEvent{Type: provider.EventToolCallDelta, ToolCall: &provider.ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, ArgumentBytes: len(c.Arguments)}})
	}
	return evs
}

type stream struct {
	ctx    context.Context
	events []provider.StreamEvent
	turn   Turn
	done   bool
}

func (s *stream) Recv() (provider.StreamEvent, error) {
	if err := s.ctx.Err(); err != nil {
		return provider.StreamEvent{}, err
	}
	if len(s.events) > 0 {
		ev := s.events[0]
		s.events = s.events[1:]
		return ev, nil
	}
	if s.done {
		return provider.StreamEvent{}, io.EOF
	}
	if s.turn.Block {
		<-s.ctx.Done()
		return provider.StreamEvent{}, s.ctx.Err()
	}
	if s.turn.RecvErr != nil {
		return provider.StreamEvent{}, s.turn.RecvErr
	}
	s.done = true
	stop := s.turn.Stop
	if stop == "" {
		stop = provider.StopEndTurn
		if len(s.turn.Calls) > 0 {
			stop = provider.StopToolCalls
		}
	}
	calls := append([]agent.ToolCall(nil), s.turn.Calls...)
	return provider.StreamEvent{Type: provider.EventMessageEnd, End: &agent.MessageEnd{
		Message:        agent.Message{Role: agent.RoleAssistant, Content: s.turn.Text, Reasoning: s.turn.Reasoning, ToolCalls: calls},
		StopReason:     stop,
		RawStopReason:  string(stop),
		Refusal:        s.turn.Refusal,
		Usage:          s.turn.Usage,
		TruncatedCalls: s.turn.Oversized,
	}}, nil
}

func (s *stream) Close() error { return nil }
