package lsptest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/lsp"
)

// ApplyEditParams is workspace/applyEdit's params as the fake editor reads them.
type ApplyEditParams struct {
	Label string `json:"label"`
	Edit  struct {
		Changes         map[string][]TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage     `json:"documentChanges"`
		// ChangeAnnotations are set on edits the user is to review.
		ChangeAnnotations map[string]ChangeAnnotation `json:"changeAnnotations"`
	} `json:"edit"`
}

// TextDocumentEdit is one entry of documentChanges.
type TextDocumentEdit struct {
	Kind string `json:"kind"` // "create" for a CreateFile, "delete" for a DeleteFile
	URI  string `json:"uri"`
	// AnnotationID is set on annotated resource operations.
	AnnotationID string `json:"annotationId"`
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	} `json:"textDocument"`
	Edits []TextEdit `json:"edits"`
}

// TextEdit is an LSP TextEdit (AnnotationID set: an AnnotatedTextEdit).
type TextEdit struct {
	Range        lsp.Range `json:"range"`
	NewText      string    `json:"newText"`
	AnnotationID string    `json:"annotationId,omitempty"`
}

// ChangeAnnotation is one entry of a WorkspaceEdit's changeAnnotations.
type ChangeAnnotation struct {
	Label             string `json:"label"`
	NeedsConfirmation bool   `json:"needsConfirmation"`
	Description       string `json:"description"`
}

// ApplyEditResult answers applyEdit.
type ApplyEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// DocumentEdits decodes p's documentChanges.
func (p ApplyEditParams) DocumentEdits() []TextDocumentEdit {
	var out []TextDocumentEdit
	for _, raw := range p.Edit.DocumentChanges {
		var te TextDocumentEdit
		_ = json.Unmarshal(raw, &te)
		out = append(out, te)
	}
	return out
}

// ApplyEdit applies p to the open buffers the way an editor does: it
// checks versions, applies the edits (UTF-16 positions) and sends
// didChange. Edits to files that are not open are applied to the disk.
func (e *Env) ApplyEdit(p ApplyEditParams) ApplyEditResult {
	for _, te := range p.DocumentEdits() {
		if te.Kind == "create" {
			_ = os.MkdirAll(filepath.Dir(uri.URI(te.URI).FsPath()), 0o755)
			if err := os.WriteFile(uri.URI(te.URI).FsPath(), nil, 0o644); err != nil {
				return ApplyEditResult{FailureReason: err.Error()}
			}
			continue
		}
		if te.Kind == "delete" {
			// As an editor does: the buffer goes, then the file.
			e.mu.Lock()
			_, open := e.bufs[te.URI]
			delete(e.bufs, te.URI)
			e.mu.Unlock()
			if open {
				e.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": te.URI}})
			}
			if err := os.Remove(uri.URI(te.URI).FsPath()); err != nil && !os.IsNotExist(err) {
				return ApplyEditResult{FailureReason: err.Error()}
			}
			continue
		}
		u := te.TextDocument.URI
		e.mu.Lock()
		b, open := e.bufs[u]
		e.mu.Unlock()
		if !open {
			path := uri.URI(u).FsPath()
			data, _ := os.ReadFile(path)
			text, err := applyEdits(string(data), te.Edits)
			if err != nil {
				return ApplyEditResult{FailureReason: err.Error()}
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return ApplyEditResult{FailureReason: err.Error()}
			}
			continue
		}
		if te.TextDocument.Version != nil && *te.TextDocument.Version != b.version {
			return ApplyEditResult{FailureReason: fmt.Sprintf("version %d, buffer at %d", *te.TextDocument.Version, b.version)}
		}
		text, err := applyEdits(b.text, te.Edits)
		if err != nil {
			return ApplyEditResult{FailureReason: err.Error()}
		}
		e.mu.Lock()
		b.text = text
		b.version++
		v := b.version
		e.mu.Unlock()
		e.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": v},
			"contentChanges": []any{map[string]any{"text": text}},
		})
	}
	return ApplyEditResult{Applied: true}
}

// applyEdits applies non-overlapping edits (UTF-16 positions) to text.
func applyEdits(text string, edits []TextEdit) (string, error) {
	m := lsp.NewMapper(text)
	type sp struct {
		a, z int
		s    string
	}
	var sps []sp
	for _, ed := range edits {
		sps = append(sps, sp{m.Offset(lsp.UTF16, ed.Range.Start), m.Offset(lsp.UTF16, ed.Range.End), ed.NewText})
	}
	var b strings.Builder
	last := 0
	for i, s := range sps {
		if s.a < last || s.z < s.a {
			return "", fmt.Errorf("edit %d overlaps or is reversed", i)
		}
		b.WriteString(text[last:s.a])
		b.WriteString(s.s)
		last = s.z
	}
	b.WriteString(text[last:])
	return b.String(), nil
}
