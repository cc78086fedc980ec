package lsp

import (
	"context"
	"fmt"
	"os"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/tools"
)

// applyEditParams is workspace/applyEdit's params.
type applyEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  workspaceEdit `json:"edit"`
}

type workspaceEdit struct {
	Changes         map[string][]textEdit `json:"changes,omitempty"`
	DocumentChanges []any                 `json:"documentChanges,omitempty"`
}

type textDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"` // null: the file is not open
	} `json:"textDocument"`
	Edits []textEdit `json:"edits"`
}

type createFile struct {
	Kind    string `json:"kind"` // "create"
	URI     string `json:"uri"`
	Options struct {
		Overwrite      bool `json:"overwrite"`
		IgnoreIfExists bool `json:"ignoreIfExists"`
	} `json:"options"`
}

type applyEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// buildEdit turns c into applyEdit params. direct means the server must
// write the file itself (a new file and a client that cannot create one).
func (s *Server) buildEdit(ctx context.Context, w *Workspace, rel, abs string, c tools.Change) (p applyEditParams, direct bool, err error) {
	s.mu.Lock()
	enc, caps := s.enc, s.caps
	s.mu.Unlock()
	label := c.Label
	if label == "" {
		label = "agent-lsp: edit " + rel
	}
	p.Label = label
	u := string(uri.File(abs))

	if c.Old == nil { // a new file
		if _, open := s.docs.byPath(abs); open {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if _, err := os.Lstat(abs); err == nil {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if _, ok := w.unsynced(abs); ok {
			return p, false, fmt.Errorf("create %s: %w", rel, tools.ErrConflict)
		}
		if !caps.createFiles || !caps.documentChanges {
			return p, true, nil
		}
		cf := createFile{Kind: "create", URI: u}
		var te textDocumentEdit
		te.TextDocument.URI = u
		te.Edits = []textEdit{{NewText: string(c.New)}}
		p.Edit.DocumentChanges = []any{cf, te}
		return p, false, nil
	}

	var version *int32
	var m *Mapper
	if d, ok := s.docs.mapperByPath(abs); ok {
		if d.text != string(c.Old) {
			return p, false, fmt.Errorf("edit %s: %w", rel, tools.ErrConflict)
		}
		v := d.version
		version, m = &v, d.mapper
		u = d.uri
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
	edits := toEdits(m, enc, spans(c))
	if !caps.documentChanges {
		p.Edit.Changes = map[string][]textEdit{u: edits}
		return p, false, nil
	}
	var te textDocumentEdit
	te.TextDocument.URI = u
	te.TextDocument.Version = version
	te.Edits = edits
	p.Edit.DocumentChanges = []any{te}
	return p, false, nil
}

// sendEdit asks the editor to apply the edit; a refusal is ErrConflict.
func (s *Server) sendEdit(ctx context.Context, p applyEditParams) error {
	var res applyEditResult
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceApplyEdit, p, &res); err != nil {
		return err
	}
	if !res.Applied {
		if res.FailureReason != "" {
			return fmt.Errorf("%w (the editor said: %s)", tools.ErrConflict, res.FailureReason)
		}
		return tools.ErrConflict
	}
	return nil
}
