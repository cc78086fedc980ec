package permission

// Built-in rules. They use word-bounded patterns (`ls` plus `ls *`, never
// `ls*`, which would also allow lsof). The structural checks add what the
// patterns cannot say: `find` with -exec or -delete, `go test -exec`, `sort
// --compress-program`, reads outside the workspace and so on stay at least
// ask even though `find *`, `go test *` and `sort *` are allowed here.

// builtinBashAllow lists read-only commands a user would otherwise approve a
// hundred times a day.
var builtinBashAllow = &lazy[[]string]{build: func() []string {
	return words(
		"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find",
		"file", "stat", "du", "df", "sort", "uniq", "diff", "cmp", "tree", "pwd",
		"echo", "printf", "which", "type", "basename", "dirname", "realpath",
		"readlink", "cut", "tr", "nl", "column", "true", "false", "test", "[",
		"whoami", "id", "uname", "md5sum", "sha1sum", "sha256sum",
		"cksum", "comm", "tac", "rev", "fold", "expand", "unexpand", "seq",
		"git status", "git diff", "git log", "git show", "git blame", "git ls-files",
		"git rev-parse", "git describe", "git shortlog", "git grep",
		"go vet", "go build", "go test", "go list", "go version", "go doc",
		"gofmt -l", "gofmt -d",
	)
}}

var builtinBashAllowExact = []string{
	"date", "hostname", "git branch", "git branch -a", "git branch -v", "git branch -vv",
	"git branch --show-current", "git remote", "git remote -v", "git tag",
	"git stash list", "go env",
}

// builtinBashAsk narrows the allow list above.
var builtinBashAsk = []string{
	"go env -w*", "go env -u*", "env", "git grep -O*", "git grep --open-files-in-pager*",
}

// builtinBashDeny lists destructive and privilege-raising commands.
var builtinBashDeny = &lazy[[]string]{build: func() []string {
	return append(broadRm(), []string{
		"sudo", "sudo *", "sudoedit *", "doas *", "su", "su *", "pkexec *", "run0 *", "runuser *",
		"mkfs", "mkfs *", "mkfs.*", "wipefs *", "fdisk *", "sfdisk *", "parted *",
		"dd * of=/dev/*", "dd of=/dev/*", "shred *",
		"shutdown*", "reboot*", "halt*", "poweroff*", "init 0", "init 6",
		"kill -9 -1", "kill -KILL -1", "killall5*",
		"git push --force*", "git push -f*", "git push * --force*", "git push * -f*",
		"git push --mirror*", "git push * --mirror*", "git push --delete*", "git push * --delete*",
		"git push * +*", "chmod -R * /", "chown -R * /", "crontab -r*",
	}...)
}}

// broadRm denies rm of the root, the home directory, the workspace's own
// directory or everything in it; `\*` is a literal star (the shell glob).
func broadRm() []string {
	out := []string{"rm *--no-preserve-root*"}
	for _, t := range []string{"/", `/\*`, "~", "~/", `~/\*`, ".", "./", `./\*`, "..", "../", `\*`, "$HOME", "$HOME/", `$HOME/\*`} {
		out = append(out, "rm * "+t, "rm * "+t+" *")
	}
	return out
}

// Built-in defaults per tool; path tools have no built-in lists beyond their
// defaults because the structural rules carry the protected and sensitive
// paths.
var builtinDefaults = &lazy[map[string]Verdict]{build: func() map[string]Verdict {
	return map[string]Verdict{
		"bash":        Ask,
		"write_file":  Allow,
		"str_replace": Allow,
		"read_file":   Allow,
		"glob":        Allow,
		"grep":        Allow,
	}
}}

// words turns each command prefix into the pair "c" and "c *".
func words(cmds ...string) []string {
	out := make([]string, 0, 2*len(cmds))
	for _, c := range cmds {
		out = append(out, c, c+" *")
	}
	return out
}

func builtinRules(tool string) ToolRules {
	tr := ToolRules{Default: builtinDefaults.get()[tool]}
	if tr.Default == Undecided {
		tr.Default = Ask
	}
	if tool == "bash" {
		tr.Allow = append(append([]string{}, builtinBashAllow.get()...), builtinBashAllowExact...)
		tr.Ask = builtinBashAsk
		tr.Deny = builtinBashDeny.get()
	}
	return tr
}
