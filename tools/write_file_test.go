package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"old.txt": "a\nb\n", "crlf.txt": "\ufeffx\r\ny\r\n", "keep.txt": "keep\n"})

	res := runTool(t, e.wf, WriteFileParams{Path: "new/dir/f.txt", Content: "one\ntwo"})
	if res.IsError || res.Text != "Created new/dir/f.txt (2 lines)." {
		t.Fatalf("create: %+v", res)
	}
	if got := e.content(t, "new/dir/f.txt"); got != "one\ntwo" {
		t.Fatalf("created %q", got)
	}
	// A file it wrote counts as read.
	if res := runTool(t, e.wf, WriteFileParams{Path: "new/dir/f.txt", Content: "three\n"}); res.IsError {
		t.Fatalf("rewrite own file: %s", res.Text)
	}

	res = runTool(t, e.wf, WriteFileParams{Path: "old.txt", Content: "x\n"})
	if !res.IsError || !strings.Contains(res.Text, "you have not read old.txt") {
		t.Fatalf("replace without read: %+v", res)
	}
	if got := e.content(t, "old.txt"); got != "a\nb\n" {
		t.Fatalf("replaced without read: %q", got)
	}
	e.readFile(t, "old.txt")
	res = runTool(t, e.wf, WriteFileParams{Path: "old.txt", Content: "x\n"})
	if res.IsError || res.Text != "Replaced old.txt: 1 line (was 2)." {
		t.Fatalf("replace after read: %+v", res)
	}
	res = runTool(t, e.wf, WriteFileParams{Path: "old.txt", Content: "x\n"})
	if res.IsError || !strings.Contains(res.Text, "already has this content") {
		t.Fatalf("same content: %+v", res)
	}

	e.readFile(t, "crlf.txt")
	res = runTool(t, e.wf, WriteFileParams{Path: "crlf.txt", Content: "x\ny\nz\n"})
	if res.IsError || !strings.Contains(res.Text, "kept the file's CRLF line endings") || !strings.Contains(res.Text, "byte-order mark") {
		t.Fatalf("crlf: %+v", res)
	}
	if got := e.content(t, "crlf.txt"); got != "\ufeffx\r\ny\r\nz\r\n" {
		t.Fatalf("crlf content %q", got)
	}

	// Changed on disk since read.
	e.readFile(t, "keep.txt")
	mustWrite(t, filepath.Join(e.dir, "keep.txt"), "user\n")
	res = runTool(t, e.wf, WriteFileParams{Path: "keep.txt", Content: "agent\n"})
	if !res.IsError || !strings.Contains(res.Text, "changed since you last read it") {
		t.Fatalf("stale: %+v", res)
	}
	if got := e.content(t, "keep.txt"); got != "user\n" {
		t.Fatalf("user's content lost: %q", got)
	}

	for _, p := range []string{".", "new/", "new/dir"} {
		if res := runTool(t, e.wf, WriteFileParams{Path: p, Content: "x"}); !res.IsError {
			t.Errorf("%s: wrote a directory: %+v", p, res)
		}
	}
	noTemps(t, e.dir)
}

// TestWriteFileEmptyContent: content "" given is an empty file; content
// missing is an error and writes nothing (M09).
func TestWriteFileEmptyContent(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, nil)
	d := NewDispatcher(NewRegistry(FileTools(e.ed, e.reads, nil)...), WithLogger(quietLogger()))
	res := d.Dispatch(context.Background(), Call{ID: "1", Name: "write_file", Arguments: `{"path":"missing.txt"}`})
	if !res.IsError || !strings.Contains(res.Text, `missing required field "content"`) {
		t.Fatalf("missing content: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "missing.txt")); err == nil {
		t.Fatal("a call without content wrote a file")
	}
	res = d.Dispatch(context.Background(), Call{ID: "2", Name: "write_file", Arguments: `{"path":"empty.txt","content":""}`})
	if res.IsError || res.Text != "Created empty.txt (0 lines)." {
		t.Fatalf("empty content: %+v", res)
	}
	if got := e.content(t, "empty.txt"); got != "" {
		t.Fatalf("content %q", got)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"f.txt": "original\n"})
	e.readFile(t, "f.txt")
	e.ws.failStep = func(step string) error {
		if step == "commit" {
			return errors.New("simulated crash before rename")
		}
		return nil
	}
	d := NewDispatcher(NewRegistry(e.wf), WithLogger(quietLogger()))
	res := d.Dispatch(context.Background(), Call{ID: "1", Name: "write_file", Arguments: `{"path":"f.txt","content":"new content\n"}`})
	if !res.IsError || !strings.Contains(res.Text, "simulated crash") {
		t.Fatalf("failure not reported: %+v", res)
	}
	if got := e.content(t, "f.txt"); got != "original\n" {
		t.Fatalf("original damaged: %q", got)
	}
	noTemps(t, e.dir)
	// The failed write did not count as read: the file is still what was read,
	// so writing again after the failure works.
	e.ws.failStep = nil
	if res := d.Dispatch(context.Background(), Call{ID: "2", Name: "write_file", Arguments: `{"path":"f.txt","content":"new content\n"}`}); res.IsError {
		t.Fatal(res.Text)
	}
	if got := e.content(t, "f.txt"); got != "new content\n" {
		t.Fatalf("content %q", got)
	}
	noTemps(t, e.dir)
}

func TestWriteFileLinks(t *testing.T) {
	t.Parallel()
	e := newEditEnv(t, map[string]string{"target.txt": "t\n"})
	out := filepath.Join(filepath.Dir(e.dir), "outside.txt")
	mustWrite(t, out, canary)
	os.Symlink("target.txt", filepath.Join(e.dir, "in-link"))
	os.Symlink(out, filepath.Join(e.dir, "out-link"))
	os.Symlink(filepath.Join(filepath.Dir(e.dir), "created-outside"), filepath.Join(e.dir, "dangling"))
	e.readFile(t, "in-link") // read through the link: allowed, inside
	for p, want := range map[string]string{
		"in-link":  "edit target.txt instead",
		"out-link": "outside the workspace",
		"dangling": "outside the workspace",
	} {
		res := runTool(t, e.wf, WriteFileParams{Path: p, Content: "PWNED"})
		if !res.IsError || !strings.Contains(res.Text, want) {
			t.Errorf("%s: %+v, want %q", p, res, want)
		}
	}
	if readString(t, out) != canary || readString(t, filepath.Join(e.dir, "target.txt")) != "t\n" {
		t.Fatal("a write went through a link")
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(e.dir), "created-outside")); err == nil {
		t.Fatal("created a file outside through a dangling link")
	}
}
