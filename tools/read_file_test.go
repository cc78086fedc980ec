package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newWS makes a workspace in a temp dir with the given files (content by
// slash path) and returns it with its root.
func newWS(t *testing.T, files map[string]string, opts ...DiskOption) (*DiskWorkspace, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "w")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		mustWrite(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	ws, err := NewDiskWorkspace(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

func numbered(from int, lines ...string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", from+i, l)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{
		"a.txt":        "one\ntwo\nthree\n",
		"crlf.txt":     "one\r\ntwo\r\n",
		"nonl.txt":     "one\ntwo",
		"empty.txt":    "",
		"src/b.go":     "package src\n",
		"bin.dat":      "abc\x00def",
		"latin1.txt":   "caf\xe9\n",
		"late.txt":     strings.Repeat("x\n", 5000) + "caf\xe9\n",
		"utf8.txt":     "héllo wörld ✓\n",
		"dir/.keep":    "",
		"sub/deep.txt": "deep\n",
	})
	if err := os.Symlink("src/b.go", filepath.Join(dir, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "subl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing.txt", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent/evil.sh", filepath.Join(dir, "dangling-abs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../nonexistent", filepath.Join(dir, "dangling-up")); err != nil {
		t.Fatal(err)
	}
	outsideDir := t.TempDir()
	mustWrite(t, filepath.Join(outsideDir, "secret.txt"), canary)
	for _, l := range [][2]string{{"loop1", "loop2"}, {"loop2", "loop1"}, {outsideDir, "outdir"}, {"../w/a.txt", "selfref"}} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	tool := NewReadFile(ws)
	tests := []struct {
		name    string
		p       ReadFileParams
		want    string // exact text, or
		contain string // a substring
		isErr   bool
	}{
		{name: "whole", p: ReadFileParams{Path: "a.txt"}, want: numbered(1, "one", "two", "three")},
		{name: "offset", p: ReadFileParams{Path: "a.txt", Offset: 2}, want: numbered(2, "two", "three") + "[showing lines 2-3 of 3, to the end of the file]\n"},
		{name: "limit", p: ReadFileParams{Path: "a.txt", Limit: 2}, want: numbered(1, "one", "two") + "[showing lines 1-2 of 3; call read_file with offset=3 to read on]\n"},
		{name: "offset and limit", p: ReadFileParams{Path: "a.txt", Offset: 2, Limit: 1}, want: numbered(2, "two") + "[showing lines 2-2 of 3; call read_file with offset=3 to read on]\n"},
		{name: "offset past end", p: ReadFileParams{Path: "a.txt", Offset: 4}, contain: "offset 4 is past the end of a.txt, which has 3 lines", isErr: true},
		{name: "negative offset", p: ReadFileParams{Path: "a.txt", Offset: -1}, contain: "offset must be 1 or more", isErr: true},
		{name: "negative limit", p: ReadFileParams{Path: "a.txt", Limit: -5}, contain: "limit must be 1 or more", isErr: true},
		{name: "crlf", p: ReadFileParams{Path: "crlf.txt"}, want: numbered(1, "one", "two")},
		{name: "no final newline", p: ReadFileParams{Path: "nonl.txt"}, want: numbered(1, "one", "two")},
		{name: "empty", p: ReadFileParams{Path: "empty.txt"}, want: "(empty.txt is empty)"},
		{name: "utf8", p: ReadFileParams{Path: "utf8.txt"}, want: numbered(1, "héllo wörld ✓")},
		{name: "invalid utf8 after 8 KiB is shown replaced", p: ReadFileParams{Path: "late.txt", Offset: 5001}, contain: "caf\uFFFD"},
		{name: "absolute inside", p: ReadFileParams{Path: filepath.Join(dir, "src/b.go")}, want: numbered(1, "package src")},
		{name: "dot slash", p: ReadFileParams{Path: "./src/../src/b.go"}, want: numbered(1, "package src")},
		{name: "symlink inside", p: ReadFileParams{Path: "inner"}, want: numbered(1, "package src")},
		{name: "symlinked dir inside", p: ReadFileParams{Path: "subl/deep.txt"}, want: numbered(1, "deep")},
		{name: "directory", p: ReadFileParams{Path: "src"}, contain: "src is a directory, not a file: use glob", isErr: true},
		{name: "root", p: ReadFileParams{Path: "."}, contain: "is a directory", isErr: true},
		{name: "binary NUL", p: ReadFileParams{Path: "bin.dat"}, contain: "bin.dat is a binary file, 7 bytes", isErr: true},
		{name: "binary invalid utf8", p: ReadFileParams{Path: "latin1.txt"}, contain: "binary file, 5 bytes", isErr: true},
		{name: "device via symlink", p: ReadFileParams{Path: "zero"}, contain: "outside the workspace", isErr: true},
		{name: "dangling", p: ReadFileParams{Path: "dangling"}, contain: "does not exist", isErr: true},
		{name: "symlink loop", p: ReadFileParams{Path: "loop1"}, contain: "too many levels of symbolic links", isErr: true},
		{name: "file in a linked dir outside", p: ReadFileParams{Path: "outdir/secret.txt"}, contain: "outside the workspace", isErr: true},
		{name: "linked dir outside, then back", p: ReadFileParams{Path: "outdir/../a.txt"}, want: numbered(1, "one", "two", "three")},
		{name: "link climbing out and back in", p: ReadFileParams{Path: "selfref"}, contain: "outside the workspace", isErr: true},
		{name: "dangling outside", p: ReadFileParams{Path: "dangling-abs"}, contain: "outside the workspace", isErr: true},
		{name: "dangling above", p: ReadFileParams{Path: "dangling-up"}, contain: "outside the workspace", isErr: true},
		{name: "missing", p: ReadFileParams{Path: "nope.txt"}, contain: "nope.txt does not exist", isErr: true},
		{name: "empty path", p: ReadFileParams{Path: ""}, contain: "path is empty", isErr: true},
		{name: "file as dir", p: ReadFileParams{Path: "a.txt/x"}, contain: "not a directory", isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runTool(t, tool, tt.p)
			if res.IsError != tt.isErr {
				t.Fatalf("IsError = %v, want %v; text:\n%s", res.IsError, tt.isErr, res.Text)
			}
			if tt.want != "" && res.Text != tt.want {
				t.Fatalf("got:\n%q\nwant:\n%q", res.Text, tt.want)
			}
			if !strings.Contains(res.Text, tt.contain) {
				t.Fatalf("got:\n%s\nwant it to contain %q", res.Text, tt.contain)
			}
		})
	}
}

func TestReadFileCaps(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	wide := strings.Repeat(strings.Repeat("w", 300)+"\n", 2000) // 602 KB in 2000 lines
	long := strings.Repeat("é", 3000) + "\nnext\n"              // 6000-byte first line
	ws, _ := newWS(t, map[string]string{"many.txt": many.String(), "wide.txt": wide, "long.txt": long})
	tool := NewReadFile(ws)

	res := runTool(t, tool, ReadFileParams{Path: "many.txt"})
	if n := strings.Count(res.Text, "\n"); n != ReadMaxLines+1 {
		t.Fatalf("default read shows %d lines, want %d and a footer", n, ReadMaxLines+1)
	}
	if !strings.HasSuffix(res.Text, "[showing lines 1-2000 of 5000; call read_file with offset=2001 to read on]\n") {
		t.Fatalf("footer: %q", res.Text[len(res.Text)-120:])
	}
	res = runTool(t, tool, ReadFileParams{Path: "many.txt", Offset: 4999, Limit: 100000})
	if res.Text != numbered(4999, "line 4999", "line 5000")+"[showing lines 4999-5000 of 5000, to the end of the file]\n" {
		t.Fatalf("tail read: %q", res.Text)
	}

	res = runTool(t, tool, ReadFileParams{Path: "wide.txt"})
	if len(res.Text) > ReadMaxBytes+200 {
		t.Fatalf("output is %d bytes, over the %d cap", len(res.Text), ReadMaxBytes)
	}
	if !strings.Contains(res.Text, "; call read_file with offset=") {
		t.Fatalf("no continuation footer: %q", res.Text[len(res.Text)-200:])
	}

	res = runTool(t, tool, ReadFileParams{Path: "long.txt"})
	first, _, _ := strings.Cut(res.Text, "\n")
	if len(first) > ReadMaxLineBytes+60 || !strings.Contains(first, "[... line cut, 6000 bytes in all]") {
		t.Fatalf("long line not cut: %d bytes: %q", len(first), first[len(first)-80:])
	}
	if !strings.Contains(res.Text, numbered(2, "next")) || !strings.Contains(res.Text, "lines over 2000 bytes were cut") {
		t.Fatalf("after a long line: %q", res.Text[len(res.Text)-200:])
	}
	if strings.ContainsRune(first, '\uFFFD') {
		t.Fatal("a rune was split when cutting the line")
	}
}

// diskOnly hides DiskWorkspace's extra methods, as a workspace that cannot
// stream would.
type diskOnly struct{ w *DiskWorkspace }

func (d diskOnly) Root() string { return d.w.Root() }
func (d diskOnly) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return d.w.ReadFile(ctx, path)
}

