package tools

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// Benchmarks over Go's own source tree, each beside ripgrep when rg is on
// PATH (the rg half is skipped otherwise):
//
//	go test -run '^$' -bench . -benchtime 5x ./tools/
//
// rg runs with --no-require-git --hidden so that it applies .gitignore
// files and lists dotfiles as these tools do, and with -j set to GOMAXPROCS.

var benchGrep = []struct {
	name       string
	pattern    string
	literal    bool
	ignoreCase bool
}{
	{"literal", "func main", true, false},
	{"literal_ignore_case", "FUNC MAIN", true, true},
	{"literal_ignore_case_s", "STATUS", true, true},
	{"regex_literal_part", `func \w+Reader\(`, false, false},
	{"regex_no_literal", `[A-Z][a-z]+[0-9]{3}`, false, false},
	{"regex_word_test", `\w+_test\b`, false, false},
	{"regex_alternation", `TODO|FIXME|XXX`, false, false},
}

func goSrc(b *testing.B) string {
	src := filepath.Join(proctest.GoRoot(), "src")
	return src
}

func BenchmarkGrep(b *testing.B) {
	src := goSrc(b)
	ws, err := NewDiskWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for _, c := range benchGrep {
		b.Run(c.name+"/ours", func(b *testing.B) {
			for b.Loop() {
				res, err := grep(context.Background(), ws, &GrepParams{Pattern: c.pattern, Literal: c.literal, IgnoreCase: c.ignoreCase})
				if err != nil || res.IsError {
					b.Fatal(err, res.Text)
				}
			}
		})
		b.Run(c.name+"/rg", func(b *testing.B) {
			args := []string{"-n", "--no-heading", "--no-require-git", "--hidden", "-j", jobs()}
			if c.literal {
				args = append(args, "-F")
			}
			if c.ignoreCase {
				args = append(args, "-i")
			}
			runRG(b, src, append(args, "-e", c.pattern, ".")...)
		})
	}
}

func BenchmarkGlob(b *testing.B) {
	src := goSrc(b)
	ws, err := NewDiskWorkspace(src)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.Run("test_go/ours", func(b *testing.B) {
		for b.Loop() {
			res, err := glob(context.Background(), ws, &GlobParams{Pattern: "**/*_test.go"})
			if err != nil || res.IsError {
				b.Fatal(err, res.Text)
			}
		}
	})
	b.Run("test_go/rg", func(b *testing.B) {
		runRG(b, src, "--files", "--no-require-git", "--hidden", "-j", jobs(), "-g", "*_test.go", ".")
	})
}

func jobs() string { return strconv.Itoa(runtime.GOMAXPROCS(0)) }

func runRG(b *testing.B, dir string, args ...string) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg is not on PATH")
	}
	for b.Loop() {
		cmd := exec.Command(rg, args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil && len(out) == 0 {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				b.Fatal(err)
			}
		}
	}
}
