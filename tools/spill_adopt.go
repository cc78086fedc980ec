package tools

import (
	"os"
	"path/filepath"
)

// spillFileName is the name Save gives: prefix-NNN-8hex.txt.
var spillFileName = lazyRegexp(`^[A-Za-z0-9_-]{1,40}-\d{3,}-[0-9a-f]{8}\.txt$`)

// Adopt makes an existing spill file readable through this Spill: a
// resumed session names files that an earlier process's Spill wrote, often
// in another directory (one per process). Callers pass only paths their
// own records say a Spill wrote (the session transcript's spill records),
// never text from a tool result or the model. As a further check, only an
// absolute path to a regular file (not a link) with one link and a name
// Save could have given is adopted; Adopt reports whether path was.
func (s *Spill) Adopt(path string) bool {
	if s == nil || !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	if !spillFileName().MatchString(filepath.Base(path)) {
		return false
	}
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || linkCount(st) != 1 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = true
	return true
}
