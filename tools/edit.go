package tools

import (
	"context"
	"errors"
)

// Change is one edit of one file, as the write tools compute it. The
// workspace applies it: DiskWorkspace writes the file atomically; the LSP
// server turns it into a versioned workspace/applyEdit so the edit lands in
// the editor's buffer and its undo history.
type Change struct {
	// Path is workspace-relative, already through the boundary.
	Path string
	// Old is the content the edit was computed against; nil means the file
	// does not exist and is created. A workspace whose current content is
	// not Old refuses the change with ErrConflict.
	Old []byte
	// New is the whole new content. A workspace may keep it as is (the
	// LSP server makes it the open document's text): it does not change
	// once ApplyEdit is called.
	New []byte
	// Replacements, when set, are the spans of Old replaced (sorted,
	// non-overlapping), so that the editor gets minimal ranges without a
	// diff; when empty the workspace diffs Old and New.
	Replacements []Replacement
	// Label names the edit in the editor's undo history, e.g.
	// "agent-lsp: str_replace main.go".
	Label string
	// Reason is the agent's own word on why, when it gave one: the editor
	// shows it when the user reviews the edit.
	Reason string
}

// Replacement replaces the bytes [Start, End) of Change.Old with Text.
type Replacement struct {
	Start, End int
	Text       string
}

// Editor is what the write tools need beyond reading: a workspace that
// can apply a Change.
type Editor interface {
	Workspace
	ApplyEdit(ctx context.Context, c Change) error
}

// ErrConflict means the file is no longer what the change was computed
// against: the user (or another tool) changed it, or the editor refused a
// stale edit.
var ErrConflict = errors.New("file changed since it was read")

// ErrRefused means the workspace will not make this change at all (a code
// action's run editing another file): the model is told why, as a result,
// and retrying the same edit cannot help.
var ErrRefused = errors.New("edit refused")
