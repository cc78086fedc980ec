package permission

import (
	"slices"
	"strings"
)

// operandReaders only read or print the paths they are given, so a
// protected path among their operands (`cat .git/HEAD`, `ls .vscode`) is
// not a write. Every other program may write where an operand or an
// option's value points: `tsc --outDir .git/hooks`, `split x .git/hooks/`,
// `npm test -- --outputFile=.git/hooks/pre-commit`,
// `make test ARGS='-o .git/hooks/pre-commit'`.
var operandReaders = &set{items: []string{
	"ls", "cat", "head", "tail", "wc", "grep", "egrep",
	"fgrep", "rg", "stat", "file", "du", "tree", "realpath",
	"readlink", "diff", "cmp", "cut", "nl", "od", "md5sum",
	"sha1sum", "sha256sum", "sha512sum", "jq", "find", "less",
	"more", "cd", "pushd", "xxd", "hexdump", "strings",
	"base64", "tac", "rev", "paste", "comm", "fold", "expand",
}}

// protectedOperands asks for a command whose words name a path that
// protectedForShell guards, unless the program only reads its operands.
// A word is looked at whole, after its last `=`, as the value glued to a
// short option, and split at spaces (a make or npm variable's value). It is
// a structural check: neither an allow rule such as `npm test*` nor a
// session rule such as `tsc *` lifts it.
func (c *checker) protectedOperands(base string, argv []word, pl *plan) {
	if operandReaders.get()[base] || pathless.get()[base] || len(argv) < 2 {
		return
	}
	if base == "git" && gitReads(argv[1:]) {
		return
	}
	for _, a := range argv[1:] {
		if !a.static {
			continue
		}
		for _, piece := range strings.Fields(a.text) {
			for _, cand := range operandCandidates(piece) {
				if why := c.protectedCandidate(cand); why != "" {
					pl.ask(a.text, "may write to a "+why)
					return
				}
			}
		}
	}
}

// gitReads reports a git subcommand that only reads (readOnlyGit).
func gitReads(args []word) bool {
	for i := 0; i < len(args); i++ {
		t := args[i].text
		if t == "-C" || t == "-c" {
			i++
			continue
		}
		if strings.HasPrefix(t, "-") {
			continue
		}
		return slices.Contains(readOnlyGit, t)
	}
	return false
}

// operandCandidates are the paths a word may name.
func operandCandidates(w string) []string {
	out := []string{w}
	if i := strings.LastIndexByte(w, '='); i >= 0 {
		out = append(out, w[i+1:])
	}
	if len(w) > 2 && w[0] == '-' && w[1] != '-' {
		out = append(out, w[2:])
	}
	return out
}

// protectedCandidate returns why the literal path p is protected, or "".
func (c *checker) protectedCandidate(p string) string {
	p = strings.Trim(p, `'"`)
	if p == "" || urlLike.get().MatchString(p) || !strings.ContainsAny(p, "./") && !strings.HasPrefix(strings.ToLower(p), ".") {
		return ""
	}
	abs, ok := c.abs(p)
	if !ok || !within(c.e.ws, abs) && !within(c.e.real(), abs) {
		return ""
	}
	if bad, why := protectedForShell(c.e.rel(abs)); bad {
		return why
	}
	if real, why := c.e.resolve(abs); why == "" {
		if bad, why := protectedForShell(c.e.rel(real)); bad {
			return why
		}
	}
	return ""
}
