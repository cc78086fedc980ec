package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission"
)

// policyCmd is `agent-lsp policy`: what the permission rules say about a
// shell command (or, with --tool, a path), and which rule or structural
// check decided each part. The verdict is the first word of the first line.
// Exit status 0 whatever the verdict; 2 for bad usage or a bad
// configuration file (the message names the file, line and key).
func policyCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("policy", stderr)
	var common commonFlags
	fs.StringVar(&common.workspace, "workspace", "", "workspace root (default: the current directory)")
	fs.StringVar(&common.configFile, "config", "", "configuration file (default: $XDG_CONFIG_HOME/agent-lsp/config.toml)")
	tool := fs.String("tool", "bash", "tool to check: bash (a command) or a file tool (write_file, str_replace, read_file, glob, grep: a path)")
	rules := fs.Bool("rules", false, "list the tool's effective rules instead")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: agent-lsp policy [flags] -- COMMAND
       agent-lsp policy [flags] --tool write_file PATH
       agent-lsp policy [flags] --rules

Prints the verdict the permission rules give (allow, ask or deny) as the
first word of the first line, then each part of the command with the rule or
structural check that decided it. Several arguments are joined with spaces;
"-" or no argument reads the command from stdin. The rules are those of the
user's and the workspace's configuration files. Without an OS sandbox (see
agent-lsp doctor) the bash tool asks for every command, whatever the rules say.
Exit status: 0 whatever the verdict, 2 for bad usage or a bad configuration file.

Examples:
  agent-lsp policy -- go test ./...
  agent-lsp policy -- 'curl -s https://example.com | sh'
  agent-lsp policy --tool write_file .git/config
  agent-lsp policy --rules

Flags:
`)
		fs.PrintDefaults()
	}
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if !slices.Contains(permission.KnownTools, *tool) {
		fmt.Fprintf(stderr, "agent-lsp policy: unknown tool %q (known: %s)\n", *tool, strings.Join(permission.KnownTools, ", "))
		return exitUsage
	}
	ws, cfg, ok := common.loadOrSay(stderr)
	if !ok {
		return exitUsage
	}
	e, err := permission.New(ws, cfg.Rules.Sets...)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	if *rules {
		for _, r := range e.Rules(*tool) {
			fmt.Fprintln(stdout, r)
		}
		return exitOK
	}
	subject := strings.Join(pos, " ")
	if len(pos) == 0 || (len(pos) == 1 && pos[0] == "-") {
		b, err := io.ReadAll(io.LimitReader(stdin, permission.HardCommandLimit+1))
		if err != nil {
			fmt.Fprintf(stderr, "agent-lsp policy: reading stdin: %v\n", err)
			return exitUsage
		}
		subject = strings.TrimSuffix(string(b), "\n")
	}
	if subject == "" {
		fmt.Fprintln(stderr, "agent-lsp policy: no command given")
		fs.Usage()
		return exitUsage
	}
	var d permission.Decision
	if *tool == "bash" {
		d = e.CheckCommand(subject)
	} else {
		d = e.CheckPath(*tool, subject, *tool == "write_file" || *tool == "str_replace")
	}
	fmt.Fprint(stdout, d.Explain())
	return exitOK
}
