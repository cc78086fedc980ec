package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Review through change annotations (setting "review": "confirm"): each
// agent edit goes out as annotated edits whose one annotation needs
// confirmation, labelled with the tool and the file, so that the editor
// shows its preview (VS Code: the refactor preview, with a checkbox per
// change) before anything changes. An edit the user declines comes back
// applied: false and the tool is told the user rejected it.

// ErrRejected is an edit the user declined in the editor's review. It is
// a tools.ErrRefused: the model gets it as a result, and retrying the same
// edit cannot help.
var ErrRejected error = &sentinel{tools.ErrRefused.Error() + ": the user reviewed this edit in the editor and rejected it; do not apply it again: ask the user what they want instead, or take another approach", tools.ErrRefused}

// reviewAnnotation is the one annotation id of a reviewed edit.
const reviewAnnotation = "agent-lsp.review"

// annotate turns p's edits into annotated ones when review is on and the
// client supports it, and reports whether it did. Undo edits are not
// reviewed: the user asked for them.
func (w *Workspace) annotate(p *protocol.ApplyWorkspaceEditParams, c tools.Change) bool {
	if !w.review.Load() || !w.caps.annotations || !w.caps.documentChanges || len(p.Edit.DocumentChanges) == 0 || strings.HasPrefix(c.Label, UndoLabel) {
		return false
	}
	label := strings.TrimPrefix(c.Label, "agent-lsp: ")
	if label == "" {
		label = "edit " + c.Path
	}
	yes := true
	ann := protocol.ChangeAnnotation{Label: "agent-lsp: " + label, NeedsConfirmation: &yes}
	if c.Reason != "" {
		ann.Description = &c.Reason
	}
	p.Edit.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{reviewAnnotation: ann}
	for _, dc := range p.Edit.DocumentChanges {
		switch d := dc.(type) {
		case *protocol.CreateFile:
			d.AnnotationID = reviewAnnotation
		case *protocol.TextDocumentEdit:
			for i, e := range d.Edits {
				if te, ok := e.(*protocol.TextEdit); ok {
					d.Edits[i] = &protocol.AnnotatedTextEdit{TextEdit: *te, AnnotationID: reviewAnnotation}
				}
			}
		}
	}
	return true
}
