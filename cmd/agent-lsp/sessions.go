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
	"time"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
)

// sessionsCmd lists the recorded sessions, most recent first.
func sessionsCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sessions", stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per session")
	describe(fs, "sessions", stderr)
	if _, code, ok := parseArgs(fs, args); !ok {
		return code
	}
	st := agent.NewStore(sessionsDir())
	list, err := st.List()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitFail
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		for _, s := range list {
			_ = enc.Encode(s)
		}
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no sessions yet in %s\n", st.Dir)
		return exitOK
	}
	home, _ := os.UserHomeDir()
	for _, s := range list {
		fmt.Fprintf(stdout, "%s  %-8s %9s  %3d msgs  %s  %s\n", s.ID, age(time.Since(s.Updated)), size(s.Size), s.Messages,
			shortPath(s.Workspace, home), oneLine(s.FirstPrompt, 60))
	}
	return exitOK
}

// replayCmd runs a recorded session's model turns again against its
// workspace and reports the tool results that differ.
func replayCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", stderr)
	var common commonFlags
	common.register(fs)
	var ask askFlag
	fs.Var(&ask, "ask", "answer calls that need approval: deny or allow (default deny)")
	describe(fs, "replay", stderr)
	pos, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	// The recorded commands and edits run again in the session's own
	// workspace, wherever this command runs.
	id, wsDir, err := sessionWorkspace(pos[0], common.workspace)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: replay: %v\n", err)
		return exitUsage
	}
	common.workspace = wsDir
	ws, cfg, _, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	var approver harness.Approver
	if ask == askAllow {
		approver = allowAll{}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := harness.New(harness.Options{Root: ws, Config: cfg, Approver: approver, Log: logger})
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	defer h.Close()
	path, err := h.Store.Path(id)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := agent.Replay(ctx, path, h.Tools, h.AgentConfig, nil)
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: replay: %v\n", err)
		return exitFail
	}
	fmt.Fprint(stdout, rep.Format())
	if rep.OK() {
		return exitOK
	}
	return exitFail
}

// sessionsDir is where transcripts are, as the harness records them.
func sessionsDir() string {
	return harness.SessionsDir(harness.DefaultStateDir(os.Getenv))
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

// shortPath is path with the home directory written ~, or "?" for a
// session recorded without its workspace.
func shortPath(path, home string) string {
	switch {
	case path == "":
		return "?"
	case home != "" && path == home:
		return "~"
	case home != "" && strings.HasPrefix(path, home+string(os.PathSeparator)):
		return "~" + printable(path[len(home):])
	}
	return printable(path)
}
