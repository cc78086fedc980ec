package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// The write tools share one protocol, run with the path's queue held
// (Reads.lock):
//  1. read the current content through the Editor (an unsaved buffer
//     wins); an existing file must be what the agent last read (Reads);
//  2. compute a Change against that content and apply it;
//  3. on ErrConflict, read again: if the content is still what the change
//     was computed against (the editor refused a stale version, say),
//     apply the same change once more; otherwise tell the model that the
//     file changed and that it must read it again;
//  4. on success the new content counts as read.

// current reads rel for an edit. exists is false when there is no file;
// res is set when the model must be told something instead.
func current(ctx context.Context, ed Editor, tool, rel string) (cur []byte, exists bool, res *Result, err error) {
	cur, err = ed.ReadFile(ctx, rel)
	switch {
	case err == nil:
		if cur == nil {
			cur = []byte{}
		}
		return cur, true, nil, nil
	case ctx.Err() != nil:
		return nil, false, nil, ctx.Err()
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil, nil
	}
	var big *TooLargeError
	if errors.As(err, &big) {
		r := Errorf("%s: %s is %d bytes, over the %d-byte limit for editing; change it with a command instead", tool, rel, big.Size, big.Limit)
		return nil, false, &r, nil
	}
	r := Errorf("%s: %v", tool, err)
	return nil, false, &r, nil
}

// commit applies c, computed from content the agent had read, with the
// conflict rule above. It returns nil when the change was applied.
//
// When the workspace knows the editor's diagnostics (Diagnoser), commit
// waits briefly after the edit for the file's new diagnostics and returns
// them as a note for the result, so the model sees what its edit broke.
//
// newSum, when not nil, yields the fingerprint of c.New (computed by the
// caller alongside); else commit computes it while the editor applies the
// edit. fresh says that c.New is memory the caller allocated for this
// edit, so that finding it again later identifies the content (see
// seenContent).
func commit(ctx context.Context, ed Editor, reads *Reads, tool string, c Change, newSum func() fingerprint, fresh bool) (*Result, string, error) {
	diag, _ := ed.(Diagnoser)
	var gen int64
	if diag != nil {
		gen = diag.DiagnosticsGeneration()
	}
	if newSum == nil {
		newSum = fingerprintAsync(c.New)
	}
	for attempt := 0; ; attempt++ {
		err := ed.ApplyEdit(ctx, c)
		if err == nil {
			if reads != nil {
				if fresh {
					reads.markEdited(c.Path, c.New, newSum())
				} else {
					reads.markFingerprint(c.Path, newSum())
				}
			}
			if diag != nil {
				if note := diag.DiagnosticsAfterEdit(ctx, c.Path, gen, DiagnosticsWait); note != "" {
					return nil, "\n\nDiagnostics after the edit:\n" + note, nil
				}
			}
			return nil, "", nil
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if !errors.Is(err, ErrConflict) {
			res, err := applyError(tool, c.Path, err)
			return res, "", err
		}
		cur, rerr := ed.ReadFile(ctx, c.Path)
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		var r Result
		switch {
		case c.Old == nil && rerr == nil:
			r = Errorf("%s: %s was created by someone else (the user's buffer or another tool) while you were writing it; read it with read_file, then retry", tool, c.Path)
		case c.Old == nil && !errors.Is(rerr, fs.ErrNotExist):
			res, err := applyError(tool, c.Path, rerr)
			return res, "", err
		case c.Old != nil && (rerr != nil || !bytes.Equal(cur, c.Old)):
			r = Errorf("%s: the file %s changed (the user's buffer was edited) since you read it; read it again with read_file, then retry", tool, c.Path)
		case attempt > 0:
			r = Errorf("%s: the editor refused the edit of %s twice although it still holds what you read; read it again with read_file, then retry", tool, c.Path)
		default:
			continue // still what the change was computed against: once more
		}
		return &r, "", nil
	}
}

// DiagnosticsWait is how long a write tool waits for the editor's new
// diagnostics of the file it edited.
const DiagnosticsWait = 1500 * time.Millisecond

// applyError reports a refusal the model can act on as a result, and
// anything else as a harness failure.
func applyError(tool, rel string, err error) (*Result, error) {
	var nr *NotRegularError
	var le *LinkError
	if errors.Is(err, ErrOutside) || errors.Is(err, ErrRefused) || errors.As(err, &nr) || errors.As(err, &le) {
		r := Errorf("%s: %v", tool, err)
		return &r, nil
	}
	return nil, fmt.Errorf("apply edit %s: %w", rel, err)
}

// lineCount counts lines as an editor shows them: a last line without a
// newline counts, an empty file has none.
func lineCount(b []byte) int {
	n := bytes.Count(b, nl)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
