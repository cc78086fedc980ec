package permission

import (
	"strings"
)

// git strips global options so rules see `git SUBCOMMAND ...`, and checks
// the options and configuration that make git run other programs.
func (c *checker) git(args []word, pl *plan) {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		if !args[i].static {
			pl.ask(t, "git option is not a literal")
			continue
		}
		switch {
		case t == "-c":
			if i+1 < len(args) {
				i++
				c.gitConfig(args[i], pl, "git -c")
			}
		case t == "-C":
			if i+1 < len(args) {
				i++
				if v, why := c.readPath(args[i].text); v >= Ask || !args[i].static {
					pl.ask(args[i].text, "git -C: "+why)
				}
			}
		case t == "--git-dir" || t == "--work-tree" || t == "--namespace" || t == "--exec-path" || t == "--config-env" || t == "--super-prefix":
			i++
			pl.ask(t, "git "+t+" changes where git reads its configuration or programs")
		case strings.HasPrefix(t, "--git-dir=") || strings.HasPrefix(t, "--work-tree=") || strings.HasPrefix(t, "--exec-path") ||
			strings.HasPrefix(t, "--config-env=") || strings.HasPrefix(t, "--namespace=") || strings.HasPrefix(t, "--super-prefix="):
			pl.ask(t, "git "+t+" changes where git reads its configuration or programs")
		case strings.HasPrefix(t, "-"):
			// -p, -P, --no-pager, --bare, --literal-pathspecs, ...
		default:
			goto sub
		}
	}
sub:
	if i >= len(args) {
		return
	}
	rest := append([]word{}, args[i:]...)
	if al, ok := c.aliases[strings.ToLower(rest[0].text)]; ok {
		if len(al) == 0 {
			// `-c alias.x` without a value: git reads it as "true" and
			// fails, but nothing here may guess what runs.
			pl.ask(rest[0].text, "git alias "+rest[0].text+" has no command")
			return
		}
		exp := make([]word, 0, len(al)+len(rest))
		for _, a := range al {
			exp = append(exp, word{text: a, static: true})
		}
		rest = append(exp, rest[1:]...)
	}
	pl.canon = append(pl.canon, "git "+joinWords(rest))
	sub, sargs := rest[0].text, rest[1:]
	for j := range sargs {
		t := sargs[j].text
		if p := gitObjectPath(t); p != "" && (sensitiveName(p) || gitConfigPath(p)) && sub != "config" && sub != "remote" {
			pl.ask(t, "git "+sub+" reads "+p+" out of the repository: names a sensitive file")
		}
		switch sub {
		case "difftool", "mergetool":
			if v, ok := optValue(sargs, j, "-x", "--extcmd"); ok {
				pl.ask(t, "git "+sub+" --extcmd runs a command")
				pl.inner = append(pl.inner, func() { c.nestedProgram(v, "git "+sub+" --extcmd") })
			}
		case "grep":
			if t == "-O" || t == "--open-files-in-pager" {
				pl.ask(t, "git grep -O runs a pager")
			} else if v, ok := optValue(sargs, j, "-O", "--open-files-in-pager"); ok {
				pl.ask(t, "git grep -O runs a pager command")
				pl.inner = append(pl.inner, func() { c.nestedScript(v, "git grep -O") })
			}
		case "rebase":
			if v, ok := optValue(sargs, j, "-x", "--exec"); ok {
				pl.inner = append(pl.inner, func() { c.nestedScript(v, "git rebase --exec") })
			}
		case "submodule":
			if t == "foreach" && j+1 < len(sargs) {
				// foreach [--recursive] [--quiet] [--] CMD...
				cmd := sargs[j+1:]
				for len(cmd) > 0 && strings.HasPrefix(cmd[0].text, "-") {
					dd := cmd[0].text == "--"
					cmd = cmd[1:]
					if dd {
						break
					}
				}
				if len(cmd) > 0 {
					w := concatWords(cmd)
					pl.inner = append(pl.inner, func() { c.nestedScript(w, "git submodule foreach") })
				}
			}
		case "filter-branch":
			// Every filter is a shell command, run for each commit.
			for _, o := range []string{"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter", "--setup"} {
				if v, ok := optValue(sargs, j, o); ok {
					pl.ask(t, "git filter-branch "+o+" runs a command")
					pl.inner = append(pl.inner, func() { c.nestedScript(v, "git filter-branch "+o) })
				}
			}
		case "bisect":
			if t == "run" && j+1 < len(sargs) {
				inner := sargs[j+1:]
				pl.inner = append(pl.inner, func() { c.nested(inner, stdin{}) })
			}
		case "config":
			if !strings.HasPrefix(t, "-") && commandKey(strings.ToLower(t)) && j+1 < len(sargs) {
				v := sargs[j+1]
				pl.ask(t, "git config stores a command in "+t)
				if strings.HasPrefix(strings.ToLower(t), "alias.") {
					// `!cmd` is a shell command; anything else a git
					// command line.
					if strings.HasPrefix(v.text, "!") {
						v.text = v.text[1:]
					} else {
						v.text = "git " + v.text
					}
				}
				pl.inner = append(pl.inner, func() { c.nestedScript(v, "git config "+t) })
			}
			if t == "--global" || t == "--system" || t == "--file" || strings.HasPrefix(t, "--file=") || t == "-f" {
				pl.ask(t, "git config writes a configuration file outside the workspace")
			}
		}
		if v, ok := optValue(sargs, j, "--output", "-o"); ok && (sub == "diff" || sub == "log" || sub == "show" || sub == "format-patch") {
			if sub == "format-patch" && t == "-o" {
				c.writeWord(v, pl)
			} else if strings.HasPrefix(t, "--output") {
				c.writeWord(v, pl)
			}
		}
		if t == "--ext-diff" || strings.HasPrefix(t, "--textconv") {
			pl.ask(t, "git "+t+" runs configured external programs")
		}
		if strings.HasPrefix(t, "--upload-pack") || strings.HasPrefix(t, "--receive-pack") || strings.HasPrefix(t, "--exec=") || t == "-u" && (sub == "fetch" || sub == "clone" || sub == "ls-remote" || sub == "pull") {
			if v, ok := optValue(sargs, j, "--upload-pack", "--receive-pack", "--exec", "-u"); ok {
				pl.ask(t, "git "+t+" runs a program")
				pl.inner = append(pl.inner, func() { c.nestedScript(v, "git "+t) })
			}
		}
	}
}

