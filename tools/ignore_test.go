package tools

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIgnoreMatcherAgainstGoGit checks the indexed matcher against go-git's
// patterns applied one by one (matchReference), on the patterns of
// bigIgnore and ignoreTree plus random ones, over random paths and nested
// domains.
func TestIgnoreMatcherAgainstGoGit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"a", "b", "x.log", "x.go", "main.go", "build", "node_modules", ".env", ".env.example",
		".env.local", "npm-debug.log.1", "lib.o", "lib.a", "lib.c", "cache", "Release", "a.tar.gz", "a.", ".log",
		"#hash", "trailing.txt", "x.pyc", "x.pyx", "report.1.2.3.4.json", "__pycache__", "dist", "generated", "y.pb.go", "keep"}
	segments := []string{"a", "b", "src", "build", "vendor", "keep", "docs", "generated", "x"}
	atoms := []string{"*", "?", "[ab]", "[!x]", "**", "a", "b", ".log", "go", "x", "build", "keep", "\\#", "env", ".", "-"}
	randomPattern := func() string {
		var b strings.Builder
		if r.IntN(5) == 0 {
			b.WriteString("!")
		}
		if r.IntN(6) == 0 {
			b.WriteString("/")
		}
		for n := 1 + r.IntN(3); n > 0; n-- {
			for k := 1 + r.IntN(3); k > 0; k-- {
				b.WriteString(atoms[r.IntN(len(atoms))])
			}
			if n > 1 {
				b.WriteString("/")
			}
		}
		if r.IntN(4) == 0 {
			b.WriteString("/")
		}
		if r.IntN(10) == 0 {
			b.WriteString("  ")
		}
		return b.String()
	}
	var lines []string
	lines = append(lines, strings.Split(bigIgnore, "\n")...)
	lines = append(lines, strings.Split(ignoreTree[".gitignore"], "\n")...)
	lines = append(lines, "*.go", "!main.go", "!x.go", "*", "*.", "x*", "!*.log", "build", "build/", "**", "a/**", "**/b")
	for range 300 {
		lines = append(lines, randomPattern())
	}
	checked := 0
	for round := range 200 {
		// A root .gitignore and one or two nested ones, each a random pick.
		var rules ignoreRules
		domains := [][]string{nil, {"a"}, {"a", "b"}, {"src"}}
		for _, d := range domains[:1+r.IntN(len(domains))] {
			var text strings.Builder
			for range 1 + r.IntN(12) {
				text.WriteString(lines[r.IntN(len(lines))] + "\n")
			}
			rules = append(rules, parseIgnore([]byte(text.String()), d)...)
		}
		m := compileIgnore(rules)
		for range 300 {
			var path []string
			for n := r.IntN(4); n > 0; n-- {
				path = append(path, segments[r.IntN(len(segments))])
			}
			path = append(path, names[r.IntN(len(names))])
			isDir := r.IntN(3) == 0
			got, want := m.match(path, isDir), rules.matchReference(path, isDir)
			if got != want {
				var pats []string
				for _, rule := range rules {
					pats = append(pats, strings.Join(rule.domain, "/")+": "+rule.lit)
				}
				t.Fatalf("round %d: %q dir=%v: indexed %v, go-git %v; rules %q", round, path, isDir, got, want, pats)
			}
			checked++
		}
	}
	t.Logf("%d paths checked", checked)
}
