package permission

import (
	"strings"
)

// cd tracks the working directory: into the workspace is transparent, out
// of it is ask.
func (c *checker) cd(base string, args []word, pl *plan) {
	pl.transparent, pl.noArgCheck = true, true
	ops := operands(args)
	if base == "popd" || len(ops) == 0 || ops[0].text == "-" {
		c.cwd = ""
		pl.ask(base, base+" leaves for a directory that is not known here")
		return
	}
	t := ops[0]
	if !t.static || t.glob {
		c.cwd = ""
		pl.ask(t.text, "cd to a directory that is not a literal")
		return
	}
	abs, ok := c.abs(t.text)
	if !ok {
		c.cwd = ""
		pl.ask(t.text, "cd to a directory that cannot be resolved")
		return
	}
	c.cwd = abs
	if !within(c.e.ws, abs) && !within(c.e.real(), abs) {
		pl.ask(t.text, "cd out of the workspace: "+t.text)
	} else if _, why := c.e.resolve(abs); strings.Contains(why, "outside") {
		// A symlinked directory a repository plants: what runs there
		// reads and lists outside (cd linkdir; ls).
		pl.deny(t.text, "cd into "+t.text+", which "+why)
	}
}

// shell checks sh/bash: a literal -c script is parsed and checked, a
// here-document or here-string is the script, anything else (a script file,
// data piped in) cannot be seen.
func (c *checker) shell(base string, args []word, in stdin, pl *plan) {
	pl.noArgCheck = true
	ended := false // -- or - ended the options; args are the operands
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.proc != nil {
			// bash <(echo sudo id): the script is what the
			// substitution writes.
			pl.ask(a.text, base+" runs a script from a process substitution")
			c.scriptFile(base, a, pl)
			return
		}
		if !a.static {
			pl.ask(a.text, base+" option is not a literal")
			return
		}
		t := a.text
		if t == "--" || t == "-" {
			args, ended = args[i+1:], true
			break
		}
		if t == "-o" || t == "+o" || t == "-O" || t == "+O" || t == "--rcfile" || t == "--init-file" {
			i++
			if t == "--rcfile" || t == "--init-file" {
				pl.ask(t, base+" "+t+" runs another file first")
			}
			continue
		}
		if strings.HasPrefix(t, "--") {
			continue
		}
		if (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1 {
			if strings.Contains(t[1:], "c") && t[0] == '-' {
				if i+1 >= len(args) {
					pl.ask(t, base+" -c without a script")
					return
				}
				w := args[i+1]
				if w.static && w.text == "--" && i+2 < len(args) {
					w = args[i+2] // bash -c -- 'cmd': -- ends the options
				}
				pl.transparent = true
				pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" -c") })
				return
			}
			if strings.Contains(t[1:], "s") {
				goto stdinScript // the operands after -s are positional parameters
			}
			continue
		}
		if stdinPath(t) {
			goto stdinScript // bash /dev/stdin <<EOF reads the here-document
		}
		// A script file: its contents are not checked, unless this
		// command line wrote them.
		pl.ask(joinWords(args[i:]), base+" runs a script file whose contents are not checked")
		c.scriptFile(base, a, pl)
		return
	}
	// Only options (bash -e, bash -i --norc) leave no script operand:
	// the shell reads its commands from stdin.
	if ended && len(args) > 0 && args[0].text != "" && !(args[0].static && stdinPath(args[0].text)) {
		pl.ask(joinWords(args), base+" runs a script file whose contents are not checked")
		return
	}
stdinScript:
	switch {
	case in.set && in.known && !in.file:
		pl.transparent = true
		s := in.script
		pl.inner = append(pl.inner, func() { c.nestedScript(word{text: s, static: true}, base+" here-document") })
	case c.piped:
		if c.pipeDownload {
			pl.deny(base, base+" runs what a download command fetched")
			return
		}
		pl.ask(base, base+" runs commands piped in from another command")
		if c.pipeKnown {
			// The text is literal: what it runs is checked too, so a
			// denied command in it is denied.
			s := c.pipeText
			pl.inner = append(pl.inner, func() { c.nestedScript(word{text: s, static: true}, base+" from a pipe") })
		}
	default:
		pl.ask(base, base+" reads commands from input that is not checked")
	}
}

