package lsp

import (
	"context"
	"encoding/json"
	"sort"

	"go.lsp.dev/jsonrpc2"
)

// The agent/… methods: this table is the protocol extension, and
// docs/protocol.md documents exactly these methods (a test checks it, and
// the editors' mirrors, editors/vscode/src/lsp_ext.ts and
// editors/neovim/lua/agent_lsp/protocol.lua, are checked against it too).
// The payload types are in ext_types.go.
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
	// MethodApprove (server→client request) asks the user about a risky
	// tool call; sent only to clients declaring
	// capabilities.experimental.agentLsp.approve (others get
	// window/showMessageRequest).
	MethodApprove = "agent/approve"
	// MethodSessions (client→server request) lists the workspace's
	// recorded sessions.
	MethodSessions = "agent/sessions"
	// MethodSessionHistory (client→server request) returns one session's
	// messages and tool calls, for display.
	MethodSessionHistory = "agent/sessionHistory"
	// MethodRenameSession (client→server request) sets a session's title.
	MethodRenameSession = "agent/renameSession"
	// MethodDeleteSession (client→server request) deletes a recorded
	// session.
	MethodDeleteSession = "agent/deleteSession"
	// MethodModels (client→server request) lists the endpoint's models.
	MethodModels = "agent/models"
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

// handler decodes a method's params into P and calls h.
func handler[P any](h func(*Server, context.Context, P) (any, error)) func(*Server, context.Context, json.RawMessage) (any, error) {
	return func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return h(s, ctx, p)
	}
}

// Extensions is the table of agent/… methods.
var Extensions = []ExtMethod{
	{Name: MethodPrompt, Direction: ClientToServer, Request: true, Params: PromptParams{}, Result: PromptResult{},
		handle: handler(func(s *Server, ctx context.Context, p PromptParams) (any, error) {
			if p.Prompt == "" {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "prompt is empty")
			}
			ctx, done := s.detach(ctx)
			defer done()
			return s.prompt(ctx, p, runLimits{})
		})},
	{Name: MethodCancel, Direction: ClientToServer, Params: CancelParams{},
		handle: handler(func(s *Server, _ context.Context, p CancelParams) (any, error) {
			s.cancelSession(p.SessionID)
			return nil, nil
		})},
	{Name: MethodEvent, Direction: ServerToClient, Params: EventParams{}},
	{Name: MethodDiagnostics, Direction: ClientToServer, Params: DiagnosticsParams{},
		handle: handler(func(s *Server, _ context.Context, p DiagnosticsParams) (any, error) {
			s.diags.set(uriPath(p.URI), p.Diagnostics)
			return nil, nil
		})},
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
	{Name: MethodApprove, Direction: ServerToClient, Request: true, Params: ApproveParams{}, Result: ApproveResult{}},
	{Name: MethodSessions, Direction: ClientToServer, Request: true, Params: SessionsParams{}, Result: SessionsResult{},
		handle: handler((*Server).listSessions)},
	{Name: MethodSessionHistory, Direction: ClientToServer, Request: true, Params: SessionRef{}, Result: SessionHistory{},
		handle: handler((*Server).sessionHistory)},
	{Name: MethodRenameSession, Direction: ClientToServer, Request: true, Params: RenameSessionParams{},
		handle: handler((*Server).renameSession)},
	{Name: MethodDeleteSession, Direction: ClientToServer, Request: true, Params: SessionRef{},
		handle: handler((*Server).deleteSession)},
	{Name: MethodModels, Direction: ClientToServer, Request: true, Params: ModelsParams{}, Result: ModelsResult{},
		handle: handler((*Server).models)},
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
