package permission

import (
	"strings"
)

// inspect applies what is known about a program: which arguments it runs as
// commands, which it writes, and which options make it unsafe to allow.
func (c *checker) inspect(base string, argv []word, in stdin, pl *plan) {
	args := argv[1:]
	switch base {
	case "test", "[", "printf", "wait", "read", "mapfile", "readarray", "getopts", "unset", "let":
		c.builtinVars(base, args, pl)
	}
	// What printf -v, read and mapfile store is literal text here (printf's
	// arguments, a here-string): a variable declared -i, or any later
	// arithmetic, evaluates it, so `declare -i x; read x <<< 'a[$(rm -rf
	// y)]'` runs rm. A denied command in a $( ) or `…` of that text is
	// denied (the ask for the unknown value stays).
	var stored []string
	switch base {
	case "printf":
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") && strings.Contains(a.text, "v") {
				for _, b := range args {
					stored = append(stored, b.text)
				}
				break
			}
		}
	case "read", "mapfile", "readarray":
		if in.set && in.known && !in.file {
			stored = append(stored, in.script)
		}
	}
	for _, t := range stored {
		if strings.Contains(t, "$(") || strings.Contains(t, "`") {
			t := t
			pl.inner = append(pl.inner, func() { c.quiet(t, base+" value") })
		}
	}
	switch base {
	case "cd", "pushd", "popd", "chdir":
		c.cd(base, args, pl)
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "rbash":
		c.shell(base, args, in, pl)
	case "eval":
		pl.transparent, pl.noArgCheck = true, true
		w := concatWords(args)
		pl.inner = append(pl.inner, func() { c.nestedScript(w, "eval") })
	case "source", ".":
		pl.noArgCheck = true
		if len(args) > 0 && args[0].static && stdinPath(args[0].text) && in.set && in.known && !in.file {
			// source /dev/stdin <<EOF: the here-document is the script.
			pl.transparent = true
			s := in.script
			pl.inner = append(pl.inner, func() { c.nestedScript(word{text: s, static: true}, base+" here-document") })
		} else {
			pl.ask(joinWords(argv), "runs a script file whose contents are not checked")
			if len(args) > 0 {
				c.scriptFile(base, args[0], pl)
			}
		}
	case "command", "builtin", "exec", "nohup", "nice", "timeout", "time", "stdbuf", "setsid",
		"ionice", "busybox", "toybox", "flock", "watch", "chroot", "strace", "ltrace", "unbuffer":
		c.wrapper(base, args, in, pl)
	case "taskset", "chrt", "prlimit", "unshare", "fakeroot", "ssh-agent", "setpriv", "script", "parallel", "sem",
		"setarch", "linux32", "linux64", "i386", "x86_64", "capsh":
		c.wrapper2(base, args, in, pl)
	case "sudo", "doas", "su", "pkexec", "run0", "runuser":
		c.privileged(base, args, in, pl)
	case "sudoedit":
		// sudoedit is sudo -e: a rule `sudo *` meets it.
		pl.canon = append(pl.canon, "sudo -e "+joinWords(args))
		pl.ask(base, "sudoedit edits files as another user")
	case "zip":
		c.zip(args, pl)
	case "cmake":
		c.cmakeE(args, in, pl)
	case "make", "gmake":
		c.makeTool(args, in, pl)
	case "npm", "pnpm", "yarn":
		c.npmTool(base, args, pl)
	case "env":
		c.env(args, in, pl)
	case "xargs":
		// -i, -l and -e take their optional value only attached, as do
		// --replace, --max-lines and --eof with =.
		inner := skipOptions(args, "IaLnPsdE", []string{"--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-chars", "--process-slot-var"})
		pl.noArgCheck = true
		if len(inner) == 0 {
			inner = []word{{text: "echo", static: true}}
		}
		pl.ask(joinWords(argv), "xargs runs "+inner[0].text+" with arguments read from input")
		// The arguments read stand as a placeholder, so `xargs rm` meets
		// a rule `rm *`.
		inner = append(append([]word{}, inner...), word{text: "{args}", static: true})
		pl.inner = append(pl.inner, func() { c.nested(inner, stdin{}) })
	case "find":
		c.find(args, pl)
	case "git":
		c.git(args, pl)
	case "go":
		c.goTool(args, pl)
	case "grep", "egrep", "fgrep", "rg", "ag":
		for i, a := range args {
			if v, ok := optValue(args, i, "--pre"); ok {
				pl.ask(a.text, "--pre runs a preprocessor for every file")
				pl.inner = append(pl.inner, func() { c.nestedProgram(v, "--pre") })
			}
		}
	case "man":
		for i, a := range args {
			for _, o := range []string{"-P", "--pager", "--html", "-H", "--browser"} {
				if v, ok := optValue(args, i, o); ok {
					pl.ask(a.text, "man "+o+" runs a program")
					pl.inner = append(pl.inner, func() { c.nestedScript(v, "man "+o) })
				}
			}
		}
	case "sort", "wc", "du":
		for i, a := range args {
			if _, ok := optValue(args, i, "--files0-from"); ok {
				// The file names the files read: any path at all.
				pl.ask(a.text, base+" --files0-from reads the files a list names, which are not known here")
			}
		}
	}
	switch base {
	case "sort":
		args = longPrefixes(args, "--compress-program", "--output")
		for i, a := range args {
			if v, ok := optValue(args, i, "--compress-program"); ok {
				pl.ask(a.text, "sort --compress-program runs a program")
				pl.inner = append(pl.inner, func() { c.nestedProgram(v, "--compress-program") })
			}
			if v, ok := optValue(args, i, "-o", "--output"); ok {
				c.writeWord(v, pl)
			}
		}
	case "rake":
		// rake -e CODE (-p, -E and the long forms) runs Ruby code.
		for i, a := range args {
			if v, ok := optValue(args, i, "-e", "-p", "-E", "--execute", "--execute-print", "--execute-continue"); ok {
				pl.ask(a.text, "rake "+a.text+" runs Ruby code")
				if v.static {
					c.quotedCommands(v.text, "rake", pl)
					c.codeWords(v.text, "rake", pl)
				}
			}
		}
	case "unzip":
		// unzip -d DIR extracts into DIR: a protected directory
		// (.git/hooks) is a protected write.
		for i := range args {
			if v, ok := optValue(args, i, "-d"); ok {
				c.writeWord(v, pl)
			}
		}
	case "tar", "bsdtar", "gtar":
		for i, a := range args {
			for _, o := range []string{"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "-F", "--new-volume-script", "--rsh-command"} {
				if v, ok := optValue(args, i, o); ok {
					v.text = strings.TrimPrefix(v.text, "exec=")
					pl.ask(a.text, "tar "+o+" runs a program")
					pl.inner = append(pl.inner, func() { c.nestedScript(v, "tar "+o) })
				}
			}
		}
	case "printf":
		for i := range args {
			if v, ok := optValue(args, i, "-v"); ok && args[i].text == "-v" {
				if why := dangerousVar(v.text); why != "" {
					pl.ask(v.text, "printf -v sets "+v.text+": "+why)
				}
			}
		}
	case "tree":
		for i := range args {
			if v, ok := optValue(args, i, "-o"); ok && args[i].text == "-o" {
				c.writeWord(v, pl)
			}
		}
	case "uniq":
		if ops := operands(args); len(ops) > 1 {
			c.writeWord(ops[len(ops)-1], pl)
		}
	case "tee":
		for _, a := range args {
			if !strings.HasPrefix(a.text, "-") {
				c.writeWord(a, pl)
				c.teeWrite(a, in)
			}
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		if ops := operands(args); len(ops) > 0 {
			c.writeWord(ops[len(ops)-1], pl)
		}
	case "touch", "mkdir", "truncate", "rm", "rmdir", "unlink", "shred", "chmod", "chown":
		for _, a := range operands(args) {
			c.writeWord(a, pl)
		}
	case "dd":
		for _, a := range args {
			if strings.HasPrefix(a.text, "of=") {
				c.writeWord(word{text: a.text[3:], static: a.static}, pl)
			}
		}
	case "curl", "wget":
		for i := range args {
			if v, ok := optValue(args, i, "-o", "--output", "-O", "--output-document"); ok && v.text != "" {
				c.writeWord(v, pl)
			}
		}
	case "sed", "gsed":
		c.sed(args, pl)
	case "awk", "gawk", "mawk", "nawk":
		c.awk(args, pl)
	case "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "Rscript", "tclsh", "osascript", "wish", "expect":
		c.interpreter(base, args, in, pl)
	case "alias":
		for _, a := range args {
			if _, v, ok := strings.Cut(a.text, "="); ok {
				w := word{text: v, static: a.static}
				pl.ask(a.text, "alias changes what a later command runs")
				pl.inner = append(pl.inner, func() { c.nestedScript(w, "alias") })
				// The alias runs with the arguments of every later use:
				// alias ls=sudo; ls id runs sudo id.
				if w.static {
					t := w.text + " {args}"
					pl.inner = append(pl.inner, func() { c.quiet(t, "alias") })
				}
			}
		}
		pl.noArgCheck = true
	case "at", "batch", "crontab":
		c.scheduled(base, in, pl)
	case "trap":
		c.trap(args, pl)
	case "hash":
		// hash -p PATH NAME: NAME runs PATH from now on, with the
		// arguments of every later use (hash -p /usr/bin/sudo ls; ls id).
		for i, a := range args {
			if v, ok := optValue(args, i, "-p"); ok && strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") {
				pl.ask(a.text, "hash -p changes which program a name runs")
				pl.inner = append(pl.inner, func() { c.nestedProgram(v, "hash -p") })
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		// Reached only when written unusually (e.g. via command); the
		// parser's DeclClause handles the normal case.
		integer := false
		for _, a := range args {
			if strings.HasPrefix(a.text, "-") {
				integer = integer || strings.Contains(a.text, "i")
				continue
			}
			n, v, ok := strings.Cut(a.text, "=")
			c.arithArg(word{text: n, static: a.static}, true, pl)
			if ok {
				pl.floor = append(pl.floor, c.assign(n, word{text: v, static: a.static})...)
				if integer {
					c.arithArg(word{text: v, static: a.static}, false, pl)
				}
			}
		}
		pl.noArgCheck = true
	case "ssh", "sftp":
		c.sshOptions(base, args, pl)
	}
	if base == "scp" {
		c.sshOptions(base, args, pl)
	}
	if base == "rsync" {
		c.rsync(args, pl)
	}
	c.runner(base, argv, pl)
	c.followChecks(base, args, pl)
}

// sshCommandKeys are ssh options whose value is a command: ProxyCommand,
// LocalCommand and KnownHostsCommand run here, RemoteCommand on the
// other side (like ssh HOST CMD).
var sshCommandKeys = map[string]bool{"proxycommand": true, "localcommand": true, "knownhostscommand": true, "remotecommand": true}

// sshOptions checks ssh, scp and sftp's -o KEY=VALUE (also -oKEY=VALUE and
// "KEY VALUE") for commands, and scp/sftp -S PROGRAM, which runs in place
// of ssh.
func (c *checker) sshOptions(base string, args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "-o"); ok && strings.HasPrefix(a.text, "-o") {
			kv := strings.TrimSpace(v.text)
			k := strings.IndexAny(kv, "= \t")
			if k < 0 {
				continue
			}
			key := strings.ToLower(kv[:k])
			if !sshCommandKeys[key] {
				continue
			}
			w := word{text: strings.TrimLeft(kv[k:], "= \t"), static: v.static}
			pl.ask(a.text, base+" -o "+kv[:k]+" runs a command")
			pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" "+kv[:k]) })
		}
		if v, ok := optValue(args, i, "-S"); ok && base != "ssh" && strings.HasPrefix(a.text, "-S") {
			pl.ask(a.text, base+" -S names the program run instead of ssh")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, base+" -S") })
		}
	}
}

