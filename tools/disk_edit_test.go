package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// noTemps fails if a temporary file of ApplyEdit is left anywhere under dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".agent-lsp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDiskApplyEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws, dir := newWS(t, map[string]string{"a.txt": "one\n", "run.sh": "#!/bin/sh\n"})
	out := filepath.Join(filepath.Dir(dir), "outside.txt")
	mustWrite(t, out, canary)

	t.Run("create in new dirs", func(t *testing.T) {
		if err := ws.ApplyEdit(ctx, Change{Path: "new/sub/b.txt", New: []byte("b\n")}); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, filepath.Join(dir, "new/sub/b.txt")); got != "b\n" {
			t.Fatalf("content %q", got)
		}
		st, _ := os.Stat(filepath.Join(dir, "new/sub/b.txt"))
		if st.Mode().Perm() != 0o644 {
			t.Fatalf("mode %v", st.Mode())
		}
	})
	t.Run("create over existing is a conflict", func(t *testing.T) {
		err := ws.ApplyEdit(ctx, Change{Path: "a.txt", New: []byte("x")})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("got %v, want ErrConflict", err)
		}
		if got := readString(t, filepath.Join(dir, "a.txt")); got != "one\n" {
			t.Fatalf("content %q", got)
		}
	})
	t.Run("replace keeps the mode", func(t *testing.T) {
		p := filepath.Join(dir, "run.sh")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := ws.ApplyEdit(ctx, Change{Path: "run.sh", Old: []byte("#!/bin/sh\n"), New: []byte("#!/bin/sh\necho hi\n")}); err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(p)
		if st.Mode().Perm() != 0o755 {
			t.Fatalf("mode %v, want 0755", st.Mode())
		}
		if got := readString(t, p); got != "#!/bin/sh\necho hi\n" {
			t.Fatalf("content %q", got)
		}
	})
	t.Run("stale old is a conflict", func(t *testing.T) {
		err := ws.ApplyEdit(ctx, Change{Path: "a.txt", Old: []byte("two\n"), New: []byte("three\n")})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("got %v, want ErrConflict", err)
		}
		err = ws.ApplyEdit(ctx, Change{Path: "gone.txt", Old: []byte("x"), New: []byte("y")})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("deleted file: got %v, want ErrConflict", err)
		}
	})
	t.Run("links and special files", func(t *testing.T) {
		mustWrite(t, filepath.Join(dir, "target.txt"), "t\n")
		os.Symlink("target.txt", filepath.Join(dir, "in-link"))
		os.Symlink(out, filepath.Join(dir, "out-link"))
		os.Symlink(filepath.Join(filepath.Dir(dir), "nothing-here"), filepath.Join(dir, "dangling"))
		os.Symlink(filepath.Dir(dir), filepath.Join(dir, "up"))
		os.Link(filepath.Join(dir, "target.txt"), filepath.Join(dir, "hard.txt"))
		syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
		os.Mkdir(filepath.Join(dir, "adir"), 0o755)
		for _, c := range []struct {
			path string
			old  []byte
			want string
		}{
			{"in-link", []byte("t\n"), "edit target.txt instead"},
			{"out-link", []byte(canary), "outside the workspace"},
			{"dangling", nil, "outside the workspace"},
			{"up/outside.txt", []byte(canary), "outside the workspace"},
			{"up/new.txt", nil, "outside the workspace"},
			{"hard.txt", []byte("t\n"), "hard links"},
			{"fifo", []byte(""), "named pipe"},
			{"adir", []byte(""), "directory"},
			{".", []byte(""), "directory"},
		} {
			err := ws.ApplyEdit(ctx, Change{Path: c.path, Old: c.old, New: []byte("PWNED")})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: got %v, want an error containing %q", c.path, err, c.want)
			}
		}
		if got := readString(t, out); got != canary {
			t.Fatalf("outside file changed: %q", got)
		}
		if _, err := os.Lstat(filepath.Join(filepath.Dir(dir), "nothing-here")); err == nil {
			t.Fatal("a file was created outside through a dangling link")
		}
		if got := readString(t, filepath.Join(dir, "target.txt")); got != "t\n" {
			t.Fatalf("link target changed: %q", got)
		}
	})
	t.Run("a failure leaves the original", func(t *testing.T) {
		ws2, dir2 := newWS(t, map[string]string{"f.txt": "original\n"})
		for _, step := range []string{"write", "commit"} {
			ws2.failStep = func(s string) error {
				if s == step {
					return errors.New("disk full")
				}
				return nil
			}
			err := ws2.ApplyEdit(ctx, Change{Path: "f.txt", Old: []byte("original\n"), New: []byte("new\n")})
			if err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Fatalf("%s: got %v", step, err)
			}
			if got := readString(t, filepath.Join(dir2, "f.txt")); got != "original\n" {
				t.Fatalf("%s: content %q", step, got)
			}
			if err := ws2.ApplyEdit(ctx, Change{Path: "g.txt", New: []byte("new\n")}); err == nil {
				t.Fatalf("%s: create succeeded", step)
			}
			if _, err := os.Stat(filepath.Join(dir2, "g.txt")); err == nil {
				t.Fatalf("%s: failed create left a file", step)
			}
		}
		noTemps(t, dir2)
	})
	noTemps(t, dir)
}
