package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// DeleteFile removes path if it still holds old (as the editor shows it):
// a DeleteFile resource operation when the client lists "delete" in
// workspace.workspaceEdit.resourceOperations, so that the editor closes
// the buffer and can undo it; otherwise the server removes the file from
// the disk itself, unless the editor holds it open. Undo uses it for the
// files the agent created.
func (w *Workspace) DeleteFile(ctx context.Context, path string, old []byte) error {
	rel, abs, err := w.abs(path)
	if err != nil {
		return err
	}
	cur, err := w.ReadFile(ctx, rel)
	if errors.Is(err, fs.ErrNotExist) {
		w.forget(abs)
		return nil
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("delete %s: %w", rel, tools.ErrConflict)
	}
	_, open := w.docs.byPath(abs)
	if w.caps.deleteFiles && w.caps.documentChanges {
		label := UndoLabel + " " + rel
		p := &protocol.ApplyWorkspaceEditParams{Label: &label}
		u := uri.File(abs)
		if d, ok := w.docs.byPath(abs); ok {
			u = uri.URI(d.uri)
		}
		p.Edit.DocumentChanges = []protocol.DocumentChange{&protocol.DeleteFile{Kind: "delete", URI: u, Options: &protocol.DeleteFileOptions{}}}
		if err := w.c.applyEdit(ctx, p); err != nil {
			return fmt.Errorf("delete %s: %w", rel, err)
		}
		w.forget(abs)
		// Clients that never saved the created file have nothing on disk,
		// or an empty file; either way the path must be free now.
		if st, err := os.Lstat(abs); err == nil && st.Mode().IsRegular() {
			if data, err := os.ReadFile(abs); err == nil && (len(data) == 0 || bytes.Equal(data, old)) {
				_ = os.Remove(abs)
			}
		}
		return nil
	}
	if open {
		return fmt.Errorf("%w: the editor cannot delete files through the protocol and holds %s open; close and delete it yourself", tools.ErrRefused, rel)
	}
	w.forget(abs)
	if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete %s: %w", rel, err)
	}
	return nil
}

// forget drops the record of an unsynced edit of abs.
func (w *Workspace) forget(abs string) {
	w.ed.mu.Lock()
	delete(w.ed.files, abs)
	w.ed.mu.Unlock()
}
