package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// TestSecretsHidden puts canaries in every credential store of a fake
// HOME and in agent-lsp's own config and state directories; cat, find and
// grep -r inside the sandbox must never show one, while the rest of HOME
// and the sandbox's own state directory (inside agent-lsp's) stay usable.
func TestSecretsHidden(t *testing.T) {
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "home")
			secrets := []string{
				".ssh/id_ed25519", ".aws/credentials", ".config/gcloud/application_default_credentials.json",
				".azure/accessTokens.json", ".kube/config", ".docker/config.json", ".netrc", ".git-credentials",
				".config/gh/hosts.yml", ".npmrc", ".pypirc", ".cargo/credentials.toml", ".cargo/credentials",
				".gnupg/private-keys-v1.d/k.key", ".password-store/bank.gpg", ".config/agent-lsp/config.toml",
				".local/state/agent-lsp/sessions/s.jsonl", ".vault-token",
			}
			for _, p := range append(secrets, "notes.txt", ".docker/other.json", ".cargo/bin/tool") {
				body := "FAKE-CANARY-secret " + p + "\n"
				if !strings.Contains(strings.Join(secrets, " "), p) {
					body = "visible " + p + "\n"
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(home, p), []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			state := filepath.Join(home, ".local/state/agent-lsp/workspaces/ws-1/sandbox")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			// Hide left nil: DefaultHidden(Env), made with the environment
			// when the first command is prepared, and HideAlso besides.
			s := newSandbox(t, b, Options{Env: append(env, "PAGER=less"), EnvSet: []string{"PAGER=cat"}, StateDir: state, HideAlso: []string{filepath.Join(home, ".vault-token")}})
			if b == BackendLandlock && !s.Status().MountNS {
				t.Skipf("no mount namespace: %s", s.Status().Warning)
			}
			var cats []string
			for _, p := range secrets {
				cats = append(cats, "cat ~/"+p+" 2>&1")
			}
			for _, c := range []string{
				strings.Join(cats, "; "),
				"find ~ -type f 2>&1 | xargs cat 2>&1",
				"grep -r . ~ 2>&1",
				"grep -r FAKE-CANARY / --include='*' -s 2>/dev/null | head -5; true",
				"tar cf - -C ~ . 2>/dev/null | strings",
			} {
				if strings.HasPrefix(c, "grep -r FAKE-CANARY /") {
					continue // a whole-disk grep is too slow for a test; ~ is covered above
				}
				out := string(run(t, s, c).Output)
				if strings.Contains(out, "FAKE-CANARY") {
					t.Errorf("BREACH: %q showed a secret:\n%s", c, out)
				}
			}
			if out := mustSucceed(t, s, "printenv PAGER"); out != "cat\n" {
				t.Errorf("EnvSet: PAGER=%q", out)
			}
			out := mustSucceed(t, s, "cat ~/notes.txt ~/.docker/other.json ~/.cargo/bin/tool && echo x > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"")
			if strings.Count(out, "visible") != 3 {
				t.Errorf("the rest of HOME is not readable:\n%s", out)
			}
			// Nothing was created on the host for the hiding.
			if b, err := os.ReadFile(filepath.Join(home, ".ssh/id_ed25519")); err != nil || !strings.Contains(string(b), "FAKE-CANARY") {
				t.Errorf("the secret itself changed: %q %v", b, err)
			}
		})
	}
}

// TestMissingProtectedPathsCannotBeCreated: files other programs run,
// created by a command where none existed, are gone when it returns, and
// so are the control files of a repository the command made; ordinary
// files and git init + commit stay.
func TestMissingProtectedPathsCannotBeCreated(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		proctest.Need(t, "git", "scripts/test installs it (Debian package git)")
	}
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			if b == BackendLandlock && !s.Status().MountNS {
				t.Skipf("no mount namespace: %s", s.Status().Warning)
			}
			ws, home := s.Workspace(), t.TempDir()
			canary := filepath.Join(t.TempDir(), "PWNED")
			plant := "touch " + canary
			res := run(t, s, strings.Join([]string{
				"mkdir -p .vscode && echo '{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"},\"command\":\"" + plant + "\"}]}' > .vscode/tasks.json",
				"echo '" + plant + "' > .envrc",
				"echo '{\"mcpServers\":{\"x\":{\"command\":\"sh\"}}}' > .mcp.json",
				"mkdir -p .agent-lsp && echo 'base_url = \"http://evil\"' > .agent-lsp/config.toml",
				"mkdir -p pkg/app && echo '" + plant + "' > pkg/app/.envrc && mkdir -p a/b/.vscode && echo '{}' > a/b/.vscode/settings.json",
				"ln -s /etc/passwd .exrc",
				"echo ordinary > kept.txt && mkdir -p src && echo 'package x' > src/x.go",
				// A repository made by the command, with a planted fsmonitor and hook.
				"git init -q -b main && git add kept.txt && git -c user.name=a -c user.email=a@b commit -qm init",
				"git config core.fsmonitor '" + plant + "' && printf '#!/bin/sh\\n" + plant + "\\n' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit",
				"git init -q sub && git -C sub config core.hooksPath /tmp && echo ../evil > sub/.git/commondir",
				"echo 'gitdir: /tmp' > pkg/.git",
			}, " && "))
			if res.ExitCode != 0 {
				t.Fatalf("setup command failed:\n%s", res.Output)
			}
			t.Logf("notes:\n%s", strings.Join(res.Notes, "\n"))
			for _, p := range []string{".vscode", ".envrc", ".mcp.json", ".agent-lsp", "pkg/app/.envrc", "a/b/.vscode", ".exrc",
				".git/hooks/post-commit", "sub/.git/commondir", "pkg/.git"} {
				if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
					t.Errorf("BREACH: %s created by the command is still there", p)
				}
			}
			for _, p := range []string{"kept.txt", "src/x.go", "a/b", "pkg/app"} {
				if _, err := os.Stat(filepath.Join(ws, p)); err != nil {
					t.Errorf("ordinary file %s removed: %v", p, err)
				}
			}
			if len(res.Notes) == 0 {
				t.Error("the result does not say what was removed")
			}
			for _, dir := range []string{ws, filepath.Join(ws, "sub")} {
				gitOutside(t, home, dir, "status")
			}
			gitOutside(t, home, ws, "commit", "-q", "--allow-empty", "-m", "user")
			if log := gitOutside(t, home, ws, "log", "--format=%s"); !strings.Contains(log, "init") {
				t.Errorf("the command's commit is gone: %q", log)
			}
			if _, err := os.Stat(canary); err == nil {
				t.Fatal("BREACH: git outside ran what the command planted in its new repository")
			}
			// Existing protected paths are read-only; the next command
			// cannot plant through the repository it made either.
			mustBeDenied(t, s, "git config core.fsmonitor '"+plant+"'")
			if err := os.MkdirAll(filepath.Join(ws, ".vscode"), 0o755); err != nil {
				t.Fatal(err)
			}
			mustBeDenied(t, s, "echo '{}' > .vscode/tasks.json")
		})
	}
}
