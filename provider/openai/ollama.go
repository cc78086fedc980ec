package openai

import (
	"bytes"
	"encoding/json"

	"github.com/agent-lsp/agent-lsp/provider"
)

// Ollama's OpenAI endpoint cannot set the context size: "The OpenAI API
// does not have a way of setting the context size for a model" (ollama
// docs/api/openai-compatibility.mdx; its request type has no options, so
// options.num_ctx is dropped). The model then runs with the server's
// default (OLLAMA_CONTEXT_LENGTH: 2048 before 0.6, then 4096; recent
// versions pick 4k, 32k or 256k by VRAM) and cuts longer prompts silently. The native POST /api/chat takes
// "options": {"num_ctx": N}; when Config.OllamaNumCtx is set the adapter
// speaks it (ndjson.go reads its stream).

// DefaultOllamaContext is the context size asked of Ollama when the
// configuration names none. A 40-turn session peaks at about 12.8k tokens
// in a 32k window (docs/local-models.md), so 16k would already fit, but
// 32k leaves room for large files and fewer compactions. It is the native
// context of qwen2.5-coder (the default model) and most 7-14B coders, and
// the KV cache stays small: qwen2.5 7B keeps 56 KiB a token in f16 (28
// layers, 4 KV heads of 128), 1.8 GiB at 32k; a Llama 3.1 8B at its native
// 128k would need 16 GiB, which is why the model's own context_length is
// only the upper bound.
const DefaultOllamaContext = 32768

// OllamaContext is the num_ctx to ask of the server ep describes, or 0 when
// it is not Ollama. configured is the context_window setting (0: none).
//
//  1. A configured window is the user's choice: it is asked for, capped at
//     the model's native context (Ollama caps there too).
//  2. Otherwise min(DefaultOllamaContext, native context), or the window
//     the loaded model already runs with (/api/ps, or num_ctx in its
//     Modelfile) when that is larger: asking for less would reload it
//     smaller.
//
// It is not 0 when the model already runs with enough: the window /api/ps
// reports may be the one an earlier run of agent-lsp loaded it with, and a
// /v1 request, which names no num_ctx, makes Ollama reload the model at its
// default (server/sched.go needsReload compares the runner's num_ctx), so
// /api/chat with the same num_ctx keeps one stable size.
func OllamaContext(ep Endpoint, configured int) int {
	if ep.Server != ServerOllama {
		return 0
	}
	if configured > 0 {
		if ep.NativeWindow > 0 {
			return min(configured, ep.NativeWindow)
		}
		return configured
	}
	want := DefaultOllamaContext
	if ep.NativeWindow > 0 {
		want = min(want, ep.NativeWindow)
	}
	if ep.runningKnown() {
		want = max(want, ep.Window)
	}
	return want
}

// runningKnown says whether ep.Window is the window the model runs with,
// rather than its native context reported when it was not loaded.
func (ep Endpoint) runningKnown() bool {
	return ep.Window > 0 && ep.WindowSource != sourceOllamaNative
}

// encodeOllamaMessage encodes msgs[i] in /api/chat's message format
// (ollama api/types.go Message): content always present; an assistant's
// tool_calls with arguments as a JSON object; a tool result as role
// "tool" with tool_name (and tool_call_id, which Ollama reads since
// 0.12.10). The tool name comes from the message, or from the call it
// answers in msgs[:i]. The encoding depends only on msgs[:i+1], so the
// encoder's per-message cache holds for it.
func encodeOllamaMessage(msgs []provider.Message, i int) []byte {
	m := msgs[i]
	type call struct {
		ID       string `json:"id,omitempty"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	w := struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
		ToolName   string `json:"tool_name,omitempty"`
		ToolCallID string `json:"tool_call_id,omitempty"`
	}{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case provider.RoleAssistant:
		for _, tc := range m.ToolCalls {
			c := call{ID: tc.ID}
			c.Function.Name, c.Function.Arguments = tc.Name, objectArgs(tc.Arguments)
			w.ToolCalls = append(w.ToolCalls, c)
		}
	case provider.RoleTool:
		w.ToolCallID, w.ToolName = m.ToolCallID, m.Name
		if w.ToolName == "" {
			w.ToolName = callName(msgs[:i], m.ToolCallID)
		}
	}
	b, err := json.Marshal(w)
	if err != nil {
		return []byte(`{"role":"user","content":""}`) // cannot happen for these fields
	}
	return b
}

// objectArgs returns arguments as the JSON object Ollama requires (it
// rejects a request whose arguments are a string). Arguments that are not
// an object (a call the loop answered with an error for its broken
// arguments) are sent as {}: the tool result that follows says what was
// wrong.
func objectArgs(args string) json.RawMessage {
	a := bytes.TrimSpace([]byte(args))
	if len(a) > 0 && a[0] == '{' && json.Valid(a) {
		return a
	}
	return json.RawMessage(`{}`)
}

// callName finds the name of the call id among the assistant messages.
func callName(msgs []provider.Message, id string) string {
	for j := len(msgs) - 1; j >= 0; j-- {
		for _, tc := range msgs[j].ToolCalls {
			if tc.ID == id {
				return tc.Name
			}
		}
	}
	return ""
}

// ollamaHead is the part of an /api/chat request after messages and
// tools: num_ctx, and num_predict for max_tokens.
func ollamaHead(model string, numCtx, maxTokens int) []byte {
	type options struct {
		NumCtx     int `json:"num_ctx"`
		NumPredict int `json:"num_predict,omitempty"`
	}
	h, _ := json.Marshal(struct {
		Model   string  `json:"model"`
		Stream  bool    `json:"stream"`
		Options options `json:"options"`
	}{model, true, options{numCtx, maxTokens}})
	return h
}
