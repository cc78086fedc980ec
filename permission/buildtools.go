package permission

import (
	"strings"
)

// Build tools run code from their makefiles and package scripts; an allow
// rule `make*` or `npm test*` accepts that. What it does not accept is a
// flag that swaps the program or the makefile, or points output elsewhere:
// each such flag is checked as the command or path it introduces.

// makeTool checks make's command line: variables that name programs or
// carry $(shell ...), --eval text, makefiles read from input or from
// outside the workspace.
func (c *checker) makeTool(args []word, in stdin, pl *plan) {
	args = makeArgs(args)
	ended := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.static {
			continue // argChecks asks
		}
		if t == "--" && !ended {
			// -- ends the options only: GNU make still reads every
			// NAME=VALUE after it as a variable (make -- SHELL=x).
			ended = true
			continue
		}
		if ended {
			goto variable
		}
		if v, ok := optValue(args, i, "-f", "--file", "--makefile"); ok {
			if v.text == "-" || stdinPath(v.text) {
				if in.set && in.known && !in.file {
					c.makefileText(in.script, "make -f -", pl)
				} else if !in.set && c.piped && c.pipeKnown {
					// echo 'all:;sudo id' | make -f -: literal text piped in.
					pl.ask(t, "make -f - reads a makefile from input")
					c.makefileText(c.pipeText, "make -f -", pl)
				} else {
					pl.ask(t, "make -f - reads a makefile from input that is not checked")
				}
			} else if v.static {
				if r, why := c.readPath(v.text); r >= Ask {
					pl.ask(v.text, "make runs the recipes of a makefile that "+strings.TrimPrefix(why, "reads "))
				}
			}
			continue
		}
		if v, ok := optValue(args, i, "-E", "--eval"); ok {
			pl.ask(t, "make --eval runs makefile text given on the command line")
			if v.static {
				c.makefileText(v.text, "make --eval", pl)
			}
			continue
		}
		if strings.HasPrefix(t, "-") {
			continue
		}
	variable:
		name, val, ok := strings.Cut(t, "=")
		if !ok || name == "" {
			continue
		}
		if c.makeShellAssign(name, val, "make", pl) {
			continue
		}
		name = strings.TrimRight(name, ":+?!")
		c.makeVar(name, val, pl)
	}
}

