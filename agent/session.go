package agent

import (
	"fmt"
	"slices"
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
	suffix   map[string]int
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

// Messages returns the history. The slice is shared, not copied, so a
// turn costs the same however long the conversation is: callers must not
// modify it. The history only grows by appending, and anything that
// rewrites it builds a new slice.
func (s *Session) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clip(s.messages)
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
	if s.suffix == nil {
		s.suffix = make(map[string]int)
	}
	for i := range calls {
		id := calls[i].ID
		if !safeID(id) {
			id = fmt.Sprintf("call_%d_%d", turn, i)
		}
		if s.ids[id] {
			// Reused id: suffix it, remembering the last suffix per base
			// so that a model reusing one id stays O(1) per call.
			base := id
			for s.ids[id] {
				s.suffix[base]++
				id = fmt.Sprintf("%s__%d", base, s.suffix[base]+1)
			}
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
