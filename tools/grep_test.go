package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

func grepText(t *testing.T, ws Workspace, p GrepParams) string {
	t.Helper()
	res := runTool(t, NewGrep(ws), p)
	if res.IsError {
		t.Fatalf("grep %+v: %s", p, res.Text)
	}
	return res.Text
}

func TestGrep(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{
		".gitignore":     "ignored/\n*.gen.go\n",
		"a.go":           "package a\nfunc main() {}\n// a.c abc\nFUNC MAIN\n",
		"b.txt":          "foo\nxfoo\nfoo\n",
		"sub/c.go":       "func main() {\n\treturn\n}\n",
		"sub/deep/d.go":  "a  b\na\nb\n",
		"sub/x.gen.go":   "func main() generated\n",
		"ignored/e.go":   "func main() ignored\n",
		"bin.dat":        "func main\x00binary",
		"crlf.txt":       "func main\r\nline two\r\n",
		"latin1.txt":     "caf\xe9 func main\n",
		".hidden/h.conf": "func main hidden\n",
		".git/HEAD":      "func main in .git\n",
	})
	if err := os.Symlink("/etc", filepath.Join(dir, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(dir, "alias.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    GrepParams
		want string
	}{
		{"literal everywhere", GrepParams{Pattern: "func main", Literal: true},
			".hidden/h.conf:1:func main hidden\na.go:2:func main() {}\ncrlf.txt:1:func main\nlatin1.txt:1:caf\uFFFD func main\nsub/c.go:1:func main() {\n"},
		{"regex with literal part", GrepParams{Pattern: `func \w+\(\)`},
			"a.go:2:func main() {}\nsub/c.go:1:func main() {\n"},
		{"literal is not a regex", GrepParams{Pattern: "a.c", Literal: true}, "a.go:3:// a.c abc\n"},
		{"regex dot", GrepParams{Pattern: "a.c", Path: "a.go"}, "a.go:3:// a.c abc\n"},
		{"ignore case literal", GrepParams{Pattern: "func MAIN", Literal: true, IgnoreCase: true, Path: "a.go"}, "a.go:2:func main() {}\na.go:4:FUNC MAIN\n"},
		{"ignore case regex", GrepParams{Pattern: `^FUNC`, IgnoreCase: true, Glob: "*.go"}, "a.go:2:func main() {}\na.go:4:FUNC MAIN\nsub/c.go:1:func main() {\n"},
		{"anchors per line", GrepParams{Pattern: "^foo$"}, "b.txt:1:foo\nb.txt:3:foo\n"},
		{"no match across lines", GrepParams{Pattern: `a\s+b`}, "sub/deep/d.go:1:a  b\n"},
		{"path dir", GrepParams{Pattern: "main", Path: "sub"}, "sub/c.go:1:func main() {\n"},
		{"path file", GrepParams{Pattern: "return", Path: "sub/c.go"}, "sub/c.go:2:\treturn\n"},
		{"explicit ignored file", GrepParams{Pattern: "main", Path: "sub/x.gen.go"}, "sub/x.gen.go:1:func main() generated\n"},
		{"explicit ignored dir", GrepParams{Pattern: "main", Path: "ignored"}, "ignored/e.go:1:func main() ignored\n"},
		{"glob name", GrepParams{Pattern: "main", Glob: "*.go"}, "a.go:2:func main() {}\nsub/c.go:1:func main() {\n"},
		{"glob path", GrepParams{Pattern: "main", Glob: "sub/**"}, "sub/c.go:1:func main() {\n"},
		{"glob relative to path", GrepParams{Pattern: ".", Glob: "deep/*.go", Path: "sub"}, "sub/deep/d.go:1:a  b\nsub/deep/d.go:2:a\nsub/deep/d.go:3:b\n"},
		{"empty matches count", GrepParams{Pattern: "x*", Path: "b.txt"}, "b.txt:1:foo\nb.txt:2:xfoo\nb.txt:3:foo\n"},
		{"no match", GrepParams{Pattern: "nowhere"}, "No matches for \"nowhere\" in the workspace.\n"},
		{"no match in dir", GrepParams{Pattern: "nowhere", Path: "sub/"}, "No matches for \"nowhere\" in sub.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := grepText(t, ws, tt.p); got != tt.want {
				t.Fatalf("grep %+v:\n%s\nwant:\n%s", tt.p, got, tt.want)
			}
		})
	}

	refused := []struct {
		p    GrepParams
		want string
	}{
		{GrepParams{Pattern: "("}, "not a valid RE2 regular expression"},
		{GrepParams{Pattern: `(?<=a)b`}, "not a valid RE2"},
		{GrepParams{Pattern: ""}, "pattern is empty"},
		{GrepParams{Pattern: "x", Path: "../"}, "outside the workspace"},
		{GrepParams{Pattern: "x", Path: "etc"}, "outside the workspace"},
		{GrepParams{Pattern: "x", Path: "/etc/passwd"}, "outside the workspace"},
		{GrepParams{Pattern: "x", Glob: "[x"}, "not a valid glob"},
		{GrepParams{Pattern: "x", Path: "bin.dat"}, "binary file"},
		{GrepParams{Pattern: "x", Path: "nope"}, "does not exist"},
	}
	for _, tt := range refused {
		res := runTool(t, NewGrep(ws), tt.p)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("grep %+v = %v %q, want an error with %q", tt.p, res.IsError, res.Text, tt.want)
		}
	}
}

