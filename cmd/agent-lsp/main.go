// Command agent-lsp is a coding agent inside the editor: a language server
// (`agent-lsp serve`, the default), a headless runner (`agent-lsp run`), and
// helpers to inspect its setup (`doctor`, `version`).
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
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve", "":
		return serveCmd(args, stdin, stdout, stderr)
	case "run":
		return runCmd(args, stdin, stdout, stderr)
	case "policy":
		return policyCmd(args, stdin, stdout, stderr)
	case "sessions":
		return sessionsCmd(args, stdout, stderr)
	case "replay":
		return replayCmd(args, stdout, stderr)
	case "doctor":
		return doctorCmd(args, stdout, stderr)
	case "mcp":
		return mcpCmd(args, stdin, stdout, stderr)
	case "version", "--version", "-v":
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

const usage = `agent-lsp: a coding agent inside your editor.

Usage:
  agent-lsp [serve]              run the language server over stdio (what editors start)
  agent-lsp run [flags] PROMPT   run one agent session headless ("-" reads the prompt from stdin)
  agent-lsp run --resume ID ...  continue a recorded session ("last" for the latest)
  agent-lsp sessions [--json]    list recorded sessions: id, age, size, first prompt
  agent-lsp replay SESSION       run a session's recorded model turns again and report differing tool results
  agent-lsp policy -- COMMAND    show what the permission rules say about a shell command, and why
  agent-lsp doctor [flags]       show the endpoint, model, workspace and sandbox it would use, and check them
  agent-lsp mcp list [--json]    start the configured MCP servers and list each one's state and tools
  agent-lsp version              print the version

Run "agent-lsp run -h" for the flags.
`
