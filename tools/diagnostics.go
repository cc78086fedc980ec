package tools

import (
	"context"
	"time"
)

// Diagnoser is implemented by workspaces that know the editor's
// diagnostics (the LSP server's). A write tool takes the generation before
// it applies an edit and, after it, appends what DiagnosticsAfterEdit
// returns (empty when nothing new arrived within wait) to its result.
type Diagnoser interface {
	DiagnosticsGeneration() int64
	DiagnosticsAfterEdit(ctx context.Context, path string, since int64, wait time.Duration) string
}
