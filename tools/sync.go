package tools

import "context"

// Syncer is implemented by workspaces whose edits may not be on disk yet
// (the LSP server's: edits land in editor buffers). The bash tool calls
// Sync before it runs a command, so the command sees the files as the
// editor shows them.
type Syncer interface {
	Sync(ctx context.Context) error
}
