package tools

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// .gitignore matching. go-git's Pattern is the reference; two changes:
//  1. a pattern without a slash is matched against the entry's name alone
//     (plus its domain), as git does, not against every component of the
//     path, so a directory the walk starts in explicitly is searched even
//     when a name pattern excludes it (as rg does);
//  2. checking every pattern on every path cost 5x the whole walk of Go's
//     source tree with a 95-line .gitignore, so ignoreMatcher indexes the
//     name patterns (exact names and *.ext in maps, *suffix and prefix* as
//     string tests) and leaves only the rest to go-git. The last matching
//     pattern decides, as in git. TestIgnoreMatcherAgainstGoGit compares
//     the two on many patterns and paths.

// ignoreRules are the .gitignore patterns that apply to a directory, from
// the lowest priority (the root's) to the highest (the deepest file's).
type ignoreRules []ignoreRule

type ruleKind uint8

const (
	kindExact  ruleKind = iota // name == lit
	kindExt                    // *.lit (one dot): extension map
	kindSuffix                 // *lit
	kindPrefix                 // lit*
	kindName                   // any other pattern without a slash: filepath.Match on the name
	kindPath                   // pattern with a slash: go-git on the whole path
)

type ignoreRule struct {
	p       gitignore.Pattern
	domain  []string // directory of the .gitignore, relative to the root
	kind    ruleKind
	lit     string // name, extension, suffix or prefix; the pattern for kindName
	negate  bool
	dirOnly bool
}

// parseIgnore parses the lines of a .gitignore file in the directory domain
// (components relative to the workspace root).
func parseIgnore(data []byte, domain []string) ignoreRules {
	var rs ignoreRules
	domain = slices.Clone(domain)
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		rs = append(rs, newIgnoreRule(string(line), domain))
	}
	return rs
}

// newIgnoreRule classifies a pattern, reading it the way
// gitignore.ParsePattern does.
func newIgnoreRule(line string, domain []string) ignoreRule {
	r := ignoreRule{p: gitignore.ParsePattern(line, domain), domain: domain}
	p := line
	if strings.HasPrefix(p, "!") {
		r.negate, p = true, p[1:]
	}
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, p[:len(p)-1]
	}
	const meta = `*?[\`
	switch {
	case strings.Contains(p, "/"):
		r.kind = kindPath
	case !strings.ContainsAny(p, meta):
		r.kind, r.lit = kindExact, p
	case p[0] == '*' && !strings.ContainsAny(p[1:], meta):
		r.kind, r.lit = kindSuffix, p[1:]
		if strings.LastIndexByte(r.lit, '.') == 0 {
			r.kind, r.lit = kindExt, r.lit[1:]
		}
	case p[len(p)-1] == '*' && !strings.ContainsAny(p[:len(p)-1], meta):
		r.kind, r.lit = kindPrefix, p[:len(p)-1]
	default:
		r.kind, r.lit = kindName, p
	}
	return r
}

// ignoreMatcher answers "is this entry ignored" for one set of rules.
type ignoreMatcher struct {
	rules ignoreRules
	exact map[string][]int32 // name → rule indices, highest first
	ext   map[string][]int32 // extension → rule indices, highest first
	scan  []int32            // the other rules, highest first
}

func compileIgnore(rs ignoreRules) *ignoreMatcher {
	if len(rs) == 0 {
		return nil
	}
	m := &ignoreMatcher{rules: rs, exact: map[string][]int32{}, ext: map[string][]int32{}}
	for i := len(rs) - 1; i >= 0; i-- {
		switch r := &rs[i]; r.kind {
		case kindExact:
			m.exact[r.lit] = append(m.exact[r.lit], int32(i))
		case kindExt:
			m.ext[r.lit] = append(m.ext[r.lit], int32(i))
		default:
			m.scan = append(m.scan, int32(i))
		}
	}
	return m
}

// match reports whether the entry at path (components from the workspace
// root; the last is its name) is ignored.
func (m *ignoreMatcher) match(path []string, isDir bool) bool {
	if m == nil {
		return false
	}
	name := path[len(path)-1]
	best := int32(-1)
	for _, i := range m.exact[name] {
		if !m.rules[i].dirOnly || isDir {
			best = i
			break
		}
	}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 && len(m.ext) > 0 {
		for _, i := range m.ext[name[dot+1:]] {
			if i <= best {
				break
			}
			if !m.rules[i].dirOnly || isDir {
				best = i
				break
			}
		}
	}
	for _, i := range m.scan {
		if i <= best {
			break
		}
		if m.rules[i].matches(path, name, isDir) {
			best = i
			break
		}
	}
	return best >= 0 && !m.rules[best].negate
}

// matches checks one rule of the scanned kinds.
func (r *ignoreRule) matches(path []string, name string, isDir bool) bool {
	if r.kind == kindPath {
		return r.p.Match(path, isDir) != gitignore.NoMatch
	}
	if r.dirOnly && !isDir {
		return false
	}
	switch r.kind {
	case kindSuffix:
		return strings.HasSuffix(name, r.lit)
	case kindPrefix:
		return strings.HasPrefix(name, r.lit)
	case kindName:
		ok, err := filepath.Match(r.lit, name)
		return ok && err == nil
	}
	return false
}

// matchReference is the plain form of ignoreMatcher.match: every rule
// through go-git, last match wins. Tests compare the two.
func (rs ignoreRules) matchReference(path []string, isDir bool) bool {
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		p := path
		if r.kind != kindPath {
			p = append(slices.Clip(r.domain), path[len(path)-1])
		}
		if m := r.p.Match(p, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}
