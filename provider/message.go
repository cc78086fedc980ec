package provider

import "github.com/agent-lsp/agent-lsp/tools"

// Role says who wrote a message in the conversation.
type Role string

// The roles of the OpenAI chat format; every provider maps onto them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation, in the harness's own form.
// Providers translate it to and from their wire format.
type Message struct {
	Role Role `json:"role"`
	// Content is the visible text.
	Content string `json:"content,omitempty"`
	// Reasoning is the model's thinking text, kept apart from the answer
	// and never sent back to the provider.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID pairs a tool message with the call it answers.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Name is the tool name on a tool message.
	Name string `json:"name,omitempty"`
	// IsError marks a tool result that reports a failure.
	IsError bool `json:"isError,omitempty"`
}

// ToolCall is one call the model asked for: the dispatcher's own type, so
// the loop hands calls to the tools without converting them. Arguments are
// the raw JSON text exactly as the model wrote it.
type ToolCall = tools.Call

// Usage counts tokens as the server reports them.
type Usage struct {
	InputTokens       int `json:"inputTokens"`
	OutputTokens      int `json:"outputTokens"`
	CachedInputTokens int `json:"cachedInputTokens,omitempty"`
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + o.InputTokens,
		OutputTokens:      u.OutputTokens + o.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + o.CachedInputTokens,
	}
}
