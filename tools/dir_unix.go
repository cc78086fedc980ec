//go:build unix

package tools

import (
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirNode is an open directory of the walk, shared by the walker and the
// workers that read its files; the last user closes it. Children are
// opened with openat(2) by single names from the listing and O_NOFOLLOW,
// which is what os.Root does for one component, minus the lstat of every
// listed entry and the poller registration that os.File adds.
type dirNode struct {
	f    *os.File
	fd   int
	refs atomic.Int32
}

// openStartDir opens the directory rel through root (following symbolic
// links only inside it).
func openStartDir(root *os.Root, rel string) (*dirNode, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, rootError(rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", rel, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", rel)
	}
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	return newDirNode(fd, rel), nil
}

func newDirNode(fd int, name string) *dirNode {
	d := &dirNode{f: os.NewFile(uintptr(fd), name), fd: fd}
	d.refs.Store(1)
	return d
}

func (d *dirNode) release() {
	if d.refs.Add(-1) == 0 {
		d.f.Close()
	}
}

// list returns the directory's entries, sorted by name, with their types
// from the listing (no stat).
func (d *dirNode) list() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

// openDir opens the subdirectory name; a symbolic link is refused.
func (d *dirNode) openDir(name string) (*dirNode, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return newDirNode(fd, name), nil
}

// readFile reads the regular file name into *buf (grown as needed and
// reused across calls) and returns its content; a file over max bytes is
// returned open instead, as big, for the caller to stream and close. It
// refuses anything but a regular file (a symbolic link included) and,
// unless hard is set, files with more than one link (ErrHardLink).
func (d *dirNode) readFile(name string, buf *[]byte, max int64, hard bool) (data []byte, big *os.File, err error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, nil, errNotRegular
	}
	if st.Nlink > 1 && !hard {
		unix.Close(fd)
		return nil, nil, ErrHardLink
	}
	if st.Size > max {
		return nil, os.NewFile(uintptr(fd), name), nil
	}
	defer unix.Close(fd)
	data, err = readFD(fd, int(st.Size), buf, max)
	return data, nil, err
}

// readFD reads a file of the given size whole into *buf.
func readFD(fd, size int, buf *[]byte, max int64) ([]byte, error) {
	if cap(*buf) < size+1 {
		*buf = make([]byte, size+1+size/4)
	}
	b := (*buf)[:cap(*buf)]
	n := 0
	for {
		k, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		n += k
		if k == 0 || n == size { // size known: skip the read that returns EOF
			return b[:n], nil
		}
		if n == len(b) { // the file grew
			if int64(n) > max {
				return nil, errTooLarge
			}
			*buf = append(b, make([]byte, n)...)
			b = (*buf)[:cap(*buf)]
		}
	}
}

// stat returns what ListFiles reports of the entry name (not following a
// symbolic link), one fstatat(2) on the directory's handle.
func (d *dirNode) stat(name string) (FileStat, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileStat{}, false
	}
	return FileStat{Size: st.Size, ModTime: st.Mtim.Nano(), ChangeTime: st.Ctim.Nano(), Inode: uint64(st.Ino)}, true
}
