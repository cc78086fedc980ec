package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// EnsureGopls installs gopls into dir/bin with `go install` (GOBIN set,
// so nothing else changes) unless it is there, and returns its path. It
// takes the newest release the local Go toolchain can build: gopls
// releases require the newest Go soon after it is out.
func EnsureGopls(dir string, log io.Writer) (string, error) {
	bin := filepath.Join(dir, "bin", "gopls")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	out, err := exec.Command("go", "list", "-m", "-versions", "golang.org/x/tools/gopls").Output()
	if err != nil {
		return "", fmt.Errorf("listing gopls versions: %w", err)
	}
	versions := strings.Fields(string(out))[1:]
	slices.Reverse(versions)
	tried := 0
	for _, v := range versions {
		if strings.Contains(v, "-") { // a pre-release
			continue
		}
		if tried++; tried > 3 {
			break
		}
		fmt.Fprintf(log, "go install golang.org/x/tools/gopls@%s\n", v)
		cmd := exec.Command("go", "install", "golang.org/x/tools/gopls@"+v)
		cmd.Env = append(os.Environ(), "GOBIN="+filepath.Join(dir, "bin"), "GOFLAGS=")
		msg, err := cmd.CombinedOutput()
		if err == nil {
			return bin, nil
		}
		fmt.Fprintf(log, "  %s\n", strings.TrimSpace(lastLines(string(msg), 2)))
	}
	return "", fmt.Errorf("no gopls release builds with this Go toolchain")
}
