//go:build !linux

package agent

import "os"

// writeback has no non-blocking form outside Linux; the kernel writes the
// file back on its own (see Transcript.sync for why agent-lsp does not
// wait for the disk).
func writeback(*os.File) error { return nil }
