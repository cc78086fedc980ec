package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"
)

// progress is one work-done progress, or nothing when the client does not
// support them.
type progress struct {
	s     *Server
	token string
}

// beginProgress starts a cancellable progress titled title; cancelling it
// from the editor (window/workDoneProgress/cancel) calls cancel.
func (s *Server) beginProgress(ctx context.Context, title string, cancel context.CancelFunc) *progress {
	if !s.init.Load().caps.progress {
		return &progress{}
	}
	token := fmt.Sprintf("agent-lsp/%d", s.nextID.Add(1))
	if _, err := s.c.conn.Call(ctx, protocol.MethodWindowWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)}, nil); err != nil {
		s.log.Warn("Progress not created", "error", err)
		return &progress{}
	}
	s.mu.Lock()
	s.progress[token] = cancel
	s.mu.Unlock()
	p := &progress{s: s, token: token}
	yes := true
	p.send(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes})
	return p
}

func (p *progress) send(v any) {
	if p.s == nil {
		return
	}
	b, _ := json.Marshal(v)
	p.s.c.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: protocol.String(p.token), Value: b})
}

func (p *progress) report(msg string) {
	p.send(&protocol.WorkDoneProgressReport{Kind: "report", Message: &msg})
}

func (p *progress) end(msg string) {
	if p.s == nil {
		return
	}
	p.send(&protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	p.s.mu.Lock()
	delete(p.s.progress, p.token)
	p.s.mu.Unlock()
}

func (s *Server) progressCancel(_ context.Context, params json.RawMessage) error {
	var p protocol.WorkDoneProgressCancelParams
	if err := decodeLSP(params, &p); err != nil {
		return err
	}
	s.mu.Lock()
	cancel := s.progress[fmt.Sprint(p.Token)]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}
