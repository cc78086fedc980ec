//go:build !unix

package tools

import "io/fs"

const oNonblock = 0

// oNofollow is not available here; spill files are checked by Lstat only.
const oNofollow = 0

// linkCount returns 1: the link count is not reported on this system.
func linkCount(fs.FileInfo) uint64 { return 1 }