// makeArgs spells make's options the way makeTool reads them. GNU make
// takes any unambiguous prefix of a long option (--ev=TEXT is --eval=TEXT,
// --fi and --mak are --file and --makefile) and bundles short options
// (-sf - is -s -f -, -kE'TEXT' is -k -ETEXT). A prefix that more than one
// option shares is an error in make; reading it as the option that runs
// code is the stricter choice.
func makeArgs(args []word) []word {
	out := make([]word, 0, len(args))
	for i, a := range args {
		t := a.text
		if t == "--" && a.static {
			return append(out, args[i:]...)
		}
		if !a.static {
			out = append(out, a)
			continue
		}
		if strings.HasPrefix(t, "--") {
			name, val, eq := strings.Cut(t[2:], "=")
			for _, full := range []string{"eval", "file", "makefile"} {
				if name != "" && name != full && strings.HasPrefix(full, name) {
					t = "--" + full
					if eq {
						t += "=" + val
					}
					break
				}
			}
			out = append(out, word{text: t, static: true})
			continue
		}
		if len(t) > 2 && t[0] == '-' {
			// Short options taking a value (C f I o W E) end the bundle
			// with it; j, l and O take theirs only attached.
			k := 1
			for ; k < len(t) && !strings.ContainsRune("CfIoWEjlO", rune(t[k])); k++ {
				out = append(out, word{text: "-" + t[k:k+1], static: true})
			}
			if k < len(t) {
				out = append(out, word{text: "-" + t[k:], static: true})
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// makeShellAssign checks NAME != COMMAND (on the command line as
// 'x!=cmd', or in makefile text): make runs COMMAND with the shell while it
// reads the assignment. It reports whether name..=val was one.
func (c *checker) makeShellAssign(name, val, via string, pl *plan) bool {
	n := strings.TrimSpace(name)
	if !strings.HasSuffix(n, "!") || strings.TrimSpace(strings.TrimSuffix(n, "!")) == "" {
		return false
	}
	pl.ask(name+"="+val, via+": "+n+"= runs a shell command while make reads it")
	c.makeShellCalls(val, pl)
	w := word{text: strings.ReplaceAll(strings.TrimSpace(val), "$$", "$"), static: true}
	pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+n+"=") })
	return true
}

// makeVar checks a make variable set on the command line or in a makefile.
func (c *checker) makeVar(name, val string, pl *plan) {
	switch strings.ToUpper(name) {
	case "SHELL", "MAKESHELL", ".SHELLFLAGS":
		pl.ask(name+"="+val, "make runs every recipe with "+name+"="+val)
		if name != ".SHELLFLAGS" {
			w := word{text: val, static: true}
			pl.inner = append(pl.inner, func() { c.nestedProgram(w, "make "+name) })
			return
		}
		// make runs SHELL .SHELLFLAGS RECIPE, the flags split like a
		// command line: .SHELLFLAGS='-c sudo\ id;:' runs sudo id.
		ws, ok := splitCmdline(val)
		for k := 0; ok && k+1 < len(ws); k++ {
			if strings.HasPrefix(ws[k], "-") && strings.Contains(ws[k], "c") {
				w := word{text: ws[k+1], static: true}
				pl.inner = append(pl.inner, func() { c.nestedScript(w, "make .SHELLFLAGS -c") })
				break
			}
		}
		return
	case "MAKEFILES", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", ".DEFAULT_GOAL", "MAKE", "MAKEOVERRIDES":
		pl.ask(name+"="+val, "make reads other makefiles or options from "+name)
		if strings.ToUpper(name) == "MAKE" && val != "" {
			// Recipes run $(MAKE) for sub-makes: the program it names.
			w := word{text: val, static: true}
			pl.inner = append(pl.inner, func() { c.nestedProgram(w, "make MAKE") })
		}
		// make expands the value ($(shell ...) runs) and reads its
		// options (--eval text is makefile text).
		c.makeShellCalls(val, pl)
		for _, o := range []string{"--eval=", "--eval ", "-E"} {
			if k := strings.Index(val, o); k >= 0 {
				c.makefileText(strings.TrimLeft(val[k+len(o):], " "), "make "+name, pl)
			}
		}
		return
	}
	if programVar(name) && val != "" {
		pl.ask(name+"="+val, "make variable "+name+" names the program recipes run")
		w := word{text: val, static: true}
		pl.inner = append(pl.inner, func() { c.nestedProgram(w, "make "+name) })
		return
	}
	if strings.ContainsAny(val, "$`;|&<>()\n") {
		pl.ask(name+"="+val, "make variable "+name+" may put commands into recipes")
		c.makeShellCalls(val, pl)
	}
}

// programVar reports make's conventional variables that name programs.
func programVar(name string) bool {
	switch strings.ToUpper(name) {
	case "CC", "CXX", "CPP", "LD", "AR", "AS", "FC", "RM", "INSTALL", "GO", "NPM", "NODE", "PYTHON", "PERL",
		"YACC", "LEX", "MAKEINFO", "TEX", "CARGO", "DOCKER", "GIT", "SED", "AWK", "CP", "MV", "MKDIR", "LN",
		"STRIP", "OBJCOPY", "RANLIB", "NM", "PKG_CONFIG", "GOFMT", "TAR", "ZIP", "CURL", "WGET", "SH", "BASH":
		return true
	}
	return false
}

// makefileText checks makefile text: recipe lines (after a tab, or after
// `;` on a rule line), $(shell ...) calls, SHELL assignments and includes.
func (c *checker) makefileText(text, via string, pl *plan) {
	text = strings.ReplaceAll(text, "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "\t") {
			c.makeRecipe(line[1:], via, pl)
			continue
		}
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		c.makeShellCalls(trim, pl)
		if f := strings.Fields(trim); len(f) > 1 && (f[0] == "include" || f[0] == "-include" || f[0] == "sinclude") {
			for _, p := range f[1:] {
				if v, why := c.readPath(p); v >= Ask {
					pl.ask(p, via+" includes a makefile that "+strings.TrimPrefix(why, "reads "))
				}
			}
			continue
		}
		if n, v, ok := strings.Cut(trim, "="); ok && c.makeShellAssign(n, v, via, pl) {
			continue
		}
		if n, v, ok := strings.Cut(trim, "="); ok && (!strings.Contains(n, ":") || strings.HasSuffix(n, ":")) {
			c.makeVar(strings.TrimSpace(strings.TrimRight(n, ":+?!")), strings.TrimSpace(v), pl)
			continue
		}
		if rule, recipe, ok := strings.Cut(trim, ";"); ok && strings.Contains(rule, ":") {
			c.makeRecipe(recipe, via, pl)
		}
	}
}

// makeRecipe checks one recipe line as the shell command make runs: the
// @, - and + prefixes dropped and $$ turned into $. Make's own $(VAR)
// references stay, so the shell parser sees them as commands it cannot
// know, which is what they are here.
func (c *checker) makeRecipe(line, via string, pl *plan) {
	line = strings.TrimLeft(strings.TrimSpace(line), "@-+")
	if strings.TrimSpace(line) == "" {
		return
	}
	c.makeShellCalls(line, pl)
	w := word{text: strings.ReplaceAll(line, "$$", "$"), static: true}
	pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" recipe") })
}

