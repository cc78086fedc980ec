//go:build !linux

package lsp

import "context"

// waitParentExit cannot wait for another process's exit here: the caller
// polls.
func waitParentExit(context.Context, int) (gone, ok bool) { return false, false }
