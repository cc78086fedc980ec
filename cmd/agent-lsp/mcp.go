package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/mcp"
)

// mcpCmd is `agent-lsp mcp list [--json]`: start the configured MCP
// servers as a session would (asking on the terminal about the
// workspace's, if there is one) and report each one, without a model.
func mcpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(stderr, "Usage: agent-lsp mcp list [--json] [flags]\n\nStarts the MCP servers of the configuration and of the workspace's .mcp.json, lists each one's state and tools, and stops them.")
		return exitUsage
	}
	fs := newFlagSet("mcp list", stderr)
	var common commonFlags
	common.register(fs)
	jsonOut := fs.Bool("json", false, "print the servers as JSON")
	if _, code, ok := parseArgs(fs, args[1:]); !ok {
		return code
	}
	ws, cfg, ok := common.loadOrSay(stderr)
	if !ok {
		return exitUsage
	}
	_, _, trust := approversFor(askDeny, stdin, stderr)
	st, warns := mcpStatus(ws, cfg, trust, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	for _, w := range warns {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	if *jsonOut {
		if st == nil {
			st = []mcp.Status{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"servers": st})
	} else {
		printMCP(stdout, st, "")
	}
	for _, s := range st {
		if s.State == mcp.StateFailed {
			return exitFail
		}
	}
	return exitOK
}

// mcpStatus starts the servers a session in ws would have, and stops them.
func mcpStatus(ws string, cfg config.Config, trust harness.Approver, log *slog.Logger) ([]mcp.Status, []string) {
	m, warnings := harness.NewMCPManager(ws, harness.DefaultStateDir(os.Getenv), cfg, trust, log)
	if m == nil {
		return nil, warnings
	}
	defer m.Close()
	m.Start()
	return m.Status(), append(warnings, m.TakeWarnings()...)
}

// printMCP prints one block per server; prefix indents continuation lines.
func printMCP(w io.Writer, st []mcp.Status, prefix string) {
	if len(st) == 0 {
		fmt.Fprintln(w, "no MCP servers configured ([mcp_servers.NAME] in your configuration, or the workspace's .mcp.json)")
		return
	}
	for i, s := range st {
		if i > 0 {
			fmt.Fprint(w, prefix)
		}
		sb := ""
		if s.Sandboxed {
			sb = ", sandboxed"
		}
		fmt.Fprintf(w, "%s (%s%s, %s): %s", s.Name, s.Transport, sb, oneLine(s.Target, 80), s.State)
		if s.State == mcp.StateRunning {
			fmt.Fprintf(w, ", %d tools, started in %d ms", len(s.Tools), s.StartTime.Milliseconds())
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s  from %s\n", prefix, s.Source)
		if s.Error != "" {
			fmt.Fprintf(w, "%s  error: %s\n", prefix, oneLine(s.Error, 300))
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(w, "%s  tools: %s\n", prefix, strings.Join(s.Tools, ", "))
		}
	}
}
