//go:build unix

package permission

import (
	"os"
	"syscall"
)

// linkCount returns the number of hard links of a regular file, or 0.
func linkCount(p string) uint64 {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 0
}
