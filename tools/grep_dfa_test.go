package tools

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// dfaPatterns exercise each kind of instruction and empty-width
// assertion the DFA handles, folds (with the Kelvin sign and long s),
// non-ASCII classes and patterns whose DFA outgrows its bound.
var dfaPatterns = []string{
	`[A-Z][a-z]+[0-9]{3}`, `^$`, `^`, `$`, `x*`, `a|b`, `\bfoo\b`, `\Bfoo`, `foo\B`, `^\s*}$`,
	`(?i)kelvin`, `(?i)STATUS`, `(?i)straße`, `é+`, `[^a-z]+`, `.`, `(?s).`, `\pL\pN`, `[\p{Greek}]{2}`,
	`\x{FFFD}`, `a.c`, `\Aabc`, `abc\z`, `(?m)^a.*b$`, `(?U)a+?b`, `(a|ab)(c|bcd)(d*)`, `\w+_test\b`,
	`(a|b)*a(a|b){12}`, `[[:^alpha:]]{3}`, `\b`, `\B`, `(?i)ſ`, `x{2,5}y?`, `\t|\r`, `\r$`,
	`caf\xe9`, `[\x{80}-\x{10FFFF}]`, `(?:^|,)b(?:,|$)`,
}

// dfaTexts are whole buffers: with and without a final newline, with
// CRLF, invalid UTF-8, the runes that fold with ASCII, empty lines.
var dfaTexts = []string{
	"", "\n", "\n\n", "abc", "abc\n", "Hello123 World456\nnothing here\nFoo999\n",
	"foo\nxfoo\n foo \nfoox\nfoo", "  }\n}\n}x\n\t}\r\n", "\u212Aelvin\nKELVIN\nstatu\u017F\n",
	"straße\nSTRASSE\nstrasse\n", "caf\xe9\ncafé\n\xff\xfe\n", "a,b,c\nb\n,b\nab\n", "aab\nab\nb\n",
	"abcd\nabcbcd\nxabcz\n", "αβγ\nαβ\nα1\n", "x_test y\n_test\nfoo_testing\n", "\r\n\r\nx\r",
	"abababababababababababab\nbbbbbbbbbbbbbbabbbbbbbbbbbbbbbbb\n",
}

// wantLines is the reference: regexp.Match on each line, as grep did.
func wantLines(re *regexp.Regexp, buf []byte) []string {
	var out []string
	for line := range bytes.Lines(buf) {
		line = bytes.TrimSuffix(line, nl)
		if re.Match(line) {
			out = append(out, string(line))
		}
	}
	return out
}

func dfaLines(t testing.TB, expr string, buf []byte) []string {
	re := regexp.MustCompile(expr)
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	d := newLineDFA(prog, re)
	var out []string
	d.scan(buf, func(ls, le int) bool {
		if !d.match(buf[ls:le]) {
			t.Errorf("%q: match(%q) disagrees with scan", expr, buf[ls:le])
		}
		out = append(out, string(buf[ls:le]))
		return true
	})
	return out
}

func TestLineDFAMatchesRegexp(t *testing.T) {
	t.Parallel()
	for _, expr := range dfaPatterns {
		re := regexp.MustCompile(expr)
		for _, text := range dfaTexts {
			if got, want := dfaLines(t, expr, []byte(text)), wantLines(re, []byte(text)); !slices.Equal(got, want) {
				t.Errorf("%q over %q: got %q, want %q", expr, text, got, want)
			}
		}
	}
}

// TestLineDFARandom compares with regexp on random texts over a small
// alphabet, long enough that the exploding pattern drops its cache and
// falls back to regexp.
func TestLineDFARandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "c", "A", "1", "_", " ", "\n", "é", "\u212A", "\xff", "\r", "}", ","}
	for _, expr := range dfaPatterns {
		re := regexp.MustCompile(expr)
		for range 20 {
			var b strings.Builder
			for range r.IntN(3000) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			buf := []byte(b.String())
			if got, want := dfaLines(t, expr, buf), wantLines(re, buf); !slices.Equal(got, want) {
				t.Fatalf("%q over %q: got %d lines, want %d", expr, buf, len(got), len(want))
			}
		}
	}
}

// TestLineDFABound checks that a pattern past the state bound gives up on
// the DFA and still finds every line.
func TestLineDFABound(t *testing.T) {
	t.Parallel()
	expr := `(a|b)*a(a|b){14}c`
	r := rand.New(rand.NewPCG(3, 4))
	var b bytes.Buffer
	for range 400 {
		for range 200 {
			b.WriteByte("ab"[r.IntN(2)])
		}
		b.WriteString("c\n")
	}
	re := regexp.MustCompile(expr)
	tree, _ := syntax.Parse(expr, syntax.Perl)
	prog, _ := syntax.Compile(tree.Simplify())
	d := newLineDFA(prog, re)
	n := 0
	d.scan(b.Bytes(), func(int, int) bool { n++; return true })
	if want := len(wantLines(re, b.Bytes())); n != want || !d.failed || want == 0 || want == 400 {
		t.Fatalf("got %d lines (failed=%v), want %d and a fallback", n, d.failed, want)
	}
}

// TestLineDFAManyRunes checks the bound on non-ASCII transitions: text
// with more distinct runes than it allows, in short lines and in one
// long line.
func TestLineDFAManyRunes(t *testing.T) {
	t.Parallel()
	var short, long strings.Builder
	for r := rune(0x100); r < 0x100+dfaMaxWide+5000; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		short.WriteRune(r)
		long.WriteRune(r)
		if r%500 == 0 {
			short.WriteString("Ab123\n")
		}
	}
	for _, text := range []string{short.String(), long.String() + "Ab123\n"} {
		expr := `[A-Z][a-z]+[0-9]{3}|\x{F000}`
		got, want := dfaLines(t, expr, []byte(text)), wantLines(regexp.MustCompile(expr), []byte(text))
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
	}
}

// TestLineDFAGoSource compares with regexp over part of Go's source tree
// (real text: tabs, comments, UTF-8, long lines).
func TestLineDFAGoSource(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(proctest.GoRoot(), "src", "unicode", "*", "*.go"))
	more, _ := filepath.Glob(filepath.Join(proctest.GoRoot(), "src", "strings", "*.go"))
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("only %d files under GOROOT", len(files))
	}
	for _, expr := range []string{`[A-Z][a-z]+[0-9]{3}`, `^func \(`, `\bif\b.*\{$`, `(?i)UNICODE`, `[^\x00-\x7f]`, `//.*\bTODO\b`} {
		re := regexp.MustCompile(expr)
		total := 0
		for _, f := range files {
			buf, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, want := dfaLines(t, expr, buf), wantLines(re, buf)
			if !slices.Equal(got, want) {
				t.Fatalf("%q over %s: got %d lines, want %d", expr, f, len(got), len(want))
			}
			total += len(want)
		}
		if total == 0 {
			t.Errorf("%q matches nothing: the comparison proves little", expr)
		}
	}
}

func FuzzLineDFA(f *testing.F) {
	for i, p := range dfaPatterns {
		f.Add(p, dfaTexts[i%len(dfaTexts)])
	}
	f.Fuzz(func(t *testing.T, expr, text string) {
		re, err := regexp.Compile(expr)
		if err != nil || len(expr) > 64 {
			return
		}
		if got, want := dfaLines(t, expr, []byte(text)), wantLines(re, []byte(text)); !slices.Equal(got, want) {
			t.Fatalf("%q over %q: got %q, want %q", expr, text, got, want)
		}
	})
}
