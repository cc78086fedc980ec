package permission

import (
	"path"
	"strings"
)

// plan is what inspecting a program's arguments found.
type plan struct {
	transparent bool     // an exec-wrapper: its own part defaults to allow
	canon       []string // extra normalised texts for rule matching
	floor       []Part   // structural parts merged into the command's part
	inner       []func() // checks of the commands it runs, done after its part
	noArgCheck  bool     // skip the generic argument checks
	patterns    int      // leading positional arguments that are patterns, not paths
}

func (pl *plan) ask(text, why string) {
	pl.floor = append(pl.floor, Part{Text: text, Verdict: Ask, Structural: true, Reason: why})
}

func (pl *plan) deny(text, why string) {
	pl.floor = append(pl.floor, Part{Text: text, Verdict: Deny, Structural: true, Reason: why})
}

// command checks one simple command given as expanded words.
func (c *checker) command(argv []word, extra []Part, in stdin, redirs []string) {
	name := argv[0]
	text := joinWords(argv)
	if c.e.onCommand != nil {
		c.e.onCommand(text)
	}
	suffix := ""
	if len(redirs) > 0 {
		suffix = " " + strings.Join(redirs, " ")
	}
	text += suffix
	if !name.static || name.glob {
		p := Part{Text: text, Verdict: Ask, Structural: true,
			Reason: "command name is not a literal (expansion or glob): cannot tell what runs"}
		if name.glob && name.static {
			if prog := c.globReachesDeny(name.text); prog != "" {
				p.Verdict, p.Reason = Deny, "glob in command position can expand to "+prog+", which a deny rule names"
			}
		}
		c.d.add(strictest(p, extra))
		return
	}
	if name.text == "" {
		c.d.add(strictest(Part{Text: text, Verdict: Ask, Structural: true, Reason: "empty command name"}, extra))
		return
	}
	for _, r := range name.text {
		if r > 0x7e || r < 0x21 {
			c.d.add(strictest(Part{Text: text, Verdict: Ask, Structural: true,
				Reason: "command name contains a non-ASCII, space or control character"}, extra))
			return
		}
	}
	base := path.Base(name.text)
	if downloaders.get()[base] {
		c.downloads++
	}
	baseText := base
	if len(argv) > 1 {
		baseText += " " + joinWords(argv[1:])
	}
	baseText += suffix
	// A name defined as a function in this command line is still checked
	// as the program: the definition may sit in a branch that never runs.
	var pl plan
	c.inspect(base, argv, in, &pl)
	if strings.Contains(name.text, "/") {
		// ./x.sh after echo 'sudo id' > x.sh: the script this command
		// line wrote.
		c.scriptFile(name.text, name, &pl)
	}
	if !pl.noArgCheck {
		c.argChecks(base, argv[1:], &pl)
	}
	c.protectedOperands(base, argv, &pl)
	for _, a := range argv[1:] {
		if !a.static && secretVar.get().MatchString(a.text) {
			pl.ask(a.text, "expands a variable that may hold a secret")
		}
	}
	canon := pl.canon
	if suffix != "" {
		// Deny and ask rules also see the command without its
		// redirections, so `sudo 2>/dev/null` still meets a rule `sudo`.
		canon = append(canon, strings.TrimSuffix(text, suffix), strings.TrimSuffix(baseText, suffix))
	}
	p := c.ruled(text, baseText, canon, pl.transparent, c.denyInside(argv))
	switch {
	case c.funcs[name.text] && p.Verdict >= Ask:
		p.Reason += " (also defined as a shell function here; its body is checked on its own)"
	case (base == "cd" || base == "pushd") && p.Verdict == Allow:
		p.Reason = "changes directory inside the workspace"
	}
	c.d.add(strictest(p, append(extra, pl.floor...)))
	for _, f := range pl.inner {
		f()
	}
}

// nested checks argv run by a wrapper.
func (c *checker) nested(argv []word, in stdin) {
	if len(argv) == 0 {
		return
	}
	if c.depth+1 > MaxNesting {
		c.d.add(Part{Text: joinWords(argv), Verdict: Ask, Structural: true, Reason: "commands nested too deeply to check"})
		return
	}
	c.depth++
	c.command(argv, nil, in, nil)
	c.depth--
}

