package harness

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/changes"
	"github.com/agent-lsp/agent-lsp/internal/cmdrun"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/tools"
)

// The change journal wired into a session (package changes): the loop
// opens and closes a turn (agent.Checkpoints); the edit tools' workspace
// reports each edit (journalEditor); the bash tool's shell is scanned
// before and after each command (journalShell). The tools know nothing of
// it.

// checkpoints are the harness's agent.Checkpoints: one journal per
// session, next to its transcript.
type checkpoints struct {
	sessions string
	scanner  *changes.Scanner // nil without the bash tool
	log      *slog.Logger
	secrets  []string // never written to a journal (the prompt may quote them)

	mu       sync.Mutex
	journals map[string]*changes.Journal
	cur      *changes.Journal // the running turn's
}

// Journal returns session id's change journal (loaded from its state
// directory the first time).
func (c *checkpoints) Journal(id string) (*changes.Journal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if j, ok := c.journals[id]; ok {
		return j, nil
	}
	j, err := changes.Open(changes.Dir(c.sessions, id))
	if err != nil {
		return nil, err
	}
	if c.journals == nil {
		c.journals = map[string]*changes.Journal{}
	}
	c.journals[id] = j
	return j, nil
}

// fresh gives session id, which this process has just created, a new
// journal without looking for one on the disk.
func (c *checkpoints) fresh(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.journals == nil {
		c.journals = map[string]*changes.Journal{}
	}
	if _, ok := c.journals[id]; !ok {
		c.journals[id] = changes.New(changes.Dir(c.sessions, id))
	}
}

// BeginRun opens a turn and returns what the model must hear of undone
// turns.
func (c *checkpoints) BeginRun(id, prompt string) string {
	j, err := c.Journal(id)
	if err != nil {
		c.log.Warn("Change journal not opened; this turn's changes cannot be listed or undone", "session", id, "err", err)
		return ""
	}
	note := j.TakeNotice()
	for _, sec := range c.secrets {
		prompt = strings.ReplaceAll(prompt, sec, "[REDACTED]")
	}
	j.Begin(prompt)
	c.mu.Lock()
	c.cur = j
	c.mu.Unlock()
	return note
}

// Prepare takes the workspace's baseline in the background (the loop
// calls it when the model first asks for a tool): a command then finds it
// made, or under way, and a run answered in text never takes it.
func (c *checkpoints) Prepare() {
	if c.scanner != nil {
		c.scanner.Prepare()
	}
}

// EndRun closes the turn.
func (c *checkpoints) EndRun(id string) []agent.FileChange {
	c.mu.Lock()
	j := c.cur
	c.cur = nil
	c.mu.Unlock()
	if j == nil {
		return nil
	}
	t := j.End()
	if t == nil {
		return nil
	}
	out := make([]agent.FileChange, 0, len(t.Files))
	for _, f := range t.Files {
		out = append(out, agent.FileChange{Path: f.Path, From: f.From, Kind: string(f.Kind), Added: f.Added, Removed: f.Removed})
	}
	return out
}

func (c *checkpoints) current() *changes.Journal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *checkpoints) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, j := range c.journals {
		j.Close()
	}
	c.journals = nil
	return nil
}

// toolOf reads the tool's name from an edit's label ("agent-lsp:
// str_replace a.go").
func toolOf(c tools.Change) string {
	rest, ok := strings.CutPrefix(c.Label, "agent-lsp: ")
	if name, _, found := strings.Cut(rest, " "); ok && found {
		return name
	}
	return "edit"
}

// journalEditor is the edit tools' workspace: each edit applied is
// recorded in the running turn's journal.
type journalEditor struct {
	tools.Editor
	cp *checkpoints
}

// ApplyEdit applies c and records it.
func (e journalEditor) ApplyEdit(ctx context.Context, c tools.Change) error {
	if err := e.Editor.ApplyEdit(ctx, c); err != nil {
		return err
	}
	if j := e.cp.current(); j != nil {
		if err := j.Change(c.Path, toolOf(c), c.Old, c.New); err != nil {
			e.cp.log.Warn("Change not journaled", "path", c.Path, "err", err)
		}
	}
	return nil
}

// Resolve is the inner workspace's boundary check.
func (e journalEditor) Resolve(path string) (string, error) {
	if r, ok := e.Editor.(interface{ Resolve(string) (string, error) }); ok {
		return r.Resolve(path)
	}
	return tools.Resolve(e.Root(), path)
}

// journalDiagEditor is a journalEditor over a workspace that knows the
// editor's diagnostics.
type journalDiagEditor struct {
	journalEditor
	tools.Diagnoser
}

func newJournalEditor(ed tools.Editor, cp *checkpoints) tools.Editor {
	je := journalEditor{Editor: ed, cp: cp}
	if d, ok := ed.(tools.Diagnoser); ok {
		return journalDiagEditor{je, d}
	}
	return je
}

// journalShell runs the bash tool's commands with a scan before and after,
// and records the files each changed.
type journalShell struct {
	tools.Shell
	cp *checkpoints
	mu sync.Mutex // one command at a time: a scan must not see another's changes
}

// Run runs command between two scans.
func (s *journalShell) Run(ctx context.Context, command string, opts cmdrun.Options) (cmdrun.Result, error) {
	j := s.cp.current()
	// A command that surely writes nothing (ls, cat, grep, git status,
	// ...) is not scanned: two scans of a large tree cost more than the
	// command (about 90 ms at 20,000 files).
	if j == nil || s.cp.scanner == nil || permission.ReadOnly(command) {
		return s.Shell.Run(ctx, command, opts)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	extra := j.Paths()
	if err := s.cp.scanner.Before(ctx, extra); err != nil {
		if ctx.Err() != nil {
			return cmdrun.Result{Cancelled: true, ExitCode: -1}, ctx.Err()
		}
		s.cp.log.Warn("Workspace not scanned; the files this command changes are not journaled", "err", err)
		return s.Shell.Run(ctx, command, opts)
	}
	res, err := s.Shell.Run(ctx, command, opts)
	diffs, notes, serr := s.cp.scanner.After(context.WithoutCancel(ctx), extra)
	if serr != nil {
		s.cp.log.Warn("Workspace not scanned after a command; its changes are not journaled", "err", serr)
	}
	for _, d := range diffs {
		if jerr := j.Record("bash", d); jerr != nil {
			s.cp.log.Warn("Change not journaled", "path", d.Path, "err", jerr)
		}
	}
	for _, n := range notes {
		j.Ignored(n)
	}
	return res, err
}
