//go:build unix && !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
	"syscall"
)

// Probe reports that this OS has no sandbox backend (yet): commands run
// unconfined and the caller must ask for every one.
func Probe() Status {
	st := applied(Status{}, BackendNone, Options{})
	st.Warning = "no OS sandbox on " + runtime.GOOS + ": commands run with the server's full rights; ask the user for every command"
	return st
}

func runHelper([]string) error { return errors.New("no sandbox helper on " + runtime.GOOS) }

func (s *Sandbox) helperSpec(string, *commandView) (string, error) {
	return "", errors.New("no sandbox helper on " + runtime.GOOS)
}

func (s *Sandbox) bwrapArgs(string, *commandView) []string { return nil }

func (s *Sandbox) namespaces(*exec.Cmd) {}

// setPdeathsig is Linux-only; elsewhere Run's group kill is the backstop.
func setPdeathsig(*syscall.SysProcAttr) {}

// LiveGroupMembers needs /proc; elsewhere only kill(2) is consulted.
func LiveGroupMembers(int) []int { return nil }

func liveGroupMembers(int) ([]int, bool) { return nil, false }
