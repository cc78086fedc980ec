package openai

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

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
	Index    looseInt     `json:"index"`
	ID       *string      `json:"id"`
	Function *rawFunction `json:"function"`
}

type rawFunction struct {
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type rawUsage struct {
	PromptTokens        looseInt         `json:"prompt_tokens"`
	CompletionTokens    looseInt         `json:"completion_tokens"`
	PromptTokensDetails *rawTokenDetails `json:"prompt_tokens_details"`
}

type rawTokenDetails struct {
	CachedTokens looseInt `json:"cached_tokens"`
}

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
		s, _ := jsonString(raw)
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
	if s, ok := jsonString(raw); ok {
		return s
	}
	return string(raw)
}

// jsonString decodes raw as json.Unmarshal would into a string; !ok when
// raw is not one JSON string.
func jsonString(raw []byte) (string, bool) {
	r := jsonReader{b: raw}
	if s, ok := r.str(); ok && r.end() {
		return s, true
	}
	return "", false
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
	l.parse(b)
	return nil
}

// parse reads the bytes of a JSON value; a value it cannot read leaves l
// as it is.
func (l *looseInt) parse(b []byte) {
	s := strings.Trim(string(b), `"`)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= math.MinInt32 && f <= math.MaxInt32 {
		l.n, l.set = int(f), true
	}
}