// rsync -e and --rsh name the remote shell, which runs here; --rsync-path
// names what runs on the other side, which is checked like a command ssh
// runs there.
func (c *checker) rsync(args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "--rsync-path"); ok {
			pl.ask(a.text, "rsync --rsync-path runs a command on the other side")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "rsync --rsync-path") })
		}
		if v, ok := optValue(args, i, "-e", "--rsh"); ok {
			pl.ask(a.text, "rsync "+a.text+" runs a program")
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "rsync -e") })
		}
	}
}

// scriptFile checks the script a shell or source reads from a file, when
// the command line shows what the file holds: <(echo sudo id) or a file
// it wrote itself (echo 'sudo id' > x.sh; source x.sh). A script from a
// download is denied, as `curl ... | sh` is.
func (c *checker) scriptFile(base string, f word, pl *plan) {
	text, known := "", false
	switch {
	case f.proc != nil && f.proc.download:
		pl.deny(f.text, base+" runs what a download command fetched")
		return
	case f.proc != nil:
		text, known = f.proc.text, f.proc.known
	case f.static && !f.glob:
		text, known = c.writtenScript(f.text)
	}
	if known {
		w := word{text: text, static: true}
		pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" "+f.text) })
	}
}

// scheduled checks what at, batch and crontab read on standard input when
// it is literal (a here-document, a here-string, echo piped in): the job
// runs later, but it runs. A crontab line is five time fields (or @daily
// and the like) and the command.
func (c *checker) scheduled(base string, in stdin, pl *plan) {
	pl.ask(base, base+" schedules commands to run later")
	text, known := in.script, in.set && in.known && !in.file
	if !known && !in.set && c.piped && c.pipeKnown {
		text, known = c.pipeText, true
	}
	if !known {
		return
	}
	if base == "crontab" {
		var cmds []string
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) == 0 || strings.HasPrefix(f[0], "#"):
			case strings.HasPrefix(f[0], "@") && len(f) > 1:
				cmds = append(cmds, strings.Join(f[1:], " "))
			case len(f) > 5 && !strings.Contains(f[0], "="):
				cmds = append(cmds, strings.Join(f[5:], " "))
			}
		}
		text = strings.Join(cmds, "\n")
	}
	w := word{text: text, static: true}
	pl.inner = append(pl.inner, func() { c.nestedScript(w, base+" job") })
}

