package tools

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestStrReplace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		file     string
		old, new string
		all      bool
		want     string   // file content after; "" means unchanged
		says     []string // in the result text
		err      bool
	}{
		{name: "simple", file: "a\nb\nc\n", old: "b", new: "B", want: "a\nB\nc\n",
			says: []string{"Edited f.txt: replaced 1 occurrence at line 2.", "     2\tB\n"}},
		{name: "crlf file, lf old and new", file: "a\r\nb\r\nc\r\n", old: "a\nb\n", new: "x\ny\nz\n", want: "x\r\ny\r\nz\r\nc\r\n"},
		{name: "crlf file, single line old, multi-line new", file: "a\r\nb\r\n", old: "a", new: "a1\na2", want: "a1\r\na2\r\nb\r\n"},
		{name: "lf file, crlf old", file: "a\nb\nc\n", old: "a\r\nb", new: "x\r\ny", want: "x\ny\nc\n"},
		{name: "no final newline kept", file: "one\ntwo", old: "two", new: "2\n", want: "one\n2"},
		{name: "final newline kept", file: "one\ntwo\n", old: "two\n", new: "2", want: "one\n2\n"},
		{name: "delete the last line", file: "one\ntwo\n", old: "two\n", new: "", want: "one\n"},
		{name: "multibyte before and inside", file: "café 🙂 中文\nx = ünïcode\n", old: "🙂 中文\nx = ün", new: "😀 漢字\nx = ÜN",
			want: "café 😀 漢字\nx = ÜNïcode\n"},
		{name: "bom kept", file: "\ufeffpackage a\n\nfunc f() {}\n", old: "package a", new: "package b", want: "\ufeffpackage b\n\nfunc f() {}\n"},
		{name: "bom in old_str kept", file: "\ufeffpackage a\n", old: "\ufeffpackage a", new: "package b", want: "\ufeffpackage b\n"},
		{name: "bom, tolerant first line", file: "\ufeff  package a\nx\n", old: "package a \nx", new: "package b\ny", want: "\ufeff  package b\n  y\n",
			says: []string{"Note: old_str did not match exactly"}},
		{name: "whitespace inside lines differs", file: "x  =  1\ny = 2\n", old: "x = 1", new: "x = 3", err: true,
			says: []string{"differs from line 1 only in whitespace", "     1\tx  =  1"}},
		{name: "line endings differ in a mixed file", file: "x = foo(1)\r\ny = 2\nz\r\n", old: "foo(1)\ny = 2\r\nz", new: "bar", err: true,
			says: []string{"matches at line 1 if line endings are ignored", "mixes CRLF and LF"}},
		{name: "many matches", file: "a\nb\na\nb\na\n", old: "a\n", new: "c\n", err: true,
			says: []string{"old_str matches 3 times in f.txt (at lines 1, 3, 5)", "set replace_all"}},
		{name: "overlapping matches count", file: "aaa\n", old: "aa", new: "b", err: true, says: []string{"matches 2 times"}},
		{name: "replace_all", file: "a\nb\na\nb\na\n", old: "a\n", new: "c\n", all: true, want: "c\nb\nc\nb\nc\n",
			says: []string{"replaced 3 occurrences (old lines 1, 3, 5)"}},
		{name: "tolerant unique", file: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			old: "if x {\n    return 1\n}", new: "if x {\n    return 2\n}",
			want: "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n",
			says: []string{"matched lines 2-4 of f.txt when indentation and trailing whitespace are ignored", "     3\t\t\treturn 2"}},
		{name: "tolerant trailing whitespace", file: "a = 1   \nb = 2\t\n", old: "a = 1\nb = 2\n", new: "a = 10\nb = 20\n", want: "a = 10\nb = 20\n",
			says: []string{"Note:"}},
		{name: "tolerant ambiguous", file: "\tx := 1\ny\n  x := 1\n", old: "x := 1 \n", new: "x := 2\n", err: true,
			says: []string{"matches 2 places (lines 1, 3)", "not used"}},
		{name: "no match shows closest lines", file: "func alpha() {}\nfunc beta() {}\n", old: "func alphx() {}", new: "x", err: true,
			says: []string{"old_str was not found in f.txt", "     1\tfunc alpha() {}"}},
		{name: "no match names the differing line", file: "a\nb\nc\nd\n", old: "a\nb\nX\n", new: "y", err: true,
			says: []string{"first 2 line(s) match at line 1, but its line 3 differs: the file's line 3 is \"c\", old_str has \"X\". The file may"}},
		{name: "empty old", file: "a\n", old: "", new: "x", err: true, says: []string{"old_str is empty", "write_file"}},
		{name: "same old and new", file: "a\n", old: "a", new: "a", err: true, says: []string{"identical"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEditEnv(t, map[string]string{"f.txt": c.file})
			e.readFile(t, "f.txt")
			res := runTool(t, e.sr, StrReplaceParams{Path: "f.txt", OldStr: c.old, NewStr: c.new, ReplaceAll: c.all})
			if res.IsError != c.err {
				t.Fatalf("IsError %v, want %v:\n%s", res.IsError, c.err, res.Text)
			}
			for _, s := range c.says {
				if !strings.Contains(res.Text, s) {
					t.Errorf("result lacks %q:\n%s", s, res.Text)
				}
			}
			want := c.want
			if want == "" {
				want = c.file
			}
			if got := e.content(t, "f.txt"); got != want {
				t.Fatalf("file is %q, want %q\nresult:\n%s", got, want, res.Text)
			}
			if !c.err {
				e.checkChange(t)
			}
			noTemps(t, e.dir)
		})
	}
}

