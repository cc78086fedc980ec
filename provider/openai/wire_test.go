package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/agent-lsp/agent-lsp/internal/jsonw"
	"github.com/agent-lsp/agent-lsp/internal/jsonw/jsonwtest"
	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// referenceMessage is encodeMessage as it was over go-openai's types.
func referenceMessage(m provider.Message) []byte {
	w := goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case provider.RoleAssistant:
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, goopenai.ToolCall{ID: tc.ID, Type: goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: tc.Name, Arguments: args}})
		}
	case provider.RoleTool:
		w.ToolCallID = m.ToolCallID
	}
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	if m.Content == "" {
		fill := `"content":"",`
		if len(w.ToolCalls) > 0 {
			fill = `"content":null,`
		}
		b = append([]byte{'{'}, append([]byte(fill), b[1:]...)...)
	}
	return b
}

// head is the reference for encodeHead: the request's fields after
// messages and tools, as json.Marshal writes them.
type head struct {
	Model               string                  `json:"model"`
	Stream              bool                    `json:"stream"`
	StreamOptions       *goopenai.StreamOptions `json:"stream_options"`
	MaxTokens           int                     `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                     `json:"max_completion_tokens,omitempty"`
}

func requestHead(model string, maxTokens int) head {
	h := head{Model: model, Stream: true, StreamOptions: &goopenai.StreamOptions{IncludeUsage: true}, MaxTokens: maxTokens}
	//lint:ignore SA1019 the validator's input, not what we send
	if goopenai.NewReasoningValidator().Validate(goopenai.ChatCompletionRequest{Model: model, MaxTokens: maxTokens}) != nil {
		h.MaxTokens, h.MaxCompletionTokens = 0, maxTokens
	}
	return h
}

// TestWireMatchesGoOpenAI compares the hand-written request pieces with
// json.Marshal of go-openai's types, byte for byte: every role, with and
// without content and tool calls, over hostile strings in each field; tool
// lists with generated, indented, HTML-bearing, empty and null schemas;
// the head for plain and reasoning models.
func TestWireMatchesGoOpenAI(t *testing.T) {
	t.Parallel()
	var msgs []provider.Message
	for _, s := range jsonwtest.Strings {
		for _, role := range []provider.Role{provider.RoleSystem, provider.RoleUser, provider.RoleAssistant, provider.RoleTool} {
			msgs = append(msgs,
				provider.Message{Role: role, Content: s},
				provider.Message{Role: role, Content: s, ToolCallID: "call_" + s, Name: "ignored", Reasoning: "not sent"},
				provider.Message{Role: role, Content: s, ToolCalls: []provider.ToolCall{
					{ID: s, Name: "read_file", Arguments: `{"path":"` + s + `"}`},
					{ID: "c2", Name: s, Arguments: s},
					{Name: "", Arguments: "  \n"},
				}})
		}
	}
	for i, m := range msgs {
		if got, want := encodeMessage(m), referenceMessage(m); !bytes.Equal(got, want) {
			t.Errorf("message %d (%s, %q):\n got %s\nwant %s", i, m.Role, m.Content, got, want)
		}
	}

	specs := []tools.Spec{
		{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(tools.ReadFileParams{}.ToolSchema())},
		{Name: "indented", Description: "<b>bold</b> & more", Parameters: json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"q\": {\"type\": \"string\", \"description\": \"a < b && c > d \u2028\"}}\n}\n")},
		{Name: "none", Parameters: nil},
		{Name: "null", Description: "", Parameters: json.RawMessage("null")},
	}
	for _, s := range jsonwtest.Strings {
		specs = append(specs, tools.Spec{Name: s, Description: s, Parameters: json.RawMessage(`{"type":"object","description":` + string(jsonw.AppendString(nil, s)) + `}`)})
	}
	// A Tool's spec is copied as it is (Marshaled): the same bytes.
	rawTool, err := tools.DefineRaw("raw", "<raw> & tool", json.RawMessage("{\n \"type\": \"object\",\n \"properties\": {\"q\": {\"type\": \"string\", \"description\": \"a < b && c > d \u2028\"}}}"), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := rawTool.Spec(); !s.Marshaled {
		t.Error("a Tool's spec is not marked Marshaled")
	} else {
		specs = append(specs, s)
	}
	var ref []goopenai.Tool
	for _, s := range specs {
		p := s.Parameters
		if len(p) == 0 || string(p) == "null" {
			p = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		ref = append(ref, goopenai.Tool{Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{Name: s.Name, Description: s.Description, Parameters: p}})
	}
	want, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := encodeTools(nil, "", specs); !bytes.Equal(got, want) {
		t.Errorf("tools:\n got %s\nwant %s", got, want)
	}
	if got := encodeTools(nil, "", nil); got != nil {
		t.Errorf("no tools: %s", got)
	}

	for _, model := range []string{"llama3.1:8b", "gpt-4o", "gpt-5-mini", "o3", `odd "model" <name>`} {
		for _, max := range []int{0, 64, -1} {
			want, _ := json.Marshal(requestHead(model, max))
			want[0] = ','
			if got := encodeHead(model, max); !bytes.Equal(got, want) {
				t.Errorf("head %s/%d:\n got %s\nwant %s", model, max, got, want)
			}
		}
	}
}

// TestToolWithBadSchemaLeftOut: a tool whose parameters are not JSON is
// dropped from the list, and the others are still offered (json.Marshal
// used to fail the whole list on it, sending no tools at all).
func TestToolWithBadSchemaLeftOut(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{`{"type":`, `not json`, `{"a":1}}`, "{\"a\":\"\xff\"", `[1,]`} {
		got := encodeTools(nil, "", []tools.Spec{
			{Name: "bad", Parameters: json.RawMessage(bad)},
			{Name: "good", Parameters: json.RawMessage(`{"type":"object"}`)},
		})
		var list []struct {
			Function struct{ Name string } `json:"function"`
		}
		if err := json.Unmarshal(got, &list); err != nil || len(list) != 1 || list[0].Function.Name != "good" {
			t.Errorf("%q: %s (%v)", bad, got, err)
		}
		if got := encodeTools(nil, "", []tools.Spec{{Name: "bad", Parameters: json.RawMessage(bad)}}); got != nil {
			t.Errorf("%q alone: %s, want no tools", bad, got)
		}
	}
}

func BenchmarkEncodeTools(b *testing.B) {
	specs := []tools.Spec{{Name: "read_file", Description: strings.Repeat("Read a file. ", 40), Parameters: json.RawMessage(tools.ReadFileParams{}.ToolSchema())}}
	for i := range 8 {
		s := specs[0]
		s.Name = fmt.Sprint("tool", i)
		specs = append(specs, s)
	}
	for b.Loop() {
		encodeTools(nil, "", specs)
	}
}
