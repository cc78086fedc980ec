package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/tools"
)

// initializeParams are the parts of initialize the server reads. Our own
// type rather than protocol.InitializeParams: that one decodes and
// type-checks the client's whole capabilities object (VS Code's is
// about 30 KB), so a client that gets one field wrong that we never read
// (a string for dynamicRegistration) would fail to initialize at all;
// TestStdioInitializeToleratesUnreadCapabilities keeps it so.
type initializeParams struct {
	ProcessID        *int                   `json:"processId"`
	RootURI          string                 `json:"rootUri"`
	RootPath         string                 `json:"rootPath"`
	WorkspaceFolders []struct{ URI string } `json:"workspaceFolders"`
	Capabilities     struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Workspace struct {
			WorkspaceEdit struct {
				DocumentChanges    bool     `json:"documentChanges"`
				ResourceOperations []string `json:"resourceOperations"`
				// ChangeAnnotationSupport is present when the client
				// shows annotated edits (VS Code's refactor preview).
				ChangeAnnotationSupport *struct{} `json:"changeAnnotationSupport"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
		} `json:"window"`
		Experimental struct {
			AgentLsp struct {
				SaveRequest bool `json:"saveRequest"`
				Approve     bool `json:"approve"`
			} `json:"agentLsp"`
		} `json:"experimental"`
	} `json:"capabilities"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	documentChanges bool
	createFiles     bool
	deleteFiles     bool
	annotations     bool // workspaceEdit.changeAnnotationSupport
	progress        bool
	saveRequest     bool
	approve         bool // takes agent/approve
}

// Settings are the editor's settings for agent-lsp, from
// initializationOptions and workspace/didChangeConfiguration (either the
// object itself or {"agentLsp": {...}}). They act like command-line flags:
// they beat the environment and the configuration files.
type Settings struct {
	BaseURL      string `json:"baseUrl,omitempty"`
	Model        string `json:"model,omitempty"`
	APIKey       string `json:"apiKey,omitempty"`
	MaxTurns     int    `json:"maxTurns,omitempty"`
	MaxToolCalls int    `json:"maxToolCalls,omitempty"`
	// ApprovalTimeout is how long a permission prompt waits ("5m").
	ApprovalTimeout string `json:"approvalTimeout,omitempty"`
	// RewriteInstruction is what "Rewrite with agent" asks for.
	RewriteInstruction string `json:"rewriteInstruction,omitempty"`
	// ActionMaxTurns bounds the runs of code actions (default 8).
	ActionMaxTurns int `json:"actionMaxTurns,omitempty"`
	// ActionAnyFile lets code-action runs edit other files than theirs.
	ActionAnyFile bool `json:"actionAnyFile,omitempty"`
	// Permissions are [permissions.TOOL] tables given by the editor (the
	// user's settings): they count as the user's rules, applied after
	// the user's config file, and the workspace's file still only tightens.
	Permissions json.RawMessage `json:"permissions,omitempty"`
	// Review is "confirm" to have every agent edit confirmed in the
	// editor's preview (change annotations), "off" (the default) to apply
	// edits at once.
	Review string `json:"review,omitempty"`
}

// initializeResult is our own: protocol.ServerCapabilities holds its
// 3.17 unions (textDocumentSync, codeActionProvider) as interfaces that
// only the protocol package's encoder writes, and responses go out through
// encoding/json (stdCodec); five entries are clearer as a literal.
type initializeResult struct {
	Capabilities map[string]any `json:"capabilities"`
	ServerInfo   struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	} `json:"serverInfo"`
}

// initialize negotiates the encoding, records the capabilities and loads
// the configuration.
func (s *Server) initialize(p initializeParams) (any, error) {
	enc := UTF16
	if slices.Contains(p.Capabilities.General.PositionEncodings, string(protocol.PositionEncodingKindUTF8)) {
		enc = UTF8
	}
	root := ""
	switch {
	case len(p.WorkspaceFolders) > 0:
		root = uri.URI(p.WorkspaceFolders[0].URI).FsPath()
	case p.RootURI != "":
		root = uri.URI(p.RootURI).FsPath()
	case p.RootPath != "":
		root = p.RootPath
	}
	if root == "" {
		root = "."
	}
	root, _ = filepath.Abs(root)
	wc := p.Capabilities.Workspace.WorkspaceEdit
	caps := clientCaps{
		documentChanges: wc.DocumentChanges,
		createFiles:     slices.Contains(wc.ResourceOperations, "create"),
		deleteFiles:     slices.Contains(wc.ResourceOperations, "delete"),
		annotations:     wc.ChangeAnnotationSupport != nil,
		progress:        p.Capabilities.Window.WorkDoneProgress,
		saveRequest:     p.Capabilities.Experimental.AgentLsp.SaveRequest,
		approve:         p.Capabilities.Experimental.AgentLsp.Approve,
	}
	s.approver.rich.Store(caps.approve)
	ws, err := newWorkspace(root, s.docs, s.diags, s.c, enc, caps)
	if err != nil {
		s.log.Error("Cannot open the workspace", "root", root, "error", err)
		return nil, err
	}
	st := parseSettings(p.InitializationOptions)
	factory := harness.NewFactory(harness.FactoryOptions{Root: root, UserConfig: s.opts.UserConfig, Getenv: s.opts.Getenv, StateDir: s.opts.StateDir, Log: s.log}, st.harness())
	s.init.Store(&initState{enc: enc, caps: caps, root: root, ws: ws, factory: factory})
	s.mu.Lock()
	s.initialized = true
	s.mu.Unlock()
	s.useSettings(st)
	if p.ProcessID != nil && *p.ProcessID > 0 {
		go s.watchParent(*p.ProcessID)
	}

	var r initializeResult
	r.ServerInfo.Name = "agent-lsp"
	r.ServerInfo.Version = s.opts.Version
	r.Capabilities = map[string]any{
		"positionEncoding": enc.String(),
		"textDocumentSync": map[string]any{"openClose": true, "change": 2},
		"codeActionProvider": map[string]any{
			"codeActionKinds": []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, protocol.CodeActionKindRefactorRewrite},
		},
		"executeCommandProvider": map[string]any{"commands": []string{cmdFix, cmdRewrite, cmdEdit}},
		"experimental":           map[string]any{"agentLsp": map[string]any{"methods": extMethodNames()}},
	}
	return r, nil
}

