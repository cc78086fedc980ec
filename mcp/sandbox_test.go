package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

// A `sandbox = true` server runs in the same OS sandbox as bash: it writes
// in the workspace, not outside it; an ordinary server writes where the
// user can.
func TestSandboxedServer(t *testing.T) {
	t.Parallel()
	for _, b := range []sandbox.Backend{sandbox.BackendLandlock, sandbox.BackendBwrap} {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			if b == sandbox.BackendBwrap && sandbox.Probe().BwrapPath == "" {
				t.Skip("bwrap not installed (Debian package bubblewrap; scripts/test installs it)")
			}
			sandboxedServer(t, b)
		})
	}
}

func sandboxedServer(t *testing.T, b sandbox.Backend) {
	root, outside := tempRoot(t), tempRoot(t)
	sb := func(network bool, env []string) (*sandbox.Sandbox, error) {
		return sandbox.New(sandbox.Options{Workspace: root, StateDir: t.TempDir(), Network: network, Env: env, Backend: b})
	}
	probe, err := sb(false, os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	if !probe.Status().Confined() {
		t.Skipf("no sandbox layer on this machine: %s", probe.Status())
	}
	boxed, plain := testServer(t, "boxed"), testServer(t, "plain")
	boxed.Sandbox = true
	m := startManager(t, Options{Servers: []Server{boxed, plain}, Root: root, Sandbox: sb})
	if w := m.TakeWarnings(); len(w) > 0 {
		t.Fatalf("servers did not start: %v", w)
	}
	ts, _ := m.Tools()
	touch := func(server, path string) string {
		args, _ := json.Marshal(map[string]string{"path": path})
		return dispatch(context.Background(), ts, "mcp__"+server+"__touch", string(args)).Text
	}
	if got := touch("boxed", filepath.Join(root, "in.txt")); !strings.Contains(got, "wrote") {
		t.Errorf("the sandboxed server could not write in the workspace: %s", got)
	}
	if got := touch("boxed", filepath.Join(outside, "out.txt")); strings.Contains(got, "wrote") {
		t.Errorf("the sandboxed server wrote outside the workspace: %s", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("a file outside the workspace was written from the sandbox")
	}
	if got := touch("plain", filepath.Join(outside, "plain.txt")); !strings.Contains(got, "wrote") {
		t.Errorf("the ordinary server (the user's rights) could not write: %s", got)
	}
	if st := m.Status(); len(st) != 2 || !st[0].Sandboxed && !st[1].Sandboxed {
		t.Errorf("status does not say which server is sandboxed: %+v", st)
	}
}
