package permission

import (
	"path"
	"strings"
)

// Generalise suggests the session rule ("allow for this session") for an
// approved simple command text. The rule for generalisation:
//
//   - Programs that run other programs (shells, interpreters, exec-wrappers
//     such as env, xargs, taskset or script, and runners such as ssh or
//     npx), programs named by a path, and destructive commands are never
//     generalised: the rule is exactly the approved command. Destructive
//     means deleting, overwriting or re-permissioning files or history: rm,
//     rmdir, unlink, shred, mv, cp, dd, truncate, chmod, chown, chgrp, ln, and
//     git push, reset, clean, checkout, restore, rm, rebase, stash, branch,
//     tag, ..., and package managers' remove, uninstall and purge.
//   - Tools with subcommands keep the subcommand: `go test ./pkg/...` gives
//     `go test *`.
//   - Anything else gives the program followed by ` *`: `tsc -p .` gives
//     `tsc *`; a command without arguments stays exact (`tsc *` would not
//     match `tsc`).
//
// Whatever the rule, a session rule never lifts a deny rule or a structural
// check, and never applies to a command in which a deny rule matches any
// tail of the words (`foo rm -rf x` under `rm *`): see Engine.AllowForSession.
func Generalise(text string) string {
	f := strings.Fields(text)
	if len(f) == 0 {
		return ""
	}
	head := f[0]
	// A head that is an option or a placeholder ({args}, {}) is the tail
	// of a wrapper's command line, not a program: `-- *` or `{} *` would
	// be a rule about nothing anyone approved.
	odd := strings.HasPrefix(head, "-") || strings.ContainsAny(head, "{}$`")
	if len(f) == 1 || odd || strings.Contains(head, "/") || neverGeneralise.get()[path.Base(head)] || runners.get()[head] || destructive(f) || subRunsCode(f) {
		return quoteGlob(strings.Join(f, " "))
	}
	if _, ok := runnerSubcommands.get()[head]; ok && len(f) > 1 && contains(runnerSubcommands.get()[head], f[1]) {
		return quoteGlob(strings.Join(f, " "))
	}
	if subcommands.get()[head] && len(f) > 1 && !strings.HasPrefix(f[1], "-") && !strings.ContainsAny(f[1], "/=.*\\{}") {
		return quoteGlob(head+" "+f[1]) + " *"
	}
	if subcommands.get()[head] {
		return quoteGlob(strings.Join(f, " "))
	}
	return quoteGlob(head) + " *"
}

// subcommands lists programs whose first operand selects what they do.
var subcommands = &set{items: []string{
	"git", "go", "npm", "pnpm", "yarn", "cargo",
	"docker", "podman", "kubectl", "make", "gh", "pip",
	"pip3", "apt", "apt-get", "brew", "systemctl", "gofmt",
	"rustup", "dotnet", "mvn", "gradle", "bazel", "just",
	"dnf", "yum", "apk", "snap", "gem", "conda", "uv",
	"poetry", "composer", "bun", "deno", "pipx", "zypper",
	"terraform", "tofu", "pulumi", "helm",
}}

// neverGeneralise lists programs that run other programs: a rule `env *`
// or `python3 *` would allow everything.
var neverGeneralise = &set{items: []string{
	"env", "bash", "sh", "zsh", "dash", "ksh", "fish",
	"eval", "exec", "command", "builtin", "xargs", "find",
	"sudo", "doas", "su", "nohup", "nice", "timeout",
	"time", "watch", "python", "python3", "perl", "ruby",
	"node", "deno", "bun", "php", "lua", "awk", "sed",
	"busybox", "toybox", "source", ".", "npx", "ssh",
	"setsid", "stdbuf", "strace", "flock", "chroot", "trap",
	"alias", "ionice", "taskset", "chrt", "prlimit", "unshare",
	"fakeroot", "ssh-agent", "parallel", "sem", "setpriv",
	"runuser", "script", "zip", "pkexec", "run0", "ltrace",
	"unbuffer", "mksh", "ash", "yash", "rbash", "python2",
	"nodejs", "gawk", "mawk", "nawk", "gsed", "Rscript",
	"tclsh", "tar", "unzip", "rake", "man", "mapfile", "readarray",
	"let", "declare", "typeset", "local", "export", "readonly",
	"hash", "setarch", "linux32", "linux64", "i386", "x86_64",
	"capsh", "scp", "sftp", "xdg-open", "open", "gio",
	"crontab", "at", "batch", "enable", "complete", "compgen",
	"bind", "fc", "coproc", "vim", "wish",
}}

