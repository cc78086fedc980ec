package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// BenchmarkSessionStart is the cost MCP adds before a session's first
// model request: starting N stdio servers (in parallel) and listing their
// tools, as the first Specs call of a session does.
func BenchmarkSessionStart(b *testing.B) {
	root := tempRoot(b)
	for _, n := range []int{0, 1, 5} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			var servers []Server
			for i := range n {
				servers = append(servers, testServer(b, fmt.Sprintf("s%d", i)))
			}
			for b.Loop() {
				m := NewManager(Options{Servers: servers, Root: root, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
				m.Start()
				if ts, _ := m.Tools(); len(ts) != 7*n {
					b.Fatalf("%d tools", len(ts))
				}
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
	}
}

type echoParams struct {
	Text string `json:"text"`
}

// BenchmarkCall compares one echo call through the dispatcher: an MCP
// tool on a stdio server against a built-in tool.
func BenchmarkCall(b *testing.B) {
	m := NewManager(Options{Servers: []Server{testServer(b, "t")}, Root: tempRoot(b), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer m.Close()
	m.Start()
	ts, _ := m.Tools()
	builtin := tools.DefineInferred("echo", "Echoes text.", true, func(_ context.Context, p *echoParams) (tools.Result, error) {
		return tools.Result{Text: p.Text}, nil
	})
	reg := tools.NewRegistry(builtin)
	for _, t := range ts {
		reg.Add(t.Tool)
	}
	d := tools.NewDispatcher(reg)
	for _, name := range []string{"echo", "mcp__t__echo"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if r := d.Dispatch(context.Background(), tools.Call{ID: "c", Name: name, Arguments: `{"text":"hello"}`}); r.IsError || r.Text != "hello" {
					b.Fatal(r.Text)
				}
			}
		})
	}
}
