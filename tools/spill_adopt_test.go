package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSpillAdopt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := NewSpill(dir)
	path, err := old.Save("read_file", []byte("full text"))
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "x.txt")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	s := NewSpill(dir) // a new process
	if s.Owns(path) {
		t.Fatal("a new Spill owns an old file before Adopt")
	}
	cases := map[string]bool{path: true, other: false, link: false, "rel.txt": false, filepath.Join(dir, "missing.txt"): false, dir: false}
	for p, want := range cases {
		if got := s.Adopt(p); got != want {
			t.Errorf("Adopt(%s) = %v, want %v", p, got, want)
		}
	}
	if !s.Owns(path) || s.Owns(other) || s.Owns(link) {
		t.Error("Owns after Adopt is wrong")
	}
	var nilSpill *Spill
	if nilSpill.Adopt(path) {
		t.Error("nil Spill adopted")
	}
}
