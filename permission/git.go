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
			al, ok := splitCmdline(v)
			if !ok {
				al = []string{} // unclosed quote: git refuses it; ask
			}
			c.aliases[name] = al
		}
	case commandKey(k):
		v, ok := commandValue(k, v)
		if !ok {
			return
		}
		w := word{text: v, static: true}
		pl.inner = append(pl.inner, func() { c.nestedScript(w, via+" "+k) })
	}
}

// commandValue returns the shell command the value v of the command key k
// runs, and false when it runs none of its own: a credential helper NAME is
// the program git-credential-NAME, and `!cmd` is the shell command cmd; a
// submodule update mode other than `!cmd` (checkout, rebase, merge, none)
// runs nothing.
func commandValue(k, v string) (string, bool) {
	switch {
	case k == "credential.helper" || strings.HasSuffix(k, ".helper"):
		if !strings.HasPrefix(v, "!") && !strings.ContainsAny(v, " /") {
			return "", false // a git-credential-NAME helper
		}
		return strings.TrimPrefix(v, "!"), true
	case strings.HasPrefix(k, "submodule.") && strings.HasSuffix(k, ".update"):
		if !strings.HasPrefix(v, "!") {
			return "", false
		}
		return v[1:], true
	}
	return v, true
}

func hasAlias(m map[string][]string, k string) bool { _, ok := m[k]; return ok }

// splitCmdline splits an alias value the way git's split_cmdline does:
// words separated by white space, single and double quotes group, and a
// backslash outside single quotes takes the next character literally. It
// reports false for an unclosed quote or a trailing backslash, which git
// refuses.
func splitCmdline(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == 0 && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote, inWord = ch, true
		case ch == quote:
			quote = 0
		case ch == '\\' && quote != '\'':
			if i+1 >= len(s) {
				return nil, false
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, true
}

// extCommand returns the command line of a git `ext::` remote URL, which
// git runs as a program (no shell): arguments are split at spaces, `% ` is
// a literal space and `%%` a percent sign.
func extCommand(url string) []word {
	var out []word
	var cur strings.Builder
	s := url[len("ext::"):]
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '%'):
			i++
			cur.WriteByte(s[i])
		case s[i] == ' ':
			if cur.Len() > 0 {
				out = append(out, word{text: cur.String(), static: true})
				cur.Reset()
			}
		default:
			cur.WriteByte(s[i])
		}
	}
	if cur.Len() > 0 {
		out = append(out, word{text: cur.String(), static: true})
	}
	return out
}

var commandKeys = lazyRegexp(`^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy|hookspath)|` +
	`diff\.external|diff\..*\.(command|textconv)|difftool\..*\.cmd|mergetool\..*\.cmd|merge\..*\.driver|` +
	`filter\..*\.(clean|smudge|process)|credential\.(.*\.)?helper|sequence\.editor|gpg\.(.*\.)?program|` +
	`pager\..*|alias\..*|uploadpack\.packobjectshook|remote\..*\.(uploadpack|receivepack)|` +
	`sendemail\..*cmd|interactive\.difffilter|core\.alternaterefscommand|tar\..*\.command|gpg\.ssh\.defaultkeycommand|` +
	`trailer\..*\.(command|cmd)|submodule\..*\.update|ssh\.variant|include\.path|includeif\..*|init\.templatedir|web\.browser|browser\..*\.cmd|man\..*\.cmd)$`)

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
var gitCheckedLong = []string{"open-files-in-pager", "upload-pack", "receive-pack", "exec", "extcmd", "ext-diff", "textconv", "output", "file"}

// gitLongArgs spells abbreviated long options as the gitCheckedLong option
// they stand for. A prefix two options share is an error in git; reading it
// as the checked one is the stricter choice. Options of their own that are
// prefixes (--text of --textconv) stay as they are.
func gitLongArgs(args []word) []word {
	var out []word
	for i, a := range args {
		if a.text == "--" {
			break
		}
		name, val, eq := strings.Cut(strings.TrimPrefix(a.text, "--"), "=")
		if !strings.HasPrefix(a.text, "--") || len(name) < 2 || name == "text" {
			continue
		}
		for _, k := range gitCheckedLong {
			if name != k && strings.HasPrefix(k, name) {
				if out == nil {
					out = append([]word(nil), args...)
				}
				out[i].text = "--" + k
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
