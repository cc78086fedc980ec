package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/provider/textcalls"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Limits on what one reply may accumulate. A call over a limit is kept (so
// the loop can answer it) but its arguments are dropped and its id listed in
// MessageEnd.TruncatedCalls.
const (
	maxToolArgBytes  = 1 << 20 // arguments of one call
	maxToolCalls     = 128     // calls whose arguments are kept
	maxToolNameBytes = 256
)

// callAcc is one tool call being assembled.
type callAcc struct {
	id        string
	synthetic bool // id invented by the accumulator
	name      []byte
	args      []byte
	argBytes  int // bytes received, including dropped ones
	truncated bool
	pos       int // order in which the call was opened
}

// accumulator assembles the chunks of one reply (choice 0 only) into a
// message. It parses raw JSON itself because servers disagree on the shape
// of tool-call deltas (see the rules on addToolCall).
type accumulator struct {
	// text is the answer text after inline thinking was split out; the
	// gate decides how much of it is shown before the end (textcalls).
	text, reasoning, refusal strings.Builder
	think                    thinkSplit
	gate                     *textcalls.Gate
	opts                     accOptions

	calls   []*callAcc
	byIndex map[int]*callAcc
	byID    map[string]*callAcc
	last    *callAcc

	finish     string
	finishSeen bool
	usage      provider.Usage
	chunks     int // data lines decoded
}

// accOptions say what the accumulator does with the text.
type accOptions struct {
	// specs are the request's tools: with textCalls set, a reply without
	// structured calls is searched for calls written as text.
	specs     []tools.Spec
	textCalls bool
	// expectThink: the model may think without an opening tag.
	expectThink bool
	// hint is the user-facing cause and setting for calls written as text.
	hint string
}

func newAccumulator() *accumulator { return newAccumulatorOpts(accOptions{}) }

func newAccumulatorOpts(o accOptions) *accumulator {
	a := &accumulator{byIndex: map[int]*callAcc{}, byID: map[string]*callAcc{}, opts: o}
	a.think.expectOpen = o.expectThink
	if o.textCalls && len(o.specs) > 0 {
		a.gate = &textcalls.Gate{}
	}
	return a
}

// streamError is an error object the server sent inside the stream.
type streamError struct{ msg string }

func (e *streamError) Error() string { return e.msg }

// add folds one data line into the reply and returns the events it yields.
// It returns a *streamError when the chunk carries an error object, and a
// plain error when the line is not a JSON object.
func (a *accumulator) add(line []byte) ([]provider.StreamEvent, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	var c rawChunk // its raw fields alias line: they do not outlive add
	if !readChunk(line, &c) {
		c = rawChunk{}
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("malformed chunk %.200q: %w", line, err)
		}
	}
	if msg, ok := errorMessage(c.Error); ok {
		return nil, &streamError{msg: msg}
	}
	a.chunks++
	if u := c.Usage; u != nil && (u.PromptTokens.set || u.CompletionTokens.set) {
		a.usage = u.toUsage() // the last report wins
	}
	var evs []provider.StreamEvent
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index.set && ch.Index.n != 0 {
			continue // n>1: only the first choice is the reply
		}
		evs = a.addChoice(ch, evs)
	}
	return evs, nil
}

func (a *accumulator) addChoice(ch *rawChoice, evs []provider.StreamEvent) []provider.StreamEvent {
	d := &ch.Delta
	// Reasoning: servers use one of three fields; OpenRouter sends both
	// "reasoning" and "reasoning_details" with the same text, so the first
	// non-empty one wins.
	var r string
	switch {
	case d.ReasoningContent != nil && *d.ReasoningContent != "":
		r = *d.ReasoningContent
	case d.Reasoning != nil && *d.Reasoning != "":
		r = *d.Reasoning
	default:
		r = reasoningDetailsText(d.ReasoningDetails)
	}
	text, thinking := contentText(d.Content)
	if len(d.Content) == 0 && ch.Text != nil {
		text = *ch.Text // completions-style choices[].text without delta.content
	}
	inline, text := a.think.push(text)
	evs = a.emit(evs, r+thinking+inline, text)
	if d.Refusal != nil {
		a.refusal.WriteString(*d.Refusal)
	}
	for i := range d.ToolCalls {
		if c := a.addToolCall(&d.ToolCalls[i]); c != nil {
			evs = append(evs, provider.StreamEvent{Type: provider.EventToolCallDelta, ToolCall: &provider.ToolCallDelta{
				Index: c.pos, ID: c.id, Name: string(c.name), ArgumentBytes: c.argBytes,
			}})
		}
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		a.finish = *ch.FinishReason
		a.finishSeen = true
	}
	return evs
}

// emit records reasoning and answer text and returns their events; the
// gate may hold answer text back until the end.
func (a *accumulator) emit(evs []provider.StreamEvent, reasoning, text string) []provider.StreamEvent {
	if reasoning != "" {
		a.reasoning.WriteString(reasoning)
		evs = append(evs, provider.StreamEvent{Type: provider.EventReasoningDelta, Text: reasoning})
	}
	if text == "" {
		return evs
	}
	a.text.WriteString(text)
	if a.gate != nil {
		text = a.gate.Push(text)
	}
	if text != "" {
		evs = append(evs, provider.StreamEvent{Type: provider.EventTextDelta, Text: text})
	}
	return evs
}

