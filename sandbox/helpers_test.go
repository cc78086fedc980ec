package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// confined are the backends every confinement test runs against.
var confined = []Backend{BackendLandlock, BackendBwrap}

// newSandbox makes a sandbox with backend b over a fresh workspace, or
// skips when the machine genuinely lacks b.
func newSandbox(t *testing.T, b Backend, opts Options) *Sandbox {
	t.Helper()
	p := Probe()
	switch b {
	case BackendLandlock:
		if p.Landlock == 0 {
			t.Skipf("Landlock unavailable: kernel does not report an ABI version (%v)", p.Errors)
		}
	case BackendBwrap:
		if p.BwrapPath == "" {
			proctest.Need(t, "bwrap", "scripts/test installs it (Debian package bubblewrap)")
		}
	}
	if opts.Workspace == "" {
		opts.Workspace = filepath.Join(t.TempDir(), "ws")
		if err := os.Mkdir(opts.Workspace, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	opts.Backend = b
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New(%s): %v\n%s", b, err, p)
	}
	if got := s.Status().Backend; got != b {
		t.Fatalf("backend = %s, want %s", got, b)
	}
	return s
}

// run runs command through s with a generous timeout.
func run(t *testing.T, s *Sandbox, command string) Result {
	t.Helper()
	res, err := s.Run(context.Background(), command, RunOptions{Timeout: 5 * time.Minute})
	if err != nil {
		t.Fatalf("Run(%q): %v", command, err)
	}
	if res.ExitCode == ExitHelperFailed || strings.Contains(string(res.Output), HelperFailedPrefix) {
		t.Fatalf("helper failed for %q: %s", command, res.Output)
	}
	return res
}

// mustSucceed runs command and fails the test unless it exits 0.
func mustSucceed(t *testing.T, s *Sandbox, command string) string {
	t.Helper()
	res := run(t, s, command)
	if res.ExitCode != 0 {
		t.Fatalf("%q exited %d, want 0:\n%s", command, res.ExitCode, res.Output)
	}
	return string(res.Output)
}

// mustBeDenied runs command after a write inside the workspace (which
// proves the sandbox itself works) and fails the test if command exits 0.
func mustBeDenied(t *testing.T, s *Sandbox, command string) string {
	t.Helper()
	marker := fmt.Sprintf("ran-%d", rand.Int64())
	res := run(t, s, fmt.Sprintf("echo ok > %s || exit 99; %s", marker, command))
	if res.ExitCode == 0 {
		t.Errorf("BREACH: %q exited 0 under %s:\n%s", command, s.Status().Backend, res.Output)
	}
	if res.ExitCode == 99 {
		t.Fatalf("writing inside the workspace failed before %q:\n%s", command, res.Output)
	}
	if _, err := os.Stat(filepath.Join(s.Workspace(), marker)); err != nil {
		t.Fatalf("command did not run (%v):\n%s", err, res.Output)
	}
	return string(res.Output)
}

// procsWithMarker lists live (non-zombie) processes whose command line
// contains marker.
func procsWithMarker(marker string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		cl, err := os.ReadFile(d + "/cmdline")
		if err != nil || !bytes.Contains(cl, []byte(marker)) {
			continue
		}
		stat, _ := os.ReadFile(d + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		found = append(found, filepath.Base(d)+":"+strings.ReplaceAll(string(cl), "\x00", " "))
	}
	return found
}

// waitNoMarker waits up to limit for processes with marker to disappear.
func waitNoMarker(marker string, limit time.Duration) []string {
	deadline := time.Now().Add(limit)
	for {
		left := procsWithMarker(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func randName(prefix string) string { return fmt.Sprintf("%s-%d", prefix, rand.Int64()) }

// countArgv0 counts live processes whose argv[0] is name.
func countArgv0(name string) int {
	n := 0
	for _, p := range procsWithMarker(name) {
		_, cl, _ := strings.Cut(p, ":")
		if strings.HasPrefix(cl, name+" ") {
			n++
		}
	}
	return n
}
