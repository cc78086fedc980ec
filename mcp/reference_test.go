package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// referenceServer is the definition of an npm reference server installed
// in testdata/servers (scripts/test runs npm ci there).
func referenceServer(t *testing.T, name, pkg string, args ...string) Server {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "servers", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(script); err != nil || nodeErr != nil {
		hint := "run `npm ci` in mcp/testdata/servers (scripts/test does)"
		if os.Getenv("CI") != "" || os.Getenv("AGENT_LSP_REQUIRE_CLIENTS") != "" {
			t.Fatalf("%s is missing (CI or AGENT_LSP_REQUIRE_CLIENTS is set, so this fails instead of skipping): %s", pkg, hint)
		}
		t.Skipf("%s is missing: %s", pkg, hint)
	}
	s := Server{Name: name, Source: "test"}
	s.Command, s.Args = node, append([]string{script}, args...)
	return s
}

func TestReferenceServers(t *testing.T) {
	t.Parallel()
	root := tempRoot(t)
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello from the workspace\n"), 0o644)
	every := referenceServer(t, "everything", "server-everything", "stdio")
	fs := referenceServer(t, "fs", "server-filesystem", root)
	m := startManager(t, Options{Servers: []Server{every, fs}, Root: root, Environ: append(os.Environ(), "OPENAI_API_KEY=sk-must-not-leak")})
	if w := m.TakeWarnings(); len(w) > 0 {
		t.Fatalf("warnings: %v", w)
	}
	ts, _ := m.Tools()
	if r := dispatch(context.Background(), ts, "mcp__everything__get-sum", `{"a":2,"b":40}`); r.IsError || !strings.Contains(r.Text, "42") {
		t.Errorf("get-sum: %+v", r)
	}
	if r := dispatch(context.Background(), ts, "mcp__everything__get-env", `{}`); r.IsError || strings.Contains(r.Text, "sk-must-not-leak") || !strings.Contains(r.Text, "PATH") {
		t.Errorf("get-env: %.300s", r.Text)
	}
	if r := dispatch(context.Background(), ts, "mcp__fs__read_text_file", `{"path":"`+filepath.Join(root, "hello.txt")+`"}`); r.IsError || !strings.Contains(r.Text, "hello from the workspace") {
		t.Errorf("read_text_file: %+v", r)
	}
	if r := dispatch(context.Background(), ts, "mcp__fs__read_text_file", `{"path":"/etc/passwd"}`); !r.IsError {
		t.Errorf("read outside the allowed directory: %+v", r)
	}
	rf := toolNamed(t, ts, "mcp__fs__read_text_file")
	if !rf.ReadOnly {
		t.Errorf("read_text_file is annotated read-only")
	}
	if wf := toolNamed(t, ts, "mcp__fs__write_file"); wf.ReadOnly {
		t.Errorf("write_file is not read-only")
	}
	// A long operation, cancelled: the call ends at once.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string)
	go func() {
		done <- dispatch(ctx, ts, "mcp__everything__trigger-long-running-operation", `{"duration":600,"steps":600}`).Text
	}()
	time.Sleep(300 * time.Millisecond) // not an assertion: only lets the call reach the server
	cancel()
	if got := <-done; !strings.Contains(got, "cancelled") {
		t.Errorf("cancelled long operation: %s", got)
	}
}

func TestReferenceServerNoOrphan(t *testing.T) {
	t.Parallel()
	root := tempRoot(t)
	marker := filepath.Join(root, "marker-dir-for-proc-check")
	os.Mkdir(marker, 0o755)
	m := NewManager(Options{Servers: []Server{referenceServer(t, "fs", "server-filesystem", marker)}, Root: root})
	m.Start()
	if len(proctest.Live(marker)) == 0 {
		t.Fatalf("server not running: %v", m.TakeWarnings())
	}
	m.Close()
	if left := proctest.Live(marker); len(left) > 0 {
		t.Errorf("left after Close: %v", left)
	}
}
