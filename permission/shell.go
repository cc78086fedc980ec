package permission

import (
	"fmt"
	"path"
	"reflect"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// CheckCommand decides a bash command line. Every simple command in it, and
// every command an exec-wrapper would run, is a part; the strictest part
// wins.
func (e *Engine) CheckCommand(cmd string) (d Decision) {
	if len(cmd) > HardCommandLimit {
		d.add(Part{Text: cmd[:80] + "...", Verdict: Deny, Structural: true,
			Reason: fmt.Sprintf("command is %d bytes, over the %d-byte limit: not checked, not run", len(cmd), HardCommandLimit)})
		return d
	}
	c := newChecker(e, &d, e.ws)
	defer func() {
		// A checker bug must never weaken a verdict: what it was about to
		// find could have been a deny.
		if r := recover(); r != nil {
			d.add(Part{Text: cmd, Verdict: Deny, Structural: true, Reason: fmt.Sprintf("checker failed: %v", r)})
		}
	}()
	src := cmd
	if h := hostileText(cmd); h != "" {
		d.add(Part{Text: cmd, Verdict: Ask, Structural: true, Reason: "command contains a " + h})
		// Check what a lenient reader would see as well; the part above
		// keeps the verdict at ask or stricter.
		src = strings.ReplaceAll(cmd, "\x00", " ")
	}
	if len(cmd) > SoftCommandLimit {
		d.add(Part{Text: cmd[:80] + "...", Verdict: Ask, Structural: true,
			Reason: fmt.Sprintf("command is %d bytes, over the %d-byte display limit", len(cmd), SoftCommandLimit)})
	}
	c.script(src, 0, "")
	c.resolveArith()
	if len(d.Parts) == 0 {
		d.add(Part{Text: cmd, Verdict: Ask, Structural: true, Reason: "no command found"})
	}
	return d
}

// checker walks one command line.
type checker struct {
	e       *Engine
	d       *Decision
	cwd     string // absolute working directory; "" once unknown
	depth   int
	funcs   map[string]bool
	aliases map[string][]string // git aliases set with -c alias.X=Y
	vars    *shellVars
	// downloads counts commands seen that fetch data from the network;
	// piped and pipeDownload say whether the current command reads a pipe,
	// and whether a download feeds it.
	downloads    int
	piped        bool
	pipeDownload bool
	// pipeText is the text a literal producer (cat of a here-document,
	// echo of literal words) writes into the pipe the current command reads.
	pipeText  string
	pipeKnown bool
	// written is what the command line wrote into files so far, by
	// absolute path.
	written map[string]fileText
}

func newChecker(e *Engine, d *Decision, cwd string) *checker {
	return &checker{e: e, d: d, cwd: cwd, funcs: map[string]bool{}, aliases: map[string][]string{}, vars: newShellVars(), written: map[string]fileText{}}
}

// script parses and walks a shell script at a nesting depth. via names the
// wrapper that runs it, for reasons.
func (c *checker) script(src string, depth int, via string) {
	if depth > MaxNesting {
		c.d.add(Part{Text: src, Verdict: Ask, Structural: true, Reason: "commands nested too deeply to check"})
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		why := "parse error: " + err.Error()
		if via != "" {
			why = via + ": " + why
		}
		c.d.add(Part{Text: src, Verdict: Ask, Structural: true, Reason: why})
		c.parseErrorDenies(src, err, depth, via)
		return
	}
	saved := c.depth
	c.depth = depth
	c.stmts(f.Stmts)
	c.depth = saved
}

func (c *checker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

// visit walks any node for the statements inside it (command and process
// substitutions, nested bodies).
func (c *checker) visit(n syntax.Node) {
	if n == nil {
		return
	}
	if v := reflect.ValueOf(n); v.Kind() == reflect.Pointer && v.IsNil() {
		return // a typed nil, such as the missing value of `A=`
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			c.stmt(n)
			return false
		case *syntax.CmdSubst:
			c.sub(n.Stmts)
			return false
		case *syntax.ProcSubst:
			c.sub(n.Stmts)
			return false
		case *syntax.ArithmExp:
			c.arith(n.X, "")
			return false
		case *syntax.ParamExp:
			c.paramParts(n, false)
			return false
		}
		return true
	})
}

// sub walks statements that run in a subshell: directory changes inside do
// not leak out. Standard input is inherited, so a pipe feeding the command
// also feeds its substitutions.
func (c *checker) sub(list []*syntax.Stmt) {
	cwd := c.cwd
	c.stmts(list)
	c.cwd = cwd
}

// stdin describes what a command reads on standard input, when it matters.
type stdin struct {
	script string // here-document or here-string text
	known  bool   // script is static
	file   bool   // redirected from a file
	set    bool
}

