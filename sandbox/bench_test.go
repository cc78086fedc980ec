package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkTrue measures the per-command cost of each backend: `true` run
// through Sandbox.Run, in an empty workspace and in a git repository (the
// git view: a shadow of .git per command, brought back afterwards).
func BenchmarkTrue(b *testing.B) {
	for _, ws := range []string{"empty", "git"} {
		for _, be := range []Backend{BackendNone, BackendLandlock, BackendBwrap} {
			b.Run(ws+"/"+string(be), func(b *testing.B) {
				dir := b.TempDir()
				if ws == "git" {
					if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
						b.Skip(err, string(out))
					}
				}
				s, err := New(Options{Workspace: dir, StateDir: b.TempDir(), Backend: be})
				if err != nil {
					b.Skip(err)
				}
				if err := s.Err(); err != nil {
					b.Skip(err)
				}
				ctx := context.Background()
				for b.Loop() {
					res, err := s.Run(ctx, "true", RunOptions{})
					if err != nil || res.ExitCode != 0 {
						b.Fatalf("%v %+v %s", err, res, res.Output)
					}
				}
			})
		}
	}
}