// wrapper unwraps programs that run their arguments as a command.
func (c *checker) wrapper(base string, args []word, in stdin, pl *plan) {
	pl.transparent, pl.noArgCheck = true, true
	var inner []word
	switch base {
	case "command":
		// command [-pVv] [--] NAME ...: -p may be bundled with -v (-pv),
		// and -- ends the options (command -- sudo id runs sudo).
		for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && len(args[0].text) > 1 {
			t := args[0].text
			if t == "--" {
				args = args[1:]
				break
			}
			if strings.ContainsAny(t, "vV") {
				pl.transparent = false
				return
			}
			args = args[1:]
		}
		inner = args
	case "builtin", "nohup":
		inner = args
		if len(inner) > 0 && inner[0].text == "--" {
			inner = inner[1:] // nohup -- CMD runs CMD
		}
	case "unbuffer":
		inner = skipOptions(args, "", nil) // unbuffer -p CMD: -p is a flag
	case "exec":
		inner = skipOptions(args, "a", nil)
	case "nice":
		inner = skipOptions(args, "n", []string{"--adjustment"})
		if len(inner) > 0 && strings.HasPrefix(inner[0].text, "-") {
			inner = inner[1:]
		}
	case "timeout":
		inner = skipOptions(args, "sk", []string{"--signal", "--kill-after"})
		if len(inner) > 0 {
			inner = inner[1:] // the duration
		}
	case "time":
		// GNU time (the program, not bash's keyword): -o FILE, -oFILE
		// and --output=FILE write its report into FILE.
		for i := 0; i < len(args) && strings.HasPrefix(args[i].text, "-") && args[i].text != "--"; i++ {
			if v, ok := optValue(args, i, "-o", "--output"); ok {
				c.writeWord(v, pl)
			}
		}
		inner = skipOptions(args, "fo", []string{"--format", "--output"})
	case "stdbuf":
		inner = skipOptions(args, "ioe", []string{"--input", "--output", "--error"})
	case "setsid":
		inner = skipOptions(args, "", nil)
	case "ionice":
		inner = skipOptions(args, "cnp", []string{"--class", "--classdata", "--pid"})
	case "busybox", "toybox":
		inner = args
	case "flock":
		inner = skipOptions(args, "wE", []string{"--timeout", "--conflict-exit-code"})
		if len(inner) > 0 {
			// The lock file, created when missing: not a protected
			// path (flock .envrc ls creates .envrc).
			if lock := inner[0]; lock.static {
				if abs, ok := c.abs(lock.text); ok && within(c.e.ws, abs) {
					if bad, _ := protectedForShell(c.e.rel(abs)); bad {
						c.writeWord(lock, pl)
					}
				}
			}
			inner = inner[1:]
		}
		if len(inner) > 0 && (inner[0].text == "-c" || len(inner[0].text) > 3 && strings.HasPrefix("--command", inner[0].text)) && len(inner) > 1 {
			w := inner[1]
			pl.inner = append(pl.inner, func() { c.nestedScript(w, "flock -c") })
			return
		}
	case "watch":
		// -d takes its value (permanent) only attached: watch -d -n 1
		// CMD runs CMD. -q (--equexit) takes one.
		inner = skipOptions(args, "nq", []string{"--interval", "--equexit"})
		if len(inner) > 0 {
			w := concatWords(inner)
			pl.inner = append(pl.inner, func() { c.nestedScript(w, "watch") })
			return
		}
	case "chroot":
		pl.transparent = false
		pl.ask("chroot", "chroot changes the root directory")
		inner = skipOptions(args, "", []string{"--userspec", "--groups"})
		if len(inner) > 0 {
			inner = inner[1:]
		}
	case "strace", "ltrace":
		// -o FILE (also -oFILE, --output=FILE) writes the trace.
		for i := 0; i < len(args) && strings.HasPrefix(args[i].text, "-") && args[i].text != "--"; i++ {
			if v, ok := optValue(args, i, "-o", "--output"); ok {
				c.writeWord(v, pl)
			}
		}
		inner = skipOptions(args, "eoOpPsuUaSEIbXAn", []string{"--output", "--trace", "--signal", "--attach", "--user", "--string-limit"})
	}
	if len(inner) == 0 {
		if base == "exec" {
			return // exec with only redirections
		}
		pl.transparent = false
		return
	}
	pl.inner = append(pl.inner, func() { c.nested(inner, in) })
}

