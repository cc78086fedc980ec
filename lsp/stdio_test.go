package lsp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

// binary is the real agent-lsp, built once. (The initialize benchmark,
// against a minimal server, lives in bench/.)
var binary string

func TestMain(m *testing.M) {
	// The bash tool's sandbox re-executes this test binary as its helper.
	sandbox.MaybeRunHelper()
	dir, err := os.MkdirTemp("", "agent-lsp-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agent-lsp")
	if out, err := proctest.GoBuild(binary, "../cmd/agent-lsp"); err != nil {
		fmt.Fprintf(os.Stderr, "building agent-lsp: %v\n%s", err, out)
		os.Exit(1)
	}
	code := tmpcheck.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is the binary speaking LSP on its stdio.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr strings.Builder
}

func start(t *testing.T, args ...string) *proc {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config")}
	p := &proc{t: t, cmd: cmd}
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(stdout)
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

func (p *proc) raw(s string) {
	if _, err := io.WriteString(p.in, s); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

func (p *proc) send(v any) {
	b, _ := json.Marshal(v)
	p.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b))
}

// read returns the next frame; stdout must carry nothing but frames.
func (p *proc) read() map[string]any {
	p.t.Helper()
	n := -1
	for {
		line, err := p.out.ReadString('\n')
		if err != nil {
			p.t.Fatalf("read header: %v (stderr: %s)", err, p.stderr.String())
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			p.t.Fatalf("stdout carries a non-header line %q", line)
		}
		if strings.EqualFold(k, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(p.out, body); err != nil {
		p.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		p.t.Fatalf("frame %q: %v", body, err)
	}
	return m
}

// response reads frames until the response to id.
func (p *proc) response(id float64) map[string]any {
	p.t.Helper()
	for {
		m := p.read()
		if got, ok := m["id"].(float64); ok && got == id && m["method"] == nil {
			return m
		}
	}
}

func (p *proc) wait() int {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			p.t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		p.t.Fatal("the server did not exit")
		return -1
	}
}

func initialize(p *proc, id float64) map[string]any {
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"rootUri": "file://" + p.cmd.Dir, "capabilities": map[string]any{"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}}}}})
	return p.response(id)
}

func TestStdioLifecycle(t *testing.T) {
	t.Parallel()
	p := start(t) // no arguments: serve
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "agent/prompt", "params": map[string]any{"prompt": "hi"}})
	r := p.response(1)
	if e, _ := r["error"].(map[string]any); e == nil || e["code"].(float64) != -32002 {
		t.Fatalf("request before initialize: %v", r)
	}
	r = initialize(p, 2)
	caps := r["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["positionEncoding"] != "utf-8" {
		t.Fatalf("encoding %v", caps["positionEncoding"])
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	p.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
	p.response(3)
	p.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d after shutdown and exit; stderr %s", code, p.stderr.String())
	}
}

func TestStdioExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	p := start(t, "serve")
	initialize(p, 1)
	p.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if code := p.wait(); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
}

func TestStdioStdinClosed(t *testing.T) {
	t.Parallel()
	p := start(t, "serve", "--stdio")
	initialize(p, 1)
	p.in.Close()
	if code := p.wait(); code != 1 {
		t.Fatalf("exit status %d, want 1", code)
	}
}

func TestStdioMalformed(t *testing.T) {
	t.Parallel()
	p := start(t)
	initialize(p, 1)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":5,"method":`, // truncated JSON
		`[]`,                                // empty batch
		`"just a string"`,                   // not an object
		`{"jsonrpc":"2.0","id":6,"method":"agent/prompt","params":[1,2]}`, // params of the wrong shape
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":7}}`,
		`{"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":null}`,
	} {
		p.raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
	}
	// The server still answers.
	p.send(map[string]any{"jsonrpc": "2.0", "id": 8, "method": "shutdown"})
	codes := map[float64]bool{}
	for {
		m := p.read()
		if e, ok := m["error"].(map[string]any); ok {
			codes[e["code"].(float64)] = true
		}
		if m["id"] == 8.0 {
			break
		}
	}
	if !codes[-32700] || !codes[-32602] {
		t.Errorf("error codes %v, want parse error and invalid params among them", codes)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d; stderr %s", code, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "panic") {
		t.Fatalf("stderr %s", p.stderr.String())
	}
}

// TestStdioInitializeToleratesUnreadCapabilities: a client that gets a
// capability the server never reads wrong (a string where the schema wants
// a boolean) still initializes; the fields the server reads are decoded.
func TestStdioInitializeToleratesUnreadCapabilities(t *testing.T) {
	t.Parallel()
	p := start(t)
	p.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"rootUri": "file://" + p.cmd.Dir, "trace": "verbose",
		"capabilities": map[string]any{
			"general":      map[string]any{"positionEncodings": []string{"utf-8"}},
			"textDocument": map[string]any{"synchronization": map[string]any{"dynamicRegistration": "yes"}},
		}}})
	r := p.response(1)
	res, _ := r["result"].(map[string]any)
	caps, _ := res["capabilities"].(map[string]any)
	if caps == nil || caps["positionEncoding"] != "utf-8" {
		t.Fatalf("initialize answered %v", r)
	}
	p.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
	p.response(2)
	p.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	if code := p.wait(); code != 0 {
		t.Fatalf("exit status %d; stderr %s", code, p.stderr.String())
	}
}
