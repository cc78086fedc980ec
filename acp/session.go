package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

var defaultGetenv = os.Getenv

// session is one ACP session: a harness rooted at its cwd and the
// conversation it continues.
type session struct {
	id, root string
	h        *harness.Harness
	as       *agent.Session
	ws       *workspace

	mu        sync.Mutex
	running   bool
	cancel    context.CancelFunc
	cancelled bool
}

func (se *session) cancelRun() {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.cancel != nil {
		se.cancelled = true
		se.cancel()
	}
}

func (se *session) close() {
	if se.as != nil {
		_ = se.as.Transcript().Close()
	}
	_ = se.h.Close()
	_ = se.ws.disk.Close()
}

// workspaceRoot checks a session's cwd: absolute, an existing directory,
// not the file system root (the sandbox and the boundary need a real
// workspace), and returns it with symbolic links resolved.
func workspaceRoot(method, cwd string) (string, error) {
	if cwd == "" {
		return "", errorf(CodeInvalidParams, "%s: cwd is required", method)
	}
	if !filepath.IsAbs(cwd) {
		return "", errorf(CodeInvalidParams, "%s: cwd %q is not an absolute path", method, cwd)
	}
	root, err := filepath.EvalSymlinks(filepath.Clean(cwd))
	if err != nil {
		return "", errorf(CodeInvalidParams, "%s: cwd %s: %v", method, cwd, err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return "", errorf(CodeInvalidParams, "%s: cwd %s is not a directory", method, cwd)
	}
	if root == "/" {
		return "", errorf(CodeInvalidParams, "%s: cwd is the file system root; open a project directory", method)
	}
	return root, nil
}

// factory returns the session factory of root, loading its configuration
// once per connection.
func (s *Server) factory(root string) *harness.Factory {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.factories[root]; ok {
		return f
	}
	f := harness.NewFactory(harness.FactoryOptions{Root: root, UserConfig: s.opts.UserConfig, Getenv: s.opts.Getenv, StateDir: s.opts.StateDir, Log: s.log}, s.opts.Settings)
	s.factories[root] = f
	return f
}

// build makes a session's harness over the client's view of root.
func (s *Server) build(method, root string, rawServers []json.RawMessage, id string) (*session, error) {
	servers, err := mcpServers(rawServers)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "%s: %v", method, err)
	}
	disk, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "%s: workspace %s: %v", method, root, err)
	}
	s.mu.Lock()
	ws := &workspace{disk: disk, c: s.c, sessionID: id, read: s.fsRead, write: s.fsWrite}
	s.mu.Unlock()
	ap := &approver{c: s.c, sessionID: id, root: root, timeout: s.opts.ApprovalTimeout, sem: make(chan struct{}, 1)}
	h, err := s.factory(root).Build(harness.SessionOptions{Workspace: ws, Approver: ap, MCPServers: servers})
	if err != nil {
		disk.Close()
		return nil, errorf(CodeInternalError, "%s: start the session: %v", method, err)
	}
	return &session{id: id, root: root, h: h, ws: ws}, nil
}

// register adds se unless the connection is closing or has the id.
func (s *Server) register(se *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return errorf(CodeInternalError, "the agent is shutting down")
	}
	if _, ok := s.sessions[se.id]; ok {
		return errorf(CodeInvalidRequest, "session %s is open already", se.id)
	}
	s.sessions[se.id] = se
	return nil
}

func (s *Server) newSession(r *request) (any, error) {
	if err := s.requireInit(r.Method); err != nil {
		return nil, err
	}
	var p newSessionParams
	if err := decode(r, &p); err != nil {
		return nil, err
	}
	root, err := workspaceRoot(r.Method, p.Cwd)
	if err != nil {
		return nil, err
	}
	id := agent.NewSessionID()
	se, err := s.build(r.Method, root, p.MCPServers, id)
	if err != nil {
		return nil, err
	}
	if se.as, err = se.h.NewSession(id); err != nil {
		s.log.Warn("Session not recorded", "err", err)
	}
	if err := s.register(se); err != nil {
		se.close()
		return nil, err
	}
	s.log.Info("Session", "id", id, "root", root)
	return newSessionResult{SessionID: id, Modes: modes(false)}, nil
}

// loadSession opens a recorded session, replays its conversation as
// session/update notifications, and keeps it for the next prompts.
func (s *Server) loadSession(r *request) (any, error) {
	if err := s.requireInit(r.Method); err != nil {
		return nil, err
	}
	var p loadSessionParams
	if err := decode(r, &p); err != nil {
		return nil, err
	}
	root, err := workspaceRoot(r.Method, p.Cwd)
	if err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, errorf(CodeInvalidParams, "session/load: sessionId is required")
	}
	s.mu.Lock()
	_, open := s.sessions[p.SessionID]
	s.mu.Unlock()
	if open {
		return nil, errorf(CodeInvalidRequest, "session/load: session %s is open already in this connection", p.SessionID)
	}
	path, err := agent.TranscriptPath(harness.SessionsDir(s.opts.StateDir), p.SessionID)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "session/load: %v", err)
	}
	recs, _, err := agent.ReadTranscript(path)
	if err != nil || len(recs) == 0 {
		return nil, errorf(CodeNotFound, "session/load: no recorded session %q (agent-lsp sessions lists them)", p.SessionID)
	}
	if w := recs[0].Workspace; w != "" && w != root {
		return nil, errorf(CodeInvalidParams, "session/load: session %s belongs to the workspace %s, not %s", p.SessionID, w, root)
	}
	se, err := s.build(r.Method, root, p.MCPServers, p.SessionID)
	if err != nil {
		return nil, err
	}
	if se.as, err = se.h.ResumeSession(p.SessionID); err != nil {
		se.close()
		return nil, errorf(CodeInternalError, "session/load: %v", err)
	}
	if err := s.register(se); err != nil {
		se.close()
		return nil, err
	}
	replay(newUpdater(s.c, se.id, root, nil, 0), recs)
	return loadSessionResult{Modes: modes(false)}, nil
}

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// listSessions lists the recorded sessions (of one cwd, if given), most
// recent first, the same transcripts as `agent-lsp sessions`.
func (s *Server) listSessions(r *request) (any, error) {
	if err := s.requireInit(r.Method); err != nil {
		return nil, err
	}
	var p listSessionsParams
	if len(r.Params) > 0 && string(r.Params) != "null" {
		if err := decode(r, &p); err != nil {
			return nil, err
		}
	}
	if p.Cwd != "" {
		root, err := workspaceRoot(r.Method, p.Cwd)
		if err != nil {
			return nil, err
		}
		p.Cwd = root
	}
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 {
			return nil, errorf(CodeInvalidParams, "session/list: cursor %q is not one this agent gave", p.Cursor)
		}
		start = n
	}
	all, err := agent.ListSessions(harness.SessionsDir(s.opts.StateDir))
	if err != nil {
		return nil, errorf(CodeInternalError, "session/list: %v", err)
	}
	res := listSessionsResult{Sessions: []sessionInfo{}}
	n := 0
	for _, info := range all {
		if info.Workspace == "" || p.Cwd != "" && info.Workspace != p.Cwd {
			continue
		}
		if n++; n <= start {
			continue
		}
		if len(res.Sessions) == listPage {
			res.NextCursor = fmt.Sprint(start + listPage)
			break
		}
		res.Sessions = append(res.Sessions, sessionInfo{SessionID: info.ID, Cwd: info.Workspace, Title: text.OneLine(info.FirstPrompt, 100), UpdatedAt: info.Updated.UTC().Format(time.RFC3339)})
	}
	return res, nil
}
