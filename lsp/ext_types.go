package lsp

import (
	"encoding/json"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
)

// PromptParams are agent/prompt's params.
type PromptParams struct {
	Prompt string `json:"prompt"`
	// SessionID continues that conversation; empty starts a new one.
	SessionID string `json:"sessionId,omitempty"`
	// TextDocument and Range, when given, are context for the model.
	TextDocument *struct {
		URI string `json:"uri"`
	} `json:"textDocument,omitempty"`
	Range *Range `json:"range,omitempty"`
	// Mode, when set, switches the session to "default" or "read-only"
	// (no edits, no bash) for this prompt and the ones after it.
	Mode string `json:"mode,omitempty"`
	// Model, when set, is the model this prompt and the session's next
	// ones talk to (the editor's model picker).
	Model string `json:"model,omitempty"`
	// Context are the files, folders and ranges the user mentioned
	// (@file, #buffer): the model sees them with their paths; an open
	// document's unsaved text wins over the disk.
	Context []ContextItem `json:"context,omitempty"`
}

// ContextItem is one mentioned file or folder, or a range of a file.
type ContextItem struct {
	URI   string `json:"uri"`
	Range *Range `json:"range,omitempty"`
}

// PromptResult is agent/prompt's result: how the run ended.
type PromptResult struct {
	SessionID string `json:"sessionId"`
	agent.Result
}

// CancelParams are agent/cancel's params.
type CancelParams struct {
	SessionID string `json:"sessionId"`
}

// EventParams are agent/event's params: agent.Event's flat JSON plus the
// session id, e.g. {"sessionId":"s1","type":"text","text":"Hel"}. The
// server adds two events of its own: run_start (RunStartEvent) and
// context (ContextEvent).
type EventParams = json.RawMessage

// RunStartEvent opens every run, so a chat can show runs it did not start
// (code actions) as their own turns.
type RunStartEvent struct {
	SessionID string `json:"sessionId"`
	Type      string `json:"type"` // "run_start"
	// Origin is "prompt", "fix", "rewrite" or "edit".
	Origin string `json:"origin"`
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
	// Context names the document and lines ("main.go:5-7"), if any.
	Context string `json:"context,omitempty"`
	Model   string `json:"model,omitempty"`
}

// ContextEvent says how full the model's window is: the prompt tokens of
// the last request and the window (0 when unknown).
type ContextEvent struct {
	SessionID string `json:"sessionId"`
	Type      string `json:"type"` // "context"
	Tokens    int    `json:"tokens"`
	Window    int    `json:"window,omitempty"`
}

// DiagnosticsParams are agent/diagnostics's params.
type DiagnosticsParams struct {
	URI         string       `json:"uri"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// SaveDocumentsParams are agent/saveDocuments's params.
type SaveDocumentsParams struct {
	URIs []string `json:"uris"`
}

// SaveDocumentsResult is agent/saveDocuments's result (the client may
// answer null).
type SaveDocumentsResult struct {
	Saved []string `json:"saved,omitempty"`
}

// ApproveParams are agent/approve's params: the pending call and the
// choices, the safe one first.
type ApproveParams struct {
	SessionID string `json:"sessionId,omitempty"`
	CallID    string `json:"callId,omitempty"`
	Tool      string `json:"tool"`
	// Subject is the command or path; Action what the tool does to it
	// ("run", "edit", "read", "use TOOL on").
	Subject string `json:"subject"`
	Action  string `json:"action"`
	// Reasons say in plain words why it needs approval; Detail is the
	// engine's full explanation, part by part.
	Reasons []string `json:"reasons"`
	Detail  string   `json:"detail,omitempty"`
	// Message is the whole prompt as one text (what plain clients get).
	Message     string          `json:"message"`
	SessionRule string          `json:"sessionRule,omitempty"`
	ServerRule  string          `json:"serverRule,omitempty"`
	Choices     []ApproveChoice `json:"choices"`
	// TimeoutSeconds is how long the server waits before it denies (and
	// cancels the request).
	TimeoutSeconds int `json:"timeoutSeconds"`
}

// ApproveChoice is one answer the user may give.
type ApproveChoice struct {
	// ID is "deny", "allow", "allow_session" or "allow_server".
	ID    string `json:"id"`
	Title string `json:"title"`
	// Rule is what the choice allows for the session.
	Rule string `json:"rule,omitempty"`
}

// ApproveResult is agent/approve's result; null or an unknown choice
// deny.
type ApproveResult struct {
	Choice string `json:"choice"`
}

// SessionsParams are agent/sessions's params.
type SessionsParams struct {
	// Limit caps the list (most recent first); 0 means 100.
	Limit int `json:"limit,omitempty"`
}

// SessionsResult is agent/sessions's result.
type SessionsResult struct {
	Sessions []SessionSummary `json:"sessions"`
}

// SessionSummary describes one recorded session of the workspace.
type SessionSummary struct {
	ID string `json:"id"`
	// Title is the user's name for it, else its first prompt.
	Title     string    `json:"title"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model,omitempty"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// AgeSeconds is how long ago it was last updated.
	AgeSeconds int64 `json:"ageSeconds"`
	Messages   int   `json:"messages"`
	Running    bool  `json:"running,omitempty"`
}

// SessionRef names a session (agent/sessionHistory, agent/deleteSession).
type SessionRef struct {
	SessionID string `json:"sessionId"`
}

// RenameSessionParams are agent/renameSession's params; an empty title
// goes back to the first prompt.
type RenameSessionParams struct {
	SessionID string `json:"sessionId"`
	Title     string `json:"title"`
}

// SessionHistory is agent/sessionHistory's result: the conversation as a
// chat shows it (system messages and the editor's context left out).
type SessionHistory struct {
	SessionID string        `json:"sessionId"`
	Title     string        `json:"title"`
	Turns     []HistoryTurn `json:"turns"`
	// Usage is the tokens of every request so far.
	Usage agent.Usage `json:"usage"`
}

// HistoryTurn is one prompt or one answer with its tool calls.
type HistoryTurn struct {
	Role      string        `json:"role"` // "user" or "assistant"
	Text      string        `json:"text,omitempty"`
	ToolCalls []HistoryCall `json:"toolCalls,omitempty"`
	// Ending is how the run ended, on a run's last assistant turn.
	Ending string `json:"ending,omitempty"`
}

// HistoryCall is one tool call and its result.
type HistoryCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Result    string `json:"result,omitempty"`
	IsError   bool   `json:"isError,omitempty"`
}

// ModelsParams are agent/models's params (none).
type ModelsParams struct{}

// ModelsResult is agent/models's result: the configured model and the
// endpoint's list; Error says why the list is short, if it is.
type ModelsResult struct {
	Current string      `json:"current"`
	Models  []ModelInfo `json:"models"`
	Error   string      `json:"error,omitempty"`
}

// ModelInfo is one model; ContextWindow is the probed window in tokens,
// when known.
type ModelInfo struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"contextWindow,omitempty"`
}