// destructiveProgs delete, overwrite or re-permission what they are given.
var destructiveProgs = &set{items: []string{
	"rm", "rmdir", "unlink", "shred", "mv", "cp", "dd",
	"truncate", "chmod", "chown", "chgrp", "chattr", "setfacl",
	"ln", "install", "rsync", "srm", "wipe", "fallocate",
	"kill", "pkill", "killall", "crontab", "tee", "mkfs",
	"wipefs", "fdisk", "sfdisk", "parted", "sqlite3", "psql",
	"mysql", "redis-cli", "mongo", "mongosh",
	// Cloud and remote-storage CLIs: `aws *` or `rclone *` would allow
	// deleting buckets and resources (aws s3 rm, rclone purge).
	"aws", "gcloud", "az", "gsutil", "rclone", "s3cmd",
	"doctl", "heroku",
}}

// destructiveSubs are subcommands of tools with subcommands that delete,
// discard or publish.
var destructiveSubs = &lazy[map[string][]string]{build: func() map[string][]string {
	return map[string][]string{
		"git": {"push", "reset", "clean", "checkout", "restore", "rm", "mv", "rebase", "stash", "branch", "tag",
			"filter-branch", "filter-repo", "update-ref", "reflog", "gc", "prune", "switch", "worktree", "remote",
			"submodule", "config", "merge", "pull", "am", "apply", "cherry-pick", "revert", "replace", "notes", "lfs", "symbolic-ref"},
		"npm":       {"uninstall", "un", "unlink", "remove", "rm", "r", "prune", "publish", "unpublish", "deprecate", "cache", "dist-tag", "owner", "access", "token", "logout", "pkg"},
		"pnpm":      {"remove", "rm", "uninstall", "un", "prune", "unlink", "publish", "store"},
		"yarn":      {"remove", "unlink", "publish", "cache", "autoclean"},
		"bun":       {"remove", "rm", "unlink", "publish", "pm"},
		"pip":       {"uninstall", "cache"},
		"pip3":      {"uninstall", "cache"},
		"pipx":      {"uninstall", "uninstall-all", "reinstall-all"},
		"uv":        {"remove", "cache", "pip", "tool", "python"},
		"poetry":    {"remove", "publish", "cache"},
		"apt":       {"remove", "purge", "autoremove", "autopurge", "clean"},
		"apt-get":   {"remove", "purge", "autoremove", "autopurge", "clean"},
		"dnf":       {"remove", "erase", "autoremove", "clean"},
		"yum":       {"remove", "erase", "autoremove", "clean"},
		"zypper":    {"remove", "rm", "clean"},
		"apk":       {"del", "cache"},
		"snap":      {"remove"},
		"brew":      {"uninstall", "remove", "rm", "cleanup", "untap"},
		"gem":       {"uninstall", "cleanup"},
		"conda":     {"remove", "uninstall", "clean"},
		"cargo":     {"uninstall", "remove", "rm", "clean", "publish", "yank", "owner"},
		"go":        {"clean", "env", "mod", "work", "get", "install"},
		"docker":    {"rm", "rmi", "prune", "system", "volume", "image", "container", "network", "kill", "stop", "push", "builder", "buildx", "compose", "stack", "service", "swarm"},
		"podman":    {"rm", "rmi", "prune", "system", "volume", "image", "container", "network", "kill", "stop", "push", "compose", "pod"},
		"kubectl":   {"delete", "drain", "cordon", "scale", "patch", "replace", "apply", "edit", "rollout", "taint", "label", "annotate"},
		"gh":        {"repo", "release", "secret", "variable", "api", "auth", "ssh-key", "gpg-key", "workflow", "run", "cache"},
		"composer":  {"remove", "clear-cache"},
		"systemctl": {"stop", "disable", "mask", "kill", "reset-failed", "isolate", "poweroff", "reboot", "halt"},
		"terraform": {"destroy", "apply", "import", "state", "taint", "untaint", "workspace", "force-unlock", "refresh"},
		"tofu":      {"destroy", "apply", "import", "state", "taint", "untaint", "workspace", "force-unlock", "refresh"},
		"pulumi":    {"destroy", "up", "update", "cancel", "stack", "state", "refresh", "import"},
		"helm":      {"uninstall", "delete", "del", "un", "rollback", "upgrade", "install", "push", "plugin", "repo"},
		"make":      {"clean", "distclean", "mrproper", "uninstall", "install", "deploy", "publish", "release"},
	}
}}

