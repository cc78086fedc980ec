package lsp

import (
	"context"
	"io"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func startSleep(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// TestWaitParentExit checks the waiting watcher (a pidfd on Linux): it
// sees a real process exit (left a zombie, as a crashed editor is until
// its own parent reaps it), a process already gone, and a cancelled wait.
func TestWaitParentExit(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		if _, ok := waitParentExit(context.Background(), 1); ok {
			t.Fatal("a waiting watcher off Linux")
		}
		return
	}
	editor := startSleep(t)
	res := make(chan [2]bool, 1)
	go func() {
		gone, ok := waitParentExit(context.Background(), editor.Process.Pid)
		res <- [2]bool{gone, ok}
	}()
	_ = editor.Process.Kill() // not reaped yet
	if r := <-res; r != [2]bool{true, true} {
		t.Fatalf("editor killed: gone, ok = %v", r)
	}

	reaped := exec.Command("true")
	if err := reaped.Run(); err != nil {
		t.Fatal(err)
	}
	if gone, ok := waitParentExit(context.Background(), reaped.Process.Pid); !gone || !ok {
		t.Fatalf("process already gone: gone %v ok %v", gone, ok)
	}

	alive := startSleep(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		gone, ok := waitParentExit(ctx, alive.Process.Pid)
		res <- [2]bool{gone, ok}
	}()
	cancel()
	if r := <-res; r != [2]bool{false, true} {
		t.Fatalf("cancelled: gone, ok = %v", r)
	}
}

// TestPollParent checks the fallback used where the exit cannot be
// waited for.
func TestPollParent(t *testing.T) {
	t.Parallel()
	s := New(Options{Stderr: io.Discard, ParentPoll: time.Millisecond})
	var cancel context.CancelFunc
	s.ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	editor := startSleep(t)
	done := make(chan struct{})
	go func() { s.pollParent(editor.Process.Pid); close(done) }()
	_ = editor.Process.Kill()
	_ = editor.Wait()
	<-s.parentGone
	<-done
}
