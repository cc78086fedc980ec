package harness

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/changes"
	"github.com/agent-lsp/agent-lsp/internal/cmdrun"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// BenchmarkBashChangeDetection runs a trivial command (`true`) through the
// real sandbox on a 200- and a 20,000-file workspace, with and without the change
// journal's scans around it (a read-only command is not scanned; a
// command that writes is), and reports the median latency of each
// (median-ms). The difference is what change detection adds to a small
// command; the baseline scan (every file read once) runs before the timed
// calls, as it does in the background from the start of a turn.
func BenchmarkBashChangeDetection(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) { benchDetection(b, n/50) })
	}
}

func benchDetection(b *testing.B, dirs int) {
	root := b.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 50 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), fmt.Appendf(nil, "package p\n\n// %d %d\n", d, f), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	sb, err := sandbox.New(sandbox.Options{Workspace: root, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	if err := sb.Err(); err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	cp := &checkpoints{sessions: state, log: slog.New(slog.DiscardHandler),
		scanner: changes.NewScanner(root, filepath.Join(state, "baseline"))}
	cp.BeginRun("bench", "bench")
	defer cp.EndRun("bench")
	journaled := &journalShell{Shell: sb, cp: cp}
	ctx := context.Background()
	if err := cp.scanner.Before(ctx, nil); err != nil { // the baseline
		b.Fatal(err)
	}
	// "true" is a command the journal knows writes nothing (not scanned);
	// "touch" one it must scan around.
	for _, c := range []struct {
		name, command string
		shell         tools.Shell
	}{
		{"without", "true", sb}, {"with/read-only", "true", journaled},
		{"without/writes", "touch pkg000/x", sb}, {"with/writes", "touch pkg000/x", journaled},
	} {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := c.shell.Run(ctx, c.command, cmdrun.Options{Timeout: time.Minute})
				times = append(times, time.Since(start))
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