// codeSubs are subcommands that run code or commands named in their
// arguments or in files the repository controls (go generate runs the
// //go:generate lines, git bisect run its command): like an interpreter,
// their session rule stays exact.
var codeSubs = &lazy[map[string][]string]{build: func() map[string][]string {
	return map[string][]string{
		"go":  {"run", "generate", "tool"},
		"git": {"bisect", "difftool", "mergetool", "daemon", "instaweb", "send-email", "credential"},
	}
}}

// subRunsCode reports a tool-with-subcommand command whose subcommand runs
// code or commands it is given.
func subRunsCode(f []string) bool {
	subs, ok := codeSubs.get()[path.Base(f[0])]
	if !ok {
		return false
	}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		return contains(subs, a)
	}
	return false
}

// destructive reports a command whose session rule must stay exact.
func destructive(f []string) bool {
	head := path.Base(f[0])
	if destructiveProgs.get()[head] || strings.HasPrefix(head, "mkfs.") {
		return true
	}
	if head == "pacman" || head == "yay" || head == "paru" {
		for _, a := range f[1:] {
			if strings.HasPrefix(a, "-R") || strings.HasPrefix(a, "-Sc") || strings.HasPrefix(a, "--remove") {
				return true
			}
		}
	}
	subs, ok := destructiveSubs.get()[head]
	if !ok {
		return false
	}
	for _, a := range f[1:] {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue // global options and make variables
		}
		return contains(subs, a)
	}
	return false
}

// tooBroad returns why a session rule for bash would allow too much: a
// wildcard program name, any wildcard for a program that runs other
// programs or destroys, or every subcommand of a tool with subcommands.
func tooBroad(p string) string {
	f := strings.Fields(p)
	if len(f) == 0 {
		return "empty"
	}
	head := f[0]
	wild := hasWildcard(p)
	if hasWildcard(head) {
		return "the program name must be literal"
	}
	if !wild {
		return ""
	}
	if neverGeneralise.get()[path.Base(head)] || runners.get()[path.Base(head)] || strings.Contains(head, "/") {
		return head + " runs other programs; approve exact commands instead"
	}
	if strings.HasPrefix(head, "-") || strings.ContainsAny(head, "{}$`") {
		return head + " is not a program name; approve exact commands instead"
	}
	if subRunsCode(f) {
		return "this " + head + " subcommand runs code or commands it is given; approve exact commands instead"
	}
	if destructive(f) || head == "pacman" || head == "yay" || head == "paru" {
		return "a wildcard rule for " + head + " would allow destroying anything; approve exact commands instead"
	}
	if subs, ok := runnerSubcommands.get()[head]; ok && len(f) > 1 && contains(subs, f[1]) {
		return head + " " + f[1] + " runs other programs; approve exact commands instead"
	}
	if subcommands.get()[head] && (len(f) < 2 || hasWildcard(f[1]) || strings.HasPrefix(f[1], "-")) {
		return "a rule for every " + head + " subcommand allows too much; name the subcommand"
	}
	return ""
}

// hasWildcard reports an unescaped `*` in a command rule.
func hasWildcard(p string) bool {
	for _, t := range globTokens(p) {
		if t.star {
			return true
		}
	}
	return false
}

// denyInside reports a deny rule matching a tail of argv (from its second
// word on): a session rule never allows such a command, whatever it says.
func (c *checker) denyInside(argv []word) bool {
	deny := c.e.table("bash").deny
	if len(deny) == 0 {
		return false
	}
	for i := 1; i < len(argv) && i < 64; i++ {
		t := joinWords(argv[i:])
		b := path.Base(argv[i].text)
		if i+1 < len(argv) {
			b += " " + joinWords(argv[i+1:])
		}
		for _, r := range deny {
			if matchCommand(r.pat, t) || matchCommand(r.pat, b) {
				return true
			}
		}
	}
	return false
}
