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

	// Context management (context.go): results replaced by stubs, full
	// copies of results kept in spill files, content pinned across
	// compactions, and the todo list.
	stubbed map[string]bool
	spilled map[string]string
	pinned  []Message
	todos   []Todo
	// todoGen counts SetTodos calls, so the loop sees a change.
	todoGen int
	// instr lists the directories whose AGENTS.md was looked for.
	instr map[string]bool
	// rec, when set, records every change (transcript.go).
	rec  *Transcript
	sums tokenSums
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
	s.rec.message(m)
}

// replace swaps the whole history for msgs (a compaction), building a new
// slice so that requests already handed out keep theirs.
func (s *Session) replace(msgs []Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = slices.Clone(msgs)
	s.rec.replace(msgs)
}

// stub replaces the content of the result of call id with text.
func (s *Session) stub(ids map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := slices.Clone(s.messages)
	for i, m := range msgs {
		if text, ok := ids[m.ToolCallID]; ok && m.Role == RoleTool {
			msgs[i].Content = text
		}
	}
	if s.stubbed == nil {
		s.stubbed = make(map[string]bool)
	}
	for id := range ids {
		s.stubbed[id] = true
	}
	s.messages = msgs
	s.rec.stubs(ids)
}

func (s *Session) isStubbed(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stubbed[id]
}

// setSpilled remembers where the full text of a call's result is.
func (s *Session) setSpilled(id, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spilled == nil {
		s.spilled = make(map[string]string)
	}
	s.spilled[id] = path
	s.rec.spill(id, path)
}

// spillPaths lists every spill file the session's results name.
func (s *Session) spillPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths := make([]string, 0, len(s.spilled))
	for _, p := range s.spilled {
		paths = append(paths, p)
	}
	return paths
}

func (s *Session) spillPath(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spilled[id]
}

// Pin keeps m in the conversation across every compaction: project
// instructions and the user's requests. The system prompt is always kept.
func (s *Session) Pin(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pinned {
		if p.Role == m.Role && p.Content == m.Content {
			return
		}
	}
	s.pinned = append(s.pinned, m)
	s.rec.pin(m)
}

// Pinned returns the pinned messages, oldest first.
func (s *Session) Pinned() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pinned)
}

// hasRequest reports whether a request of the user was pinned already.
func (s *Session) hasRequest() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.pinned {
		if m.Role == RoleUser && m.Name == "" {
			return true
		}
	}
	return false
}

func (s *Session) instructionsLoaded(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.instr[dir]
}

func (s *Session) markInstructions(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.instr == nil {
		s.instr = make(map[string]bool)
	}
	s.instr[dir] = true
}

// Todos returns the current todo list.
func (s *Session) Todos() []Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.todos)
}

// SetTodos replaces the whole todo list.
func (s *Session) SetTodos(todos []Todo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.todos = slices.Clone(todos)
	s.todoGen++
	s.rec.todos(todos)
}

func (s *Session) todoVersion() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.todoGen
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

// tokenSums caches the raw token estimate of the history, so that the
// checks made before every request (prune, compact) cost the same however
// long the conversation is. The history only changes by appending, or by
// replacing the whole slice (stubs, compaction, a new system prompt), so
// the cache is valid while the backing array is the same and extends to
// the messages appended since.
type tokenSums struct {
	base  *Message
	n     int
	all   int // MessageTokens of every message
	tools int // MessageTokens of the tool results not yet stubbed
}

// tokens returns the raw estimates of the whole history and of its live
// tool results.
func (s *Session) tokens() (all, tools int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &s.sums
	if len(s.messages) == 0 {
		*c = tokenSums{}
		return 0, 0
	}
	if c.base != &s.messages[0] || c.n > len(s.messages) {
		*c = tokenSums{base: &s.messages[0]}
	}
	for _, m := range s.messages[c.n:] {
		t := MessageTokens(m)
		c.all += t
		if m.Role == RoleTool && !s.stubbed[m.ToolCallID] {
			c.tools += t
		}
	}
	c.n = len(s.messages)
	return c.all, c.tools
}
