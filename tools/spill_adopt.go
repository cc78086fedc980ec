package tools

import (
	"os"
	"path/filepath"
)

// Adopt makes an existing spill file readable again: a resumed session
// names the files an earlier process's Spill wrote, which this Spill did
// not. Only a regular file (not a link) with one link, in the directory of
// this Spill, is adopted; Adopt reports whether path was.
func (s *Spill) Adopt(path string) bool {
	if s == nil || !filepath.IsAbs(path) {
		return false
	}
	path = filepath.Clean(path)
	if filepath.Dir(path) != filepath.Clean(s.dir) {
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
