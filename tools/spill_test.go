package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSpill(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "spill")
	s := NewSpill(dir)
	p, err := s.Save("bash ../x", []byte("full output"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p) != dir {
		t.Errorf("spill file %s escaped %s", p, dir)
	}
	if b, _ := os.ReadFile(p); string(b) != "full output" {
		t.Errorf("content %q", b)
	}
	if !s.Owns(p) || s.Owns(filepath.Join(dir, "other.txt")) || s.Owns("/etc/passwd") {
		t.Error("Owns is wrong")
	}
	var nilSpill *Spill
	if nilSpill.Owns(p) {
		t.Error("nil spill owns nothing")
	}
	q, _ := s.Save("bash", nil)
	if q == p {
		t.Error("names must differ")
	}
}
