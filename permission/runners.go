package permission

import (
	"strings"
)

// More exec-wrappers: each runs the command that follows its own options
// and operands, which is checked as its own part. What they add themselves
// (a shell started when no command is given, a library loaded, a log file
// written) is a structural part of the wrapper.
func (c *checker) wrapper2(base string, args []word, in stdin, pl *plan) {
	pl.transparent, pl.noArgCheck = true, true
	switch base {
	case "taskset", "chrt", "prlimit", "unshare", "fakeroot", "ssh-agent", "setpriv":
		// Whatever the options turn out to mean (taskset --cpu-list=0
		// CMD, prlimit -n 10 CMD), a denied command in the arguments is
		// denied.
		c.denyScan(append([]word{{text: base, static: true}}, args...), 1, pl)
	}
	var inner []word
	switch base {
	case "taskset", "chrt":
		i, pid := 0, false
		for ; i < len(args); i++ {
			t := args[i].text
			if t == "--" {
				i++
				break
			}
			if !strings.HasPrefix(t, "-") || t == "-" {
				break
			}
			known := "acphV"
			if base == "chrt" {
				known = "abdfiorRTPDemphvV"
			}
			// taskset's long options take no value (--cpu-list=0 is an
			// error); chrt's take theirs detached.
			if !strings.HasPrefix(t, "--") && strings.Trim(t[1:], known) != "" || strings.HasPrefix(t, "--") && strings.Contains(t, "=") {
				// taskset -c0 CMD: not an option the program has, so
				// what it would run (if anything) cannot be told.
				pl.transparent = false
				pl.ask(t, base+" option "+t+" is not known here: cannot tell what runs")
				return
			}
			if t == "--pid" || (!strings.HasPrefix(t, "--") && strings.Contains(t, "p")) {
				pid = true
			}
			if base == "chrt" && (t == "-T" || t == "-P" || t == "-D" || t == "--sched-runtime" || t == "--sched-period" || t == "--sched-deadline") {
				i++
			}
		}
		if pid {
			pl.transparent = false // changes a running process, runs nothing
			return
		}
		i = min(i, len(args))
		if i < len(args) {
			i++ // the CPU mask or the priority
		}
		inner = args[i:]
	case "prlimit":
		for _, a := range args {
			if a.text == "-p" || strings.HasPrefix(a.text, "--pid") {
				pl.transparent = false
				return
			}
		}
		inner = skipOptions(args, "o", []string{"--output"})
	case "unshare":
		for _, a := range args {
			if a.text == "-R" || strings.HasPrefix(a.text, "--root") {
				pl.ask(a.text, "unshare --root changes the root directory")
			}
		}
		inner = skipOptions(args, "SGwRl", []string{"--setuid", "--setgid", "--wd", "--root", "--propagation", "--map-user", "--map-group", "--map-users", "--map-groups", "--monotonic", "--boottime", "--load-interp"})
	case "fakeroot":
		for i, a := range args {
			if v, ok := optValue(args, i, "--faked"); ok {
				pl.ask(a.text, "fakeroot --faked runs another daemon program")
				pl.inner = append(pl.inner, func() { c.nestedProgram(v, "fakeroot --faked") })
			}
			if a.text == "-l" || strings.HasPrefix(a.text, "--lib") {
				pl.ask(a.text, "fakeroot -l loads a library into every program")
			}
			if v, ok := optValue(args, i, "-s"); ok && a.text == "-s" {
				c.writeWord(v, pl)
			}
		}
		inner = skipOptions(args, "lsib", []string{"--lib", "--faked", "--fd-base"})
	case "ssh-agent":
		inner = skipOptions(args, "aEOPt", nil)
		if len(inner) == 0 {
			pl.transparent = false
			return
		}
	case "setpriv":
		inner = skipOptions(args, "", []string{"--reuid", "--regid", "--ruid", "--euid", "--rgid", "--egid", "--groups",
			"--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
			"--apparmor-profile", "--landlock-access", "--landlock-rule", "--seccomp-filter"})
	case "setarch", "linux32", "linux64", "i386", "x86_64":
		// setarch [ARCH] [-BFILRSTXZ3v] [CMD ...]; the others are
		// setarch named by the architecture. Without a command they
		// start a shell. Any denied command in the arguments is denied
		// whatever the options turn out to be.
		rest := args
		if base == "setarch" && len(rest) > 0 && !strings.HasPrefix(rest[0].text, "-") {
			rest = rest[1:]
		}
		inner = skipOptions(rest, "", nil)
		c.denyScan(append([]word{{text: base, static: true}}, args...), 1, pl)
		if len(inner) == 0 {
			pl.transparent = false
			pl.ask(base, base+" without a command starts a shell that reads commands from input")
			return
		}
	case "capsh":
		// capsh ... -- ARGS runs bash with ARGS (capsh -- -c 'cmd');
		// --shell=PROG names another shell, == re-runs capsh.
		pl.transparent = false
		pl.ask("capsh", "capsh changes capabilities and runs a shell")
		c.denyScan(append([]word{{text: base, static: true}}, args...), 1, pl)
		sh := "bash"
		for i, a := range args {
			if v, ok := optValue(args, i, "--shell"); ok {
				sh = v.text
			}
			if a.text == "--" {
				shArgs := args[i+1:]
				if sh != "bash" && sh != "/bin/bash" {
					pl.inner = append(pl.inner, func() { c.nestedProgram(word{text: sh, static: true}, "capsh --shell") })
				}
				c.shell("bash", shArgs, in, pl)
				break
			}
		}
		return
	case "script":
		c.script1(args, pl)
		return
	case "parallel", "sem":
		c.parallel(args, pl)
		return
	}
	if len(inner) == 0 {
		switch base {
		case "unshare", "fakeroot":
			pl.transparent = false
			pl.ask(base, base+" without a command starts a shell that reads commands from input")
		default:
			pl.transparent = false
		}
		return
	}
	pl.inner = append(pl.inner, func() { c.nested(inner, in) })
}