// privileged checks sudo and friends: their own rules apply, and so do the
// rules of what they run.
func (c *checker) privileged(base string, args []word, in stdin, pl *plan) {
	pl.noArgCheck = true
	var inner []word
	switch base {
	case "su", "runuser":
		user := false
		for i, a := range args {
			if v, ok := optValue(args, i, "-c", "--command"); ok {
				pl.inner = append(pl.inner, func() { c.nestedScript(v, base+" -c") })
			}
			user = user || a.text == "-u" || strings.HasPrefix(a.text, "--user")
		}
		if base == "runuser" && user {
			inner = skipOptions(args, "ugGcsw", []string{"--user", "--group", "--supp-group", "--command", "--shell", "--whitelist-environment"})
			break
		}
		pl.ask(base, base+" runs a command with other privileges")
		return
	case "sudo":
		inner = skipOptions(args, "ugpCDrthUT", []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--role", "--type", "--host", "--other-user", "--command-timeout"})
	case "doas":
		inner = skipOptions(args, "uC", nil)
	default:
		inner = skipOptions(args, "u", []string{"--user"})
	}
	pl.ask(base, base+" runs a command with other privileges")
	if len(inner) > 0 {
		pl.inner = append(pl.inner, func() { c.nested(inner, in) })
	}
}

// env checks env's assignments like prefix assignments and its command like
// any other.
func (c *checker) env(args []word, in stdin, pl *plan) {
	pl.transparent, pl.noArgCheck = true, true
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if !args[i].static {
			pl.ask(t, "env argument is not a literal")
			return
		}
		if name, val, eq := strings.Cut(t, "="); strings.HasPrefix(name, "--") && len(name) > 2 {
			// getopt_long takes unique prefixes: env --sp 'CMD' is
			// --split-string, env --ch DIR is --chdir.
			for _, full := range []string{"--split-string", "--chdir", "--unset", "--argv0"} {
				if strings.HasPrefix(full, name) {
					t = full
					if eq {
						t += "=" + val
					}
					args = append(append(append([]word(nil), args[:i]...), word{text: t, static: true}), args[i+1:]...)
					break
				}
			}
		}
		switch {
		case t == "--":
			i++
			goto done
		case t == "-S" || t == "--split-string" || strings.HasPrefix(t, "--split-string="):
			v, _ := optValue(args, i, "-S", "--split-string")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "env -S") })
			return
		case len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.Contains(t, "S") && strings.Trim(t[1:strings.Index(t, "S")], "iv0") == "":
			// Bundled or attached: env -S'cmd', env -iS 'cmd', env -vS
			// 'cmd' split the string into the command.
			k := strings.Index(t, "S")
			v := word{text: t[k+1:], static: args[i].static}
			if v.text == "" && i+1 < len(args) {
				v = args[i+1]
			}
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "env -S") })
			return
		case t == "-u" || t == "--unset" || t == "-C" || t == "--chdir" || t == "-a" || t == "--argv0":
			// env -a NAME CMD (--argv0) runs CMD under another name.
			if t == "-C" || t == "--chdir" {
				pl.ask(t, "env changes directory")
			}
			i++
		case strings.HasPrefix(t, "-"):
		case strings.Contains(t, "="):
			n, v, _ := strings.Cut(t, "=")
			pl.floor = append(pl.floor, c.assign(n, word{text: v, static: true})...)
		default:
			goto done
		}
	}
done:
	if i >= len(args) {
		pl.transparent = false
		pl.ask("env", "env without a command prints the environment (it may hold tokens)")
		return
	}
	inner := args[i:]
	pl.inner = append(pl.inner, func() { c.nested(inner, in) })
}

// find: -exec and friends run commands; -delete and -fprint write.
func (c *checker) find(args []word, pl *plan) {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch t {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			inner := args[i+1 : j]
			pl.ask(t, "find "+t+" runs a command for every file")
			if len(inner) > 0 {
				pl.inner = append(pl.inner, func() { c.nested(inner, stdin{}) })
			}
			i = j
		case "-delete":
			pl.ask(t, "find -delete deletes files")
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			pl.ask(t, "find "+t+" writes a file")
			if i+1 < len(args) {
				c.writeWord(args[i+1], pl)
			}
		}
	}
}
