//go:build unix

package tools

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileSpecialFiles(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "fifolink")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cases := map[string]string{
		"fifo":     "fifo is a named pipe (FIFO), not a regular file",
		"fifolink": "is a named pipe (FIFO)",
		"sock":     "sock is a socket, not a regular file",
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o644, 1<<8|3); err == nil {
		cases["null"] = "null is a device, not a regular file"
	} else {
		t.Logf("no device node test: mknod: %v", err)
	}
	tool := NewReadFile(ws)
	for name, want := range cases {
		done := make(chan Result, 1)
		go func() { done <- runTool(t, tool, ReadFileParams{Path: name}) }()
		select {
		case res := <-done:
			if !res.IsError || !strings.Contains(res.Text, want) {
				t.Errorf("%s: got %v %q, want %q", name, res.IsError, res.Text, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: read_file hung", name)
		}
	}
	// Even a FIFO swapped in after the mode check must not block: the open is
	// non-blocking and the handle is checked.
	f, _, err := openRegular(ws.r, "fifo", false)
	if err == nil {
		f.Close()
		t.Fatal("openRegular opened a FIFO")
	}
}
