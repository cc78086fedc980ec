// Package tmpcheck fails a test binary whose tests leave anything in the
// temporary directory: Run gives the binary (and every process it starts,
// through TMPDIR) a fresh temporary directory and, once the tests are done,
// reports what is still in it. t.TempDir folders are removed by then, so
// what is left was made some other way (os.MkdirTemp without a RemoveAll,
// a killed child that could not clean up) and would pile up in /tmp.
package tmpcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Run runs m's tests with TMPDIR set to a new directory, removes it, and
// returns the exit status: m's, or 1 when something was left in it.
func Run(m *testing.M) int {
	if fuzzWorker(os.Args) {
		// A fuzz worker is killed when the fuzzing time is up, before it
		// could remove a directory of its own; the coordinator that
		// started it checks the one they share.
		return m.Run()
	}
	return run(m.Run)
}

// fuzzWorker reports whether args are those of a worker process that
// go test -fuzz starts.
func fuzzWorker(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-test.fuzzworker") })
}

func run(tests func() int) int {
	dir, err := os.MkdirTemp("", "agent-lsp-test-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "tmpcheck: %v\n", err)
		return 1
	}
	// Traversable by the other users some tests switch to (they get a
	// directory of their own inside it).
	_ = os.Chmod(dir, 0o755)
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	code := tests()
	if had {
		os.Setenv("TMPDIR", old)
	} else {
		os.Unsetenv("TMPDIR")
	}
	if left := Left(dir); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tests left %d entries in the temporary directory (use t.TempDir, or remove them):\n", len(left))
		for _, l := range left {
			fmt.Fprintf(os.Stderr, "  %s\n", l)
		}
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Left lists the entries of dir, as paths.
func Left(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}
