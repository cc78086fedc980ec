package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileLikeOS: contents of every size around the buffer's edges,
// an empty file and a missing one read as with os.ReadFile.
func TestReadFileLikeOS(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 1 << 20} {
		p := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n]
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	// /proc files report size 0 and still have content.
	if got, err := ReadFile("/proc/self/stat"); err != nil || len(got) == 0 {
		t.Fatalf("/proc/self/stat: %q, %v", got, err)
	}
}

// TestOpenFile: a file made with O_EXCL is written, closed and refused a
// second time.
func TestOpenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second O_EXCL open: %v", err)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 || st.Size() != 4 {
		t.Fatalf("stat: %v, %v", st, err)
	}
}
