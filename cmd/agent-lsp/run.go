package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
)

// runCmd is `agent-lsp run`: one agent session, headless. The answer goes
// to stdout, progress to stderr; with --json, stdout carries one event per
// line and the last line is the end event.
func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", stderr)
	var common commonFlags
	common.register(fs)
	jsonOut := fs.Bool("json", false, "print one JSON event per line on stdout")
	resume := fs.String("resume", "", "continue a recorded session: its id, a unique prefix of it, or \"last\" (see agent-lsp sessions)")
	var ask askFlag
	fs.Var(&ask, "ask", "answer calls that need approval: deny or allow (default: ask on the terminal when stdin is one, else deny)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: agent-lsp run [flags] PROMPT\n\nRuns one agent session in the workspace and prints the answer.\nExit status: 0 when the model finished (end_turn), 1 for any other ending, 2 for bad usage or configuration.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	prompt := strings.TrimSpace(strings.Join(pos, " "))
	if prompt == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			fmt.Fprintf(stderr, "agent-lsp: reading the prompt from stdin: %v\n", err)
			return exitUsage
		}
		prompt = strings.TrimSpace(string(b))
	}
	if prompt == "" {
		fmt.Fprintln(stderr, "agent-lsp run: no prompt given")
		fs.Usage()
		return exitUsage
	}
	ws, cfg, warnings, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", w)
	}
	approver, hint, trust := approversFor(ask, stdin, stderr)
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := harness.New(harness.Options{Root: ws, Config: cfg, Approver: approver, AskHint: hint, Log: logger, Trust: trust})
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	defer h.Close()
	switch {
	case h.Sandbox == nil:
		fmt.Fprintf(stderr, "agent-lsp: warning: NO SANDBOX (%v): the bash tool is not offered\n", h.SandboxErr)
	case !h.Sandbox.Status().Confined():
		fmt.Fprintf(stderr, "agent-lsp: warning: NO SANDBOX: %s\n", h.Sandbox.Status().Warning)
	case h.Sandbox.Status().Warning != "":
		fmt.Fprintf(stderr, "agent-lsp: warning: sandbox: %s\n", h.Sandbox.Status().Warning)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var conv *agent.Session
	if *resume != "" {
		if conv, err = h.ResumeSession(*resume); err != nil {
			fmt.Fprintf(stderr, "agent-lsp: resume: %v\n", err)
			return exitUsage
		}
	} else if conv, err = h.NewSession(""); err != nil {
		fmt.Fprintf(stderr, "agent-lsp: warning: %v\n", err)
	}
	defer conv.Transcript().Close()

	var obs agent.Observer
	if *jsonOut {
		obs = jsonObserver(stdout)
		_ = json.NewEncoder(stdout).Encode(map[string]string{"type": "session", "sessionId": conv.ID})
	} else {
		obs = textObserver(stdout, stderr)
	}
	res := h.Agent.Run(ctx, conv, prompt, obs)
	if !*jsonOut {
		if conv.Transcript() != nil {
			fmt.Fprintf(stderr, "agent-lsp: session %s (continue with --resume %s)\n", conv.ID, conv.ID)
		}
		fmt.Fprintln(stderr, summary(res))
	}
	if res.Reason == agent.EndTurn {
		return exitOK
	}
	return exitFail
}

// jsonObserver prints each event as one line of JSON.
func jsonObserver(w io.Writer) agent.Observer {
	enc := json.NewEncoder(w)
	return func(ev agent.Event) {
		_ = enc.Encode(ev)
	}
}

// textObserver streams the answer to stdout and one line per tool call to
// stderr.
func textObserver(stdout, stderr io.Writer) agent.Observer {
	atLineStart := true
	return func(ev agent.Event) {
		switch ev.Type {
		case agent.EvText:
			fmt.Fprint(stdout, ev.Text)
			atLineStart = strings.HasSuffix(ev.Text, "\n")
		case agent.EvToolStart:
			if !atLineStart {
				fmt.Fprintln(stdout)
				atLineStart = true
			}
			fmt.Fprintf(stderr, "→ %s %s\n", ev.Tool.Name, oneLine(ev.Tool.Arguments, 120))
		case agent.EvToolEnd:
			mark := "✓"
			if ev.Tool.IsError {
				mark = "✗"
			}
			fmt.Fprintf(stderr, "  %s %s\n", mark, oneLine(ev.Tool.Result, 120))
		case agent.EvWarning:
			fmt.Fprintf(stderr, "agent-lsp: warning: %s\n", ev.Text)
		case agent.EvTodos:
			fmt.Fprintf(stderr, "todos:\n%s\n", strings.TrimRight(agent.FormatTodos(ev.Todos), "\n"))
		case agent.EvCompaction:
			if c := ev.Compaction; c != nil {
				fmt.Fprintf(stderr, "agent-lsp: context compacted: about %d → %d tokens\n", c.TokensBefore, c.TokensAfter)
			}
		case agent.EvEnd:
			if !atLineStart {
				fmt.Fprintln(stdout)
			}
		}
	}
}

// summary ends stderr: the reason for a failure, then one line with the
// ending, turns, tool calls and tokens.
func summary(r agent.Result) string {
	s := fmt.Sprintf("agent-lsp: %s · %d turns · %d tool calls · %d tokens in, %d out",
		r.Reason, r.Turns, r.ToolCalls, r.Usage.InputTokens, r.Usage.OutputTokens)
	if r.Error != "" && r.Reason != agent.EndTurn {
		s = "agent-lsp: " + r.Error + "\n" + s
	}
	return s
}

// oneLine squeezes text onto one line of at most n runes. Control, bidi
// and invisible characters become escapes: tool output (a file, a
// command's output) must not drive the user's terminal.
func oneLine(s string, n int) string {
	s = printable(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
