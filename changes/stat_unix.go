//go:build unix

package changes

import (
	"io/fs"
	"syscall"
)

const oNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func statOf(fi fs.FileInfo) stat {
	s := stat{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(st.Ino)
		s.ctime = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return s
}