// addToolCall routes one tool-call delta to the call it continues, or opens
// a new one. The rules, for servers that disagree on the shape:
//
//  1. With an index: the call open at that index, unless the delta carries a
//     different non-empty id (Ollama puts every call on index 0), which
//     starts a new call.
//  2. Without an index: the call with the same id; a new id opens a call.
//     Without id either, a name opens a new call (servers that omit both
//     send whole calls, so a name is never a fragment there); anything
//     else continues the current call.
//  3. An empty or null id, name or arguments never overwrites what is known.
//  4. A call with no id gets call_<n>, unique within the reply.
func (a *accumulator) addToolCall(tc *rawToolCall) *callAcc {
	id := ""
	if tc.ID != nil {
		id = *tc.ID
	}
	var name, args string
	if f := tc.Function; f != nil {
		if f.Name != nil {
			name = *f.Name
		}
		args = argumentsText(f.Arguments)
	}
	var c *callAcc
	if tc.Index.set {
		c = a.byIndex[tc.Index.n]
		if c != nil && id != "" && id != c.id && (!c.synthetic || c.argBytes > 0 && name != "") {
			c = nil
		}
		if c == nil && id != "" {
			c = a.byID[id]
		}
	} else {
		switch {
		case id != "":
			c = a.byID[id]
		case name != "" && a.last != nil && len(a.last.name) > 0:
			c = nil
		default:
			c = a.last
		}
	}
	if c == nil {
		if id == "" && name == "" && args == "" {
			return nil // an empty fragment opens nothing
		}
		c = &callAcc{pos: len(a.calls)}
		a.calls = append(a.calls, c)
		if len(a.calls) > maxToolCalls {
			c.truncated = true
		}
	}
	if tc.Index.set {
		a.byIndex[tc.Index.n] = c
	}
	a.last = c
	if id != "" && (c.id == "" || c.synthetic) && a.byID[id] == nil {
		if c.synthetic {
			delete(a.byID, c.id)
		}
		c.id, c.synthetic = id, false
		a.byID[id] = c
	}
	if c.id == "" {
		c.id, c.synthetic = a.syntheticID(c.pos), true
		a.byID[c.id] = c
	}
	// A name after the arguments started is a server repeating it.
	if name != "" && c.argBytes == 0 && len(c.name)+len(name) <= maxToolNameBytes {
		c.name = append(c.name, name...)
	}
	c.argBytes += len(args)
	if c.argBytes > maxToolArgBytes {
		c.truncated = true
	}
	if c.truncated {
		c.args = nil
	} else {
		c.args = append(c.args, args...)
	}
	return c
}

func (a *accumulator) syntheticID(pos int) string {
	id := "call_" + strconv.Itoa(pos)
	for n := 1; a.byID[id] != nil; n++ {
		id = "call_" + strconv.Itoa(pos) + "_" + strconv.Itoa(n)
	}
	return id
}

// end assembles the reply and returns the text the gate still held, as
// events to send before the MessageEnd. Complete tool calls are
// authoritative: a reply with calls that the server ended with "stop"
// (Ollama, vLLM) is StopToolCalls, RawStopReason keeps "stop". A reply
// without a finish reason (it ended with [DONE]) is StopEndTurn or
// StopToolCalls. A refusal text makes it StopRefusal. A reply without
// structured calls may have written them as text (textcalls.go).
func (a *accumulator) end() ([]provider.StreamEvent, *provider.MessageEnd) {
	r, t := a.think.end()
	evs := a.emit(nil, r, t)
	m := &provider.MessageEnd{
		Message: provider.Message{
			Role:      provider.RoleAssistant,
			Content:   a.text.String(),
			Reasoning: a.reasoning.String(),
		},
		RawStopReason: a.finish,
		Refusal:       a.refusal.String(),
		Usage:         a.usage,
	}
	seen := map[string]bool{}
	for i, c := range a.calls {
		id := c.id
		for n := 1; id == "" || seen[id]; n++ {
			id = fmt.Sprintf("call_%d_%d", i, n) // a server repeated an id
		}
		seen[id] = true
		tc := provider.ToolCall{ID: id, Name: string(c.name), Arguments: string(c.args)}
		if c.truncated {
			tc.Arguments = ""
			m.TruncatedCalls = append(m.TruncatedCalls, id)
		}
		m.Message.ToolCalls = append(m.Message.ToolCalls, tc)
	}
	evs = a.finishText(m, evs)
	m.StopReason = normaliseStop(a.finish, len(m.Message.ToolCalls) > 0)
	if m.Refusal != "" && m.StopReason == provider.StopEndTurn {
		m.StopReason = provider.StopRefusal
	}
	return evs, m
}

func normaliseStop(raw string, haveCalls bool) provider.StopReason {
	switch strings.ToLower(raw) {
	case "stop", "end_turn", "eos", "", "tool_calls", "function_call", "tool_use":
		if haveCalls {
			return provider.StopToolCalls
		}
		// "tool_calls" with no call (vLLM #53255): nothing to run.
		return provider.StopEndTurn
	case "length", "max_tokens", "model_length":
		return provider.StopLength
	case "content_filter":
		return provider.StopFilter
	case "refusal":
		return provider.StopRefusal
	}
	return provider.StopOther
}
