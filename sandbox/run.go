//go:build unix

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/cmdrun"
)

// Prepare sets the process-lifecycle attributes every agent command needs:
// a new session (no controlling terminal) whose process group is the
// command's, SIGKILL when the server dies (Pdeathsig), and, for a cmd made
// by exec.CommandContext, SIGTERM to the whole group on cancel followed by
// SIGKILL of the leader after grace. Stdin is left nil (/dev/null).
//
// Pdeathsig fires when the OS thread that started the command exits; Go
// keeps its threads alive, so in practice that is when the server dies.
func Prepare(cmd *exec.Cmd, grace time.Duration) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false // Setsid already makes a new group; setpgid would fail
	setPdeathsig(cmd.SysProcAttr)
	cmd.Stdin = nil
	// exec.CommandContext sets Cancel (to kill only the leader); a Cancel on
	// a cmd without a context would make Start fail.
	if cmd.Cancel != nil {
		cmd.Cancel = func() error {
			if cmd.Process == nil {
				return nil
			}
			return SignalGroup(cmd.Process.Pid, syscall.SIGTERM)
		}
	}
	cmd.WaitDelay = grace
}

// SignalGroup sends sig to every process in the group pgid. A group that is
// already gone is not an error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("refusing to signal process group %d", pgid)
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// GroupGone reports whether no process is left running in group pgid:
// kill(-pgid, 0) fails with ESRCH, or every member is a zombie. Zombies
// happen when a member was reparented to an init that reaps slowly (bwrap's
// PID-namespace init is left to the host's pid 1); they run no code.
func GroupGone(pgid int) bool {
	if errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return true
	}
	live, ok := liveGroupMembers(pgid)
	return ok && len(live) == 0
}

// ErrHelperFailed is returned by Run when the sandbox helper refused to run
// the command because it could not confine itself.
var ErrHelperFailed = cmdrun.ErrHelperFailed

// RunOptions bound one Run.
type RunOptions = cmdrun.Options

// Result is what a command did.
type Result = cmdrun.Result

// Run starts cmd (from Sandbox.Command, or any cmd passed to Prepare),
// captures its combined output, stops its process group on timeout or when
// ctx is done (SIGTERM, then SIGKILL after the grace), and before returning
// kills whatever is left of the group and waits until the group is gone.
// A non-nil error means the harness failed (start, the helper refused, or a
// surviving group), not that the command did.
func Run(ctx context.Context, cmd *exec.Cmd, opts RunOptions) (Result, error) {
	if opts.Grace <= 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 1 << 20
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setsid {
		Prepare(cmd, opts.Grace)
	}
	out := newHeadTail(opts.MaxOutput)
	cmd.Stdout, cmd.Stderr = out, out
	if opts.Tee != nil {
		// One writer for both, so the command gets one pipe and the
		// interleaving stays as it printed.
		w := &teeWriter{main: out, tee: opts.Tee}
		cmd.Stdout, cmd.Stderr = w, w
	}
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start: %w", err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var res Result
	var waitErr error
	select {
	case waitErr = <-done:
		// A cmd made by exec.CommandContext is stopped by its own Cancel
		// (Prepare) too, so it may have ended of the cancel before this
		// select saw ctx done: it was cancelled all the same.
		res.Cancelled = ctx.Err() != nil
	case <-timeout:
		res.TimedOut = true
		waitErr = stopGroup(pgid, opts.Grace, pidNamespace(cmd), done)
	case <-ctx.Done():
		res.Cancelled = true
		waitErr = stopGroup(pgid, opts.Grace, pidNamespace(cmd), done)
	}
	// Background children may outlive the shell: sweep the group.
	_ = SignalGroup(pgid, syscall.SIGKILL)
	var err error
	if !waitGroupGone(pgid, 5*time.Second) {
		err = fmt.Errorf("process group %d survived SIGKILL", pgid)
	}
	res.Output, res.Omitted = out.Bytes()
	res.ExitCode = exitCode(cmd, waitErr)
	if err == nil && res.ExitCode == ExitHelperFailed && bytes.Contains(res.Output, []byte(HelperFailedPrefix)) {
		err = fmt.Errorf("%w: %s", ErrHelperFailed, bytes.TrimSpace(res.Output))
	}
	return res, err
}

// stopGroup sends SIGTERM to the group, then SIGKILL after grace, and
// returns the leader's wait result.
//
// A command in a PID namespace of its own needs two more things, checked
// every resendEvery until the leader exits:
//   - The kernel drops a signal that the init of a namespace has no handler
//     for. When the leader is that init (Landlock's initScript), a SIGTERM
//     that arrives while it is still starting (a cancel right after the
//     start, on a loaded machine) would be lost and the command would run
//     until the SIGKILL; so the leader alone gets the SIGTERM again, and
//     initScript passes it on to the command once.
//   - When the leader is gone, nothing of the namespace should be left (the
//     init's exit, or bwrap's --die-with-parent, takes it down). Members
//     still there escaped that (bwrap's inner init had not yet armed its
//     parent-death signal when the outer bwrap died of the SIGTERM) and
//     would hold the output pipe until the grace ends: they are killed.
//
// A plain command's leftovers keep their grace: the shell may exit before
// the children it started have finished cleaning up.
func stopGroup(pgid int, grace time.Duration, ns namespacing, done <-chan error) error {
	_ = SignalGroup(pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	var check <-chan time.Time
	if ns != notContained {
		tick := time.NewTicker(resendEvery)
		defer tick.Stop()
		check = tick.C
	}
	for {
		select {
		case err := <-done:
			return err
		case <-check:
			if errors.Is(syscall.Kill(pgid, 0), syscall.ESRCH) {
				_ = SignalGroup(pgid, syscall.SIGKILL)
				check = nil
			} else if ns == leaderIsInit {
				_ = syscall.Kill(pgid, syscall.SIGTERM)
			}
		case <-t.C:
			_ = SignalGroup(pgid, syscall.SIGKILL)
			return <-done
		}
	}
}

// resendEvery is how often stopGroup looks at a contained command's leader.
const resendEvery = 50 * time.Millisecond

// namespacing is how a command's processes relate to a PID namespace.
type namespacing int

const (
	notContained  namespacing = iota // plain processes of the host
	leaderIsInit                     // the leader is the init of its own PID namespace
	leaderOutside                    // the leader (bwrap) starts the namespace's init as its child
)

// pidNamespace tells how cmd's processes sit in a PID namespace: cmds of
// Sandbox.Command set CLONE_NEWPID themselves (Landlock) or are bwrap.
func pidNamespace(cmd *exec.Cmd) namespacing {
	switch {
	case cmd.SysProcAttr != nil && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWPID != 0:
		return leaderIsInit
	case filepath.Base(cmd.Path) == "bwrap" && slices.Contains(cmd.Args, "--unshare-pid"):
		return leaderOutside
	}
	return notContained
}

func waitGroupGone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for i := 0; !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH); i++ {
		// Scanning /proc costs more than kill(2): only after a short wait.
		if i >= 10 && GroupGone(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	return true
}

func exitCode(cmd *exec.Cmd, waitErr error) int {
	ps := cmd.ProcessState
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
