package lsp

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waitParentExit waits until process pid exits (gone) or ctx ends, on a
// pidfd: the kernel makes it readable when the process exits, and Go's
// network poller sleeps on it with the connection's I/O, so an idle server
// is woken by nothing. ok is false where pidfds are missing (Linux before
// 5.10, or a seccomp filter): the caller polls then.
func waitParentExit(ctx context.Context, pid int) (gone, ok bool) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.ESRCH) {
		return true, true
	}
	if err != nil {
		return false, false
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	// A file the poller does not hold would make the wait below spin.
	if f.SetReadDeadline(time.Time{}) != nil {
		return false, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false, false
	}
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	err = rc.Read(func(fd uintptr) bool {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
		return n > 0 || (err != nil && err != unix.EINTR)
	})
	return err == nil && ctx.Err() == nil, true
}
