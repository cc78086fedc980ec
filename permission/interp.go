package permission

import (
	"strings"
)

// sed: the e command and s///e flag run commands; w writes files; -i edits
// in place.
func (c *checker) sed(args []word, pl *plan) {
	args = longPrefixes(args, "--expression", "--in-place", "--file")
	var scripts []word
	explicit := false
	for i, a := range args {
		if v, ok := optValue(args, i, "-e", "--expression"); ok && (a.text == "-e" || strings.HasPrefix(a.text, "--expression")) {
			scripts = append(scripts, v)
			explicit = true
		}
		if a.text == "-i" || strings.HasPrefix(a.text, "-i") && !strings.HasPrefix(a.text, "--") || strings.HasPrefix(a.text, "--in-place") {
			pl.ask(a.text, "sed -i edits files in place")
			files := operands(args)
			if !explicit && len(files) > 0 {
				files = files[1:] // the script
			}
			for _, f := range files {
				c.writeWord(f, pl)
			}
		}
		if a.text == "-f" || strings.HasPrefix(a.text, "--file") {
			pl.ask(a.text, "sed script read from a file is not checked")
		}
	}
	if !explicit {
		if ops := operands(args); len(ops) > 0 {
			scripts = append(scripts, ops[0])
			pl.patterns = 1
		}
	} else {
		pl.patterns = 0
	}
	for _, s := range scripts {
		if !s.static {
			pl.ask(s.text, "sed script is not a literal")
			continue
		}
		c.sedScript(s.text, pl)
	}
}

var sedGroup = &pattern{expr: `\\[0-9]|&`}

var sedCmd = &pattern{expr: `^\s*(?:(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/))?)?\s*!?\s*([a-zA-Z{}=#:])(.*)$`}

func (c *checker) sedScript(s string, pl *plan) {
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ';' }) {
		m := sedCmd.get().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(m[2])
		switch m[1] {
		case "{":
			// 1{e cmd}: the block's commands.
			c.sedScript(strings.TrimSuffix(rest, "}"), pl)
		case "e":
			pl.ask(line, "sed e runs a shell command")
			if rest != "" {
				w := word{text: rest, static: true}
				pl.inner = append(pl.inner, func() { c.nestedScript(w, "sed e") })
			}
		case "w", "W":
			c.writeWord(word{text: rest, static: true}, pl)
		case "s":
			if len(rest) > 0 {
				d := rest[0]
				parts := strings.Split(rest[1:], string(d))
				if len(parts) >= 3 {
					flags := parts[len(parts)-1]
					if strings.Contains(flags, "e") {
						pl.ask(line, "sed s///e runs the result as a command")
						// s/.*/sudo id/e runs the replacement: a denied
						// command in it (matched text standing as
						// arguments) is denied.
						r := sedGroup.get().ReplaceAllString(parts[1], " {args} ") + " {args}"
						pl.inner = append(pl.inner, func() { c.quiet(r, "sed s///e") })
					}
					if k := strings.IndexByte(flags, 'w'); k >= 0 {
						c.writeWord(word{text: strings.TrimSpace(flags[k+1:]), static: true}, pl)
					}
				}
			}
		}
	}
}

var (
	awkRuns    = &pattern{expr: `system\s*\(|\|\s*getline|print[f]?[^;}]*\|`}
	awkWrites  = &pattern{expr: `print[f]?[^;}]*>`}
	quotedText = &pattern{expr: `"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`}
)