// gitConfig checks a `key=value` given with git -c.
func (c *checker) gitConfig(kv word, pl *plan, via string) {
	pl.ask(kv.text, via+" overrides configuration")
	if !kv.static {
		return
	}
	k, v, _ := strings.Cut(kv.text, "=")
	k = strings.ToLower(k)
	switch {
	case strings.HasPrefix(k, "alias."):
		name := k[len("alias."):] // config keys are case-insensitive
		if strings.HasPrefix(v, "!") {
			w := word{text: v[1:], static: true}
			pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+k) })
		} else {
			c.aliases[name] = strings.Fields(v)
		}
	case commandKey(k):
		if k == "credential.helper" || strings.HasSuffix(k, ".helper") {
			if !strings.HasPrefix(v, "!") && !strings.ContainsAny(v, " /") {
				return // a git-credential-NAME helper
			}
			v = strings.TrimPrefix(v, "!")
		}
		w := word{text: v, static: true}
		pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+k) })
	}
}

var commandKeys = lazyRegexp(`^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath)|` +
	`diff\.external|diff\..*\.(command|textconv)|difftool\..*\.cmd|mergetool\..*\.cmd|merge\..*\.driver|` +
	`filter\..*\.(clean|smudge|process)|credential\.(.*\.)?helper|sequence\.editor|gpg\.(.*\.)?program|` +
	`pager\..*|alias\..*|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack)|` +
	`sendemail\..*cmd|ssh\.variant|include\.path|includeif\..*|init\.templatedir|web\.browser|browser\..*\.cmd|man\..*\.cmd)$`)

// commandKey reports git configuration keys whose value is a command (or
// names files that hold commands).
func commandKey(k string) bool { return commandKeys().MatchString(k) }

// goTool checks go subcommands' options that run other programs or write.
func (c *checker) goTool(args []word, pl *plan) {
	for i, a := range args {
		if v, ok := optValue(args, i, "-exec", "--exec"); ok {
			pl.ask(a.text, "go -exec runs a program with the test binary")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go -exec") })
		}
		if v, ok := optValue(args, i, "-toolexec", "--toolexec"); ok {
			pl.ask(a.text, "go -toolexec runs a program for every tool")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go -toolexec") })
		}
		if v, ok := optValue(args, i, "-vettool", "--vettool"); ok {
			pl.ask(a.text, "go vet -vettool runs a program")
			pl.inner = append(pl.inner, func() { c.nestedProgram(v, "go vet -vettool") })
		}
		if strings.Contains(a.text, "-extld") || strings.Contains(a.text, "-linkmode=external") {
			pl.ask(a.text, "go -ldflags -extld runs another linker program")
		}
		if a.text == "-mod=mod" || (a.text == "-mod" && i+1 < len(args) && args[i+1].text == "mod") {
			pl.ask(a.text, "go -mod=mod may change go.mod and download modules")
		}
		if v, ok := optValue(args, i, "-C"); ok && a.text == "-C" {
			if r, why := c.readPath(v.text); r >= Ask || !v.static {
				pl.ask(v.text, "go -C: "+why)
			}
		}
	}
	c.goWrites(args, pl)
}
