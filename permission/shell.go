package permission

import (
	"fmt"
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