func TestStrReplaceReads(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\n"})
	if res := runTool(t, e.sr, StrReplaceParams{Path: "a.txt", OldStr: "one", NewStr: "1"}); !res.IsError || !strings.Contains(res.Text, "you have not read a.txt") {
		t.Fatalf("edit without read: %+v", res)
	}
	e.readFile(t, "a.txt")
	mustWrite(t, filepath.Join(e.dir, "a.txt"), "one\ntwo\nthree\n") // changed on disk
	if res := runTool(t, e.sr, StrReplaceParams{Path: "a.txt", OldStr: "one", NewStr: "1"}); !res.IsError || !strings.Contains(res.Text, "changed since you last read it") {
		t.Fatalf("edit of a changed file: %+v", res)
	}
	if got := e.content(t, "a.txt"); got != "one\ntwo\nthree\n" {
		t.Fatalf("file changed: %q", got)
	}
	e.readFile(t, "a.txt")
	// Consecutive edits need no new read.
	for _, p := range []StrReplaceParams{{Path: "a.txt", OldStr: "one", NewStr: "1"}, {Path: "a.txt", OldStr: "two", NewStr: "2"}} {
		if res := runTool(t, e.sr, p); res.IsError {
			t.Fatal(res.Text)
		}
	}
	if got := e.content(t, "a.txt"); got != "1\n2\nthree\n" {
		t.Fatalf("file %q", got)
	}
	// A document the LSP server passed with the prompt counts as read.
	e.reads.MarkRead("b.txt", []byte("x\n"))
	if res := runTool(t, e.sr, StrReplaceParams{Path: "b.txt", OldStr: "x", NewStr: "y"}); res.IsError {
		t.Fatal(res.Text)
	}
	if res := runTool(t, e.sr, StrReplaceParams{Path: "nope.txt", OldStr: "x", NewStr: "y"}); !res.IsError || !strings.Contains(res.Text, "does not exist") {
		t.Fatalf("missing file: %+v", res)
	}
}

func TestStrReplaceMode(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"run.sh": "#!/bin/sh\necho a\n"})
	p := filepath.Join(e.dir, "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	e.readFile(t, "run.sh")
	if res := runTool(t, e.sr, StrReplaceParams{Path: "run.sh", OldStr: "echo a", NewStr: "echo b"}); res.IsError {
		t.Fatal(res.Text)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want 0755", st.Mode())
	}
}

