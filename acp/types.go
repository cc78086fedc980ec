package acp

import "encoding/json"

// The subset of the ACP v1 schema (@agentclientprotocol/sdk 2.4.0,
// schema/v1/schema.json) this agent sends and reads. Field names follow
// the schema exactly: the official client validates them.

// ProtocolVersion is the ACP version spoken.
const ProtocolVersion = 1

type initializeParams struct {
	ProtocolVersion *int `json:"protocolVersion"`
	ClientCaps      struct {
		FS struct {
			ReadTextFile  bool `json:"readTextFile"`
			WriteTextFile bool `json:"writeTextFile"`
		} `json:"fs"`
		Terminal bool `json:"terminal"`
	} `json:"clientCapabilities"`
	ClientInfo *implementation `json:"clientInfo,omitempty"`
}

type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion int               `json:"protocolVersion"`
	AgentCaps       agentCapabilities `json:"agentCapabilities"`
	AuthMethods     []any             `json:"authMethods"`
	AgentInfo       implementation    `json:"agentInfo"`
}

type agentCapabilities struct {
	LoadSession bool `json:"loadSession"`
	Prompt      struct {
		Image           bool `json:"image"`
		Audio           bool `json:"audio"`
		EmbeddedContext bool `json:"embeddedContext"`
	} `json:"promptCapabilities"`
	MCP struct {
		HTTP bool `json:"http"`
		SSE  bool `json:"sse"`
	} `json:"mcpCapabilities"`
	Session struct {
		List *struct{} `json:"list,omitempty"`
	} `json:"sessionCapabilities"`
}

type newSessionParams struct {
	Cwd        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

type loadSessionParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

type sessionMode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type modeState struct {
	CurrentModeID  string        `json:"currentModeId"`
	AvailableModes []sessionMode `json:"availableModes"`
}

type newSessionResult struct {
	SessionID string     `json:"sessionId"`
	Modes     *modeState `json:"modes,omitempty"`
}

type loadSessionResult struct {
	Modes *modeState `json:"modes,omitempty"`
}

type listSessionsParams struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type sessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

type listSessionsResult struct {
	Sessions   []sessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

type setModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

type sessionRef struct {
	SessionID string `json:"sessionId"`
}

type promptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []contentBlock `json:"prompt"`
}

// contentBlock is any ContentBlock variant, decoded loosely.
type contentBlock struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	URI      string    `json:"uri,omitempty"`
	Name     string    `json:"name,omitempty"`
	MimeType string    `json:"mimeType,omitempty"`
	Resource *resource `json:"resource,omitempty"`
}

type resource struct {
	URI      string  `json:"uri"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
}

type promptResult struct {
	StopReason string `json:"stopReason"`
	// Usage is the unstable schema's PromptResponse.usage; stable clients
	// ignore it.
	Usage *turnUsage `json:"usage,omitempty"`
}

type turnUsage struct {
	TotalTokens  int  `json:"totalTokens"`
	InputTokens  int  `json:"inputTokens"`
	OutputTokens int  `json:"outputTokens"`
	CachedRead   *int `json:"cachedReadTokens,omitempty"`
}

// Stop reasons.
const (
	StopEndTurn     = "end_turn"
	StopMaxTokens   = "max_tokens"
	StopMaxRequests = "max_turn_requests"
	StopRefusal     = "refusal"
	StopCancelled   = "cancelled"
)

// sessionNotification is session/update's params; Update is one of the
// update structs below, each with its sessionUpdate discriminator.
type sessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

type textBlock struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type chunkUpdate struct {
	SessionUpdate string    `json:"sessionUpdate"` // user_message_chunk, agent_message_chunk, agent_thought_chunk
	Content       textBlock `json:"content"`
}

type location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// toolCallContent is a ToolCallContent: {type: content, content} or
// {type: diff, path, oldText, newText}.
type toolCallContent struct {
	Type    string     `json:"type"`
	Content *textBlock `json:"content,omitempty"`
	Path    string     `json:"path,omitempty"`
	OldText *string    `json:"oldText,omitempty"`
	NewText *string    `json:"newText,omitempty"`
}

type toolCall struct {
	SessionUpdate string            `json:"sessionUpdate,omitempty"` // tool_call
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title"`
	Kind          string            `json:"kind"`
	Status        string            `json:"status"`
	Locations     []location        `json:"locations,omitempty"`
	RawInput      any               `json:"rawInput,omitempty"`
	Content       []toolCallContent `json:"content,omitempty"`
}

type toolCallUpdate struct {
	SessionUpdate string            `json:"sessionUpdate,omitempty"` // tool_call_update
	ToolCallID    string            `json:"toolCallId"`
	Title         string            `json:"title,omitempty"`
	Kind          string            `json:"kind,omitempty"`
	Status        string            `json:"status,omitempty"`
	Locations     []location        `json:"locations,omitempty"`
	RawInput      any               `json:"rawInput,omitempty"`
	Content       []toolCallContent `json:"content,omitempty"`
}

type planEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
}

type planUpdate struct {
	SessionUpdate string      `json:"sessionUpdate"` // plan
	Entries       []planEntry `json:"entries"`
}

type usageUpdate struct {
	SessionUpdate string `json:"sessionUpdate"` // usage_update
	Used          int    `json:"used"`
	Size          int    `json:"size"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type permissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  toolCallUpdate     `json:"toolCall"`
	Options   []permissionOption `json:"options"`
}

type permissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"` // cancelled | selected
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

type readTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}

type readTextFileResult struct {
	Content *string `json:"content"`
}

type writeTextFileParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}
