package tools

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxLiterals bounds the alternatives a prefilter searches for at once.
const maxLiterals = 8

// litMode says how required literals are to be searched for.
type litMode int

const (
	litExact     litMode = iota // as they are
	litFold                     // ignoring ASCII case, in any text
	litFoldASCII                // ignoring ASCII case, in ASCII-only text
)

// requiredLiterals returns strings one of which every match of re
// contains, or nil. From a concatenation it keeps the best part (longest
// shortest literal, then fewest alternatives); from an alternation the
// union of its branches, when each has some.
//
// In the fold modes the strings are ASCII-lowercased, to be found ignoring
// ASCII case, and case-insensitive literals count too when they are ASCII.
// With litFold they must also have no k or s, which Unicode folds with the
// Kelvin sign and the long s (the only non-ASCII runes that fold with ASCII
// letters); litFoldASCII allows them, and its literals are valid only in
// text that holds neither rune (the caller checks, see hasKS).
func requiredLiterals(re *syntax.Regexp, mode litMode) []string {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase == 0 {
			if mode != litExact {
				s = lowerASCII(s)
			}
			return []string{s}
		}
		if mode == litExact || strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0 ||
			(mode == litFold && strings.ContainsAny(s, "kKsS")) {
			return nil
		}
		return []string{lowerASCII(s)}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0], mode)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0], mode)
		}
	case syntax.OpConcat:
		var best []string
		for _, sub := range re.Sub {
			if l := requiredLiterals(sub, mode); l != nil && betterLiterals(l, best) {
				best = l
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub, mode)
			if l == nil {
				return nil
			}
			for _, s := range l {
				if !containsString(all, s) {
					all = append(all, s)
				}
			}
		}
		if len(all) > maxLiterals {
			return nil
		}
		return all
	}
	return nil
}

func betterLiterals(a, b []string) bool {
	if b == nil {
		return true
	}
	if ma, mb := shortest(a), shortest(b); ma != mb {
		return ma > mb
	}
	return len(a) < len(b)
}

func shortest(l []string) int {
	n := len(l[0])
	for _, s := range l[1:] {
		n = min(n, len(s))
	}
	return n
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// literalSet is a compiled prefilter: the literals and how to find them.
type literalSet struct {
	exact [][]byte     // case-sensitive literals
	fold  []foldFinder // ASCII-case-insensitive literals
	noKS  bool         // valid only in text without U+212A or U+017F
}

func newLiteralSet(lits []string, mode litMode) *literalSet {
	ls := &literalSet{noKS: mode == litFoldASCII}
	for _, l := range lits {
		if mode != litExact {
			ls.fold = append(ls.fold, newFoldFinder([]byte(l)))
		} else {
			ls.exact = append(ls.exact, []byte(l))
		}
	}
	return ls
}

// finder returns a searcher over one buffer (it caches positions).
func (ls *literalSet) finder() *setFinder {
	n := len(ls.exact) + len(ls.fold)
	f := &setFinder{ls: ls}
	if n > 1 {
		f.next = make([]int, n)
		for i := range f.next {
			f.next[i] = -2
		}
	}
	return f
}

// setFinder finds the first position of any literal of a set in one
// buffer. With several literals it remembers each one's next position, so
// that the buffer is scanned once per literal, not once per match.
type setFinder struct {
	ls   *literalSet
	next []int // per literal: next position found (-2 unknown, -1 none)
}

func (f *setFinder) index(hay []byte, from int) int {
	if f.next == nil { // one literal
		if len(f.ls.exact) == 1 {
			if i := bytes.Index(hay[from:], f.ls.exact[0]); i >= 0 {
				return from + i
			}
			return -1
		}
		return f.ls.fold[0].index(hay, from)
	}
	best := -1
	for k := range f.next {
		p := f.next[k]
		if p == -1 {
			continue
		}
		if p < from {
			if k < len(f.ls.exact) {
				if i := bytes.Index(hay[from:], f.ls.exact[k]); i >= 0 {
					p = from + i
				} else {
					p = -1
				}
			} else {
				p = f.ls.fold[k-len(f.ls.exact)].index(hay, from)
			}
			f.next[k] = p
		}
		if p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

// hasKS reports whether b holds the Kelvin sign or the long s, which
// (?i) patterns match for k and s.
func hasKS(b []byte) bool {
	return bytes.Contains(b, kelvin) || bytes.Contains(b, longS)
}

var kelvin, longS = []byte("\u212A"), []byte("\u017F")
