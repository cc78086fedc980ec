// Command agent-lsp is a coding agent inside the editor: a language server
// (`agent-lsp serve`, the default when stdin is not a terminal), an ACP
// agent (`agent-lsp acp`), a headless runner (`agent-lsp run`), and helpers
// to inspect its setup and sessions (`doctor`, `policy`, `sessions`,
// `replay`, `version`).
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// Exit statuses of every subcommand.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	// The bash tool's sandbox re-executes this binary to confine itself;
	// in that role this call never returns.
	sandbox.MaybeRunHelper()
	// An MCP stdio server runs under this binary as its supervisor.
	mcp.MaybeRunSupervisor()
	os.Exit(mainArgs(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// A person who types agent-lsp gets help, not a server silently
		// waiting for LSP on the terminal; an editor's pipe gets the server.
		if f, ok := stdin.(*os.File); ok && isTerminal(f) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		return serveCmd(nil, stdin, stdout, stderr)
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "serve", "":
		return serveCmd(args, stdin, stdout, stderr)
	case "run":
		return runCmd(args, stdin, stdout, stderr)
	case "acp":
		return acpCmd(args, stdin, stdout, stderr)
	case "policy":
		return policyCmd(args, stdin, stdout, stderr)
	case "sessions":
		return sessionsCmd(args, stdout, stderr)
	case "replay":
		return replayCmd(args, stdout, stderr)
	case "undo":
		return undoCmd(args, stdout, stderr)
	case "doctor":
		return doctorCmd(args, stdout, stderr)
	case "mcp":
		return mcpCmd(args, stdin, stdout, stderr)
	case "version":
		return versionCmd(args, stdout, stderr)
	case "--version", "-v":
		fmt.Fprintln(stdout, "agent-lsp", version())
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "agent-lsp: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}
