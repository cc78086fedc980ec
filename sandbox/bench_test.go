package sandbox

import (
	"context"
	"testing"
)

// BenchmarkTrue measures the per-command cost of each backend: `true` run
// through Command and Run in a fresh workspace.
func BenchmarkTrue(b *testing.B) {
	for _, be := range []Backend{BackendNone, BackendLandlock, BackendBwrap} {
		b.Run(string(be), func(b *testing.B) {
			ws := b.TempDir()
			s, err := New(Options{Workspace: ws, StateDir: b.TempDir(), Backend: be})
			if err != nil {
				b.Skip(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				cmd, err := s.Command(ctx, "true")
				if err != nil {
					b.Fatal(err)
				}
				res, err := Run(ctx, cmd, RunOptions{})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v %s", err, res, res.Output)
				}
			}
		})
	}
}
