package permission

import (
	"os"
	"path/filepath"
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
	if name := strings.ToLower(rest[0].text); hasAlias(c.aliases, name) {
		al := c.aliases[name]
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
		// git reads global options in an alias's expansion too
		// (`alias.x = -c alias.y=!cmd y` runs cmd), so the expansion
		// goes through this function again. git refuses an alias
		// that expands to itself; dropping it while it is expanded
		// ends a loop the same way.
		delete(c.aliases, name)
		c.git(append(exp, rest[1:]...), pl)
		c.aliases[name] = al
		return
	}
	pl.canon = append(pl.canon, "git "+joinWords(rest))
	sub, sargs := rest[0].text, gitLongArgs(rest[1:])
	if dir := c.cwd; sub == "remote" && len(sargs) > 0 && (sargs[0].text == "-v" || sargs[0].text == "--verbose") {
		if dir == "" {
			dir = c.e.ws
		}
		if credentialURL(dir) {
			// git remote -v prints the remotes' URLs, a token in them too:
			// as much a read of .git/config as cat .git/config.
			pl.ask(sargs[0].text, "git remote -v prints remote URLs that hold credentials (.git/config)")
		}
	}
	for j := range sargs {
		t := sargs[j].text
		if p := gitObjectPath(t); p != "" && (sensitiveName(p) || gitConfigPath(p)) && sub != "config" && sub != "remote" {
			pl.ask(t, "git "+sub+" reads "+p+" out of the repository: names a sensitive file")
		}
		if strings.HasPrefix(t, "ext::") && sargs[j].static {
			// The ext transport runs the program the URL names
			// (refused unless protocol.ext.allow permits it; checked
			// anyway).
			pl.ask(t, "git ext:: remote runs a command")
			if argv := extCommand(t); len(argv) > 0 {
				pl.inner = append(pl.inner, func() { c.nested(argv, stdin{}) })
			}
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
				k := strings.ToLower(t)
				if strings.HasPrefix(k, "alias.") && !strings.HasPrefix(v.text, "!") {
					// Not `!cmd`: a git command line, split the way
					// git splits it (global options included).
					if al, ok := splitCmdline(v.text); ok && v.static {
						argv := []word{{text: "git", static: true}}
						for _, a := range al {
							argv = append(argv, word{text: a, static: true})
						}
						pl.inner = append(pl.inner, func() { c.nested(argv, stdin{}) })
					} else {
						pl.ask(v.text, "git config "+t+": an alias git cannot split or not a literal")
					}
					continue
				}
				if strings.HasPrefix(k, "alias.") {
					v.text = v.text[1:] // `!cmd` is a shell command
				} else if s, ok := commandValue(k, v.text); ok {
					v.text = s
				} else {
					continue
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

// credentialURL reports whether the .git/config of the repository at dir
// (or an ancestor) has a URL with a password or a token in it
// (https://user:secret@host, https://ghp_xxxxxxxx@host). A plain user name
// (ssh://git@host) is not one.
func credentialURL(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, ".git", "config"))
		if err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				_, u, ok := strings.Cut(line, "://")
				if !ok {
					continue
				}
				host, _, _ := strings.Cut(u, "/")
				if k := strings.LastIndexByte(host, '@'); k > 0 && (strings.Contains(host[:k], ":") || k >= 16) {
					return true
				}
			}
			return false
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// gitCheckedLong are the long options of git subcommands that git.go
// checks. git's subcommands (parse-options) take any unique prefix of a long
// option: git grep --op=CMD is --open-files-in-pager=CMD, git fetch
// --upload-pa=CMD is --upload-pack=CMD.
var gitCheckedLong = []string{"--open-files-in-pager", "--upload-pack", "--receive-pack", "--exec", "--extcmd", "--ext-diff", "--textconv", "--output", "--file"}

// gitLongArgs spells abbreviated long options as the gitCheckedLong option
// they stand for; --text is an option of its own, not --textconv.
func gitLongArgs(args []word) []word { return expandLong(args, []string{"--text"}, gitCheckedLong) }