// script -c runs a shell command; without it, script starts a shell that
// reads input. Either way it writes its log files.
func (c *checker) script1(args []word, pl *plan) {
	cmd := false
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if t := a.text; len(t) > 2 && t[0] == '-' && t[1] != '-' && strings.Contains(t, "c") && !strings.ContainsAny(t[:strings.Index(t, "c")], "EIOBTmo") {
			// Bundled short options, -qc CMD or -qcCMD.
			k := strings.Index(t, "c")
			v := word{text: t[k+1:], static: a.static}
			if v.text == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			cmd = true
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "script -c") })
			continue
		}
		if name, val, eq := strings.Cut(a.text, "="); len(name) >= 3 && name != "--command" && strings.HasPrefix("--command", name) {
			// --comm CMD, --c=CMD: getopt_long's unique prefixes of --command.
			a.text = "--command"
			if eq {
				a.text += "=" + val
			}
			args = append(append(append([]word(nil), args[:i]...), a), args[i+1:]...)
		}
		if v, ok := optValue(args, i, "-c", "--command"); ok {
			cmd = true
			pl.inner = append(pl.inner, func() { c.nestedScript(v, "script -c") })
			if a.text == "-c" || a.text == "--command" {
				i++
			}
			continue
		}
		if v, ok := optValue(args, i, "-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing"); ok {
			c.writeWord(v, pl)
			if !strings.Contains(a.text, "=") && len(a.text) <= 2 || strings.HasPrefix(a.text, "--") && !strings.Contains(a.text, "=") {
				i++
			}
			continue
		}
		if a.text == "-E" || a.text == "-m" || a.text == "-o" || a.text == "--echo" || a.text == "--logging-format" || a.text == "--output-limit" {
			i++
			continue
		}
		if !strings.HasPrefix(a.text, "-") {
			ops = append(ops, a)
		}
	}
	for _, o := range ops {
		c.writeWord(o, pl)
	}
	if !cmd {
		pl.transparent = false
		pl.ask("script", "script without -c starts a shell that reads commands from input")
	}
}