// TestStrReplaceUntouched edits one line in the middle of a large mixed
// file and checks every other byte.
func TestStrReplaceUntouched(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 3000 {
		switch i % 4 {
		case 0:
			b.WriteString("ligne café \t \r\n")
		case 1:
			b.WriteString("\tindent 中文   \n")
		case 2:
			b.WriteString("emoji 🙂\r\n")
		default:
			b.WriteString("plain\n")
		}
	}
	before := b.String() + "MARKER line\r\nend without newline 🙂"
	e := newEditEnv(t, map[string]string{"big.txt": before})
	e.readFile(t, "big.txt")
	if res := runTool(t, e.sr, StrReplaceParams{Path: "big.txt", OldStr: "MARKER line", NewStr: "MARKER changed\nand a new line"}); res.IsError {
		t.Fatal(res.Text)
	}
	e.checkChange(t)
	after := e.content(t, "big.txt")
	i := strings.Index(before, "MARKER")
	if after[:i] != before[:i] || !strings.HasSuffix(after, before[i+len("MARKER line"):]) {
		t.Fatal("bytes outside the edit changed")
	}
	if !strings.Contains(after, "MARKER changed\r\nand a new line\r\nend without newline 🙂") {
		t.Fatalf("edit region: %q", after[i:])
	}
}

func TestStrReplaceConflict(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"a.txt": "one\n"})
	e.readFile(t, "a.txt")
	// The editor refuses once but the buffer still holds what was read: retried.
	e.ed.refuse = 1
	if res := runTool(t, e.sr, StrReplaceParams{Path: "a.txt", OldStr: "one", NewStr: "two"}); res.IsError {
		t.Fatalf("retry failed: %s", res.Text)
	}
	if got := e.content(t, "a.txt"); got != "two\n" {
		t.Fatalf("file %q", got)
	}
	// Refused twice with the same content: reported, nothing written.
	e.ed.refuse = 2
	if res := runTool(t, e.sr, StrReplaceParams{Path: "a.txt", OldStr: "two", NewStr: "three"}); !res.IsError || !strings.Contains(res.Text, "refused the edit of a.txt twice") {
		t.Fatalf("double refusal: %+v", res)
	}
	// The user typed in the buffer meanwhile: no retry, read again.
	e.ed.refuse, e.ed.userEdit = 1, []byte("two\nuser line\n")
	if res := runTool(t, e.sr, StrReplaceParams{Path: "a.txt", OldStr: "two", NewStr: "three"}); !res.IsError ||
		!strings.Contains(res.Text, "the file a.txt changed (the user's buffer was edited) since you read it; read it again") {
		t.Fatalf("user edit: %+v", res)
	}
	if got := e.content(t, "a.txt"); got != "two\nuser line\n" {
		t.Fatalf("user's content lost: %q", got)
	}
}

// TestStrReplaceLarge checks the messages and their cost on a big file:
// many matches are counted with the first lines listed, and a miss is
// diagnosed quickly.
func TestStrReplaceLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "\tfield%d int // comment %d\n", i%5000, i)
	}
	e := newEditEnv(t, map[string]string{"big.go": b.String()})
	e.readFile(t, "big.go")
	start := time.Now()
	res := runTool(t, e.sr, StrReplaceParams{Path: "big.go", OldStr: "int //", NewStr: "int64 //"})
	if !res.IsError || !strings.Contains(res.Text, "matches 100000 times") || !strings.Contains(res.Text, "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, and 99990 more") {
		t.Fatalf("many matches: %s", res.Text)
	}
	var old strings.Builder
	for i := range 50 {
		fmt.Fprintf(&old, "\tfield%d int // comment %d\n", i, i)
	}
	old.WriteString("\tno such line\n")
	res = runTool(t, e.sr, StrReplaceParams{Path: "big.go", OldStr: old.String(), NewStr: "x"})
	if !res.IsError || !strings.Contains(res.Text, "first 50 line(s) match at line 1, but its line 51 differs") {
		t.Fatalf("miss: %s", res.Text)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("diagnostics took %v", d)
	}
	res = runTool(t, e.sr, StrReplaceParams{Path: "big.go", OldStr: "int //", NewStr: "int64 //", ReplaceAll: true})
	if res.IsError || !strings.Contains(res.Text, "replaced 100000 occurrences") {
		t.Fatalf("replace_all: %s", Truncate(res.Text, 5, 500))
	}
	e.checkChange(t)
	t.Logf("took %v", time.Since(start))
}

