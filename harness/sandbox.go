package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// SandboxOptions are the sandbox options a configuration asks for. The
// environment and the default hidden paths are left to the sandbox to make
// when it prepares its first command: a run without one never pays for them.
func SandboxOptions(root, stateDir string, c config.Sandbox) sandbox.Options {
	b := sandbox.Backend(c.Backend)
	if c.Backend == "auto" {
		b = sandbox.BackendAuto
	}
	var hide []string
	if len(c.Hide) > 0 {
		home, _ := os.UserHomeDir()
		for _, h := range c.Hide {
			if rest, ok := strings.CutPrefix(h, "~/"); ok && home != "" {
				h = filepath.Join(home, rest)
			}
			hide = append(hide, h)
		}
	}
	// Loopback: test servers (httptest) work on the private loopback of the
	// command's own network namespace, which has no route out; without a
	// network namespace the sandbox ignores it and keeps TCP denied.
	return sandbox.Options{Workspace: root, StateDir: stateDir, Network: c.Network, Loopback: true, Backend: b, EnvSet: nonInteractive,
		EnvAllow: c.Env, HideAlso: hide}
}

// nonInteractive makes commands that would wait for a terminal fail or go
// on at once: no pager, no editor, no colours, no credential prompt.
var nonInteractive = []string{
	"TERM=dumb", "NO_COLOR=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0",
	"GIT_EDITOR=true", "EDITOR=true", "VISUAL=true", "DEBIAN_FRONTEND=noninteractive",
}

// newSandbox makes the sandbox with its private directory dir. The
// directory is made now (one stat when it exists), so that one that cannot
// be made means no bash tool rather than a tool whose every call fails;
// the sandbox resolves it at its first command.
func newSandbox(root, dir string, c config.Sandbox) (*sandbox.Sandbox, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	sb, err := sandbox.New(SandboxOptions(root, dir, c))
	if err == nil && c.Backend != "" && c.Backend != "auto" {
		// An explicitly configured backend that does not work stops the
		// run (this probes, or reads the cached probe).
		if err = sb.Err(); err != nil {
			sb.Close()
			return nil, err
		}
	}
	return sb, err
}