// parallel builds commands from its arguments and input: always ask, and
// the command and every argument after ::: are checked for denied commands.
func (c *checker) parallel(args []word, pl *plan) {
	pl.transparent = false
	pl.ask("parallel", "parallel builds and runs commands from its arguments and input")
	// parallel joins its words unquoted (parallel sh -c 'sudo id' runs
	// sh -c sudo id): a denied command in any of them is denied.
	c.denyScan(append([]word{{text: "parallel", static: true}}, args...), 1, pl)
	rest := skipOptions(args, "ajSdEIMNsLPnXC", []string{"--jobs", "--arg-file", "--delimiter", "--colsep", "--joblog",
		"--results", "--tmpdir", "--sshlogin", "--basefile", "--return", "--workdir", "--timeout", "--retries", "--halt",
		"--delay", "--tagstring", "--env", "--transferfile", "--max-args", "--max-replace-args", "--memfree", "--load"})
	var cmd []word
	for i, a := range rest {
		if strings.HasPrefix(a.text, ":::") {
			for _, item := range rest[i+1:] {
				if !strings.HasPrefix(item.text, ":::") {
					w := item
					pl.inner = append(pl.inner, func() { c.quiet(w.text, "parallel argument") })
				}
			}
			break
		}
		cmd = append(cmd, a)
	}
	if len(cmd) > 0 {
		w := concatWords(append(cmd, word{text: "{args}", static: true}))
		pl.inner = append(pl.inner, func() { c.nestedScript(w, "parallel") })
	}
}

// zip -TT names the command that tests the archive; the archive is written.
func (c *checker) zip(args []word, pl *plan) {
	c.denyScan(append([]word{{text: "zip", static: true}}, args...), 1, pl)
	for i, a := range args {
		if v, ok := optValue(args, i, "--unzip-command"); ok {
			pl.ask(a.text, "zip --unzip-command runs a command")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "zip --unzip-command") })
		}
		if k := strings.Index(a.text, "TT"); k > 0 && a.text[0] == '-' && a.text[1] != '-' {
			// -TT CMD, also bundled after other letters (-qTT CMD).
			v := word{text: strings.TrimPrefix(a.text[k+2:], "="), static: a.static}
			if v.text == "" && i+1 < len(args) {
				v = args[i+1]
			}
			pl.ask(a.text, "zip -TT runs a command")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "zip -TT") })
		}
	}
	if ops := operands(args); len(ops) > 0 {
		c.writeWord(ops[0], pl)
	}
}

// runners can run their arguments (or a command given in them) but are not
// unwrapped here: at least ask, and any denied command visible in their
// arguments is denied.
var runners = &set{items: []string{
	"ssh", "nsenter", "systemd-run", "firejail", "bwrap", "proot",
	"valgrind", "gdb", "lldb", "perf", "sg", "newgrp",
	"dbus-run-session", "xvfb-run", "sshpass", "rlwrap", "entr",
	"watchexec", "nodemon", "hyperfine", "cgexec", "numactl",
	"faketime", "torsocks", "proxychains", "proxychains4", "catchsegv",
	"chpst", "daemonize", "start-stop-daemon", "tsp", "dtach",
	"abduco", "tmux", "screen", "expect", "at", "batch",
	"nix-shell", "direnv", "npx", "pnpx", "bunx", "uvx",
	"pipx", "rr", "vim", "nvim", "vi", "emacs", "less",
	"more", "ed", "ex", "flatpak-spawn", "distrobox-enter", "toolbox",
	"osascript", "wine", "qemu-user", "ld.so", "ld-linux.so.2",
	"ld-linux-x86-64.so.2", "chronic", "ifne", "vipe", "lckdo",
	"retry", "cpulimit", "trickle", "eatmydata", "tini", "dumb-init",
	"catatonit", "nocache", "firejail-run", "bubblewrap", "with-contenv",
	// They open a file or URL with whatever program the desktop's
	// configuration names (a .desktop file runs its Exec line).
	"xdg-open", "open", "gio", "kde-open", "gnome-open", "sensible-browser",
	"scp", "sftp", "tclsh", "wish",
}}

