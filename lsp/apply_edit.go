package lsp

import (
	"context"
	"fmt"
	"os"
	"unsafe"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// buildEdit turns c into applyEdit params. direct means the workspace must
// write the file itself (a new file and a client that cannot create one).
func (w *Workspace) buildEdit(ctx context.Context, rel, abs string, c tools.Change) (p *protocol.ApplyWorkspaceEditParams, direct bool, err error) {
	label := c.Label
	if label == "" {
		label = "agent-lsp: edit " + rel
	}
	p = &protocol.ApplyWorkspaceEditParams{Label: &label}
	u := uri.File(abs)

	if c.Old == nil { // a new file
		if _, open := w.docs.byPath(abs); open {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if _, err := os.Lstat(abs); err == nil {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if _, ok := w.unsynced(abs); ok {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if !w.caps.createFiles || !w.caps.documentChanges {
			return p, true, nil
		}
		p.Edit.DocumentChanges = []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: u, Options: &protocol.CreateFileOptions{}},
			docEdit(u, nil, []textEdit{{NewText: string(c.New)}}),
		}
		return p, false, nil
	}

	var version *int32
	var m *Mapper
	if d, ok := w.docs.mapperByPath(abs); ok {
		if !sameText(d.text, c.Old) {
			return p, false, fmt.Errorf("edit %s: %w", rel, tools.ErrConflict)
		}
		v := d.version
		version, m = &v, d.mapper
		u = uri.URI(d.uri)
	} else {
		cur, ok := w.unsynced(abs) // what the editor's buffer holds
		if !ok {
			if cur, err = w.disk.ReadFile(ctx, rel); err != nil {
				return p, false, err
			}
		}
		if string(cur) != string(c.Old) {
			return p, false, fmt.Errorf("edit %s: %w", rel, tools.ErrConflict)
		}
		m = NewMapper(string(cur))
	}
	edits := toEdits(m, w.enc, spans(c))
	if !w.caps.documentChanges {
		p.Edit.Changes = map[uri.URI][]protocol.TextEdit{u: edits}
		return p, false, nil
	}
	p.Edit.DocumentChanges = []protocol.DocumentChange{docEdit(u, version, edits)}
	return p, false, nil
}

// expectEdit tells the document store the text an edit of an open
// document gives, so that the didChange reporting it keeps c.New's memory
// instead of building the same text again: c.New does not change once
// applied, as what ReadFile returns does not.
func (w *Workspace) expectEdit(abs string, p *protocol.ApplyWorkspaceEditParams, c tools.Change) {
	if len(c.New) == 0 || len(p.Edit.DocumentChanges) != 1 {
		return
	}
	if te, ok := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit); ok && te.TextDocument.Version != nil {
		want := sentEdit{text: unsafe.String(unsafe.SliceData(c.New), len(c.New))}
		if len(c.Replacements) > 0 {
			// The tool built New from Old with these (str_replace):
			// the didChange that sends them back on Old itself (read
			// in place) gives New without comparing it.
			want.base, want.spans = unsafe.String(unsafe.SliceData(c.Old), len(c.Old)), spans(c)
		}
		w.docs.expect(abs, *te.TextDocument.Version, want)
	}
}

// docEdit is a TextDocumentEdit of u at version (nil: the file is not open).
func docEdit(u uri.URI, version *int32, edits []textEdit) *protocol.TextDocumentEdit {
	te := &protocol.TextDocumentEdit{Edits: make([]protocol.TextDocumentEditElement, len(edits))}
	te.TextDocument.URI = u
	te.TextDocument.Version = version
	for i := range edits {
		te.Edits[i] = &edits[i]
	}
	return te
}
