package openai

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/agent-lsp/agent-lsp/internal/jsonw"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Request bodies are written by hand rather than by json.Marshal over
// go-openai's types: a fresh process's first Marshal builds their encoders
// by reflection and re-validates every tool schema through encoding/json's
// scanner, about 0.2 ms of a one-turn `agent-lsp run` spent before its
// request (BenchmarkOneTurn). The bytes are the ones json.Marshal of
// go-openai's ChatCompletionMessage and Tool gives, which
// TestWireMatchesGoOpenAI checks.

// encodeMessage encodes one message as go-openai's ChatCompletionMessage.
// Reasoning is never sent back. Empty arguments become "{}" (servers parse
// them). go-openai omits empty content, which servers reject for tool
// results and some for assistant tool-call messages, so a message without
// it gets "content": null (assistant with tool calls) or "".
func encodeMessage(m provider.Message) []byte {
	return appendMessage(make([]byte, 0, messageSize(m)), m)
}

// messageSize is about the size of m encoded.
func messageSize(m provider.Message) int {
	// A sixteenth more for escapes: a prompt's line breaks and quotes.
	n := len(m.Content) + len(m.Content)/16 + 64
	if m.Role == provider.RoleAssistant {
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + len(tc.Arguments)/4 + 64 // its quotes escaped
		}
	}
	return n
}

// appendMessage appends m encoded, as encodeMessage, to b.
func appendMessage(b []byte, m provider.Message) []byte {
	var calls []provider.ToolCall
	if m.Role == provider.RoleAssistant {
		calls = m.ToolCalls
	}
	b = append(b, '{')
	switch {
	case m.Content == "" && len(calls) > 0:
		b = append(b, `"content":null,`...)
	case m.Content == "":
		b = append(b, `"content":"",`...)
	}
	b = append(b, `"role":`...)
	b = jsonw.AppendString(b, string(m.Role))
	if m.Content != "" {
		b = append(b, `,"content":`...)
		b = jsonw.AppendString(b, m.Content)
	}
	for i, tc := range calls {
		if i == 0 {
			b = append(b, `,"tool_calls":[`...)
		} else {
			b = append(b, ',')
		}
		b = append(b, '{')
		if tc.ID != "" {
			b = append(b, `"id":`...)
			b = jsonw.AppendString(b, tc.ID)
			b = append(b, ',')
		}
		b = append(b, `"type":"function","function":{`...)
		args := tc.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		if tc.Name != "" {
			b = append(b, `"name":`...)
			b = jsonw.AppendString(b, tc.Name)
			b = append(b, ',')
		}
		b = append(b, `"arguments":`...)
		b = jsonw.AppendString(b, args)
		b = append(b, "}}"...)
	}
	if len(calls) > 0 {
		b = append(b, ']')
	}
	if m.Role == provider.RoleTool && m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = jsonw.AppendString(b, m.ToolCallID)
	}
	return append(b, '}')
}

// encodeTools appends the tool list, encoded as go-openai's []Tool after
// key, to dst; nothing when there are none. A tool without parameters gets
// an empty object schema; one whose parameters are not valid JSON is left
// out, as the model could not be told how to call it (json.Marshal failed
// the whole list on it).
func encodeTools(dst []byte, key string, specs []tools.Spec) []byte {
	if len(specs) == 0 {
		return dst
	}
	n := len(dst) + len(key) + 2
	for _, t := range specs {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 80
	}
	b := append(append(make([]byte, 0, n), dst...), key...)
	start := len(b)
	b = append(b, '[')
	var buf bytes.Buffer
	for _, t := range specs {
		params := []byte(t.Parameters)
		switch p := t.Parameters; {
		case len(p) == 0 || string(p) == "null":
			params = []byte(`{"type":"object","properties":{}}`)
		case t.Marshaled:
			// json.Marshal's output: compact and escaped already.
		default:
			buf.Reset()
			if json.Compact(&buf, p) != nil {
				continue
			}
			params = buf.Bytes()
			if bytes.ContainsAny(params, "<>&\u2028\u2029") {
				var esc bytes.Buffer
				json.HTMLEscape(&esc, params)
				params = esc.Bytes()
			}
		}
		if len(b) > start+1 {
			b = append(b, ',')
		}
		b = append(b, `{"function":{"name":`...)
		b = jsonw.AppendString(b, t.Name)
		if t.Description != "" {
			b = append(b, `,"description":`...)
			b = jsonw.AppendString(b, t.Description)
		}
		b = append(b, `,"parameters":`...)
		b = append(b, params...)
		b = append(b, `},"type":"function"}`...)
	}
	if len(b) == start+1 {
		return dst // no tool left
	}
	return append(b, ']')
}

// encodeHead encodes the part of the request after messages and tools, as
// json.Marshal of head, with a leading ',' in place of its '{'. Reasoning
// models (o1, gpt-5, ...) refuse max_tokens; go-openai knows which they
// are, and its validator reads the deprecated field.
func encodeHead(model string, maxTokens int) []byte {
	b := make([]byte, 0, len(model)+96)
	b = append(b, `,"model":`...)
	b = jsonw.AppendString(b, model)
	b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	if maxTokens != 0 {
		key := `,"max_tokens":`
		//lint:ignore SA1019 the validator's input, not what we send
		if goopenai.NewReasoningValidator().Validate(goopenai.ChatCompletionRequest{Model: model, MaxTokens: maxTokens}) != nil {
			key = `,"max_completion_tokens":`
		}
		b = strconv.AppendInt(append(b, key...), int64(maxTokens), 10)
	}
	return append(b, '}')
}
