package lsp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// TestSentinelsAsFmtMadeThem: the package's wrapped sentinel errors read
// and match as the fmt.Errorf they replace.
func TestSentinelsAsFmtMadeThem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err, want error
		base      error
	}{
		{errNotApplied, fmt.Errorf("the editor did not apply the edit: %w", tools.ErrConflict), tools.ErrConflict},
		{ErrRejected, fmt.Errorf("%w: the user reviewed this edit in the editor and rejected it; do not apply it again: ask the user what they want instead, or take another approach", tools.ErrRefused), tools.ErrRefused},
		{ErrOtherFile, fmt.Errorf("%w: this run may only edit the file the code action is about", tools.ErrRefused), tools.ErrRefused},
	} {
		if c.err.Error() != c.want.Error() || !errors.Is(c.err, c.base) || !errors.Is(fmt.Errorf("x: %w", c.err), c.err) {
			t.Errorf("%q, want %q wrapping %v", c.err, c.want, c.base)
		}
	}
}
