package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// BenchmarkStartup times a process's start and exit when it does nothing
// else: `agent-lsp --version` beside Go programs that only link some of
// what agent-lsp links (nothing, net/http, the MCP SDK, every third-party
// package agent-lsp imports). It shows what the
// size of what a binary links costs before any of its code runs, which is
// most of the gap in BenchmarkOneTurn.
func BenchmarkStartup(b *testing.B) {
	dir := b.TempDir()
	progs := []struct {
		name string
		argv []string
	}{{"agent-lsp_version", []string{servers[0].argv[0], "--version"}}}
	for _, p := range []string{"empty", "nethttp", "mcpsdk", "deps"} {
		bin := filepath.Join(dir, p)
		if out, err := proctest.GoBuild(bin, "./startup/"+p); err != nil {
			b.Fatalf("building %s: %v\n%s", p, err, out)
		}
		progs = append(progs, struct {
			name string
			argv []string
		}{p, []string{bin}})
	}
	for _, p := range progs {
		b.Run(p.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(p.argv[0], p.argv[1:]...)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", p.name, err, out)
				}
			}
		})
	}
}
