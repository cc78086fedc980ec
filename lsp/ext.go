package lsp

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/agent-lsp/agent-lsp/agent"
	"go.lsp.dev/jsonrpc2"
)

// The agent/… methods: this table is the protocol extension, and
// docs/protocol.md documents exactly these methods (a test checks it).
const (
	// MethodPrompt (client→server request) runs the agent on a prompt.
	MethodPrompt = "agent/prompt"
	// MethodCancel (client→server notification) aborts a session's run.
	MethodCancel = "agent/cancel"
	// MethodEvent (server→client notification) streams a run's events.
	MethodEvent = "agent/event"
	// MethodDiagnostics (client→server notification) gives the server the
	// editor's diagnostics for one document.
	MethodDiagnostics = "agent/diagnostics"
	// MethodSaveDocuments (server→client request) asks the editor to save
	// documents; sent only to clients declaring
	// capabilities.experimental.agentLsp.saveRequest.
	MethodSaveDocuments = "agent/saveDocuments"
	// MethodChanges (client→server request) lists a session's turns and
	// the files each changed, with diffs.
	MethodChanges = "agent/changes"
	// MethodUndo (client→server request) takes back turns of a session.
	MethodUndo = "agent/undo"
)

// Direction says who sends an extension method.
type Direction string

// Directions.
const (
	ClientToServer Direction = "client→server"
	ServerToClient Direction = "server→client"
)

// ExtMethod describes one extension method.
type ExtMethod struct {
	Name      string
	Direction Direction
	// Request is false for notifications.
	Request bool
	// Params and Result are zero values of the typed payloads.
	Params, Result any
	handle         func(*Server, context.Context, json.RawMessage) (any, error)
}

// Extensions is the table of agent/… methods.
var Extensions = []ExtMethod{
	{Name: MethodPrompt, Direction: ClientToServer, Request: true, Params: PromptParams{}, Result: PromptResult{},
		handle: func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
			var p PromptParams
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
			if p.Prompt == "" {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "prompt is empty")
			}
			ctx, done := s.detach(ctx)
			defer done()
			return s.prompt(ctx, p, runLimits{})
		}},
	{Name: MethodCancel, Direction: ClientToServer, Params: CancelParams{},
		handle: func(s *Server, _ context.Context, raw json.RawMessage) (any, error) {
			var p CancelParams
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
			s.cancelSession(p.SessionID)
			return nil, nil
		}},
	{Name: MethodEvent, Direction: ServerToClient, Params: EventParams{}},
	{Name: MethodDiagnostics, Direction: ClientToServer, Params: DiagnosticsParams{},
		handle: func(s *Server, _ context.Context, raw json.RawMessage) (any, error) {
			var p DiagnosticsParams
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
			s.diags.set(uriPath(p.URI), p.Diagnostics)
			return nil, nil
		}},
	{Name: MethodSaveDocuments, Direction: ServerToClient, Request: true, Params: SaveDocumentsParams{}, Result: SaveDocumentsResult{}},
	{Name: MethodChanges, Direction: ClientToServer, Request: true, Params: ChangesParams{}, Result: ChangesResult{},
		handle: func(s *Server, _ context.Context, raw json.RawMessage) (any, error) {
			var p ChangesParams
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
			return s.listChanges(p)
		}},
	{Name: MethodUndo, Direction: ClientToServer, Request: true, Params: UndoParams{}, Result: UndoResult{},
		handle: func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
			var p UndoParams
			if err := decode(raw, &p); err != nil {
				return nil, err
			}
			ctx, done := s.detach(ctx)
			defer done()
			return s.undo(ctx, p)
		}},
}

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
// session id, e.g. {"sessionId":"s1","type":"text","text":"Hel"}.
type EventParams = json.RawMessage

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

var (
	extRequests      = map[string]*ExtMethod{}
	extNotifications = map[string]*ExtMethod{}
)

func init() {
	for i := range Extensions {
		e := &Extensions[i]
		if e.Direction != ClientToServer {
			continue
		}
		if e.Request {
			extRequests[e.Name] = e
		} else {
			extNotifications[e.Name] = e
		}
	}
}

func extMethodNames() []string {
	var out []string
	for _, e := range Extensions {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}