func (c *checker) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	var extra []Part
	var in stdin
	var redirs []string
	for _, r := range s.Redirs {
		rs := r.Op.String()
		if r.N != nil {
			rs = r.N.Value + rs
		}
		if r.Word != nil {
			rs += source(r.Word)
		}
		redirs = append(redirs, rs)
		c.visit(r.Word)
		if r.Hdoc != nil {
			c.visit(r.Hdoc)
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
			if p, bad := c.writeTarget(r.Word); bad {
				extra = append(extra, p)
			}
		case syntax.DplOut, syntax.DplIn:
			if t := r.Word.Lit(); t != "" && (t == "-" || strings.Trim(t, "0123456789") == "" || strings.Trim(t, "0123456789") == "-") {
				continue
			}
			if p, bad := c.writeTarget(r.Word); bad {
				extra = append(extra, p)
			}
		case syntax.RdrIn:
			in = stdin{file: true, set: true}
			if p, bad := c.readTarget(r.Word); bad {
				extra = append(extra, p)
			}
		case syntax.Hdoc, syntax.DashHdoc:
			t, ok := heredocText(r.Hdoc, quotedWord(r.Word))
			in = stdin{script: t, known: ok, set: true}
		case syntax.WordHdoc:
			ws := fields(r.Word)
			in = stdin{set: true}
			if len(ws) == 1 && ws[0].static {
				in.script, in.known = ws[0].text, true
			}
		}
	}
	switch x := s.Cmd.(type) {
	case nil:
		for _, p := range extra {
			c.d.add(p)
		}
	case *syntax.CallExpr:
		c.call(x, extra, in, redirs)
		c.recordWrite(s)
	default:
		for _, p := range extra {
			c.d.add(p)
		}
		c.compound(x)
		// { echo ...; } > x.sh writes the group's output.
		c.recordWrite(s)
	}
}

func (c *checker) compound(x syntax.Command) {
	switch x := x.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			cwd := c.cwd
			before := c.downloads
			c.stmt(x.X)
			savedPiped, savedDl, savedText, savedKnown := c.piped, c.pipeDownload, c.pipeText, c.pipeKnown
			c.piped = true
			c.pipeDownload = c.pipeDownload || c.downloads > before
			c.pipeText, c.pipeKnown = producerText(x.X)
			c.stmt(x.Y)
			c.piped, c.pipeDownload, c.pipeText, c.pipeKnown = savedPiped, savedDl, savedText, savedKnown
			c.cwd = cwd // each pipeline element runs in a subshell
			return
		}
		c.stmt(x.X)
		c.stmt(x.Y)
	case *syntax.Subshell:
		c.sub(x.Stmts)
	case *syntax.Block:
		c.stmts(x.Stmts)
	case *syntax.FuncDecl:
		if x.Name != nil {
			c.funcs[x.Name.Value] = true
		}
		for _, n := range x.Names {
			c.funcs[n.Value] = true
		}
		c.sub([]*syntax.Stmt{x.Body})
	case *syntax.DeclClause:
		c.decl(x)
	case *syntax.ArithmCmd:
		c.arith(x.X, "")
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			c.arith(e, "")
		}
	case *syntax.TestClause:
		c.testExpr(x.X)
	case *syntax.ForClause:
		c.forClause(x)
	case *syntax.TimeClause:
		// bash's time keyword takes -p and then --: `time -- sudo id`
		// runs sudo, where the parser sees a command named --.
		if s := x.Stmt; s != nil {
			if call, ok := s.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 1 && call.Args[0].Lit() == "--" {
				cp, cs := *call, *s
				cp.Args = call.Args[1:]
				cs.Cmd = &cp
				c.stmt(&cs)
				return
			}
		}
		c.stmt(x.Stmt)
	case *syntax.CoprocClause:
		c.stmt(x.Stmt)
	default:
		c.visit(x)
	}
}

// call checks one simple command with its prefix assignments.
func (c *checker) call(x *syntax.CallExpr, extra []Part, in stdin, redirs []string) {
	for _, a := range x.Assigns {
		c.visit(a.Value)
		if a.Name == nil {
			continue
		}
		c.assignVar(a)
		val := word{static: true}
		if a.Value != nil {
			val = evalParts(a.Value.Parts, false)
		}
		extra = append(extra, c.assign(a.Name.Value, val)...)
	}
	if len(x.Args) == 0 {
		var as []string
		for _, a := range x.Assigns {
			t := "…"
			if a.Name != nil {
				t = a.Name.Value + "="
			}
			if a.Value != nil {
				t += evalParts(a.Value.Parts, false).text
			}
			as = append(as, t)
		}
		p := Part{Text: strings.Join(as, " "), Verdict: Allow, Reason: "assignment only: no program runs", Structural: true}
		c.d.add(strictest(p, extra))
		return
	}
	var argv []word
	for _, w := range x.Args {
		c.visit(w)
		fs := fields(w)
		if len(w.Parts) == 1 && len(fs) == 1 {
			if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
				fs[0].proc = procText(ps)
			}
		}
		argv = append(argv, fs...)
	}
	c.command(argv, extra, in, redirs)
}

