package permission

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// readOnlyPrograms are programs that, run with the arguments ReadOnly
// accepts, read and print and change no file. The change journal skips its
// before/after scans of the workspace for such commands (a scan of a large
// tree costs tens of milliseconds), so the list is short and plain: a
// program missing from it is only scanned, never wrong.
var readOnlyPrograms = []string{
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "true", "false",
	"test", "[", "stat", "file", "du", "df", "tree", "which", "type", "date", "uname", "id", "whoami",
	"hostname", "basename", "dirname", "realpath", "readlink", "diff", "cmp", "cut", "tr", "nl", "od",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "jq", "printenv", "nproc", "seq", "sleep",
	"find", "sort", "uniq", "printf", "git", "go",
}

// readOnlyGit and readOnlyGo are the subcommands that only read.
var (
	readOnlyGit = []string{"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "grep", "describe", "shortlog", "cat-file", "ls-tree"}
	readOnlyGo  = []string{"version", "list", "doc", "env"}
)

// ReadOnly reports whether cmd surely changes no file: every command in it
// is one of readOnlyPrograms with arguments that do not make it write,
// there is no redirection into a file (but /dev/null), no command or
// process substitution, no arithmetic, no assignment and no function. It
// answers false whenever it is not sure.
func ReadOnly(cmd string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return false
	}
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch x := n.(type) {
		case *syntax.Redirect:
			if redirWrites(x) {
				ok = false
			}
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause,
			*syntax.FuncDecl, *syntax.Assign, *syntax.DeclClause, *syntax.CoprocClause, *syntax.TestDecl:
			ok = false
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) {
				ok = false
			}
		case *syntax.CallExpr:
			ok = readOnlyCall(x)
		}
		return ok
	})
	return ok
}

// redirWrites reports whether r may write a file: output redirections to
// anything but /dev/null, and here-strings are fine.
func redirWrites(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn, syntax.DplOut:
		return false
	}
	return r.Word == nil || r.Word.Lit() != "/dev/null"
}

func readOnlyCall(x *syntax.CallExpr) bool {
	if len(x.Args) == 0 {
		return false // an assignment alone
	}
	name := x.Args[0].Lit()
	if name == "" || !slices.Contains(readOnlyPrograms, name) {
		return false
	}
	var args []string
	for _, a := range x.Args[1:] {
		args = append(args, a.Lit()) // "" for a word with expansions
	}
	has := func(flags ...string) bool {
		return slices.ContainsFunc(args, func(a string) bool {
			return slices.ContainsFunc(flags, func(f string) bool { return a == f || strings.HasPrefix(a, f+"=") })
		})
	}
	switch name {
	case "find":
		return !has("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
	case "sort":
		return !slices.ContainsFunc(args, func(a string) bool {
			return a == "-o" || strings.HasPrefix(a, "-o") || strings.HasPrefix(a, "--output")
		})
	case "uniq":
		n := 0
		for _, a := range args {
			if a == "" || !strings.HasPrefix(a, "-") {
				n++
			}
		}
		return n <= 1 // uniq IN OUT writes OUT
	case "printf":
		return !has("-v")
	case "git":
		return len(args) > 0 && slices.Contains(readOnlyGit, args[0]) && !has("--output", "-o")
	case "go":
		return len(args) > 0 && slices.Contains(readOnlyGo, args[0]) && !(args[0] == "env" && has("-w", "-u"))
	}
	return true
}
