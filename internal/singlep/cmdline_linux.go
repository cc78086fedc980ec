package singlep

import "syscall"

// commandLine returns the process's first two arguments, or nil.
func commandLine() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var buf [1024]byte // the program's path and "run"; a longer path is left alone
	n, err := syscall.Read(fd, buf[:])
	if err != nil || n <= 0 {
		return nil
	}
	return splitArgs(buf[:n], 2)
}