// assign checks NAME=value (prefix, env argument or declaration) and
// returns the structural parts it adds.
func (c *checker) assign(name string, val word) []Part {
	var out []Part
	if why := dangerousVar(name); why != "" {
		out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: "sets " + name + ": " + why})
	}
	if u := strings.ToUpper(name); val.static && (u == "MAKEFLAGS" || u == "MFLAGS" || u == "GNUMAKEFLAGS") {
		// What make would run from the options it reads here.
		var pl plan
		c.makeVar(u, val.text, &pl)
		out = append(out, pl.floor...)
		for _, f := range pl.inner {
			f()
		}
	}
	if strings.ToUpper(name) == "GOFLAGS" && val.static {
		// go reads GOFLAGS as flags of every go command:
		// GOFLAGS=-toolexec=sudo is go test -toolexec=sudo.
		var pl plan
		var ws []word
		for _, f := range strings.Fields(val.text) {
			ws = append(ws, word{text: f, static: true})
		}
		c.goTool(ws, &pl)
		out = append(out, pl.floor...)
		for _, f := range pl.inner {
			f()
		}
	}
	if promptVar(name) {
		// bash expands a prompt's value when it shows it, $( ) included:
		// PS4='$(cmd)' runs cmd at every line `set -x` traces, PS1 at
		// every prompt of an interactive shell.
		if val.static {
			c.arithText(val.text, "")
		} else {
			out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: name + " holds a prompt that is not a literal"})
		}
	}
	if commandVar(name) {
		if val.static {
			v := strings.TrimLeft(val.text, "|-")
			c.script(v, c.depth+1, "command in "+name)
		} else {
			out = append(out, Part{Text: name + "=" + val.text, Verdict: Ask, Structural: true, Reason: name + " holds a command that is not a literal"})
		}
	}
	return out
}

// promptVar reports the variables bash expands as prompts.
func promptVar(name string) bool {
	switch name {
	case "PS0", "PS1", "PS2", "PS3", "PS4":
		return true
	}
	return false
}

// strictest merges structural parts into p: the verdict is the strictest,
// and the reason is that of the strictest structural part when it ties.
func strictest(p Part, extra []Part) Part {
	for _, x := range extra {
		if x.Verdict > p.Verdict || (x.Verdict == p.Verdict && x.Verdict >= Ask && !p.Structural) {
			p.Verdict, p.Reason, p.Structural, p.Suggest = x.Verdict, x.Reason, true, ""
		}
	}
	return p
}

// ruled applies the rule lists to a command text. base is the text with
// argv[0] reduced to its base name; canon are further texts deny and allow
// rules see (git without global options). transparent wrappers default to
// allow: what they run is checked as its own part.
func (c *checker) ruled(text, base string, canon []string, transparent, denyInside bool) Part {
	name, _, _ := strings.Cut(text, " ")
	strict := append([]string{text, base}, canon...)
	loose := append([]string{text}, canon...)
	v, why, fromList := c.e.listVerdict("bash", strict, loose, denyInside, func(r rule, s string, strict bool) bool {
		if !strict && strings.Contains(name, "/") && ruleHead(r.pat) != name {
			return false // allow rules need a bare name unless they name the path
		}
		return matchCommand(r.pat, s)
	})
	p := Part{Text: text, Verdict: v, Reason: why}
	if transparent && v < Deny && !strings.HasPrefix(why, "ask rule") {
		p.Verdict, p.Reason = Allow, "runs the command checked below"
		return p
	}
	if fromList && v == Ask {
		p.Suggest = Generalise(text)
	}
	if strings.Contains(name, "/") && v == Ask && fromList {
		p.Reason = "program named by path (not the bare command): " + why
	}
	return p
}

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
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 && downloaders[path.Base(call.Args[0].Lit())] {
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
		for len(ws) > 0 && (strings.Contains(ws[0], "=") || parseErrorKeywords[ws[0]]) {
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

var parseErrorKeywords = map[string]bool{"!": true, "if": true, "then": true, "else": true, "elif": true, "do": true,
	"while": true, "until": true, "time": true, "exec": true, "command": true, "builtin": true, "eval": true, "[[": true, "]]": true}
