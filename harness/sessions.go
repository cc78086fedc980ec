package harness

import (
	"fmt"
	"os"

	"github.com/agent-lsp/agent-lsp/agent"
)

// NewSession starts a recorded conversation with the system prompt for
// this workspace and tool set, under id (a new one when empty). When the
// transcript cannot be created the session still runs, unrecorded, and the
// error says why.
func (h *Harness) NewSession(id string) (*agent.Session, error) {
	hdr := agent.TranscriptHeader{Workspace: h.root, Model: h.model}
	var s *agent.Session
	var err error
	if id == "" {
		// A new id (time and random, its transcript created O_EXCL) has
		// no change journal to load.
		if s, err = h.Store.Create(h.System, hdr); err == nil {
			h.checkpoints.fresh(s.ID)
		}
	} else {
		s, err = h.Store.CreateID(id, h.System, hdr)
	}
	if err != nil {
		if id == "" {
			id = agent.NewSessionID()
		}
		return agent.NewSession(id, h.System), fmt.Errorf("session not recorded: %w", err)
	}
	return s, nil
}

// ResumeSession continues a recorded session (an id, a unique prefix of
// one, or "last") with today's tools and instructions.
func (h *Harness) ResumeSession(id string) (*agent.Session, error) {
	l, err := h.Store.Resume(id, h.System)
	if err != nil {
		return nil, err
	}
	return l.Session, nil
}

// HasSession reports whether a transcript of exactly id exists (no
// prefixes, no "last").
func (h *Harness) HasSession(id string) bool {
	p, err := agent.TranscriptPath(h.Store.Dir, id)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}
