package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSpillAdopt(t *testing.T) {
	t.Parallel()
	old := NewSpill(t.TempDir()) // an earlier process
	path, err := old.Save("read_file", []byte("full text"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "read_file-001-0123abcd.txt")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "read_file-002-0123abcd.txt")
	if err := os.Link(other, hard); err != nil {
		t.Fatal(err)
	}
	s := NewSpill(t.TempDir()) // this process
	if s.Owns(path) {
		t.Fatal("a new Spill owns an old file before Adopt")
	}
	cases := map[string]bool{
		path:                         true,
		other:                        false, // not a spill file's name
		link:                         false, // a link
		hard:                         false, // two links
		"read_file-003-0123abcd.txt": false, // relative
		filepath.Join(dir, "read_file-004-0123abcd.txt"): false, // missing
	}
	for p, want := range cases {
		if got := s.Adopt(p); got != want {
			t.Errorf("Adopt(%s) = %v, want %v", p, got, want)
		}
	}
	if !s.Owns(path) || s.Owns(other) || s.Owns(link) || s.Owns(hard) {
		t.Error("Owns after Adopt is wrong")
	}
	var nilSpill *Spill
	if nilSpill.Adopt(path) {
		t.Error("nil Spill adopted")
	}
}
