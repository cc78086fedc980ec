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