func TestGrepCapsAndOrder(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	// 40 files of 20 matching lines: 800 matches over many workers.
	for i := range 40 {
		var b strings.Builder
		for j := 1; j <= 30; j++ {
			if j%3 == 0 {
				fmt.Fprintf(&b, "other %d\n", j)
				continue
			}
			fmt.Fprintf(&b, "hit %d %s\n", j, strings.Repeat("é", 200*(j%2)))
		}
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = b.String()
	}
	ws, dir := newWS(t, files)
	out := grepText(t, ws, GrepParams{Pattern: "hit"})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != GrepMaxMatches+1 {
		t.Fatalf("%d lines, want %d and a footer", len(lines), GrepMaxMatches+1)
	}
	if want := "[... 300 more matches not shown (800 in 40 files in all); narrow the pattern, path or glob]"; lines[GrepMaxMatches] != want {
		t.Fatalf("footer %q, want %q", lines[GrepMaxMatches], want)
	}
	type key struct {
		path string
		line int
	}
	var keys []key
	for _, l := range lines[:GrepMaxMatches] {
		parts := strings.SplitN(l, ":", 3)
		n, _ := strconv.Atoi(parts[1])
		keys = append(keys, key{parts[0], n})
		if len(parts[2]) > GrepMaxLineBytes+40 {
			t.Fatalf("line not cut: %d bytes", len(parts[2]))
		}
		if strings.ContainsRune(parts[2], '\uFFFD') {
			t.Fatalf("rune split by the cut: %q", parts[2])
		}
	}
	if !slices.IsSortedFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.path, b.path); c != 0 {
			return c
		}
		return a.line - b.line
	}) {
		t.Fatal("results not sorted by path then line")
	}
	if keys[0] != (key{"d0/f00.txt", 1}) || keys[1] != (key{"d0/f00.txt", 2}) || keys[2] != (key{"d0/f00.txt", 4}) {
		t.Fatalf("first results %v", keys[:3])
	}

	// A hard-linked file is skipped and counted.
	if err := os.Link(filepath.Join(dir, "d0/f00.txt"), filepath.Join(dir, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	out = grepText(t, ws, GrepParams{Pattern: "hit 1 ", Path: "."})
	if !strings.Contains(out, "[files skipped: 2 hard-linked") {
		t.Fatalf("hard links not reported:\n%s", out)
	}
}

func TestRequiredLiteralFold(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`(?i)func main`:    "func main",
		`(?i)Reader\(`:     "reader(",
		`(?i)class`:        "", // s folds with U+017F
		`(?i)kelvin`:       "", // k folds with U+212A
		`(?i)café`:         "", // non-ASCII
		`(?i)ab(?-i:XYZW)`: "xyzw",
		`(?i)abc\w+defg`:   "defg",
	}
	for expr, want := range tests {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := strings.Join(requiredLiterals(re.Simplify(), litFold), "|"); got != want {
			t.Errorf("requiredLiteral(%q, fold) = %q, want %q", expr, got, want)
		}
	}
	for expr, want := range map[string]string{`(?i)class`: "class", `(?i)kelvin`: "kelvin", `(?i)café`: ""} {
		re, _ := syntax.Parse(expr, syntax.Perl)
		if got := strings.Join(requiredLiterals(re.Simplify(), litFoldASCII), "|"); got != want {
			t.Errorf("requiredLiterals(%q, ASCII fold) = %q, want %q", expr, got, want)
		}
	}
	// The Kelvin sign matches (?i)k: a folded prefilter must not lose it.
	ws, _ := newWS(t, map[string]string{"k.txt": "\u212Aelvin\nKELVIN\n", "r.txt": "READER(x)\nreader(y)\nRe\u017Fder\n",
		"ascii.txt": "no kelvin sign here\nKeLvIn\n", "utf8.txt": "café kelvin\n"})
	if got, want := grepText(t, ws, GrepParams{Pattern: "kelvin", Literal: true, IgnoreCase: true}), "ascii.txt:1:no kelvin sign here\nascii.txt:2:KeLvIn\nk.txt:1:\u212Aelvin\nk.txt:2:KELVIN\nutf8.txt:1:café kelvin\n"; got != want {
		t.Errorf("kelvin: got %q, want %q", got, want)
	}
	if got, want := grepText(t, ws, GrepParams{Pattern: "reader(", Literal: true, IgnoreCase: true}), "r.txt:1:READER(x)\nr.txt:2:reader(y)\n"; got != want {
		t.Errorf("reader(: got %q, want %q", got, want)
	}
}

