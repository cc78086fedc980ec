package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// ignoreTree is a workspace exercising .gitignore rules: nested files,
// negation, directory-only and anchored patterns, ** and character classes.
var ignoreTree = map[string]string{
	".gitignore": strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"build/",
		"/top.txt",
		"docs/**/*.tmp",
		"**/cache",
		"a/**/b",
		"*.[oa]",
		"trailing.txt   ",
		"dironly.txt/",
		"\\#hash",
		"vendor/*",
		"!vendor/keep/",
		"",
	}, "\n"),
	"a.go":                       "package a\n",
	"top.txt":                    "ignored: anchored\n",
	"x.log":                      "ignored\n",
	"keep.log":                   "kept: negated\n",
	"trailing.txt":               "ignored: trailing spaces\n",
	"dironly.txt":                "kept: pattern is for directories\n",
	"#hash":                      "ignored: escaped #\n",
	"lib.o":                      "ignored\n",
	"lib.c":                      "kept\n",
	"build/out.go":               "ignored dir\n",
	"sub/top.txt":                "kept: /top.txt is anchored\n",
	"sub/build/out.go":           "ignored: build/ at any depth\n",
	"sub/.gitignore":             "*.go\n!main.go\n",
	"sub/main.go":                "kept: negated below\n",
	"sub/util.go":                "ignored by sub/.gitignore\n",
	"sub/deep/x.go":              "re-included by sub/deep/.gitignore\n",
	"sub/deep/y.go":              "ignored by sub/.gitignore\n",
	"sub/deep/.gitignore":        "!x.go\n",
	"docs/c.tmp":                 "ignored: ** matches no directory\n",
	"docs/a/b/c.tmp":             "ignored\n",
	"docs/a/b/c.md":              "kept\n",
	"src/cache/x":                "ignored: **/cache\n",
	"cache":                      "ignored: **/cache matches files too\n",
	"a/b":                        "ignored: a/**/b\n",
	"a/x/y/b":                    "ignored: a/**/b\n",
	"a/x/y/c":                    "kept\n",
	"vendor/lib/x.go":            "ignored: vendor/*\n",
	"vendor/keep/x.go":           "kept: negated directory\n",
	".github/workflows/ci.yml":   "kept: hidden files are listed\n",
	".git/config":                "never listed\n",
	".git/HEAD":                  "never listed\n",
	"deep/er/still/main_test.go": "package still\n",
}

func globLines(t *testing.T, ws Workspace, p GlobParams) []string {
	t.Helper()
	res := runTool(t, NewGlob(ws), p)
	if res.IsError {
		t.Fatalf("glob %+v: %s", p, res.Text)
	}
	if strings.HasPrefix(res.Text, "No files match") {
		return nil
	}
	return strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
}