// trap: the action is a command run later (on a signal or at exit); `-`,
// an empty action or a lone signal resets or ignores.
func (c *checker) trap(args []word, pl *plan) {
	pl.noArgCheck = true
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") && args[0].text != "-" {
		if args[0].text == "--" {
			args = args[1:]
			break
		}
		if strings.ContainsAny(args[0].text, "lpP") {
			return // lists traps or signals
		}
		args = args[1:]
	}
	if len(args) < 2 || args[0].text == "-" {
		return
	}
	w := args[0]
	pl.inner = append(pl.inner, func() { c.nestedScript(w, "trap") })
}

// writeWord records a file a command writes.
func (c *checker) writeWord(w word, pl *plan) {
	if !w.static || w.glob {
		pl.ask(w.text, "write target is not a literal path")
		return
	}
	if p, bad := c.writePath(w.text); bad {
		pl.floor = append(pl.floor, p)
	}
}

// operands returns the non-option arguments.
func operands(args []word) []word {
	var out []word
	opts := true
	for _, a := range args {
		if opts && a.text == "--" {
			opts = false
			continue
		}
		if opts && strings.HasPrefix(a.text, "-") && len(a.text) > 1 {
			continue
		}
		out = append(out, a)
	}
	return out
}

// skipOptions drops leading options and returns the command that follows.
// short lists single-letter options that take a value; long lists long
// options that take one (also accepted as --opt=value).
func skipOptions(args []word, short string, long []string) []word {
	i := 0
	for i < len(args) {
		t := args[i].text
		if t == "--" {
			return args[i+1:]
		}
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			break
		}
		if strings.HasPrefix(t, "--") {
			if !strings.Contains(t, "=") {
				for _, l := range long {
					// getopt_long takes a unique prefix too (xargs
					// --arg-f FILE); a shared one is an error there.
					if t == l || len(t) > 3 && strings.HasPrefix(l, t) {
						i++
						break
					}
				}
			}
			i++
			continue
		}
		// -abc: the first letter taking a value consumes the rest or the
		// next argument.
		for k := 1; k < len(t); k++ {
			if strings.IndexByte(short, t[k]) >= 0 {
				if k == len(t)-1 {
					i++
				}
				break
			}
		}
		i++
	}
	if i > len(args) {
		i = len(args)
	}
	return args[i:]
}