// TestPlanProperty: for random files and a unique old_str away from the
// end, the edit is exactly content[:i] + new + content[j:].
func TestPlanProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "\t", "é", "🙂", "中", "\n", "\r\n", "x", "{", "}"}
	tried := 0
	for range 3000 {
		var b strings.Builder
		for range 5 + rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		content := b.String()
		i := rng.IntN(len(content))
		j := i + 1 + rng.IntN(min(12, len(content)-i))
		if j >= len(content) || !utf8.ValidString(content[i:j]) || strings.Count(content, content[i:j]) != 1 ||
			strings.HasSuffix(content[:j], "\r") || strings.HasPrefix(content[j:], "\n") && strings.HasSuffix(content[:i], "\r") {
			continue
		}
		old := content[i:j]
		if strings.Contains(old, "\r") != strings.Contains(old, "\n") || overlapCount(content, old) != 1 {
			continue
		}
		tried++
		pl, fail := plan([]byte(content), old, "NEW", false)
		if fail != "" {
			t.Fatalf("content %q old %q: %s", content, old, fail)
		}
		got := string(applyReplacements([]byte(content), pl.reps))
		if want := content[:i] + "NEW" + content[j:]; got != want || pl.tolerant {
			t.Fatalf("content %q old %q: got %q, want %q", content, old, got, want)
		}
	}
	if tried < 300 {
		t.Fatalf("only %d cases tried", tried)
	}
}

func overlapCount(s, sub string) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}

// TestFindParts checks that counting old_str's occurrences in parts
// searched at once finds what one search from the start does: the same
// count and first starts, with occurrences that overlap each other and the
// parts' edges, in any number of parts, and through findAll on a content
// large enough to be cut.
func TestFindParts(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{0, 1, 7, 100, 5000} {
		b := make([]byte, size)
		for i := range b {
			b[i] = "ab\n"[r.IntN(3)]
		}
		for _, v := range []string{"a", "ab", "aba", "b\na", "abab", "\n\n\n", strings.Repeat("a", 40)} {
			wantStarts, wantN := findIn(b, []byte(v), false, 0, len(b))
			for parts := 1; parts <= 9; parts++ {
				starts, n := findParts(b, []byte(v), parts)
				if n != wantN || fmt.Sprint(starts) != fmt.Sprint(wantStarts) {
					t.Fatalf("size %d %q in %d parts: %d at %v, want %d at %v", size, v, parts, n, starts, wantN, wantStarts)
				}
			}
		}
	}
	// Through findAll, with occurrences around where any number of
	// parts up to 8 has its edges.
	big := []byte(strings.Repeat("x", 3*findPart))
	for parts := 2; parts <= 8; parts++ {
		for k := 1; k < parts; k++ {
			edge := k * len(big) / parts
			copy(big[edge-5:], "ab")
			copy(big[edge-1:], "ab")
			copy(big[edge+3:], "ab")
		}
	}
	wantStarts, wantN := findIn(big, []byte("ab"), false, 0, len(big))
	if starts, n := findAll(big, []byte("ab"), false); n != wantN || fmt.Sprint(starts) != fmt.Sprint(wantStarts) {
		t.Fatalf("findAll: %d at %v, want %d at %v", n, starts, wantN, wantStarts)
	}
}
