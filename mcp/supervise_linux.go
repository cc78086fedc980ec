package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SupervisorArg is the first argument that makes this binary the
// supervisor of one stdio server instead of agent-lsp.
const SupervisorArg = "__agent-lsp-mcp-supervisor"

// MaybeRunSupervisor runs the supervisor and exits when this process was
// started as one; otherwise it returns at once. main (and the TestMain of
// packages that start stdio servers) calls it first.
func MaybeRunSupervisor() {
	if len(os.Args) < 3 || os.Args[1] != SupervisorArg {
		return
	}
	os.Exit(supervise(os.Args[2:]))
}

// supervisorCommand is the command line that runs argv under the
// supervisor: this binary again.
func supervisorCommand(argv []string) *exec.Cmd {
	cmd := exec.Command("/proc/self/exe", append([]string{SupervisorArg}, argv...)...)
	cmd.Args[0] = "agent-lsp-mcp"
	// Its own session, so a signal to agent-lsp's group does not reach
	// it twice; SIGTERM when agent-lsp dies, however it dies, which the
	// supervisor turns into the end of the server and its children.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

// supervise runs argv with the supervisor's stdin, stdout and stderr (the
// server's pipes, passed on without copying) in a process group of its
// own, and when the server exits or the supervisor is told to stop (its
// parent died, or agent-lsp stops the server), kills that group and every
// process that was reparented to it as the child subreaper, and reaps
// them. It returns the server's exit status.
func supervise(argv []string) int {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if os.Getppid() == 1 {
		return 1 // the parent died before the death signal was armed
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "agent-lsp: cannot start the MCP server: %v\n", err)
		return 127
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-sigs:
	}
	killAll(cmd.Process.Pid)
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	if ps := cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ps.ExitCode()
	}
	return 1
}

// killAll kills group pgid and every child of this process (orphans that
// left the group reparent here), until none is left or 5 s have passed.
//
// The order of the end test matters. A process that left the group (a
// setsid grandchild) is reparented here only when its parent exits, and
// the kernel does that before the parent can be reaped; the group is
// gone once its last member is reaped. So the children are listed after
// the group is seen gone: a list taken before it can miss an orphan that
// was reparented in between, and the supervisor would exit leaving it to
// init (this happened about one run in four on a loaded machine).
func killAll(pgid int) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for _, k := range children(os.Getpid()) {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		reapAll()
		gone := syscall.Kill(-pgid, 0) == syscall.ESRCH
		if gone && len(children(os.Getpid())) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// reapAll reaps every child that has exited, without waiting.
func reapAll() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// children lists the live (not zombie) processes whose parent is ppid.
func children(ppid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		if p, err := strconv.Atoi(f[1]); err == nil && p == ppid {
			out = append(out, pid)
		}
	}
	return out
}