// runnerSubcommands run their arguments when given one of these
// subcommands.
var runnerSubcommands = &lazy[map[string][]string]{build: func() map[string][]string {
	return map[string][]string{
		"npm": {"exec", "x", "explore"}, "pnpm": {"exec", "dlx", "x"}, "yarn": {"exec", "dlx"}, "bun": {"x", "run"},
		"uv": {"run", "tool"}, "poetry": {"run"}, "pipenv": {"run"}, "bundle": {"exec"}, "conda": {"run"},
		"mise": {"exec", "x"}, "asdf": {"exec"}, "rbenv": {"exec"}, "pyenv": {"exec"}, "docker": {"exec", "run"},
		"podman": {"exec", "run"}, "kubectl": {"exec", "run", "debug"}, "flatpak": {"run"}, "snap": {"run"},
		"cargo": {"run"}, "dotnet": {"exec"}, "deno": {"run", "eval"},
	}
}}

// runner applies the runner rule to programs that run their arguments.
func (c *checker) runner(base string, argv []word, pl *plan) {
	from := 1
	if subs, ok := runnerSubcommands.get()[base]; ok {
		ops := operands(argv[1:])
		if len(ops) == 0 || !contains(subs, ops[0].text) {
			return
		}
		from = 2
	} else if !runners.get()[base] {
		return
	}
	pl.ask(base, base+" can run its arguments as a command")
	c.denyScan(argv, from, pl)
}

// denyScan checks every tail of argv from a word on as a command, keeping
// only denials: a denied program anywhere in a runner's arguments is denied.
func (c *checker) denyScan(argv []word, from int, pl *plan) {
	for i := from; i < len(argv) && i < from+16; i++ {
		if strings.HasPrefix(argv[i].text, "-") {
			continue
		}
		w := concatWords(argv[i:])
		pl.inner = append(pl.inner, func() { c.quiet(w.text, argv[0].text) })
	}
	// A command inside one argument (gdb -ex 'shell sudo id', vim -c
	// '!rm -rf x'): every tail of its words too.
	for i := from; i < len(argv) && i < from+16; i++ {
		text := argv[i].text
		if _, v, ok := strings.Cut(text, "="); ok && strings.HasPrefix(text, "-") {
			text = v // --call='rm -rf x': the option's value
		}
		f := strings.Fields(strings.TrimLeft(text, "+!:"))
		if len(f) < 2 {
			continue
		}
		for k := 0; k < len(f) && k < 8; k++ {
			t := strings.TrimLeft(strings.Join(f[k:], " "), "+!")
			pl.inner = append(pl.inner, func() { c.quiet(t, argv[0].text) })
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cmakeE checks cmake -E, cmake's portable command mode: env, chdir and
// time run the command that follows (cmake -E env sudo id), rm, remove and
// remove_directory delete like rm and are checked as rm, so rules about rm
// apply to them.
func (c *checker) cmakeE(args []word, in stdin, pl *plan) {
	if len(args) < 2 || args[0].text != "-E" {
		return
	}
	rest := args[2:]
	var inner []word
	switch args[1].text {
	case "env":
		for len(rest) > 0 && (strings.HasPrefix(rest[0].text, "-") || strings.Contains(rest[0].text, "=")) {
			if rest[0].text == "--" {
				rest = rest[1:]
				break
			}
			rest = rest[1:]
		}
		inner = rest
	case "chdir":
		if len(rest) > 0 {
			inner = rest[1:]
		}
	case "time":
		inner = rest
	case "rm", "remove":
		inner = append([]word{{text: "rm", static: true}}, rest...)
	case "remove_directory":
		inner = append([]word{{text: "rm", static: true}, {text: "-r", static: true}}, rest...)
	default:
		return
	}
	if len(inner) == 0 {
		return
	}
	pl.transparent, pl.noArgCheck = true, true
	pl.inner = append(pl.inner, func() { c.nested(inner, in) })
}