func TestRequiredLiteral(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"func main":             "func main",
		`func \w+Reader\(`:      "Reader(",
		`(foo)+bar`:             "foo",
		`x{2,}yz`:               "yz",
		`a|b`:                   "", // a character class
		`TODO|FIXME|XXX`:        "TODO|FIXME|XXX",
		`func (Foo|Bar)\(`:      "func ",
		`(Foo|Bar)Reader`:       "Reader",
		`(FooBar|BazQux)\(`:     "FooBar|BazQux",
		`(a|b|c|d|e|f|g|h|i)x`:  "x",
		`(a|b|c|d|e|f|g|h|i)`:   "",
		`(ab|c*)`:               "",
		`[A-Z][a-z]+[0-9]{3}`:   "",
		`(?i)hello`:             "",
		`\w+_test\b`:            "_test",
		`^package (\w+)$`:       "package ",
		`colou?r`:               "colo",
		`(abc)*def`:             "def",
		`prefix.*(?:long_one)`:  "long_one",
		`\bcase-sensitive\b`:    "case-sensitive",
		`héllo\s`:               "héllo",
		`(?s)a.b`:               "a",
		`(?i:x)yz`:              "yz",
		`(?:ab|cd)ef`:           "ef",
		`[ab]cdefg`:             "cdefg",
		`x?`:                    "",
		`(a+)(bbbb)`:            "bbbb",
		`\Qa.b\E`:               "a.b",
		`z{0}must`:              "must",
		`nonempty+`:             "nonempt",
		`\x00`:                  "\x00",
		`(?U)lazy+`:             "laz",
		`(foo|foo)bar`:          "foo",
		`literal with\ttab`:     "literal with\ttab",
		`tail$`:                 "tail",
		`emoji😀+end`:            "emoji",
		`[[:alpha:]]+something`: "something",
	}
	for expr, want := range tests {
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := strings.Join(requiredLiterals(re.Simplify(), litExact), "|"); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", expr, got, want)
		}
		// Every match must contain one of the literals.
		if want != "" {
			m := regexp.MustCompile(expr)
			for _, s := range []string{want, "x " + want + " y", "func fooReader(", "colour color", "func Foo(", "cx"} {
				loc := m.FindStringIndex(s)
				if loc == nil {
					continue
				}
				if !slices.ContainsFunc(strings.Split(want, "|"), func(l string) bool { return strings.Contains(s[loc[0]:loc[1]], l) }) {
					t.Errorf("%q matches %q without any of %q", expr, s[loc[0]:loc[1]], want)
				}
			}
		}
	}
}

