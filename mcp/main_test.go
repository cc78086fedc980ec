package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary plays three more parts, chosen by MCP_TEST_ROLE: an MCP
// server built with the go-sdk on stdio ("server"), a server that exits at
// once ("exit") or never answers ("hang"), and a process that runs a
// Manager and waits to be killed ("host").
func TestMain(m *testing.M) {
	MaybeRunSupervisor()
	switch os.Getenv("MCP_TEST_ROLE") {
	case "server":
		s := newTestServer()
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "test server: refusing to serve")
		os.Exit(3)
	case "hang":
		select {}
	case "host":
		os.Exit(host())
	}
	os.Exit(m.Run())
}

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how many times"`
}

type slowArgs struct {
	Seconds int `json:"seconds"`
}

type markerArgs struct {
	Marker string `json:"marker"`
}

func boolPtr(b bool) *bool { return &b }

// newTestServer is the go-sdk server the tests talk to.
func newTestServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agent-lsp-test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			n := max(a.Times, 1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat(a.Text, n)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Lists the environment.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Waits, until cancelled.", Annotations: &sdk.ToolAnnotations{DestructiveHint: boolPtr(false)}},
		func(ctx context.Context, _ *sdk.CallToolRequest, a slowArgs) (*sdk.CallToolResult, any, error) {
			if f := os.Getenv("MCP_TEST_STARTED"); f != "" {
				_ = os.WriteFile(f, []byte("started"), 0o644)
			}
			select {
			case <-time.After(time.Duration(a.Seconds) * time.Second):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil, nil
			case <-ctx.Done():
				// The client's notifications/cancelled reached us.
				if f := os.Getenv("MCP_TEST_CANCELLED"); f != "" {
					_ = os.WriteFile(f, []byte("cancelled"), 0o644)
				}
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "rich", Description: "Returns every kind of content."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{
				Content: []sdk.Content{
					&sdk.TextContent{Text: "hello"},
					&sdk.ImageContent{Data: []byte("\x89PNG...."), MIMEType: "image/png"},
					&sdk.ResourceLink{URI: "file:///tmp/report.txt", Name: "report", MIMEType: "text/plain"},
					&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "mem://note", Text: "embedded text"}},
				},
				StructuredContent: map[string]any{"answer": 42},
			}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Starts a long-lived grandchild that leaves the process group."},
		func(_ context.Context, _ *sdk.CallToolRequest, a markerArgs) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("bash", "-c", "exec -a "+a.Marker+" sleep 1000")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(cmd.Process.Pid)}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "Adds a tool named added."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(s, &sdk.Tool{Name: "added", Description: "Added later."},
				func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "new"}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown"}}}, nil, nil
		})
	return s
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
	srv := newTestServer()
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
			args, _ := json.Marshal(markerArgs{Marker: os.Getenv("MCP_TEST_MARKER")})
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
