//go:build unix

package tools

import (
	"io/fs"
	"syscall"
)

// oNonblock keeps an open of a FIFO from waiting for a writer, should one
// be swapped in between the mode check and the open.
const oNonblock = syscall.O_NONBLOCK

// oNofollow makes an open of a symbolic link fail (spill files).
const oNofollow = syscall.O_NOFOLLOW

// linkCount returns the file's number of hard links (1 if unknown).
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
