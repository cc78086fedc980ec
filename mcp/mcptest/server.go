// Package mcptest is an MCP server built with the go-sdk for the tests of
// the MCP client, the harness, the LSP server and the binary. A test
// binary becomes the server when MaybeServe finds MCP_TEST_ROLE set.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaybeServe plays the part MCP_TEST_ROLE names and exits: "server" (the
// test server on stdio), "exit" (exits at once with status 3), "hang"
// (never answers); it returns when the variable is unset.
func MaybeServe() {
	switch os.Getenv("MCP_TEST_ROLE") {
	case "server":
		if err := NewServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "exit":
		fmt.Fprintln(os.Stderr, "test server: refusing to serve")
		os.Exit(3)
	case "hang":
		// Sleep rather than select{}: a binary built without cgo has the
		// runtime's deadlock check, which would end a bare select{}.
		for {
			time.Sleep(time.Hour)
		}
	}
}

type echoArgs struct {
	Text  string `json:"text" jsonschema:"what to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how many times"`
}

type slowArgs struct {
	Seconds int `json:"seconds"`
}

type touchArgs struct {
	Path string `json:"path"`
}

type markerArgs struct {
	Marker string `json:"marker"`
}

func boolPtr(b bool) *bool { return &b }

// NewServer is the go-sdk server the tests talk to: echo (read-only),
// env, slow (until cancelled; writes $MCP_TEST_STARTED and
// $MCP_TEST_CANCELLED files), rich (every kind of content), fail, spawn (a
// grandchild that leaves the process group) and grow (adds a tool, so the
// server sends notifications/tools/list_changed).
func NewServer() *sdk.Server {
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
	sdk.AddTool(s, &sdk.Tool{Name: "touch", Description: "Writes a file at path."},
		func(_ context.Context, _ *sdk.CallToolRequest, a touchArgs) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(a.Path, []byte("written by the MCP server\n"), 0o644); err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote " + a.Path}}}, nil, nil
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
