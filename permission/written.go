package permission

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// procText is what reading <(...) gives: the text of a literal producer
// (echo sudo id), or a download's output.
func procText(ps *syntax.ProcSubst) *fileText {
	ft := &fileText{}
	if len(ps.Stmts) == 1 {
		ft.text, ft.known = producerText(ps.Stmts[0])
	} else if len(ps.Stmts) > 1 {
		ft.text, ft.known = producerText(&syntax.Stmt{Cmd: &syntax.Block{Stmts: ps.Stmts}})
	}
	syntax.Walk(ps, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 && downloaders.get()[path.Base(call.Args[0].Lit())] {
			ft.download = true
		}
		return true
	})
	return ft
}

// recordWrite remembers what a statement writes into a literal file with
// > or >> when a literal producer writes it (echo 'sudo id' > x.sh,
// cat > x.sh <<EOF): a later `source x.sh` or `bash x.sh` in the same
// command line runs that text. Any other write makes the content unknown.
func (c *checker) recordWrite(s *syntax.Stmt) {
	var target *syntax.Word
	var app bool
	var rest []*syntax.Redirect
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			target, app = r.Word, r.Op == syntax.AppOut || r.Op == syntax.AppAll
		default:
			rest = append(rest, r)
		}
	}
	if target == nil {
		return
	}
	ws := fields(target)
	if len(ws) != 1 || !ws[0].static || ws[0].glob {
		return
	}
	abs, ok := c.abs(ws[0].text)
	if !ok {
		return
	}
	cp := *s
	cp.Redirs = rest
	text, known := producerText(&cp)
	if call, ok := s.Cmd.(*syntax.CallExpr); ok && known && len(call.Args) > 0 && call.Args[0].Lit() == "echo" {
		text += "\n"
	}
	old, had := c.written[abs]
	switch {
	case !known:
		c.written[abs] = fileText{}
	case app && had:
		c.written[abs] = fileText{text: old.text + text, known: old.known}
	default:
		c.written[abs] = fileText{text: text, known: true}
	}
}

// teeWrite records what tee writes into a file: the literal text piped in
// (echo 'sudo id' | tee x.sh), or something unknown.
func (c *checker) teeWrite(f word, in stdin) {
	if !f.static || f.glob {
		return
	}
	abs, ok := c.abs(f.text)
	if !ok {
		return
	}
	switch {
	case in.set && in.known && !in.file:
		c.written[abs] = fileText{text: in.script, known: true}
	case !in.set && c.piped && c.pipeKnown:
		c.written[abs] = fileText{text: c.pipeText, known: true}
	default:
		c.written[abs] = fileText{}
	}
}

// writtenScript returns what this command line wrote into a script file it
// runs, if that is known.
func (c *checker) writtenScript(p string) (string, bool) {
	abs, ok := c.abs(p)
	if !ok {
		return "", false
	}
	ft, ok := c.written[abs]
	return ft.text, ok && ft.known
}

// producerText returns what a pipeline's left side writes when it is
// literal: `cat` with a here-document or here-string, or `echo` of literal
// words without options.
func producerText(s *syntax.Stmt) (string, bool) {
	// { echo ls; echo sudo id; } and ( ... ): the producers' output in
	// turn (echo ends its text with a newline).
	var group []*syntax.Stmt
	switch x := s.Cmd.(type) {
	case *syntax.Block:
		group = x.Stmts
	case *syntax.Subshell:
		group = x.Stmts
	}
	if group != nil {
		if len(s.Redirs) != 0 || s.Background || s.Negated {
			return "", false
		}
		var b strings.Builder
		for _, st := range group {
			t, ok := producerText(st)
			if !ok || st.Background {
				return "", false
			}
			b.WriteString(t)
			if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 && call.Args[0].Lit() == "echo" {
				b.WriteString("\n")
			}
		}
		return b.String(), true
	}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 || len(call.Assigns) > 0 {
		return "", false
	}
	var argv []word
	for _, w := range call.Args {
		argv = append(argv, fields(w)...)
	}
	for _, a := range argv {
		if !a.static {
			return "", false
		}
	}
	switch argv[0].text {
	case "cat":
		if len(argv) != 1 || len(s.Redirs) != 1 {
			return "", false
		}
		r := s.Redirs[0]
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			return heredocText(r.Hdoc, quotedWord(r.Word))
		case syntax.WordHdoc:
			ws := fields(r.Word)
			if len(ws) == 1 && ws[0].static {
				return ws[0].text, true
			}
		}
	case "echo":
		if len(s.Redirs) != 0 {
			return "", false
		}
		if len(argv) == 1 || !strings.HasPrefix(argv[1].text, "-") {
			return joinWords(argv[1:]), true
		}
		if f := argv[1].text; strings.Trim(f[1:], "neE") == "" && len(f) > 1 {
			// echo -e 'a\nb': escapes read roughly, which is enough to
			// see the commands in it.
			return strings.ReplaceAll(joinWords(argv[2:]), `\n`, "\n"), true
		}
	case "printf":
		// printf TEXT (no conversions) or printf '%s\n' WORDS...: the
		// text as written, roughly.
		if len(s.Redirs) != 0 || len(argv) < 2 || strings.HasPrefix(argv[1].text, "-") {
			return "", false
		}
		f := argv[1].text
		switch {
		case !strings.Contains(f, "%"):
			// \t too: a makefile's recipe lines start with a tab
			// (printf 'all:\n\tsudo id\n' | make -f -).
			return strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(f), true
		case f == "%s" || f == `%s\n` || f == `%s `:
			sep := map[string]string{"%s": "", `%s\n`: "\n", `%s `: " "}[f]
			var out []string
			for _, a := range argv[2:] {
				out = append(out, a.text)
			}
			return strings.Join(out, sep) + sep, true
		}
	}
	return "", false
}
