package tools

import "context"

// Workspace is the editor-or-disk view a tool acts on. The LSP server
// implements it over the editor's buffers; DiskWorkspace over the disk.
// Paths are slash-separated and relative to Root, already checked by
// the boundary (see Resolve).
type Workspace interface {
	// Root is the absolute path of the workspace root.
	Root() string
	// ReadFile returns the file's current content; an unsaved buffer wins
	// over the disk.
	ReadFile(ctx context.Context, path string) ([]byte, error)
}
