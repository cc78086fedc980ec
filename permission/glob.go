package permission

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// matchCommand reports whether a command rule matches the normalised text of
// a simple command. The rule is a command glob, not a path glob: `*` matches
// any run of characters, spaces and slashes included; `\*` and `\\` stand for
// a literal star and backslash; everything else matches itself. The match is
// anchored at both ends, so `cat *` does not match a bare `cat`, and `ls*`
// matches `lsof`.
func matchCommand(rule, text string) bool {
	toks := globTokens(rule)
	// Iterative wildcard matching with a single backtrack point: linear in
	// practice, never exponential.
	ti, si := 0, 0
	star, mark := -1, 0
	for si < len(text) {
		if ti < len(toks) && toks[ti].star {
			star, mark = ti, si
			ti++
			continue
		}
		if ti < len(toks) && toks[ti].b == text[si] {
			ti++
			si++
			continue
		}
		if star >= 0 {
			mark++
			si = mark
			ti = star + 1
			continue
		}
		return false
	}
	for ti < len(toks) && toks[ti].star {
		ti++
	}
	return ti == len(toks)
}

type globTok struct {
	b    byte
	star bool
}

func globTokens(rule string) []globTok {
	toks := make([]globTok, 0, len(rule))
	for i := 0; i < len(rule); i++ {
		c := rule[i]
		switch {
		case c == '\\' && i+1 < len(rule) && (rule[i+1] == '*' || rule[i+1] == '\\'):
			i++
			toks = append(toks, globTok{b: rule[i]})
		case c == '*':
			toks = append(toks, globTok{star: true})
		default:
			toks = append(toks, globTok{b: c})
		}
	}
	return toks
}

// quoteGlob escapes text so that matchCommand matches it literally.
func quoteGlob(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`)
	return r.Replace(s)
}

// ruleHead is the first word of a command rule, or "" when that word contains
// a wildcard.
func ruleHead(rule string) string {
	head, _, _ := strings.Cut(rule, " ")
	if strings.Contains(head, "*") {
		return ""
	}
	return strings.ReplaceAll(head, `\\`, `\`)
}

// matchPath reports whether a path rule (a doublestar glob over the
// workspace-relative, slash-separated path) matches rel. fold makes the match
// case-insensitive, which deny and ask rules use so that a case-insensitive
// file system cannot dodge them.
func matchPath(rule, rel string, fold bool) bool {
	if fold {
		rule, rel = strings.ToLower(rule), strings.ToLower(rel)
	}
	ok, err := doublestar.Match(rule, rel)
	return err == nil && ok
}

// validPathRule reports whether a path rule is a well-formed glob.
func validPathRule(rule string) bool {
	return rule != "" && doublestar.ValidatePattern(rule)
}
