package sandbox

import (
	"os/exec"
	"testing"
)

// BenchmarkView is the part of the per-command cost spent in the parent:
// scanning the workspace, building the git shadow and bringing it back.
func BenchmarkView(b *testing.B) {
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		b.Skip(err, string(out))
	}
	s, err := New(Options{Workspace: dir, StateDir: b.TempDir(), Backend: BackendNone})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := s.prepareView()
		if err != nil {
			b.Fatal(err)
		}
		s.finishView(v)
	}
}
