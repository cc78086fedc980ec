// Package provider is the contract between the agent loop and a model: one
// streamed reply per request, ending in exactly one EventMessageEnd that
// carries the assembled message, the stop reason and the usage. Adapters
// live in subpackages (provider/openai); the loop imports only this one.
package provider

import (
	"context"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Provider streams one model reply. It is the only thing the loop knows
// about models; provider/openai adapts OpenAI-compatible servers to it.
type Provider interface {
	// Stream starts one reply. Retries of transient failures happen inside.
	// A returned error means no reply could be started.
	Stream(ctx context.Context, req Request) (Stream, error)
}

// Stream yields the events of one reply. Recv returns events until exactly
// one EventMessageEnd, then io.EOF. Any other error ends the reply: the
// reply is then incomplete and must not be acted on.
type Stream interface {
	Recv() (StreamEvent, error)
	Close() error
}

// Request is what the loop sends for one turn.
type Request struct {
	Messages []Message
	Tools    []tools.Spec
	// MaxTokens caps the reply; 0 leaves it to the server.
	MaxTokens int
	// Sent, when set, is called once the request has been written to the
	// server, on the transport's goroutine, and not for a request that
	// fails before: what can wait until the model is at work starts there
	// (a new session's transcript file), out of the first token's way.
	Sent func()
}

// StreamEventType names what a StreamEvent carries.
type StreamEventType int

// The kinds of stream event.
const (
	// EventTextDelta carries a piece of answer text in Text.
	EventTextDelta StreamEventType = iota + 1
	// EventReasoningDelta carries a piece of reasoning text in Text.
	EventReasoningDelta
	// EventToolCallDelta says a tool call is being streamed; ToolCall holds
	// what is known so far (index, id, name). For progress display only.
	EventToolCallDelta
	// EventMessageEnd closes the reply; End holds the assembled message.
	EventMessageEnd
)

// StreamEvent is one event of a reply stream.
type StreamEvent struct {
	Type     StreamEventType
	Text     string
	ToolCall *ToolCallDelta
	End      *MessageEnd
}

// ToolCallDelta is the progress of one streamed tool call.
type ToolCallDelta struct {
	Index int
	ID    string
	Name  string
	// ArgumentBytes is how much of the arguments arrived so far.
	ArgumentBytes int
}

// StopReason is the provider's reason for ending a reply, normalised.
type StopReason string

// Normalised stop reasons.
const (
	StopEndTurn   StopReason = "stop"
	StopToolCalls StopReason = "tool_calls"
	StopLength    StopReason = "length"
	StopRefusal   StopReason = "refusal"
	StopFilter    StopReason = "content_filter"
	// StopOther is any reason the adapter does not know; it is kept in
	// MessageEnd.RawStopReason.
	StopOther StopReason = "other"
)

// MessageEnd closes a reply.
type MessageEnd struct {
	// Message is the assembled assistant message: text, reasoning and
	// the complete tool calls in the order the model opened them.
	Message Message
	// StopReason is the normalised finish reason; RawStopReason the
	// server's own word for it.
	StopReason    StopReason
	RawStopReason string
	// Refusal is the refusal text when the provider reported one.
	Refusal string
	// Usage is the server's token count for this request, if reported.
	Usage Usage
	// TruncatedCalls lists the ids of tool calls the provider could not
	// keep whole (arguments over its size cap, or too many calls). They
	// are in Message.ToolCalls with empty Arguments; the loop must answer
	// them with an error result instead of running them.
	TruncatedCalls []string
	// TextCalls is set when the reply had no structured tool call but its
	// text held a tool-call envelope (provider/textcalls): the calls it
	// recovered are in Message.ToolCalls, or, when the envelope was
	// broken, Problem says what was wrong and Message.ToolCalls is empty.
	TextCalls *TextCalls
}

// TextCalls reports tool calls the model wrote as text.
type TextCalls struct {
	// Family names the text protocol, e.g. "hermes <tool_call>".
	Family string
	// Recovered counts the calls moved into Message.ToolCalls.
	Recovered int
	// Problem says why the envelope could not be run, in words for the
	// model; empty when every call was recovered.
	Problem string
	// Hint names the likely cause and the setting to change, for the user.
	Hint string
}
