package permission

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word after quote removal.
type word struct {
	text   string // value; for dynamic parts, their source text
	static bool   // the value is fully known before running anything
	glob   bool   // contains unquoted glob characters, expanded at run time
	// proc is set for a word that is one input process substitution
	// <(...): what reading the file it names gives.
	proc *fileText
}

// fileText is what a file holds, as far as the command line shows it:
// the text a literal producer writes into it, or that it comes from a
// download.
type fileText struct {
	text     string
	known    bool
	download bool
}

// maxFields bounds brace expansion.
const maxFields = 64

// fields expands one shell word into the fields it becomes: quotes and
// backslashes removed, $'..' decoded, braces expanded. Expansions ($x, $(..),
// $((..))) make the word dynamic.
func fields(w *syntax.Word) []word {
	syntax.SplitBraces(w)
	alts := expandBraces(w.Parts)
	if alts == nil {
		ws := evalParts(w.Parts, false)
		ws.static = false
		return []word{ws}
	}
	out := make([]word, 0, len(alts))
	for _, ps := range alts {
		out = append(out, evalParts(ps, false))
	}
	return out
}

// expandBraces returns the part lists a word's brace expressions expand to,
// or nil when there would be more than maxFields.
func expandBraces(parts []syntax.WordPart) [][]syntax.WordPart {
	out := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range out {
				out[i] = append(out[i], p)
			}
			continue
		}
		var elems [][]syntax.WordPart
		if be.Sequence {
			seq := braceSequence(be)
			if seq == nil {
				return nil
			}
			for _, s := range seq {
				elems = append(elems, []syntax.WordPart{&syntax.Lit{Value: s}})
			}
		} else {
			for _, e := range be.Elems {
				sub := expandBraces(e.Parts)
				if sub == nil {
					return nil
				}
				elems = append(elems, sub...)
			}
		}
		if len(out)*len(elems) > maxFields {
			return nil
		}
		next := make([][]syntax.WordPart, 0, len(out)*len(elems))
		for _, o := range out {
			for _, e := range elems {
				n := append(append([]syntax.WordPart{}, o...), e...)
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

// braceSequence expands {a..b[..step]} for small numeric or letter ranges.
func braceSequence(be *syntax.BraceExp) []string {
	if len(be.Elems) < 2 {
		return nil
	}
	lit := func(w *syntax.Word) string { return w.Lit() }
	a, b := lit(be.Elems[0]), lit(be.Elems[1])
	step := 1
	if len(be.Elems) > 2 {
		s, err := strconv.Atoi(lit(be.Elems[2]))
		if err != nil || s == 0 {
			return nil
		}
		if s < 0 {
			s = -s
		}
		step = s
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		if len(a) != 1 || len(b) != 1 {
			return nil
		}
		x, y = int(a[0]), int(b[0])
	}
	var out []string
	for i := x; ; {
		if len(out) >= maxFields {
			return nil
		}
		if err1 != nil {
			out = append(out, string(rune(i)))
		} else {
			out = append(out, strconv.Itoa(i))
		}
		if i == y {
			break
		}
		if x < y {
			i += step
			if i > y {
				break
			}
		} else {
			i -= step
			if i < y {
				break
			}
		}
	}
	return out
}

// evalParts removes quotes from word parts.
func evalParts(parts []syntax.WordPart, quoted bool) word {
	var b strings.Builder
	w := word{static: true}
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s, glob := unescapeLit(p.Value, quoted)
			w.glob = w.glob || glob
			b.WriteString(s)
		case *syntax.SglQuoted:
			b.WriteString(sglText(p))
		case *syntax.DblQuoted:
			inner := evalParts(p.Parts, true)
			w.static = w.static && inner.static
			b.WriteString(inner.text)
		default:
			w.static = false
			b.WriteString(source(p))
		}
	}
	w.text = b.String()
	return w
}

// unescapeLit removes backslashes from a literal the way the shell does,
// unquoted or inside double quotes, and reports unquoted glob characters.
func unescapeLit(s string, quoted bool) (string, bool) {
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			if n == '\n' {
				i++
				continue
			}
			if !quoted || n == '$' || n == '`' || n == '"' || n == '\\' {
				b.WriteByte(n)
				i++
				continue
			}
		}
		if !quoted && (c == '*' || c == '?' || (c == '[' && strings.IndexByte(s[i+1:], ']') >= 0)) {
			glob = true
		}
		b.WriteByte(c)
	}
	return b.String(), glob
}

// sglText is a single-quoted part's text: $'...' with its escapes
// decoded (ANSI-C quoting), '...' as written.
func sglText(p *syntax.SglQuoted) string {
	if p.Dollar {
		return ansiC(p.Value)
	}
	return p.Value
}

// ansiC decodes the body of a $'...' string.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i]]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if s[i] == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(s[i]) // \\ \' \" \? and unknown escapes
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// source renders a dynamic word part as short shell text. It never prints
// nested commands (they are parts of their own), which keeps checking
// linear in the length of the command.
func source(n syntax.Node) string {
	switch n := n.(type) {
	case *syntax.ParamExp:
		name := ""
		if n.Param != nil {
			name = n.Param.Value
		}
		switch {
		case n.Short:
			return "$" + name
		case n.Excl:
			return "${!" + name + "}"
		case n.Length:
			return "${#" + name + "}"
		case n.Index == nil && n.Slice == nil && n.Repl == nil && n.Exp == nil && n.Names == 0:
			return "${" + name + "}"
		}
		return "${" + name + "…}"
	case *syntax.CmdSubst:
		if n.Backquotes {
			return "`…`"
		}
		return "$(…)"
	case *syntax.ArithmExp:
		return "$((…))"
	case *syntax.ProcSubst:
		return n.Op.String() + "…)"
	case *syntax.ExtGlob:
		return n.Op.String() + n.Pattern.Value + ")"
	case *syntax.Word:
		return evalParts(n.Parts, false).text
	case *syntax.BraceExp:
		return "{…}"
	}
	return "…"
}

// heredocText returns the body of a here-document as the shell passes it
// on: for an unquoted delimiter, backslash escapes of $, `, \ and newline
// removed, and whether it is fully static.
func heredocText(w *syntax.Word, quoted bool) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	static := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(p.Value)
			} else {
				b.WriteString(unescapeHeredoc(p.Value))
			}
		default:
			static = false
			b.WriteString(source(p))
		}
	}
	return b.String(), static
}

// unescapeHeredoc removes the backslashes an unquoted here-document body
// loses: before $, `, \ and newline; any other backslash stays.
func unescapeHeredoc(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				i++
				b.WriteByte(s[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quotedWord reports a here-document delimiter with any quoting, which
// makes the body literal.
func quotedWord(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, `\`) {
			return true
		}
	}
	return false
}