// nestedScript checks a shell string run by a program (sh -c, eval, a
// command-valued option or variable).
func (c *checker) nestedScript(w word, via string) {
	if !w.static {
		c.d.add(Part{Text: w.text, Verdict: Ask, Structural: true, Reason: via + " runs a command that is not a literal"})
		return
	}
	c.script(w.text, c.depth+1, via)
}

// nestedProgram checks a program an option names; the program is run with
// arguments of its own, which the placeholder stands for.
func (c *checker) nestedProgram(w word, via string) {
	w.text += " {args}"
	c.nestedScript(w, via)
}

func joinWords(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.text
	}
	return strings.Join(s, " ")
}

// globReachesDeny returns a program a deny rule names that a glob in
// command position can expand to.
func (c *checker) globReachesDeny(glob string) string {
	pat := path.Base(glob)
	for _, r := range c.e.table("bash").deny {
		head := ruleHead(r.pat)
		if head == "" || strings.Contains(head, "/") {
			continue
		}
		if ok, err := path.Match(pat, head); err == nil && ok {
			return head
		}
	}
	return ""
}

// downloaders fetch data from the network; piping it into a shell is
// denied.
var downloaders = &set{items: []string{"curl", "wget", "fetch", "nc", "ncat", "aria2c", "http", "xh"}}

// pathless commands take no file operands worth checking.
var pathless = &set{items: []string{
	"echo", "printf", "true", "false", ":", "test", "[",
	"pwd", "which", "type", "whoami", "id", "uname",
	"hostname", "date", "seq", "basename", "dirname", "sleep",
	"exit", "return", "shift", "set", "shopt", "unset",
	"wait", "kill", "command", "hash", "umask", "read",
}}

// patternFirst commands take a pattern or program as their first operand.
var patternFirst = &set{items: []string{
	"grep", "egrep", "fgrep", "rg", "ag", "ack",
	"sed", "awk", "gawk", "mawk", "jq", "yq",
}}

var (
	urlLike   = &pattern{expr: `^[A-Za-z][A-Za-z0-9+.-]*://`}
	secretVar = &pattern{expr: `(?i)\$\{?[!#]?[a-z0-9_]*(key|token|secret|passw|cred|auth|cookie|session)[a-z0-9_]*`}
)

// argChecks applies the generic structural checks to operands: literal
// paths outside the workspace or naming sensitive files are ask, and so is
// any operand that is not a literal.
func (c *checker) argChecks(base string, args []word, pl *plan) {
	if pathless.get()[base] {
		return
	}
	patterns := pl.patterns
	if patternFirst.get()[base] && patterns == 0 {
		patterns = 1
	}
	opts := true
	for _, a := range args {
		if !a.static {
			pl.ask(a.text, "argument is not a literal (expansion): it may name any path")
			continue
		}
		cand := a.text
		if opts && cand == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(cand, "-") && len(cand) > 1 {
			if base == "grep" || base == "rg" || base == "egrep" || base == "fgrep" {
				if cand == "-e" || cand == "-f" || strings.HasPrefix(cand, "--regexp") || strings.HasPrefix(cand, "--file") {
					patterns = 0
				}
			}
			_, v, ok := strings.Cut(cand, "=")
			if !ok {
				// -fFILE: the value glued to its option is a path too,
				// and so is every suffix of a bundle that may be one.
				vs := attachedValues(cand, patternFirst.get()[base])
				for _, v := range vs {
					if rv, why := c.readPath(v); rv == Deny {
						pl.deny(a.text, why)
					} else if rv == Ask {
						pl.ask(a.text, why)
					}
				}
				continue
			}
			cand = v
		} else if patterns > 0 {
			patterns--
			continue
		}
		if cand == "" || urlLike.get().MatchString(cand) {
			continue
		}
		if a.glob {
			c.readGlob(cand, pl)
		} else if v, why := c.readPath(cand); v == Deny {
			pl.deny(a.text, why)
		} else if v == Ask {
			pl.ask(a.text, why)
		}
	}
}

// globMaySecret reports a glob that may match a sensitive file: a dot-file
// pattern matching .env or .netrc, or a pattern naming keys.
func globMaySecret(glob string) bool {
	b := strings.ToLower(path.Base(glob))
	if strings.HasPrefix(b, ".") {
		for _, n := range []string{".env", ".env.local", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass"} {
			if ok, _ := path.Match(b, n); ok {
				return true
			}
		}
	}
	for _, k := range []string{"pem", "key", "id_", "p12", "pfx", "cred", "secret"} {
		if strings.Contains(b, k) {
			return true
		}
	}
	return false
}
