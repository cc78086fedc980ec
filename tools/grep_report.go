package tools

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// add records a file's matches, pruning the lines that can no longer be
// among the first GrepMaxMatches in path order, so memory stays bounded.
func (s *grepSearch) add(gf *grepFile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = append(s.files, *gf)
	s.kept += len(gf.lines)
	s.total += gf.count
	if s.kept > 4*GrepMaxMatches {
		s.prune()
	}
}

func (s *grepSearch) prune() {
	slices.SortFunc(s.files, func(a, b grepFile) int { return strings.Compare(a.rel, b.rel) })
	s.kept = 0
	for i := range s.files {
		if s.kept >= GrepMaxMatches {
			s.files[i].lines = nil
			continue
		}
		s.kept += len(s.files[i].lines)
	}
}

func (s *grepSearch) report(pattern, base string) string {
	s.prune()
	var b strings.Builder
	shown := 0
	for _, f := range s.files {
		for _, l := range f.lines {
			if shown == GrepMaxMatches {
				break
			}
			b.WriteString(f.rel)
			b.WriteByte(':')
			b.WriteString(l)
			b.WriteByte('\n')
			shown++
		}
	}
	if s.total == 0 {
		fmt.Fprintf(&b, "No matches for %q in %s.\n", pattern, displayDir(base))
	}
	if n := s.total - shown; n > 0 {
		fmt.Fprintf(&b, "[... %d more matches not shown (%d in %d files in all); narrow the pattern, path or glob]\n", n, s.total, len(s.files))
	}
	var skipped []string
	for _, c := range []struct {
		n    int
		what string
	}{{s.large, "that grew while being read"}, {s.linked, "hard-linked (refused: their other names may be outside the workspace)"}, {s.unread, "unreadable"}} {
		if c.n > 0 {
			skipped = append(skipped, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "[files skipped: %s]\n", strings.Join(skipped, "; "))
	}
	return b.String()
}

func displayDir(base string) string {
	if base == "." {
		return "the workspace"
	}
	return path.Clean(base)
}
