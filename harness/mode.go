package harness

import (
	"context"
	"sync/atomic"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/tools"
)

// ModeReadOnly and ModeDefault name a session's modes, as front-ends
// offer them (`run --mode`, agent/prompt's mode, ACP session modes).
const (
	ModeDefault  = "default"
	ModeReadOnly = "read-only"
)

// readOnlyNote is added at the end of every request of a read-only
// session (agent.Config.Volatile: never stored, so switching the mode
// does not change the cached prefix).
const readOnlyNote = "The session is in read-only (planning) mode: you cannot edit files or run commands; only read, search, task and write_todos work. Investigate and propose a plan; the user switches the mode to let you make changes."

// modeTools offers every tool, or in read-only mode only the tools that
// change nothing (read_file, glob, grep, a front-end's read-only tools):
// no edits, no bash. The loop's own tools (task, write_todos, read_skill)
// are read-only and added by the loop in both modes. The mode may change
// between runs; a call already dispatched finishes under its mode.
type modeTools struct {
	full, ro agent.Tools
	readOnly atomic.Bool
}

func (m *modeTools) current() agent.Tools {
	if m.readOnly.Load() {
		return m.ro
	}
	return m.full
}

func (m *modeTools) Specs() []tools.Spec { return m.current().Specs() }

func (m *modeTools) Dispatch(ctx context.Context, c tools.Call) tools.Result {
	return m.current().Dispatch(ctx, c)
}

// TakeWarnings passes on the warnings of the tool sources behind the
// session (MCP servers that failed to start), for the loop's warning events.
func (m *modeTools) TakeWarnings() []string {
	if w, ok := m.full.(agent.Warner); ok {
		return w.TakeWarnings()
	}
	return nil
}

// SetReadOnly switches the session between read-only and default mode;
// the next model request sees the new tool set.
func (h *Harness) SetReadOnly(on bool) { h.mode.readOnly.Store(on) }

// ReadOnly reports whether the session is in read-only mode.
func (h *Harness) ReadOnly() bool { return h.mode.readOnly.Load() }

// modeNote is the Volatile text for the current mode.
func (h *Harness) modeNote() string {
	if h.ReadOnly() {
		return readOnlyNote
	}
	return ""
}
