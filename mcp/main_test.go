package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/mcp/mcptest"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// The test binary plays three more parts, chosen by MCP_TEST_ROLE: an MCP
// server built with the go-sdk on stdio ("server"), a server that exits at
// once ("exit") or never answers ("hang"), and a process that runs a
// Manager and waits to be killed ("host").
func TestMain(m *testing.M) {
	MaybeRunSupervisor()
	// A `sandbox = true` server runs through the sandbox's helper, which
	// re-executes this binary.
	sandbox.MaybeRunHelper()
	mcptest.MaybeServe()
	switch os.Getenv("MCP_TEST_ROLE") {
	case "host":
		os.Exit(host())
	}
	os.Exit(tmpcheck.Run(m))
}

// testServer is the definition of the stdio test server.
func testServer(t testing.TB, name string, env ...string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := Server{Name: name, Source: "test"}
	s.Command, s.Args = exe, []string{"-test.run=^$"}
	s.Env = map[string]string{"MCP_TEST_ROLE": "server"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		s.Env[k] = v
	}
	return s
}

// httpTestServer serves the test server over streamable HTTP on 127.0.0.1
// and returns its URL; it records the headers it got.
func httpTestServer(t testing.TB) (string, func() []http.Header) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := mcptest.NewServer()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var seen []http.Header
	var mu = make(chan struct{}, 1)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu <- struct{}{}
		seen = append(seen, r.Header.Clone())
		<-mu
		h.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp", func() []http.Header {
		mu <- struct{}{}
		defer func() { <-mu }()
		return slices.Clone(seen)
	}
}

// host runs a Manager over the stdio test server, has it spawn a
// grandchild named by MCP_TEST_MARKER, prints "ready" and waits to be
// killed.
func host() int {
	exe, _ := os.Executable()
	s := Server{Name: "t", Source: "test"}
	s.Command, s.Args = exe, []string{"-test.run=^$", os.Getenv("MCP_TEST_MARKER")}
	s.Env = map[string]string{"MCP_TEST_ROLE": "server"}
	m := NewManager(Options{Servers: []Server{s}, Root: os.TempDir()})
	m.Start()
	ts, _ := m.Tools()
	for _, t := range ts {
		if t.Remote == "spawn" {
			args, _ := json.Marshal(map[string]string{"marker": os.Getenv("MCP_TEST_MARKER")})
			if res := dispatch(context.Background(), ts, t.Name(), string(args)); res.IsError {
				fmt.Println("spawn failed:", res.Text)
				return 1
			}
		}
	}
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n')
	return 0
}

// tempRoot is a workspace root for tests.
func tempRoot(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
