package agent

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeback starts writing f's dirty pages to the disk and returns at
// once (sync_file_range with SYNC_FILE_RANGE_WRITE): the window in which a
// machine crash loses records shrinks from the kernel's writeback delay
// (up to 30 s) to the time the disk takes, at no wait.
func writeback(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	if err := rc.Control(func(fd uintptr) {
		werr = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	}); err != nil {
		return err
	}
	if werr == unix.ENOSYS || werr == unix.EINVAL {
		return nil // not offered by this file system: the kernel writes it back on its own
	}
	return werr
}