func TestReadFileTooLarge(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{
		"big.txt":  strings.Repeat("text\n", 1000),
		"long.txt": strings.Repeat("é", 1500) + "\r\nnext\r\n" + strings.Repeat("z", 2000),
	}, WithMaxFileSize(1000))
	tool := NewReadFile(ws)
	// Streamed: the same output as for a small file, with the size instead
	// of the line count.
	res := runTool(t, tool, ReadFileParams{Path: "big.txt", Offset: 998, Limit: 2})
	if want := numbered(998, "text", "text") + "[showing lines 998-999 of a 5 KiB file; call read_file with offset=1000 to read on]\n"; res.Text != want {
		t.Fatalf("got %q, want %q", Truncate(res.Text, 10, 1000), want)
	}
	res = runTool(t, tool, ReadFileParams{Path: "big.txt", Offset: 1000})
	if want := numbered(1000, "text") + "[showing lines 1000-1000 of a 5 KiB file, to the end of the file]\n"; res.Text != want {
		t.Fatalf("got %q, want %q", Truncate(res.Text, 10, 1000), want)
	}
	res = runTool(t, tool, ReadFileParams{Path: "big.txt", Offset: 1001})
	if !res.IsError || !strings.Contains(res.Text, "offset 1001 is past the end of big.txt") {
		t.Fatalf("got %v %q", res.IsError, Truncate(res.Text, 10, 1000))
	}
	res = runTool(t, tool, ReadFileParams{Path: "long.txt"})
	lines := strings.Split(res.Text, "\n")
	if !strings.HasSuffix(lines[0], "[... line cut, 3000 bytes in all]") || strings.ContainsRune(lines[0], '\uFFFD') ||
		lines[1] != "     2\tnext" || !strings.HasSuffix(lines[2], "[... line cut, 2000 bytes in all]") && lines[2] != "     3\t"+strings.Repeat("z", 2000) {
		t.Fatalf("long lines streamed: %q ... %q | %q | %q", lines[0][:20], lines[0][len(lines[0])-60:], lines[1], Truncate(lines[2], 1, 100))
	}

	// A workspace that cannot stream: a clear refusal pointing to grep.
	res = runTool(t, NewReadFile(diskOnly{ws}), ReadFileParams{Path: "big.txt"})
	if !res.IsError || !strings.Contains(res.Text, "big.txt is 5000 bytes, too large to read (limit 1000 bytes); use grep") {
		t.Fatalf("got %v %q", res.IsError, Truncate(res.Text, 10, 1000))
	}
	f, err := os.Create(filepath.Join(dir, "sparse.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(3 << 30)
	f.Close()
	res = runTool(t, tool, ReadFileParams{Path: "sparse.bin"})
	if !res.IsError || !strings.Contains(res.Text, "binary file, 3221225472 bytes") {
		t.Fatalf("got %v %q", res.IsError, res.Text)
	}
}

func TestReadFileHardLinks(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "id_rsa")
	mustWrite(t, outside, canary)
	for _, allow := range []bool{false, true} {
		var opts []DiskOption
		if allow {
			opts = append(opts, WithHardLinks())
		}
		ws, dir := newWS(t, map[string]string{"a.txt": "a\n"}, opts...)
		if err := os.Link(outside, filepath.Join(dir, "h")); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")); err != nil {
			t.Fatal(err)
		}
		res := runTool(t, NewReadFile(ws), ReadFileParams{Path: "h"})
		if allow {
			if res.IsError || !strings.Contains(res.Text, canary) {
				t.Fatalf("WithHardLinks: got %v %q", res.IsError, res.Text)
			}
			continue
		}
		if !res.IsError || !strings.Contains(res.Text, "outside the workspace") || !strings.Contains(res.Text, "2 hard links") {
			t.Fatalf("got %v %q", res.IsError, res.Text)
		}
		// Both names inside are refused too: the rule cannot tell them apart.
		if res := runTool(t, NewReadFile(ws), ReadFileParams{Path: "b.txt"}); !res.IsError {
			t.Fatalf("b.txt: got %q", res.Text)
		}
		_, err := ws.ReadFile(t.Context(), "h")
		if !errors.Is(err, ErrHardLink) || !errors.Is(err, ErrOutside) {
			t.Fatalf("ReadFile error %v: want ErrHardLink and ErrOutside", err)
		}
	}
}
