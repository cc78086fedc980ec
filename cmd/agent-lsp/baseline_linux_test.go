package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// opens watches dirs with inotify and returns a function that says how
// many files in them were opened since its last call.
func opens(t *testing.T, dirs ...string) func() int {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	for _, d := range dirs {
		if _, err := unix.InotifyAddWatch(fd, d, unix.IN_OPEN); err != nil {
			t.Fatal(err)
		}
	}
	return func() int {
		n := 0
		buf := make([]byte, 64<<10)
		for {
			k, err := unix.Read(fd, buf)
			if err != nil || k <= 0 {
				return n
			}
			for off := 0; off+unix.SizeofInotifyEvent <= k; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Len > 0 && ev.Mask&unix.IN_ISDIR == 0 {
					n++ // a file in the directory, not the directory listed
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

// The change journal's baseline (the content of every file before the
// first command) is taken once per workspace, not once per run: a later
// run opens none of the files nobody changed, and its command is still
// undone to the content the first run stored.
func TestBaselineOncePerWorkspace(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := filepath.Join(home, "project")
	var watched []string
	for d := range 3 {
		dir := filepath.Join(ws, fmt.Sprintf("d%d", d))
		for f := range 10 {
			writeFile(t, filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), fmt.Sprintf("file %d of %d\n", f, d))
		}
		if d > 0 {
			watched = append(watched, dir)
		}
	}
	// A file changed within the timestamp granularity of the scan that
	// read it is read again next time (changes/index.go): let them age.
	time.Sleep(2100 * time.Millisecond)
	env := []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	opened := opens(t, watched...)
	bashRun := func(command string) {
		t.Helper()
		srv := newServer(t,
			agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "b", Name: "bash", Arguments: fmt.Sprintf(`{"command":%q}`, command)}}},
			agenttest.Reply{Text: "Done."},
		)
		r := runBinaryEnv(t, ws, env, "run", "--ask=allow", "--base-url", srv.URL, "--model", "scripted", "run it")
		if r.code != 0 {
			t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	}

	bashRun("echo one > out.txt")
	if n := opened(); n < 20 {
		t.Fatalf("the first run opened %d of the 20 watched files: the baseline is not seen", n)
	}
	bashRun("echo two > d0/f3.txt")
	if n := opened(); n != 0 {
		t.Errorf("the second run opened %d unchanged files: the baseline was taken again", n)
	}
	if u := runBinaryEnv(t, t.TempDir(), env, "undo"); u.code != 0 {
		t.Fatalf("undo: exit %d\n%s\n%s", u.code, u.stdout, u.stderr)
	}
	if got := readText(t, filepath.Join(ws, "d0", "f3.txt")); got != "file 3 of 0\n" {
		t.Errorf("d0/f3.txt after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "out.txt")); err != nil {
		t.Errorf("the first run's file: %v (only the last turn is undone)", err)
	}
}
