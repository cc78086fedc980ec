package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Spill keeps the full text of tool outputs that were cut for the model,
// in files under a per-session directory outside the workspace. The model
// can read them back with read_file: spill files are the one thing outside
// the workspace it may read, and only files this Spill wrote.
type Spill struct {
	dir   string
	mu    sync.Mutex
	files map[string]bool
	n     int
	first func() // BeforeFirstSave's
}

// NewSpill returns a store writing under dir (created on first use).
func NewSpill(dir string) *Spill {
	return &Spill{dir: dir, files: make(map[string]bool)}
}

// Dir is where spill files go.
func (s *Spill) Dir() string { return s.dir }

// BeforeFirstSave has f run once, before the first file is saved: the
// harness prunes the spill directories of old sessions there, so that a
// session that spills nothing does not look for them.
func (s *Spill) BeforeFirstSave(f func()) {
	s.mu.Lock()
	s.first = f
	s.mu.Unlock()
}

// Save writes data to a new file named after prefix and returns its
// absolute path.
func (s *Spill) Save(prefix string, data []byte) (string, error) {
	s.mu.Lock()
	first := s.first
	s.first = nil
	s.mu.Unlock()
	if first != nil {
		first()
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", fmt.Errorf("spill: %w", err)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("%s-%03d-%s.txt", safeName(prefix), s.n, hex.EncodeToString(rnd[:]))
	s.mu.Unlock()
	path := filepath.Join(s.dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("spill: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("spill: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("spill: %w", err)
	}
	s.mu.Lock()
	s.files[path] = true
	s.mu.Unlock()
	return path, nil
}

// Owns reports whether path (absolute, cleaned) is a file this Spill wrote.
func (s *Spill) Owns(path string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[filepath.Clean(path)]
}

func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		s = "output"
	}
	return s
}
