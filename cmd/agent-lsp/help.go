package main

import (
	"flag"
	"fmt"
	"io"
)

// The help of each subcommand: what it does, then examples a newcomer can
// paste; the flags follow. `agent-lsp CMD --help` prints it (exit 0).
var helpTexts = map[string]string{
	"run": `Usage: agent-lsp run [flags] PROMPT

Runs one agent session in the workspace (the current directory unless
--workspace says otherwise) and prints the answer on stdout; tool calls,
their progress and results go to stderr. "-" reads the prompt from stdin.
The session is recorded: --resume continues it later, in the workspace it
was recorded in (a --workspace naming another one is refused).
Exit status: 0 when the model finished (end_turn), 1 for any other ending,
2 for bad usage or configuration.

Examples:
  agent-lsp run "why does TestParse fail? fix it"
  agent-lsp run --ask=allow --model qwen2.5-coder:7b "add a --verbose flag"
  git diff | agent-lsp run -              # the prompt from stdin
  agent-lsp run --resume last "now add a test for it"
  agent-lsp run --json "list the TODOs" | jq .   # one JSON event a line
`,
	"acp": `Usage: agent-lsp acp [flags]

Speaks the Agent Client Protocol (version 1) on stdin and stdout, for
editors that start agents this way: Zed, the JetBrains IDEs, and ACP
plugins for Neovim and Emacs. Logs go to stderr. The endpoint, model and
key come from the usual configuration (docs/acp.md).

Examples:
  agent-lsp acp                         # what an editor's agent_servers entry runs
  agent-lsp acp --approval-timeout 2m
`,
	"replay": `Usage: agent-lsp replay [flags] SESSION

Runs the model turns recorded in SESSION again, in the session's own
workspace (tools run for real there), and reports where the tool results
differ from the recorded ones. SESSION is an id from agent-lsp sessions, a
unique prefix of one, or "last". A --workspace naming another directory is
refused. Exit status 0 when nothing differs, 1 otherwise, 2 for bad usage.

Examples:
  agent-lsp replay last
  agent-lsp replay 20260102-150405 --ask=allow
`,
	"sessions": `Usage: agent-lsp sessions [--json]

Lists the recorded sessions, most recent first: id, age, size, messages,
workspace and first prompt. Continue one with agent-lsp run --resume ID,
re-run it with agent-lsp replay ID. Runs that never got an answer from the
model are not kept.

Examples:
  agent-lsp sessions
  agent-lsp sessions --json | jq -r .workspace
`,
	"undo": `Usage: agent-lsp undo [--session ID|last] [--turns N|all] [--turn N] [--list]

Takes back what a session's turns changed (a turn is one prompt), in the
session's own workspace, wherever this command runs: edited files are
reverted, files the agent created are deleted, files it deleted come back,
including what its shell commands changed. It works from the session's
change journal, never from git, and never touches .git. Parts of a file
you edited since the agent changed them are kept as you have them, and the
file is named. Undone turns stay listed (--list), marked undone; the model
hears of it on its next turn. Exit status 0 when everything was reverted,
1 when a file was (wholly or partly) kept because you had changed it, 2
for bad usage.

Examples:
  agent-lsp undo                       # the last turn of the latest session
  agent-lsp undo --turns all           # every turn of the latest session
  agent-lsp undo --session 20260102-150405 --turns 2
  agent-lsp undo --list
`,
	"doctor": `Usage: agent-lsp doctor [flags]

Shows what agent-lsp would use here and checks it: the configuration files,
the endpoint (does it answer?), the model (does the server list it?), the
workspace root and the sandbox the bash tool runs in. Run it first when
something does not work. Exit status 0 when every check passes, 1 otherwise.

Examples:
  agent-lsp doctor
  agent-lsp doctor --base-url http://localhost:11434/v1 --model qwen2.5-coder:7b
`,
	"serve": `Usage: agent-lsp serve [flags]

Runs the language server over stdin and stdout: what editors start. The
workspace comes from the editor (initialize). agent-lsp without arguments
does the same when stdin is not a terminal.

Examples:
  agent-lsp serve                     # in an editor's server command
  agent-lsp serve --config ~/agent-work.toml
`,
	"version": `Usage: agent-lsp version

Prints the version of this binary.

Example:
  agent-lsp version
`,
}

// describe makes fs print the help of command name, then its flags.
func describe(fs *flag.FlagSet, name string, w io.Writer) {
	fs.Usage = func() {
		fmt.Fprint(w, helpTexts[name])
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
}

const usage = `agent-lsp: a coding agent inside your editor, and on the command line.

Usage:
  agent-lsp run [flags] PROMPT   run the agent once here and print its answer
  agent-lsp run --resume last …  continue the latest session, in its workspace
  agent-lsp sessions             list recorded sessions (id, age, workspace, prompt)
  agent-lsp replay SESSION       run a session's recorded turns again, report differences
  agent-lsp undo                 take back what the latest session's last turn changed
  agent-lsp policy -- COMMAND    show what the permission rules say about a command
  agent-lsp doctor               check the endpoint, model, workspace and sandbox
  agent-lsp serve                the language server over stdio (what editors start)
  agent-lsp acp                  the Agent Client Protocol over stdio (Zed, JetBrains, ACP plugins)
  agent-lsp version              print the version

Examples:
  agent-lsp doctor
  agent-lsp run "the tests in ./parser fail; find out why and fix it"
  agent-lsp run --resume last "also update the README"

Run "agent-lsp COMMAND --help" for a command's flags and examples.
Without arguments, agent-lsp serves LSP when stdin is not a terminal.
`