// optValue returns the value of option name at args[i], written as
// `name value`, `name=value` or, for short options, `-Xvalue`.
func optValue(args []word, i int, names ...string) (word, bool) {
	t := args[i].text
	for _, n := range names {
		switch {
		case t == n:
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{text: "", static: true}, true
		case strings.HasPrefix(t, n+"="):
			return word{text: t[len(n)+1:], static: args[i].static}, true
		case len(n) == 2 && n[0] == '-' && n[1] != '-' && strings.HasPrefix(t, n) && len(t) > 2 && t[1] != '-':
			return word{text: t[2:], static: args[i].static}, true
		}
	}
	return word{}, false
}

// concatWords joins words with spaces the way eval and watch do.
func concatWords(ws []word) word {
	out := word{static: true}
	var s []string
	for _, w := range ws {
		s = append(s, w.text)
		out.static = out.static && w.static
	}
	out.text = strings.Join(s, " ")
	return out
}

// longPrefixes spells the unique-prefix abbreviations getopt_long accepts
// (--compress-prog=X, --expr X) as the long options full they stand for,
// so the checks that look for those options see them. A prefix two
// options share is an error in the program; reading it as the checked
// option is the stricter choice.
func longPrefixes(args []word, full ...string) []word {
	var out []word
	for i, a := range args {
		if a.text == "--" {
			break
		}
		name, val, eq := strings.Cut(a.text, "=")
		if !strings.HasPrefix(name, "--") || len(name) < 3 {
			continue
		}
		for _, f := range full {
			if name != f && strings.HasPrefix(f, name) {
				if out == nil {
					out = append([]word(nil), args...)
				}
				out[i].text = f
				if eq {
					out[i].text += "=" + val
				}
				break
			}
		}
	}
	if out == nil {
		return args
	}
	return out
}