// awk: system(), pipes and print > file. The program is the first
// operand after the options (-v NAME=VALUE and -F SEP take a value), or
// the text of -e/--source.
func (c *checker) awk(args []word, pl *plan) {
	var progs []word
	i, before := 0, 0
	for ; i < len(args); i++ {
		t := args[i].text
		if t == "--" {
			i++
			break
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		for _, o := range []string{"-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"} {
			if t == o || strings.HasPrefix(t, o+"=") || (len(o) == 2 && strings.HasPrefix(t, o) && !strings.HasPrefix(t, "--")) {
				pl.ask(t, "awk program read from a file is not checked")
				return
			}
		}
		if v, ok := optValue(args, i, "-e", "--source"); ok {
			progs = append(progs, v)
			if t == "-e" || t == "--source" {
				i++
				before++
			}
			continue
		}
		if t == "-v" || t == "-F" || t == "--assign" || t == "--field-separator" {
			i++
			before++
		}
	}
	if len(progs) == 0 {
		if i >= len(args) {
			return
		}
		progs = append(progs, args[i])
		before++
	}
	pl.patterns = before
	for _, prog := range progs {
		if !prog.static {
			pl.ask(prog.text, "awk program is not a literal")
			continue
		}
		if awkRuns.get().MatchString(prog.text) {
			pl.ask(prog.text, "awk program runs shell commands")
			c.quotedCommands(prog.text, "awk", pl)
		}
		if awkWrites.get().MatchString(prog.text) {
			pl.ask(prog.text, "awk program writes files")
		}
	}
}

var runsCode = &pattern{expr: `system|exec|popen|spawn|subprocess|child_process|shell_exec|passthru|` + "`" + `|os\.|Process|Runtime|run\(|\bqx|%x|open\s*\(|Open3|pipe|IO\.`}

// interpreter: inline code is ask; string literals in code that runs
// commands are checked so that a visible denied program is denied.
func (c *checker) interpreter(base string, args []word, in stdin, pl *plan) {
	pl.noArgCheck = true
	for i, a := range args {
		for _, o := range []string{"-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-n"} {
			if base == "python" || base == "python2" || base == "python3" {
				if o != "-c" {
					continue
				}
			} else if o == "-c" {
				continue
			}
			if a.text != o && !strings.HasPrefix(a.text, o+"=") {
				continue
			}
			v, ok := optValue(args, i, o)
			if !ok {
				continue
			}
			pl.ask(a.text, base+" "+o+" runs inline code")
			if v.static && runsCode.get().MatchString(v.text) {
				c.quotedCommands(v.text, base, pl)
				c.codeWords(v.text, base, pl)
			}
		}
	}
	if len(args) > 0 && !strings.HasPrefix(args[0].text, "-") {
		pl.ask(args[0].text, base+" runs a program file whose contents are not checked")
	}
	if len(args) == 0 || (len(args) == 1 && args[0].text == "-") {
		pl.ask(base, base+" reads a program from input")
		// The program is a here-document or literal text piped in
		// (python3 <<EOF, echo 'exec sudo id' | tclsh): a denied command
		// visible in it is denied.
		code, known := in.script, in.set && in.known && !in.file
		if !known && !in.set && c.piped && c.pipeKnown {
			code, known = c.pipeText, true
		}
		if known && runsCode.get().MatchString(code) {
			c.quotedCommands(code, base, pl)
			c.codeWords(code, base, pl)
		}
	}
}

// codeWords checks the words of code as commands, keeping only denials:
// `system q(rm -rf x)`, backquotes, `exec "sudo","id"` or
// subprocess.run(["sudo","id"]) (a list of arguments) name a denied
// program without any one string literal holding the command. Each word
// starts a command of at most eight words.
func (c *checker) codeWords(code, via string, pl *plan) {
	f := strings.FieldsFunc(code, func(r rune) bool {
		return strings.ContainsRune(" \t\r\n\"'`(){}[],;|&<>$@%\\", r)
	})
	for k := 0; k < len(f) && k < 128; k++ {
		t := strings.Join(f[k:min(len(f), k+8)], " ")
		pl.inner = append(pl.inner, func() { c.quiet(t, via) })
	}
}

// quotedCommands checks each string literal in code as a shell command, so
// that `system("rm -rf x")` is seen.
func (c *checker) quotedCommands(code, via string, pl *plan) {
	for _, m := range quotedText.get().FindAllStringSubmatch(code, 16) {
		s := m[1]
		if s == "" {
			s = m[2]
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		w := word{text: s, static: true}
		pl.inner = append(pl.inner, func() { c.quiet(w.text, via) })
	}
}

// quiet checks a guessed command (a string literal in code): it contributes
// only denials, since most literals are not commands.
func (c *checker) quiet(s, via string) {
	var d Decision
	sub := newChecker(c.e, &d, c.cwd)
	sub.script(s, c.depth+1, via)
	sub.resolveArith()
	for _, p := range d.Parts {
		if p.Verdict == Deny {
			p.Reason = via + " code contains a denied command: " + p.Reason
			c.d.add(p)
		}
	}
}

// dangerousVar returns why setting an environment variable changes what an
// otherwise allowed command does, or "".
func dangerousVar(name string) string {
	u := strings.ToUpper(name)
	switch {
	case strings.HasPrefix(u, "LD_"), strings.HasPrefix(u, "DYLD_"):
		return "loads code into every program"
	case u == "PATH", u == "CDPATH":
		return "changes which program a name runs"
	case u == "BASH_ENV", u == "ENV", u == "SHELLOPTS", u == "BASHOPTS", u == "PS4", u == "PROMPT_COMMAND",
		u == "IFS", u == "GLOBIGNORE", u == "ZDOTDIR", u == "INPUTRC", strings.HasPrefix(u, "BASH_FUNC_"):
		return "changes how the shell runs commands"
	case strings.HasPrefix(u, "GIT_"):
		return "git reads commands and paths from its environment"
	case strings.HasPrefix(u, "GO") && u != "GOOS" && u != "GOARCH" && u != "GODEBUG" && u != "GOMAXPROCS" && u != "GOGC" && u != "GOMEMLIMIT" && u != "GOTRACEBACK" && u != "GOCACHE" && u != "GOTMPDIR" && u != "GOAMD64" && u != "GOARM":
		return "changes what the go command fetches or runs"
	case strings.HasPrefix(u, "CGO_"), u == "CC", u == "CXX", u == "AR":
		return "changes which compiler runs"
	case strings.HasSuffix(u, "PAGER"), u == "EDITOR", u == "VISUAL", u == "FCEDIT", u == "BROWSER",
		strings.HasPrefix(u, "LESS"), u == "MANOPT", strings.HasSuffix(u, "ASKPASS"):
		return "holds a command other programs run"
	case strings.HasPrefix(u, "PYTHON"), strings.HasPrefix(u, "PERL"), strings.HasPrefix(u, "RUBY"),
		strings.HasPrefix(u, "NODE_"), u == "JAVA_TOOL_OPTIONS", u == "_JAVA_OPTIONS", u == "JDK_JAVA_OPTIONS":
		return "loads code into an interpreter"
	case u == "MAKEFILES", u == "MFLAGS", u == "GNUMAKEFLAGS", u == "MAKESHELL", u == "SHELL":
		return "makes make (or other programs) read other makefiles or run another shell"
	case strings.HasPrefix(u, "NPM_CONFIG_"), u == "MAKEFLAGS", u == "RIPGREP_CONFIG_PATH", u == "GREP_OPTIONS",
		u == "TAR_OPTIONS", u == "HOME", strings.HasPrefix(u, "XDG_"), strings.HasPrefix(u, "SSH_"):
		return "makes programs read another configuration"
	case strings.HasSuffix(u, "_PROXY"), u == "ALL_PROXY", u == "NO_PROXY":
		return "routes network traffic elsewhere"
	}
	return ""
}

// commandVar reports variables whose value is a shell command.
func commandVar(name string) bool {
	u := strings.ToUpper(name)
	switch {
	case strings.HasSuffix(u, "PAGER"), u == "EDITOR", u == "VISUAL", u == "GIT_EDITOR", u == "GIT_SEQUENCE_EDITOR",
		u == "GIT_EXTERNAL_DIFF", u == "GIT_SSH_COMMAND", u == "GIT_SSH", u == "GIT_PROXY_COMMAND",
		strings.HasSuffix(u, "ASKPASS"), u == "LESSOPEN", u == "LESSCLOSE", u == "BROWSER", u == "PROMPT_COMMAND",
		u == "FCEDIT", strings.HasPrefix(u, "GIT_CONFIG_VALUE_"):
		return true
	}
	return false
}
