package agent

import (
	"fmt"
	"strings"
	"sync"
)

// Session is one conversation: its messages and the tool-call ids already
// used, so that the history sent back is always valid.
type Session struct {
	ID string

	mu       sync.Mutex
	messages []Message
	ids      map[string]bool
}

// NewSession returns an empty session. system, if not empty, becomes the
// first message.
func NewSession(id, system string) *Session {
	s := &Session{ID: id, ids: make(map[string]bool)}
	if system != "" {
		s.messages = append(s.messages, Message{Role: RoleSystem, Content: system})
	}
	return s
}

// Append adds a message to the history.
func (s *Session) Append(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
}

// Messages returns a copy of the history.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.messages))
	copy(out, s.messages)
	return out
}

// assignIDs makes every call id non-empty, safe and unique within the
// session. Providers reject duplicate ids, and models reuse or omit them
// (model cases M22–M25); the harness owns pairing, so it rewrites them.
func (s *Session) assignIDs(calls []ToolCall, turn int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = make(map[string]bool)
	}
	for i := range calls {
		id := calls[i].ID
		if !safeID(id) {
			id = fmt.Sprintf("call_%d_%d", turn, i)
		}
		base, n := id, 1
		for s.ids[id] {
			n++
			id = fmt.Sprintf("%s__%d", base, n)
		}
		s.ids[id] = true
		calls[i].ID = id
	}
}

func safeID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	return strings.IndexFunc(id, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r == ':' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0
}