// makeShellCalls checks the commands of $(shell ...) and ${shell ...} in
// make text.
func (c *checker) makeShellCalls(s string, pl *plan) {
	for _, open := range []string{"$(shell ", "${shell "} {
		rest := s
		for {
			k := strings.Index(rest, open)
			if k < 0 {
				break
			}
			rest = rest[k+len(open):]
			end := matchingClose(rest, open[1])
			w := word{text: rest[:end], static: true}
			pl.ask(open+"…", "make runs a shell command while reading the makefile")
			pl.inner = append(pl.inner, func() { c.nestedScript(w, "make $(shell)") })
			rest = rest[end:]
		}
	}
}

// matchingClose returns the index of the bracket closing an opening one
// just before s, or len(s).
func matchingClose(s string, open byte) int {
	closer := byte(')')
	if open == '{' {
		closer = '}'
	}
	depth := 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// npmTool checks npm, pnpm and yarn options that change the shell scripts
// run with, load code, or read another configuration.
func (c *checker) npmTool(base string, args []word, pl *plan) {
	args = npmArgs(args)
	for i, a := range args {
		t := a.text
		if t == "--" {
			return // the rest goes to the script
		}
		if v, ok := optValue(args, i, "--script-shell", "--shell"); ok {
			pl.ask(t, base+" "+t+" runs scripts with another program")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, base+" --script-shell") })
		}
		if v, ok := optValue(args, i, "--editor", "--browser", "--viewer", "--git"); ok {
			pl.ask(t, base+" "+t+" names a program it runs")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, base+" "+t) })
		}
		if v, ok := optValue(args, i, "-c", "--call"); ok && (t == "-c" || strings.HasPrefix(t, "--call")) {
			pl.ask(t, base+" --call runs a shell command")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, base+" --call") })
		}
		for _, o := range []string{"--node-options", "--userconfig", "--globalconfig", "--onload-script", "--init-module", "--prefix", "--cache", "--registry", "--workspaces-update"} {
			if t == o || strings.HasPrefix(t, o+"=") {
				pl.ask(t, base+" "+o+" loads code or another configuration")
			}
		}
	}
}

// npmKeys are the npm configuration keys npmTool checks. npm (nopt) also
// takes a unique prefix of a key: --script-sh=./x is --script-shell=./x,
// --node-opt is --node-options.
var npmKeys = []string{"script-shell", "shell", "editor", "browser", "viewer", "git", "call", "node-options",
	"userconfig", "globalconfig", "onload-script", "init-module", "prefix", "cache", "registry", "workspaces-update"}

// npmArgs spells abbreviated long options as the npmKeys they stand for. A
// prefix shared with another key is an error or another key in npm; reading
// it as the checked key is the stricter choice. Keys of their own that are
// prefixes (--global of --globalconfig, --workspace) stay as they are.
func npmArgs(args []word) []word {
	out := append([]word(nil), args...)
	for i, a := range out {
		if a.text == "--" {
			break
		}
		if !strings.HasPrefix(a.text, "--") {
			continue
		}
		name, val, eq := strings.Cut(a.text[2:], "=")
		if len(name) < 3 || name == "global" || name == "workspace" || name == "workspaces" {
			continue
		}
		for _, k := range npmKeys {
			if name != k && strings.HasPrefix(k, name) {
				out[i].text = "--" + k
				if eq {
					out[i].text += "=" + val
				}
				break
			}
		}
	}
	return out
}

// goProfileFlags are go test and go build flags (also as -test.X after
// -args) whose value is a file or directory written.
var goProfileFlags = &set{items: []string{
	"o", "coverprofile", "cpuprofile", "memprofile", "blockprofile",
	"mutexprofile", "trace", "outputdir", "testlogfile", "gocoverdir",
	"fuzzcachedir", "pkgdir", "json.out",
}}

// goWrites checks the written paths of go flags: -coverprofile=PATH,
// -test.cpuprofile PATH after -args, -o PATH.
func (c *checker) goWrites(args []word, pl *plan) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if !strings.HasPrefix(t, "-") {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimLeft(t, "-"), "=")
		name = strings.TrimPrefix(name, "test.")
		switch {
		case goProfileFlags.get()[name]:
			v := word{text: val, static: args[i].static}
			if !eq {
				if i+1 >= len(args) {
					continue
				}
				i++
				v = args[i]
			}
			c.writeWord(v, pl)
		case name == "overlay":
			pl.ask(t, "go -overlay replaces source files with files a JSON file names")
		}
	}
}

// stdinPath reports names of the standard input a program may be given as
// a file (make -f /dev/stdin, bash /dev/stdin, source /dev/fd/0).
func stdinPath(p string) bool {
	switch p {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0":
		return true
	}
	return false
}
