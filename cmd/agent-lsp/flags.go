package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agent-lsp/agent-lsp/config"
)

// commonFlags are the flags every agent command takes.
type commonFlags struct {
	workspace    string
	configFile   string
	baseURL      string
	model        string
	maxTurns     int
	maxToolCalls int
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.workspace, "workspace", "", "workspace root (default: the current directory, or a resumed session's recorded one)")
	fs.StringVar(&c.configFile, "config", "", "configuration file (default: $XDG_CONFIG_HOME/agent-lsp/config.toml)")
	fs.StringVar(&c.baseURL, "base-url", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env AGENT_LSP_BASE_URL)")
	fs.StringVar(&c.model, "model", "", "model name (env AGENT_LSP_MODEL)")
	fs.IntVar(&c.maxTurns, "max-turns", 0, "maximum model requests (default 50)")
	fs.IntVar(&c.maxToolCalls, "max-tool-calls", 0, "maximum tool calls (default 200)")
}

// load resolves the workspace and the configuration.
func (c *commonFlags) load() (string, config.Config, []string, error) {
	ws := c.workspace
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return "", config.Config{}, nil, err
		}
	}
	ws, err := canonicalDir(ws)
	if err != nil {
		return "", config.Config{}, nil, err
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return "", config.Config{}, nil, fmt.Errorf("workspace %s is not a directory", ws)
	}
	cfg, warnings, err := config.Load(config.Sources{
		UserFile:  c.configFile,
		Workspace: ws,
		Flags:     config.Overrides{BaseURL: c.baseURL, Model: c.model, MaxTurns: c.maxTurns, MaxToolCalls: c.maxToolCalls},
	})
	return ws, cfg, warnings, err
}

// loadOrSay is load for commands that print the configuration's
// warnings and errors plainly on stderr; ok is false after an error.
func (c *commonFlags) loadOrSay(stderr io.Writer) (string, config.Config, bool) {
	ws, cfg, warnings, err := c.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return "", cfg, false
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	return ws, cfg, true
}

// parseInterspersed parses flags that may come after positional arguments
// (`agent-lsp run "fix it" --json`); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseArgs parses flags and positional arguments for a subcommand. When
// ok is false the command must return code at once: 0 after -h, 2 after
// a bad flag (the flag package has printed why).
func parseArgs(fs *flag.FlagSet, args []string) (pos []string, code int, ok bool) {
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, exitOK, false
	case err != nil:
		return nil, exitUsage, false
	}
	return pos, 0, true
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("agent-lsp "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
