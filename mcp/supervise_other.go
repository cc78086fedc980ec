//go:build !linux

package mcp

import (
	"os/exec"
	"syscall"
)

// SupervisorArg is unused off Linux: there is no parent-death signal, so a
// server runs directly in its own process group and agent-lsp stops the
// group when it closes (but not when it is killed).
const SupervisorArg = "__agent-lsp-mcp-supervisor"

// MaybeRunSupervisor does nothing off Linux.
func MaybeRunSupervisor() {}

func supervisorCommand(argv []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}