// TestGrepMatchesRipgrep compares match counts with rg over part of Go's
// source tree, for the pattern kinds the engine treats differently.
func TestGrepMatchesRipgrep(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		proctest.Need(t, "rg", "scripts/test installs it (Debian package ripgrep)")
	}
	src := filepath.Join(proctest.GoRoot(), "src", "regexp")
	ws, err := NewDiskWorkspace(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	cases := []GrepParams{
		{Pattern: "func ", Literal: true},
		{Pattern: `func \w+\(`},
		{Pattern: `[A-Z][a-z]+[0-9]`},
		{Pattern: `\w+_test\b`},
		{Pattern: "REGEXP", IgnoreCase: true},
		{Pattern: "^}$"},
		{Pattern: "Match", Glob: "*_test.go"},
		{Pattern: "Longest|Submatch|POSIX"},
		{Pattern: "longest|posix", IgnoreCase: true},
		{Pattern: "submatch", IgnoreCase: true},
		{Pattern: "ſubmatch", IgnoreCase: true},
		{Pattern: `(Reader|Writer)\(`},
	}
	for _, p := range cases {
		args := []string{"--count", "--no-require-git", "--hidden", "--no-messages"}
		if p.Literal {
			args = append(args, "-F")
		}
		if p.IgnoreCase {
			args = append(args, "-i")
		}
		if p.Glob != "" {
			args = append(args, "-g", p.Glob)
		}
		cmd := exec.Command(rg, append(args, "-e", p.Pattern, ".")...)
		cmd.Dir = src
		out, _ := cmd.Output()
		want := 0
		for l := range strings.Lines(string(out)) {
			_, n, _ := strings.Cut(strings.TrimSpace(l), ":")
			k, _ := strconv.Atoi(n)
			want += k
		}
		text := grepText(t, ws, p)
		got := strings.Count(text, "\n")
		if m := regexp.MustCompile(`\((\d+) in \d+ files in all\)`).FindStringSubmatch(text); m != nil {
			got, _ = strconv.Atoi(m[1])
		}
		if got != want || want == 0 {
			t.Errorf("grep %+v: %d matching lines, rg says %d", p, got, want)
		}
	}
}

// TestGrepLargeFile searches a file bigger than grep reads whole, with
// matches on both sides of the chunk boundaries.
func TestGrepLargeFile(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, nil)
	var b strings.Builder
	var want strings.Builder
	line := 0
	for b.Len() < grepWholeFile+grepChunk/2 {
		line++
		// Lines of 13 or 16 bytes (so chunk edges fall inside lines); a
		// needle every 100003 lines and on each line at a chunk edge.
		off := b.Len()
		atEdge := off/grepChunk != (off+16)/grepChunk || off%grepChunk == 0
		if line%100003 == 0 || atEdge {
			fmt.Fprintf(&b, "needle %08d\n", line)
			fmt.Fprintf(&want, "big.log:%d:needle %08d\n", line, line)
		} else {
			b.WriteString("............\n")
		}
	}
	mustWrite(t, filepath.Join(dir, "big.log"), b.String())
	total := strings.Count(want.String(), "\n")
	got := grepText(t, ws, GrepParams{Pattern: "needle", Literal: true})
	wantText := want.String()
	if total > GrepMaxMatches {
		t.Fatalf("test makes %d matches, over the cap", total)
	}
	if got != wantText {
		t.Fatalf("large file: got %d lines, want %d:\n%s", strings.Count(got, "\n"), total, Truncate(got, 20, 2000))
	}
	// The same through path (explicit file) and a regex.
	if got := grepText(t, ws, GrepParams{Pattern: `needle \d+`, Path: "big.log"}); got != wantText {
		t.Fatalf("explicit large file: got %d lines, want %d", strings.Count(got, "\n"), total)
	}
}
