package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
)

// ndjsonReader reads the stream of Ollama's native POST /api/chat (one
// JSON object a line, ollama/ollama docs/api.md "Generate a chat
// completion") and turns each line into the chat.completion.chunk the
// accumulator reads, so that everything the accumulator does (inline
// thinking, calls written as text, caps, stop reasons) works the same on
// both endpoints:
//
//	{"message":{"content":C,"thinking":T,"tool_calls":[...]},"done":false}
//	  → {"choices":[{"index":0,"delta":{"content":C,"reasoning_content":T,"tool_calls":[...]}}]}
//	{"done":true,"done_reason":R,"prompt_eval_count":P,"eval_count":E}
//	  → the same with "finish_reason":R (or "stop"), and a usage object
//	{"error":E} (a failure mid-stream, docs/api/errors.mdx)
//	  → {"error":E}
//
// Ollama sends each tool call whole, arguments as a JSON object, and
// before 0.12.10 without an id: every call gets its own index, and an id
// (call_ and 8 random characters, as Ollama's /v1 makes them) when it has
// none or repeats one. The line with "done": true is the end marker: nothing after it is
// read. A body that ends without it is a cut stream (stream.streamEnd). A
// line that is not a JSON object is passed on as it is, for the
// accumulator to report as malformed.
type ndjsonReader struct {
	lineReader
	done  bool
	calls int             // tool calls seen, for their indexes
	ids   map[string]bool // their ids
	newID func() string
}

func newNDJSON(r io.Reader, newID func() string) *ndjsonReader {
	return &ndjsonReader{lineReader: newLineReader(r), ids: map[string]bool{}, newID: newID}
}

func (r *ndjsonReader) received() int64 { return r.bytes }
func (r *ndjsonReader) ended() bool     { return r.done }

func (r *ndjsonReader) next() ([]byte, error) {
	for {
		if r.done {
			return nil, io.EOF
		}
		line, err := r.readLine()
		if len(line) == 0 && err != nil {
			return nil, err
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return r.convert(line), nil // a last line without newline counts
		}
		if err != nil {
			return nil, err
		}
	}
}

// ollamaLine is one line of /api/chat, decoded loosely.
type ollamaLine struct {
	Message *struct {
		Content   string `json:"content"`
		Thinking  string `json:"thinking"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done            bool            `json:"done"`
	DoneReason      string          `json:"done_reason"`
	PromptEvalCount looseInt        `json:"prompt_eval_count"`
	EvalCount       looseInt        `json:"eval_count"`
	Error           json.RawMessage `json:"error"`
}

// The chat.completion.chunk written for the accumulator.
type (
	oaChunk struct {
		Choices []oaChoice `json:"choices"`
		Usage   *oaUsage   `json:"usage,omitempty"`
	}
	oaChoice struct {
		Index        int     `json:"index"`
		Delta        oaDelta `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	oaDelta struct {
		Content          string   `json:"content,omitempty"`
		ReasoningContent string   `json:"reasoning_content,omitempty"`
		ToolCalls        []oaCall `json:"tool_calls,omitempty"`
	}
	oaCall struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	oaUsage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	}
)

// convert turns one /api/chat line into one chunk.
func (r *ndjsonReader) convert(line []byte) []byte {
	var l ollamaLine
	if line[0] != '{' || json.Unmarshal(line, &l) != nil {
		return line
	}
	if _, ok := errorMessage(l.Error); ok {
		out, _ := json.Marshal(map[string]json.RawMessage{"error": l.Error})
		return out
	}
	ch := oaChoice{}
	if m := l.Message; m != nil {
		ch.Delta.Content, ch.Delta.ReasoningContent = m.Content, m.Thinking
		for _, c := range m.ToolCalls {
			oc := oaCall{Index: r.calls, ID: c.ID, Type: "function"}
			r.calls++
			// Each call is whole: a repeated id must not make the
			// accumulator append it to the earlier call.
			for oc.ID == "" || r.ids[oc.ID] {
				oc.ID = r.newID()
			}
			r.ids[oc.ID] = true
			oc.Function.Name, oc.Function.Arguments = c.Function.Name, c.Function.Arguments
			if a := bytes.TrimSpace(oc.Function.Arguments); len(a) == 0 || string(a) == "null" {
				oc.Function.Arguments = json.RawMessage(`{}`) // a call without arguments
			}
			ch.Delta.ToolCalls = append(ch.Delta.ToolCalls, oc)
		}
	}
	out := oaChunk{Choices: []oaChoice{ch}}
	if l.Done {
		r.done = true
		reason := l.DoneReason
		if reason == "" {
			reason = "stop"
		}
		ch.FinishReason = &reason
		out.Choices[0] = ch
		if l.PromptEvalCount.set || l.EvalCount.set {
			out.Usage = &oaUsage{PromptTokens: l.PromptEvalCount.n, CompletionTokens: l.EvalCount.n}
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return line // arguments that are not JSON: let the accumulator say so
	}
	return b
}

// newCallID makes an id like Ollama's /v1 endpoint gives a call.
func newCallID() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("call_00000000")
	for i := len("call_"); i < len(b); i++ {
		b[i] = letters[rand.N(len(letters))]
	}
	return string(b)
}
