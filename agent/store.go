package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Store keeps the transcripts of sessions under one directory (usually
// SessionsDir) and scrubs the given secrets from all of them. It is what
// `agent-lsp run`, `sessions`, `replay` and the language server share.
type Store struct {
	Dir     string
	Secrets []string
}

// NewStore returns a store over dir. secrets are the API key and header
// values: they never reach a transcript.
func NewStore(dir string, secrets ...string) *Store {
	return &Store{Dir: dir, Secrets: secrets}
}

// Create starts a recorded session with a new id. It does not look for
// the id first: a new one is free (its time and random suffix; the file
// is created with O_EXCL, so a taken one shows in the transcript's Err,
// never overwrites).
func (st *Store) Create(system string, h TranscriptHeader) (*Session, error) {
	return st.create(NewSessionID(), system, h)
}

// CreateID starts a recorded session with an id the client chose; it
// fails if that session exists.
func (st *Store) CreateID(id, system string, h TranscriptHeader) (*Session, error) {
	if p, err := TranscriptPath(st.Dir, id); err != nil {
		return nil, err
	} else if _, err := os.Stat(p); err == nil {
		return nil, fmt.Errorf("session %s exists already", id)
	}
	return st.create(id, system, h)
}

func (st *Store) create(id, system string, h TranscriptHeader) (*Session, error) {
	t, err := CreateTranscript(st.Dir, id, h, st.Secrets...)
	if err != nil {
		return nil, err
	}
	s := NewSession(id, system)
	s.Record(t)
	return s, nil
}

// Resume loads session id (or "last", or a unique prefix of an id) and
// keeps recording to it, with system as its system prompt: the current
// tools and instructions, not the ones it was recorded with.
func (st *Store) Resume(id, system string) (*Loaded, error) {
	full, err := st.Resolve(id)
	if err != nil {
		return nil, err
	}
	l, err := ResumeSession(st.Dir, full, st.Secrets...)
	if err != nil {
		return nil, err
	}
	if system != "" {
		l.Session.SetSystem(system)
	}
	return l, nil
}

// List describes the recorded sessions, most recent first.
func (st *Store) List() ([]SessionInfo, error) { return ListSessions(st.Dir) }

// Path returns the transcript file of id ("last" or a unique prefix
// work too).
func (st *Store) Path(id string) (string, error) {
	full, err := st.Resolve(id)
	if err != nil {
		return "", err
	}
	return TranscriptPath(st.Dir, full)
}

// SpillDir is where the full outputs of session id's tools go, next to
// its transcript.
func (st *Store) SpillDir(id string) string {
	return filepath.Join(st.Dir, safeName(id)+".spill")
}

// Resolve turns "last" or a unique prefix into a session id.
func (st *Store) Resolve(id string) (string, error) {
	if p, err := TranscriptPath(st.Dir, id); err == nil {
		if _, err := scanHeader(p); err == nil {
			return id, nil
		}
	}
	list, err := st.List()
	if err != nil {
		return "", err
	}
	if id == "last" {
		if len(list) == 0 {
			return "", fmt.Errorf("no sessions in %s", st.Dir)
		}
		return list[0].ID, nil
	}
	var match []string
	for _, s := range list {
		if id != "" && strings.HasPrefix(s.ID, id) {
			match = append(match, s.ID)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return "", fmt.Errorf("no session %q in %s (agent-lsp sessions lists them)", id, st.Dir)
	default:
		return "", fmt.Errorf("session %q is ambiguous: %s", id, strings.Join(match, ", "))
	}
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}
