package openai

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/provider"
)

// The wire shapes of one chat.completion.chunk, decoded loosely: every field
// may be missing or null, and content may be a string or an array of parts.
type rawChunk struct {
	Choices []rawChoice     `json:"choices"`
	Usage   *rawUsage       `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type rawChoice struct {
	Index        looseInt `json:"index"`
	Delta        rawDelta `json:"delta"`
	Text         *string  `json:"text"`
	FinishReason *string  `json:"finish_reason"`
}

type rawDelta struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        *string         `json:"reasoning"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	Refusal          *string         `json:"refusal"`
	ToolCalls        []rawToolCall   `json:"tool_calls"`
}

type rawToolCall struct {
	Index    looseInt `json:"index"`
	ID       *string  `json:"id"`
	Function *struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type rawUsage struct {
	PromptTokens        looseInt `json:"prompt_tokens"`
	CompletionTokens    looseInt `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens looseInt `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// warmDecoding decodes a chunk with every field in the background, once
// per process, as the first request goes out (or earlier, when the
// caller dials ahead: Preconnect): encoding/json builds a
// type's decoder by reflection at its first Unmarshal (about 0.1 ms for
// rawChunk), which would otherwise fall between the first byte of the
// reply and its first token. The network wait hides it.
var warmDecoding = sync.OnceFunc(func() {
	go func() {
		var c rawChunk
		_ = json.Unmarshal(warmChunk, &c)
		contentText(c.Choices[0].Delta.Content)
	}()
})

var warmChunk = []byte(`{"choices":[{"index":0,"text":null,"finish_reason":"stop","delta":{"content":"x","reasoning_content":"r","reasoning":null,` +
	`"reasoning_details":null,"refusal":null,"tool_calls":[{"index":0,"id":"c","function":{"name":"n","arguments":"{}"}}]}}],` +
	`"usage":{"prompt_tokens":1,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}},"error":null}`)

func (u *rawUsage) toUsage() provider.Usage {
	out := provider.Usage{InputTokens: u.PromptTokens.n, OutputTokens: u.CompletionTokens.n}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedInputTokens = d.CachedTokens.n
	}
	return out
}

// contentText reads delta.content: a string, or (Mistral magistral) an
// array of parts where "thinking" parts are reasoning.
func contentText(raw json.RawMessage) (text, thinking string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' {
		return "", ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, ""
	}
	var parts []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", ""
	}
	var t, th strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			t.WriteString(p.Text)
		case "thinking":
			s, inner := contentText(p.Thinking)
			th.WriteString(s)
			th.WriteString(inner)
		}
	}
	return t.String(), th.String()
}

// reasoningDetailsText reads OpenRouter's reasoning_details array; encrypted
// entries carry no text.
func reasoningDetailsText(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var ds []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Summary string `json:"summary"`
	}
	if json.Unmarshal(raw, &ds) != nil {
		return ""
	}
	var b strings.Builder
	for _, d := range ds {
		switch d.Type {
		case "reasoning.text":
			b.WriteString(d.Text)
		case "reasoning.summary":
			b.WriteString(d.Summary)
		}
	}
	return b.String()
}

// argumentsText returns arguments as raw text: a JSON string is unquoted,
// an object (some servers send one) is kept as written.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// errorMessage reads an "error" value: an object with a message, a string,
// or anything else non-null.
func errorMessage(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var obj struct {
		Message json.RawMessage `json:"message"`
		Code    json.RawMessage `json:"code"`
	}
	if raw[0] == '{' && json.Unmarshal(raw, &obj) == nil && len(obj.Message) > 0 {
		var s string
		if json.Unmarshal(obj.Message, &s) != nil {
			s = string(obj.Message)
		}
		if len(obj.Code) > 0 && string(obj.Code) != "null" {
			s += " (code " + strings.Trim(string(obj.Code), `"`) + ")"
		}
		return s, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// looseInt decodes a JSON number (12 or 12.0), a numeric string or null; a
// value of another type reads as absent rather than failing the chunk.
type looseInt struct {
	n   int
	set bool
}

func (l *looseInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= math.MinInt32 && f <= math.MaxInt32 {
		l.n, l.set = int(f), true
	}
	return nil
}
