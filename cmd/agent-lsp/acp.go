package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agent-lsp/agent-lsp/acp"
	"github.com/agent-lsp/agent-lsp/harness"
)

// acpCmd is `agent-lsp acp`: the Agent Client Protocol agent over stdio
// (Zed, JetBrains, Neovim and Emacs ACP clients). stdout is the wire;
// logs go to stderr.
func acpCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("acp", stderr)
	configFile := fs.String("config", "", "configuration file (default: $XDG_CONFIG_HOME/agent-lsp/config.toml)")
	baseURL := fs.String("base-url", "", "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env AGENT_LSP_BASE_URL)")
	model := fs.String("model", "", "model name (env AGENT_LSP_MODEL)")
	approval := fs.Duration("approval-timeout", acp.DefaultApprovalTimeout, "how long a permission request waits for an answer before it counts as a denial")
	logLevel := fs.String("log-level", "info", "stderr log level: debug, info, warn or error")
	describe(fs, "acp", stderr)
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "agent-lsp acp: --log-level %q: %v\n", *logLevel, err)
		return exitUsage
	}
	if *approval <= 0 {
		*approval = time.Nanosecond // deny at once
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	err := acp.Serve(ctx, stdin, stdout, acp.Options{
		Log: log, UserConfig: *configFile, Version: version(), ApprovalTimeout: *approval,
		Settings: harness.Settings{BaseURL: *baseURL, Model: *model},
	})
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp acp: %v\n", err)
		return exitFail
	}
	return exitOK
}
