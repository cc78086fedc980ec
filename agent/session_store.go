package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/text"
)

// Record makes the session write every later change to t. Call it right
// after NewSession: the messages already there (the system prompt) are
// written first.
func (s *Session) Record(t *Transcript) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec = t
	for _, m := range s.messages {
		t.message(m)
	}
}

// Transcript returns the session's transcript, or nil.
func (s *Session) Transcript() *Transcript {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

// SetSystem replaces the system prompt, e.g. with one built afresh for a
// resumed session (new tools, edited AGENTS.md). It does nothing when the
// text is the same, so the cached prefix is kept.
func (s *Session) SetSystem(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := slices.Clone(s.messages)
	switch {
	case len(msgs) > 0 && msgs[0].Role == RoleSystem && msgs[0].Content == text:
		return
	case len(msgs) > 0 && msgs[0].Role == RoleSystem:
		msgs[0].Content = text
	default:
		msgs = append([]Message{{Role: RoleSystem, Content: text}}, msgs...)
	}
	s.messages = msgs
	s.rec.system(text)
}

// Loaded is a session read back from its transcript.
type Loaded struct {
	Session *Session
	Header  Record
	Usage   Usage
	Last    *Result
	// Damaged says lines that were cut or not JSON were skipped.
	Damaged bool
	// Repaired counts the tool calls that had no result (the run was cut
	// short) and were answered with an error on load, and the results
	// dropped because their call was lost.
	Repaired int
}

// LoadSession rebuilds a session from its transcript without writing to
// it (for replay and inspection).
func LoadSession(path string) (*Loaded, error) {
	recs, damaged, err := ReadTranscript(path)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || recs[0].Type != recSession {
		return nil, fmt.Errorf("%s: %w", path, errNoHeader)
	}
	l := &Loaded{Header: recs[0], Damaged: damaged}
	s := &Session{ID: recs[0].ID}
	for _, rec := range recs[1:] {
		switch rec.Type {
		case recMessage:
			if rec.Message != nil {
				s.messages = append(s.messages, *rec.Message)
			}
		case recReplace:
			s.messages = slices.Clone(rec.Messages)
		case recSystem:
			if rec.Message == nil {
				break
			}
			if len(s.messages) > 0 && s.messages[0].Role == RoleSystem {
				s.messages[0].Content = rec.Message.Content
			} else {
				s.messages = append([]Message{*rec.Message}, s.messages...)
			}
		case recStubs:
			for i, m := range s.messages {
				if text, ok := rec.Stubs[m.ToolCallID]; ok && m.Role == RoleTool {
					s.messages[i].Content = text
				}
			}
			if s.stubbed == nil {
				s.stubbed = map[string]bool{}
			}
			for id := range rec.Stubs {
				s.stubbed[id] = true
			}
		case recPin:
			if rec.Message != nil {
				s.pinned = append(s.pinned, *rec.Message)
				if dir, ok := strings.CutPrefix(rec.Message.Name, instructionsName); ok {
					if s.instr == nil {
						s.instr = map[string]bool{}
					}
					s.instr[dir] = true
				}
			}
		case recTodos:
			s.todos = rec.Todos
		case recSpill:
			if s.spilled == nil {
				s.spilled = map[string]string{}
			}
			s.spilled[rec.CallID] = rec.Path
		case recUsage:
			if rec.Usage != nil {
				l.Usage = l.Usage.Add(*rec.Usage)
			}
		case recEnd:
			l.Last = rec.Result
		}
	}
	s.messages, l.Repaired = repairHistory(s.messages)
	s.ids = map[string]bool{}
	for _, m := range s.messages {
		for _, c := range m.ToolCalls {
			s.ids[c.ID] = true
		}
	}
	l.Session = s
	return l, nil
}

// ResumeSession loads session id from dir and keeps recording to its
// transcript. Tool calls left without a result by a crash are answered
// with an error, recorded too. The caller should then call SetSystem with
// the current system prompt, and Close the transcript when done.
func ResumeSession(dir, id string, secrets ...string) (*Loaded, error) {
	path, err := TranscriptPath(dir, id)
	if err != nil {
		return nil, err
	}
	l, err := LoadSession(path)
	if err != nil {
		return nil, err
	}
	t, err := appendTranscript(path, secrets)
	if err != nil {
		return nil, err
	}
	s := l.Session
	s.rec = t
	if l.Repaired > 0 {
		// Record the repaired history so the file loads the same way.
		t.replace(s.messages)
	}
	return l, nil
}

// repairHistory answers every tool call that has no result, right after
// its message, and drops results whose call is lost, so the history is
// valid to send again.
func repairHistory(msgs []Message) ([]Message, int) {
	var out []Message
	n := 0
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == RoleTool {
			// A result not right after its call's message: its call was lost.
			n++
			continue
		}
		out = append(out, m)
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		got := map[string]Message{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
			got[msgs[j].ToolCallID] = msgs[j]
		}
		for _, c := range m.ToolCalls {
			if r, ok := got[c.ID]; ok {
				delete(got, c.ID)
				out = append(out, r)
				continue
			}
			n++
			out = append(out, Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, IsError: true,
				Content: "Error: not run: the session stopped (crash or restart) before this call finished; check its effect before running it again"})
		}
		n += len(got)
		i = j - 1
	}
	return out, n
}

// SessionInfo describes a recorded session for `agent-lsp sessions`.
type SessionInfo struct {
	ID          string    `json:"id"`
	Path        string    `json:"path"`
	Workspace   string    `json:"workspace,omitempty"`
	Model       string    `json:"model,omitempty"`
	FirstPrompt string    `json:"firstPrompt"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	// Size is the transcript's size in bytes; Messages counts the
	// messages recorded and Usage sums the tokens of every request.
	Size     int64 `json:"size"`
	Messages int   `json:"messages"`
	Usage    Usage `json:"usage"`
}

// ListSessions describes the transcripts in dir, most recently updated
// first. Files that are not transcripts are skipped; a missing dir is an
// empty list.
func ListSessions(dir string) ([]SessionInfo, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SessionInfo
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := e.Info()
		if err != nil {
			continue
		}
		h, err := scanHeader(path)
		if err != nil {
			continue
		}
		info := SessionInfo{
			ID: h.ID, Path: path, Workspace: h.Workspace, Model: h.Model,
			Created: h.Time, Updated: fi.ModTime(), Size: fi.Size(),
		}
		scanSession(path, &info)
		out = append(out, info)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID // ids sort by their start
	})
	return out, nil
}

// scanSession fills in the first request, the message count and the
// token usage of a transcript, and moves Updated to its last record's time
// when that is later: a file's modification time has the kernel's coarse
// clock (a few milliseconds), so two sessions written within one tick
// would otherwise tie.
func scanSession(path string, info *SessionInfo) {
	recs, _, _ := ReadTranscript(path)
	for _, r := range recs {
		if r.Time.After(info.Updated) {
			info.Updated = r.Time
		}
		switch {
		case r.Type == recMessage && r.Message != nil:
			info.Messages++
			if info.FirstPrompt == "" && r.Message.Role == RoleUser && r.Message.Name == "" {
				info.FirstPrompt = text.Clip(text.OneLine(r.Message.Content, 0), 200)
			}
		case r.Type == recUsage && r.Usage != nil:
			info.Usage = info.Usage.Add(*r.Usage)
		}
	}
}
