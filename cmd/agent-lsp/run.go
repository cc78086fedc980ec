package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/internal/text"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/singlep"
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
	mode := fs.String("mode", harness.ModeDefault, "session mode: default, or read-only (no edits, no bash: read, search, task and write_todos only)")
	var ask askFlag
	fs.Var(&ask, "ask", "answer calls that need approval: deny or allow (default: ask on the terminal when stdin is one, else deny)")
	describe(fs, "run", stderr)
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
	if *mode != harness.ModeDefault && *mode != harness.ModeReadOnly {
		fmt.Fprintf(stderr, "agent-lsp run: --mode %q: use %s or %s\n", *mode, harness.ModeDefault, harness.ModeReadOnly)
		return exitUsage
	}
	resumeID := ""
	if *resume != "" {
		// A resumed session goes on in its own workspace, wherever this
		// command runs.
		var err error
		if resumeID, common.workspace, err = sessionWorkspace(*resume, common.workspace); err != nil {
			fmt.Fprintf(stderr, "agent-lsp: resume: %v\n", err)
			return exitUsage
		}
	}
	ws, cfg, warnings, err := common.load()
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	con := newConsole(stdout, stderr)
	for _, w := range warnings {
		con.Line(con.paint(styleYellow, "agent-lsp: warning: ") + w)
	}
	approver, hint, trust := approversFor(ask, stdin, con)
	logger := slog.New(slog.NewTextHandler(con, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := harness.New(harness.Options{Root: ws, Config: cfg, Approver: approver, AskHint: hint, Log: logger, ReadOnly: *mode == harness.ModeReadOnly, Trust: trust, Preconnect: true})
	if err != nil {
		fmt.Fprintf(stderr, "agent-lsp: %v\n", err)
		return exitUsage
	}
	defer h.Close()
	warn := func(s string) { con.Line(con.paint(styleYellow, "agent-lsp: warning: ") + s) }
	if h.Sandbox == nil {
		warn(fmt.Sprintf("NO SANDBOX (%v): the bash tool is not offered", h.SandboxErr))
	}
	// How commands are confined is known once the sandbox has been probed,
	// which happens at the first command (a run without one never pays
	// for it): say it then, before the command's output.
	sandboxNote := sync.OnceFunc(func() {
		switch st := h.Sandbox.Status(); {
		case !st.Confined():
			warn("NO SANDBOX: " + st.Warning)
		case st.Warning != "":
			warn("sandbox: " + st.Warning)
		}
	})

	ctx, armInterrupt, stop := interruptContext(context.Background())
	defer stop()

	var conv *agent.Session
	if resumeID != "" {
		if conv, err = h.ResumeSession(resumeID); err != nil {
			fmt.Fprintf(stderr, "agent-lsp: resume: %v\n", err)
			return exitUsage
		}
	} else if conv, err = h.NewSession(""); err != nil {
		warn(err.Error())
	}
	defer conv.Transcript().Close()

	var obs agent.Observer
	if *jsonOut {
		obs = jsonObserver(stdout)
		_ = json.NewEncoder(stdout).Encode(map[string]string{"type": "session", "sessionId": conv.ID})
	} else {
		obs = textObserver(con)
	}
	inner := obs
	obs = func(ev agent.Event) {
		if ev.Type == agent.EvToolStart {
			singlep.Restore() // a tool may work on every CPU
			armInterrupt()    // a tool's process or prompt wants a clean stop
			if h.Sandbox != nil && ev.Tool != nil && ev.Tool.Name == "bash" {
				sandboxNote()
			}
		}
		inner(ev)
	}
	res := h.Agent.Run(ctx, conv, prompt, obs)
	kept := conv.Transcript() != nil && conv.Transcript().Err() == nil
	if resumeID == "" && kept && !answered(conv) {
		// Nothing to continue or replay: the model never answered (an
		// endpoint down, a model missing). Do not list it as a session.
		kept = !dropSession(h, conv)
	}
	if !*jsonOut {
		end := summary(res)
		if kept {
			end = con.paint(styleDim, "agent-lsp: session "+conv.ID+" (continue with --resume "+conv.ID+")") + "\n" + end
		}
		con.Line(end) // one write: the last lines of a run
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

// textObserver streams the answer to stdout and, on stderr, each tool
// call, its progress while it runs and the first and last lines of its
// result.
func textObserver(c *console) agent.Observer {
	return func(ev agent.Event) {
		switch ev.Type {
		case agent.EvText:
			c.Text(ev.Text)
		case agent.EvToolStart:
			subject := callSubject(ev.Tool.Arguments)
			c.Line(c.paint(styleBold, "→ "+ev.Tool.Name) + " " + clipRunes(subject, c.width()-len(ev.Tool.Name)-3))
			c.Start(ev.Tool.Name + " " + subject)
		case agent.EvToolOutput:
			c.Output(ev.Text)
		case agent.EvToolEnd:
			c.Stop()
			mark := c.paint(styleGreen, "✓")
			if ev.Tool.IsError {
				mark = c.paint(styleRed, "✗")
			}
			for i, l := range preview(ev.Tool.Result, c.width()-4, ev.Tool.IsError) {
				if i == 0 {
					c.Line("  " + mark + " " + c.paint(styleDim, l))
				} else {
					c.Line("    " + c.paint(styleDim, l))
				}
			}
		case agent.EvWarning:
			c.Line(c.paint(styleYellow, "agent-lsp: warning: ") + ev.Text)
		case agent.EvTodos:
			c.Line("todos:\n" + strings.TrimRight(agent.FormatTodos(ev.Todos), "\n"))
		case agent.EvCompaction:
			if cp := ev.Compaction; cp != nil {
				c.Line(fmt.Sprintf("agent-lsp: context compacted: about %d → %d tokens", cp.TokensBefore, cp.TokensAfter))
			}
		case agent.EvChanges:
			c.Stop()
			if len(ev.Changes) > 0 {
				lines := []string{fmt.Sprintf("changed %s (agent-lsp undo takes them back):", plural(len(ev.Changes), "file"))}
				for _, f := range ev.Changes {
					lines = append(lines, "  "+fileLine(f.Path, f.From, f.Kind, f.Added, f.Removed))
				}
				c.Line(strings.Join(lines, "\n"))
			}
		case agent.EvEnd:
			c.Stop()
			c.EndAnswer()
		}
	}
}

// answered reports whether the model answered at least once in s.
func answered(s *agent.Session) bool {
	for _, m := range s.Messages() {
		if m.Role == agent.RoleAssistant {
			return true
		}
	}
	return false
}

// dropSession removes the transcript (and spill folder) of a session that
// holds no answer, and reports whether it is gone.
func dropSession(h *harness.Harness, s *agent.Session) bool {
	t := s.Transcript()
	_ = t.Close()
	_ = os.RemoveAll(h.Store.SpillDir(s.ID))
	return os.Remove(t.Path()) == nil
}

// summary ends stderr: the reason for a failure, then one line with the
// ending, turns, tool calls and tokens.
func summary(r agent.Result) string {
	s := "agent-lsp: " + string(r.Reason) + " · " + strconv.Itoa(r.Turns) + " turns · " + strconv.Itoa(r.ToolCalls) + " tool calls · " +
		strconv.Itoa(r.Usage.InputTokens) + " tokens in, " + strconv.Itoa(r.Usage.OutputTokens) + " out"
	if r.Error != "" && r.Reason != agent.EndTurn {
		s = "agent-lsp: " + r.Error + "\n" + s
	}
	return s
}

// oneLine squeezes text onto one line of at most n runes. Control, bidi
// and invisible characters become escapes: tool output (a file, a
// command's output) must not drive the user's terminal.
func oneLine(s string, n int) string { return text.OneLine(printable(text.OneLine(s, 0)), n) }