// TestGlobGitignoreMatchesGit compares the files glob lists with what git
// itself considers untracked and not ignored, on the same tree.
func TestGlobGitignoreMatchesGit(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, ignoreTree)
	got := globLines(t, ws, GlobParams{Pattern: "**"})

	var want []string
	for name, content := range ignoreTree {
		if strings.HasPrefix(content, "kept") || strings.HasPrefix(content, "re-included") || strings.HasPrefix(name, ".gitignore") ||
			strings.HasSuffix(name, "/.gitignore") || strings.HasPrefix(content, "package") {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("glob **:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	git, err := exec.LookPath("git")
	if err != nil {
		proctest.Need(t, "git", "scripts/test installs it (Debian package git)")
	}
	os.RemoveAll(filepath.Join(dir, ".git"))
	gitDir := filepath.Join(t.TempDir(), "gitdir")
	cmd := exec.Command(git, "--git-dir", gitDir, "--work-tree", dir, "init", "-q")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd = exec.Command(git, "--git-dir", gitDir, "--work-tree", dir, "ls-files", "--others", "--exclude-standard")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	gitFiles := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(gitFiles)
	got = globLines(t, ws, GlobParams{Pattern: "**"})
	if !slices.Equal(got, gitFiles) {
		t.Fatalf("glob ** and git ls-files differ:\nglob:\n%s\ngit:\n%s", strings.Join(got, "\n"), strings.Join(gitFiles, "\n"))
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	ws, dir := newWS(t, map[string]string{
		"a.go": "", "b.go": "", "z.txt": "", "src/c.go": "", "src/d_test.go": "",
		"src/inner/e.go": "", "src/inner/f_test.go": "", "other/g.go": "",
	})
	if err := os.Symlink("..", filepath.Join(dir, "src/up")); err != nil { // a cycle
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(dir, "rootlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.go", filepath.Join(dir, "alias.go")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		p    GlobParams
		want []string
	}{
		{GlobParams{Pattern: "*.go"}, []string{"a.go", "b.go"}},
		{GlobParams{Pattern: "**/*.go"}, []string{"a.go", "b.go", "other/g.go", "src/c.go", "src/d_test.go", "src/inner/e.go", "src/inner/f_test.go"}},
		{GlobParams{Pattern: "**/*_test.go"}, []string{"src/d_test.go", "src/inner/f_test.go"}},
		{GlobParams{Pattern: "src/**/*_test.go"}, []string{"src/d_test.go", "src/inner/f_test.go"}},
		{GlobParams{Pattern: "src/*.go"}, []string{"src/c.go", "src/d_test.go"}},
		{GlobParams{Pattern: "*.go", Path: "src"}, []string{"src/c.go", "src/d_test.go"}},
		{GlobParams{Pattern: "**/*.go", Path: "src/inner"}, []string{"src/inner/e.go", "src/inner/f_test.go"}},
		{GlobParams{Pattern: "**/*.{go,txt}", Path: "."}, []string{"a.go", "b.go", "other/g.go", "src/c.go", "src/d_test.go", "src/inner/e.go", "src/inner/f_test.go", "z.txt"}},
		{GlobParams{Pattern: "[ab].go"}, []string{"a.go", "b.go"}},
		{GlobParams{Pattern: "./src/*_test.go"}, []string{"src/d_test.go"}},
		{GlobParams{Pattern: filepath.Join(dir, "src/*_test.go")}, []string{"src/d_test.go"}},
		{GlobParams{Pattern: "*/*.go", Path: dir}, []string{"other/g.go", "src/c.go", "src/d_test.go"}},
		// A start directory named through a link that stays inside is
		// followed (once: links below it are not).
		{GlobParams{Pattern: "src/up/*.go"}, []string{"src/up/a.go", "src/up/b.go"}},
		{GlobParams{Pattern: "nothing/**"}, nil},
	}
	for _, tt := range tests {
		if got := globLines(t, ws, tt.p); !slices.Equal(got, tt.want) {
			t.Errorf("glob %+v = %q, want %q", tt.p, got, tt.want)
		}
	}

	refused := []struct {
		p    GlobParams
		want string
	}{
		{GlobParams{Pattern: "../**/*.pem"}, "outside the workspace"},
		{GlobParams{Pattern: "src/../../*"}, "outside the workspace"},
		{GlobParams{Pattern: "/etc/*"}, "outside the workspace"},
		{GlobParams{Pattern: "~/.ssh/*"}, "outside the workspace"},
		{GlobParams{Pattern: "*", Path: ".."}, "outside the workspace"},
		{GlobParams{Pattern: "*", Path: "rootlink"}, "outside the workspace"},
		{GlobParams{Pattern: "rootlink/etc/*"}, "outside the workspace"},
		{GlobParams{Pattern: "*", Path: "a.go"}, "is a file, not a directory"},
		{GlobParams{Pattern: "*", Path: "missing"}, "missing does not exist"},
		{GlobParams{Pattern: "[a"}, "not a valid glob"},
		{GlobParams{Pattern: ""}, "pattern is empty"},
		{GlobParams{Pattern: "a\x00"}, "NUL"},
	}
	for _, tt := range refused {
		res := runTool(t, NewGlob(ws), tt.p)
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("glob %+v = %v %q, want an error with %q", tt.p, res.IsError, res.Text, tt.want)
		}
	}

	res := runTool(t, NewGlob(ws), GlobParams{Pattern: "*.md"})
	if res.IsError || !strings.Contains(res.Text, `try "**/*.md" for any depth`) {
		t.Errorf("no match hint: %q", res.Text)
	}
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range GlobMaxResults + 234 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%7, i)] = ""
	}
	ws, _ := newWS(t, files)
	res := runTool(t, NewGlob(ws), GlobParams{Pattern: "**/*.txt"})
	got := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
	if len(got) != GlobMaxResults+1 {
		t.Fatalf("%d lines, want %d and a footer", len(got), GlobMaxResults+1)
	}
	if !slices.IsSorted(got[:GlobMaxResults]) || got[0] != "d00/f0000.txt" {
		t.Fatalf("not sorted from the start: %q ...", got[:3])
	}
	if want := "[... 234 more files not shown (1234 in all); narrow the pattern or path]"; got[GlobMaxResults] != want {
		t.Fatalf("footer %q, want %q", got[GlobMaxResults], want)
	}
}

// TestWalkMatchesRipgrep compares the files the walk lists over Go's source
// tree with rg --files (with .gitignore applied outside git repositories and
// hidden files listed, as the walk does).
func TestWalkMatchesRipgrep(t *testing.T) {
	t.Parallel()
	rg, err := exec.LookPath("rg")
	if err != nil {
		proctest.Need(t, "rg", "scripts/test installs it (Debian package ripgrep)")
	}
	src := filepath.Join(proctest.GoRoot(), "src")
	cmd := exec.Command(rg, "--files", "--hidden", "--no-require-git")
	cmd.Dir = src
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rg --files: %v", err)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	slices.Sort(want)

	root, err := os.OpenRoot(src)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var got []string
	w := &walker{ctx: t.Context(), file: func(d *dirNode, name, rel string) bool {
		d.release()
		got = append(got, rel)
		return true
	}}
	if err := w.walk(root, "."); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		only := func(a, b []string) []string {
			var d []string
			for _, x := range a {
				if _, ok := slices.BinarySearch(b, x); !ok {
					d = append(d, x)
				}
			}
			return d[:min(len(d), 10)]
		}
		t.Fatalf("walk lists %d files, rg %d; only walk: %q; only rg: %q", len(got), len(want), only(got, want), only(want, got))
	}
}
