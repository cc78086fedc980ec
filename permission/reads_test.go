package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// readsWorkspace makes a workspace the way a hostile clone looks: a
// symlinked directory leading out, secrets, a .git/config with a token.
func readsWorkspace(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(ws, "src", "deep"), filepath.Join(ws, ".git"), filepath.Join(ws, "docs"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"src/a.go": "package a", "src/deep/b.go": "package b", "docs/x.md": "x", ".env": "TOKEN=1",
		".git/config": "[remote \"origin\"]\n\turl = https://user:tok@example.com/r.git\n", "../out/secret.txt": "OUTSIDE",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(ws, "src", "deep", "vendor")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "third_party")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestReads: attached option values, git object paths, git's config and
// symlinked directories leading out.
func TestReads(t *testing.T) {
	t.Parallel()
	e, err := New(readsWorkspace(t), issueRules())
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, e, []verdictCase{
		{"cat -f/etc/passwd", Ask},
		{"grep -f/etc/passwd x .", Ask},
		{"grep --file=/etc/passwd x src", Ask},
		{"cat -n.env", Ask},
		{"ls -la", Allow},
		{"grep -n5 foo src", Allow},
		{"ls -d/", Allow}, // `/` glued to an option is a delimiter, not a path
		{"grep -e/api/ src/a.go", Allow},
		{"cat src/a.go -f../outside", Ask},
		{"git diff HEAD:.env HEAD~1:.env", Ask},
		{"git diff HEAD:src/a.go", Allow},
		{"git diff :.env", Ask},
		{"git diff :0:.env", Ask},
		{"git status", Allow},
		{"cat .git/config", Ask},
		{"grep url .git/config", Ask},
		{"cat .GIT/config", Ask},
		{"cat .git/*", Ask},
		{"cat */*", Deny},
		{"cat third_party/secret.txt", Deny},
		{"cat src/deep/*/secret.txt", Deny},
		{"ls third_party", Deny},
		{"cat docs/* src/*.go", Allow},
		{"cat ./src/*/*.go", Allow},
		{"grep -R OUTSIDE src", Deny},
		{"grep -rR OUTSIDE .", Deny},
		{"grep -r OUTSIDE src", Allow}, // -r does not follow links met on the way
		{"grep -R foo docs", Allow},
		{"grep -R foo", Deny},
		{"cat < third_party/secret.txt", Deny},
		{"cat ~/.ssh/*", Ask},
		{"cat /etc/*", Ask},
		{"cat ../*/secret.txt", Ask},
		{"cat nothing/*", Allow},
		{"grep -R foo /etc", Ask},
	})
	b, err := New(readsWorkspace(t))
	if err != nil {
		t.Fatal(err)
	}
	checkTable(t, b, []verdictCase{
		{"git show HEAD:.env", Ask},
		{"git show HEAD:./config/.env.local", Ask},
		{"git show origin/main:id_rsa", Ask},
		{"git show HEAD:src/a.go", Allow},
		{"git log -p HEAD:src", Allow},
		{"git cat-file -p HEAD:.env", Ask},
		{"git show ':/fix the build'", Allow},
		{"file -f/outside/file", Ask},
		{"rg -L foo src", Deny},
		{"rg foo src", Allow},
	})
}

// TestReadGitConfigTool: the file tools ask before reading git's config.
func TestReadGitConfigTool(t *testing.T) {
	t.Parallel()
	e, err := New(readsWorkspace(t))
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]Verdict{".git/config": Ask, ".GIT/Config": Ask, ".git": Ask, "src/a.go": Allow, ".git/HEAD": Allow} {
		for _, tool := range []string{"read_file", "grep"} {
			if d := e.CheckPath(tool, p, false); d.Verdict != want {
				t.Errorf("%s %s: %s, want %s\n%s", tool, p, d.Verdict, want, d.Explain())
			}
		}
	}
}
