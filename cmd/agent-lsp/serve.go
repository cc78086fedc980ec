package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agent-lsp/agent-lsp/lsp"
)

// serveCmd is `agent-lsp serve` (and agent-lsp without arguments): the
// language server over stdio. stdout is the LSP wire; logs go to stderr.
func serveCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", stderr)
	configFile := fs.String("config", "", "configuration file (default: $XDG_CONFIG_HOME/agent-lsp/config.toml)")
	fs.Bool("stdio", true, "speak LSP over stdin and stdout (the only transport; accepted for clients that pass it)")
	describe(fs, "serve", stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := lsp.New(lsp.Options{Stderr: stderr, UserConfig: *configFile, Version: version()})
	return s.Serve(ctx, stdio{stdin, stdout})
}

// stdio joins stdin and stdout into one stream; Close closes stdin so a
// blocked read returns.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
