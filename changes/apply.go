package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agent-lsp/agent-lsp/tools"
)

// ApplyDisk carries out a plan on the disk (the terminal's `agent-lsp
// undo`): edits and new files through the workspace's compare-and-swap
// ApplyEdit, deletions after checking the file still holds what the plan
// saw. An operation whose file changed meanwhile is not done and comes
// back as a conflict.
func ApplyDisk(ctx context.Context, ws *tools.DiskWorkspace, p *Plan) []Conflict {
	r, err := os.OpenRoot(ws.Root())
	if err != nil {
		return failAll(p, err)
	}
	defer r.Close()
	var failed []Conflict
	for _, op := range p.Ops {
		var err error
		switch op.Kind {
		case OpDelete:
			err = removeIf(r, op.Path, op.Old)
		default:
			err = ws.ApplyEdit(ctx, tools.Change{Path: op.Path, Old: op.Old, New: op.New, Label: "agent-lsp: undo " + op.Path})
		}
		if err != nil {
			failed = append(failed, opConflict(op, err))
		}
	}
	return failed
}

func failAll(p *Plan, err error) []Conflict {
	var out []Conflict
	for _, op := range p.Ops {
		out = append(out, opConflict(op, err))
	}
	return out
}

// opConflict says why op was not done.
func opConflict(op Op, err error) Conflict {
	if errors.Is(err, tools.ErrConflict) {
		return Conflict{Path: op.Path, Reason: "not undone: the file changed while the undo ran"}
	}
	return Conflict{Path: op.Path, Reason: fmt.Sprintf("not undone: %v", err)}
}

// removeIf removes the regular file rel if it holds old.
func removeIf(r *os.Root, rel string, old []byte) error {
	f, err := r.OpenFile(rel, os.O_RDONLY|oNoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := io.ReadAll(io.LimitReader(f, int64(len(old))+1))
	f.Close()
	if err != nil {
		return err
	}
	if !bytes.Equal(cur, old) {
		return tools.ErrConflict
	}
	return r.Remove(rel)
}

// Merge puts the conflicts of carrying out a plan into it: a file whose
// operation failed is no longer reverted.
func (p *Plan) Merge(failed []Conflict) {
	for _, c := range failed {
		for i, r := range p.Reverted {
			if r == c.Path {
				p.Reverted = append(p.Reverted[:i], p.Reverted[i+1:]...)
				break
			}
		}
		p.Conflicts = append(p.Conflicts, c)
	}
}
