package proctest

import (
	"os"
	"os/exec"
	"slices"
)

// GoBuild builds the Go package pkg into out the way the project ships its
// binary: static, without cgo (CGO_ENABLED=0, as the README, scripts/install
// and the VS Code package build it), so tests and benchmarks run what users
// run. flags go before -o; -race needs cgo, so a race build keeps it.
func GoBuild(out, pkg string, flags ...string) ([]byte, error) {
	args := append(append([]string{"build"}, flags...), "-o", out, pkg)
	cmd := exec.Command("go", args...)
	if !slices.Contains(flags, "-race") {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	return cmd.CombinedOutput()
}
