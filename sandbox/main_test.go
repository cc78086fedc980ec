package sandbox

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"
)

// TestMain plays the roles the agent-lsp binary plays: the sandbox helper
// (the test binary re-executes itself through /proc/self/exe), and for the
// Pdeathsig test a "server" that starts a confined command and gets killed.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	switch os.Getenv("SANDBOX_TEST_ROLE") {
	case "server":
		os.Exit(fakeServer())
	case "lazy":
		os.Exit(lazyRun())
	}
	os.Exit(tmpcheck.Run(m))
}

// fakeServer starts sleeping commands in the sandbox, prints the leader's pid and
// waits to be killed.
func fakeServer() int {
	// Its state directory is the test's: this process is killed, so a
	// directory of its own would never be removed.
	s, err := New(Options{
		Workspace: os.Getenv("SANDBOX_TEST_WS"),
		StateDir:  os.Getenv("SANDBOX_TEST_STATE"),
		Backend:   Backend(os.Getenv("SANDBOX_TEST_BACKEND")),
	})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	m := os.Getenv("SANDBOX_TEST_MARKER")
	command := "exec -a " + m + " sleep 1000"
	if s.Status().Confined() {
		// Only a PID namespace takes background children down too.
		command = "(exec -a " + m + " sleep 1000) & " + command
	}
	cmd, err := s.Command(context.Background(), command)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("pid", strconv.Itoa(cmd.Process.Pid))
	time.Sleep(time.Hour)
	return 0
}