func parseSettings(raw json.RawMessage) Settings {
	st, _ := settingsIn(raw)
	return st
}

// settingsIn reads agent-lsp's settings from raw, and reports whether raw
// holds any: an "agentLsp" object, or an object with at least one of the
// settings' keys. Clients send the same configuration to every server, or
// an empty one: those hold none.
func settingsIn(raw json.RawMessage) (Settings, bool) {
	var st Settings
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return st, false
	}
	if inner, ok := obj["agentLsp"]; ok {
		_ = json.Unmarshal(inner, &st)
		return st, true
	}
	found := false
	t := reflect.TypeOf(st)
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if _, ok := obj[name]; ok {
			found = true
		}
	}
	if found {
		_ = json.Unmarshal(raw, &st)
	}
	return st, found
}

// initState is what initialize learns about the client and the workspace.
type initState struct {
	enc     Encoding
	caps    clientCaps
	root    string
	ws      *Workspace
	factory *harness.Factory
}

// harness is the part of the settings the session factory takes.
func (st Settings) harness() harness.Settings {
	return harness.Settings{
		BaseURL: st.BaseURL, Model: st.Model, APIKey: st.APIKey,
		MaxTurns: st.MaxTurns, MaxToolCalls: st.MaxToolCalls, Permissions: st.Permissions,
	}
}

// useSettings keeps the settings the server itself acts on (the approval
// timeout, the code actions' limits).
func (s *Server) useSettings(st Settings) {
	timeout := DefaultApprovalTimeout
	if d, err := time.ParseDuration(st.ApprovalTimeout); err == nil && d > 0 {
		timeout = d
	}
	s.approver.setTimeout(timeout)
	if in := s.init.Load(); in != nil {
		switch st.Review {
		case "confirm":
			in.ws.review.Store(true)
		case "", "off":
			in.ws.review.Store(false)
		default:
			s.log.Warn("Setting review ignored: use \"confirm\" or \"off\"", "review", st.Review)
		}
	}
	s.mu.Lock()
	s.settings = st
	s.mu.Unlock()
}

var lspRequests = map[string]func(*Server, context.Context, json.RawMessage) (any, error){
	protocol.MethodTextDocumentCodeAction:  (*Server).codeAction,
	protocol.MethodWorkspaceExecuteCommand: (*Server).executeCommand,
}

var lspNotifications = map[string]func(*Server, context.Context, json.RawMessage) error{
	protocol.MethodInitialized:                        func(*Server, context.Context, json.RawMessage) error { return nil },
	protocol.MethodTextDocumentDidOpen:                (*Server).didOpen,
	protocol.MethodTextDocumentDidChange:              (*Server).didChange,
	protocol.MethodTextDocumentDidClose:               (*Server).didClose,
	protocol.MethodTextDocumentDidSave:                func(*Server, context.Context, json.RawMessage) error { return nil },
	protocol.MethodWorkspaceDidChangeConfiguration:    (*Server).didChangeConfiguration,
	protocol.MethodWindowWorkDoneProgressCancel:       (*Server).progressCancel,
	protocol.MethodWorkspaceDidChangeWatchedFiles:     func(*Server, context.Context, json.RawMessage) error { return nil },
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: func(*Server, context.Context, json.RawMessage) error { return nil },
}

func (s *Server) didChangeConfiguration(_ context.Context, params json.RawMessage) error {
	// Our own type: protocol.DidChangeConfigurationParams holds the
	// settings as LSPAny, and settingsIn reads them from the raw JSON.
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := decode(params, &p); err != nil {
		return err
	}
	st, ok := settingsIn(p.Settings)
	if !ok {
		// Not for us (another server's section, or empty: eglot sends
		// {} on connect): keep the settings from initialize.
		return nil
	}
	// New sessions use the new settings; running ones keep theirs.
	s.init.Load().factory.Configure(st.harness())
	s.useSettings(st)
	return nil
}

var _ tools.Editor = (*Workspace)(nil)
