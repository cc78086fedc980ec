package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseErrorDenies looks into a script the parser refused, so that a parse
// error never hides a deny: bash runs a script line by line (the lines
// before a syntax error run), and accepts some text the parser here does
// not (a command word such as a[1], `a[$(sudo id)]`). The lines before
// the error are checked as a script of their own; and every piece of the
// text between command separators whose words a deny rule matches is
// deny. The ask for the parse error stays.
func (c *checker) parseErrorDenies(src string, err error, depth int, via string) {
	if pe, ok := err.(syntax.ParseError); ok && pe.Pos.Line() > 1 {
		lines := strings.Split(src, "\n")
		if n := int(pe.Pos.Line()) - 1; n < len(lines) {
			prefix := strings.Join(lines[:n], "\n")
			if _, perr := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(prefix), ""); perr == nil {
				c.script(prefix, depth, via)
			}
		}
	}
	text := strings.NewReplacer("$(", "\n", "<(", "\n", ">(", "\n", "`", "\n", "'", " ", "\"", " ", "\\", "").Replace(src)
	for _, seg := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune("\n;&|(){}", r) }) {
		ws := strings.Fields(seg)
		for len(ws) > 0 && (strings.Contains(ws[0], "=") || parseErrorKeywords.get()[ws[0]]) {
			ws = ws[1:]
		}
		if len(ws) == 0 {
			continue
		}
		t := strings.Join(ws, " ")
		if p := c.ruled(t, path.Base(ws[0]), nil, false, false); p.Verdict == Deny {
			p.Structural = true
			p.Reason = "in text that does not parse: " + p.Reason
			c.d.add(p)
		}
	}
}

var parseErrorKeywords = &set{items: []string{"!", "if", "then", "else", "elif", "do",
	"while", "until", "time", "exec", "command", "builtin", "eval", "[[", "]]",
}}
