package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
)

// doctorCmd reports what agent-lsp would use and whether it works: the
// configuration files, the endpoint and whether it answers, the model and
// whether the server lists it, and the workspace root.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("doctor", stderr)
	var common commonFlags
	common.register(fs)
	if _, err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	ws, cfg, warnings, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	ok := true
	fmt.Fprintf(stdout, "agent-lsp %s\n", version())
	fmt.Fprintf(stdout, "workspace: %s\n", ws)
	if len(cfg.Files) == 0 {
		fmt.Fprintln(stdout, "config:    no configuration file (defaults and environment)")
	}
	for _, f := range cfg.Files {
		fmt.Fprintf(stdout, "config:    %s\n", f)
	}
	for _, w := range warnings {
		fmt.Fprintf(stdout, "warning:   %s\n", w)
	}
	fmt.Fprintf(stdout, "endpoint:  %s\n", cfg.BaseURL)
	fmt.Fprintf(stdout, "model:     %s\n", cfg.Model)
	if cfg.APIKey != "" {
		fmt.Fprintln(stdout, "api key:   set")
	} else {
		fmt.Fprintln(stdout, "api key:   not set (fine for local servers; set AGENT_LSP_API_KEY for hosted ones)")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	models, err := agent.ListModels(ctx, &http.Client{Timeout: 10 * time.Second}, cfg.BaseURL, cfg.APIKey)
	switch {
	case err != nil:
		ok = false
		fmt.Fprintf(stdout, "server:    FAIL: %v\n", err)
		fmt.Fprintf(stdout, "           Start a server there (e.g. `ollama serve`) or point agent-lsp elsewhere with --base-url or AGENT_LSP_BASE_URL.\n")
	case slices.Contains(models, cfg.Model):
		fmt.Fprintf(stdout, "server:    ok, serves %d models including %s\n", len(models), cfg.Model)
	default:
		ok = false
		fmt.Fprintf(stdout, "server:    answers, but does not list model %q; it serves: %s\n", cfg.Model, strings.Join(first(models, 10), ", "))
		fmt.Fprintf(stdout, "           Choose one with --model or AGENT_LSP_MODEL (for Ollama: `ollama pull %s`).\n", cfg.Model)
	}
	if ok {
		return exitOK
	}
	return exitFail
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "…")
	}
	return s
}
