package mcp

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

// SandboxFunc makes the OS sandbox a `sandbox = true` server runs in, with
// the network on or off. env is the server's environment before the
// sandbox scrubs it.
type SandboxFunc func(network bool, env []string) (*sandbox.Sandbox, error)

// proc is one running stdio server.
type proc struct {
	cmd        *exec.Cmd
	supervised bool // cmd is the supervisor; else the leader of its own group
	stdin      io.WriteCloser
	stdout     io.ReadCloser
	done       chan struct{}
	stopOnce   sync.Once
	cancel     context.CancelFunc
	closeSB    func() error
}

// startProc starts s (a stdio server) with env in the workspace root (or
// s.Cwd, relative to it), under the supervisor or, with sandbox = true,
// inside the sandbox.
func startProc(s Server, root string, env []string, sb SandboxFunc, stderr io.Writer) (*proc, error) {
	dir := root
	if s.Cwd != "" {
		dir = s.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
	}
	p := &proc{done: make(chan struct{})}
	if s.Sandbox {
		if sb == nil {
			return nil, fmt.Errorf("sandbox = true, but this session has no sandbox")
		}
		box, err := sb(s.Network, env)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if !box.Status().Confined() {
			box.Close()
			return nil, fmt.Errorf("sandbox = true, but no sandbox layer works here (%s); not started", box.Status().Warning)
		}
		ctx, cancel := context.WithCancel(context.Background())
		line := "exec " + shellQuote(append([]string{s.Command}, s.Args...))
		if dir != box.Workspace() {
			line = "cd " + shellQuote([]string{dir}) + " && " + line
		}
		cmd, err := box.Command(ctx, line)
		if err != nil {
			cancel()
			box.Close()
			return nil, err
		}
		// The sandbox scrubs secret-looking names from env; the server's
		// own table is the user's explicit choice.
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		p.cmd, p.cancel, p.closeSB = cmd, cancel, box.Close
	} else {
		p.cmd = supervisorCommand(append([]string{s.Command}, s.Args...))
		p.cmd.Env = env
		p.cmd.Dir = dir
		p.cmd.WaitDelay = 2 * time.Second // bounds the stderr copy
		p.supervised = true
	}
	p.cmd.Stderr = stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if p.stdout, err = p.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		p.release()
		return nil, fmt.Errorf("start %s: %w", s.Command, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) release() {
	if p.cancel != nil {
		p.cancel()
	}
	if p.closeSB != nil {
		_ = p.closeSB()
	}
}

// exited reports how the process ended, or "" while it runs.
func (p *proc) exited() string {
	select {
	case <-p.done:
	default:
		return ""
	}
	ps := p.cmd.ProcessState
	if ps == nil {
		return "exited"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}

// stop ends the server: its stdin is closed (the MCP way to ask a stdio
// server to exit), then after grace SIGTERM, then SIGKILL; the
// supervisor or the sandbox takes the server's children with it. It
// returns once the process is gone.
func (p *proc) stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		defer p.release()
		_ = p.stdin.Close()
		pid := p.cmd.Process.Pid
		signal := func(sig syscall.Signal) {
			if p.supervised {
				_ = syscall.Kill(pid, sig)
			} else {
				_ = sandbox.SignalGroup(pid, sig)
			}
		}
		for _, step := range []struct {
			sig  syscall.Signal
			wait time.Duration
		}{{0, grace}, {syscall.SIGTERM, 2 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
			if step.sig != 0 {
				signal(step.sig)
			}
			t := time.NewTimer(step.wait)
			select {
			case <-p.done:
				t.Stop()
				if !p.supervised {
					_ = sandbox.SignalGroup(pid, syscall.SIGKILL) // the rest of the group
				}
				return
			case <-t.C:
			}
		}
	})
}

// shellQuote quotes words for bash -c.
func shellQuote(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && strings.IndexFunc(w, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == '@' || r == '+' || r == ',' ||
				r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) < 0 {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
