package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// gitOutside runs git in dir as the user's shell or editor would, outside
// the sandbox, with a private HOME so that only the repository's files
// count.
func gitOutside(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// newRepo makes a repository with one commit in dir.
func newRepo(t *testing.T, home, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitOutside(t, home, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOutside(t, home, dir, "add", "README")
	gitOutside(t, home, dir, "commit", "-qm", "first")
}

// TestGitControlFilesStayReadOnly is issue 10's escape: the agent's
// command plants config, commondir, hooks and the like in every git
// directory of the workspace; git run outside afterwards (and during the
// command) must execute none of it, and ordinary git inside keeps working.
func TestGitControlFilesStayReadOnly(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		proctest.Need(t, "git", "scripts/test installs it (Debian package git)")
	}
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			if !s.Status().MountNS && b == BackendLandlock {
				t.Skipf("no mount namespace: %s", s.Status().Warning)
			}
			ws, home := s.Workspace(), t.TempDir()
			canary := filepath.Join(t.TempDir(), "PWNED")
			newRepo(t, home, ws)
			newRepo(t, home, filepath.Join(ws, "nested")) // a repository inside the workspace
			upstream := filepath.Join(t.TempDir(), "m")
			newRepo(t, home, upstream) // and one to add as a submodule
			gitOutside(t, home, ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "mod")
			gitOutside(t, home, ws, "commit", "-qm", "add submodule")
			for _, d := range []string{".git", ".git/modules/mod", "nested/.git"} {
				if _, err := os.Stat(filepath.Join(ws, d, "HEAD")); err != nil {
					t.Fatalf("fixture: %s: %v", d, err)
				}
			}
			before := snapshot(t, ws, ".git/config", ".git/modules/mod/config", "nested/.git/config", "mod/.git")
			plant := "touch " + canary
			attacks := []string{
				// commondir: git would take config and hooks from evil/.
				"mkdir -p evil/hooks && printf '[core]\\n\\tfsmonitor = " + plant + "\\n' > evil/config && echo ../evil > .git/commondir",
				"echo '[core] fsmonitor = " + plant + "' >> .git/config",
				"printf '[core]\\n\\tfsmonitor = " + plant + "\\n' > .git/config.worktree",
				"git config extensions.worktreeConfig true",
				"git config core.hooksPath /tmp",
				"printf '#!/bin/sh\\n" + plant + "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
				"rm -rf .git/hooks && mkdir .git/hooks",
				"mv .git .git-old",
				"echo '[core] fsmonitor = " + plant + "' >> .git/modules/mod/config",
				"echo ../../../evil > .git/modules/mod/commondir",
				"printf '#!/bin/sh\\n" + plant + "\\n' > .git/modules/mod/hooks/post-checkout",
				"echo 'gitdir: ../evil' > mod/.git",
				"echo '[core] fsmonitor = " + plant + "' >> nested/.git/config",
				"echo ../../evil > nested/.git/commondir",
				"git -C nested config core.fsmonitor '" + plant + "'",
				"echo '[include] path = ../evil/config' > .git/info/attributes.cfg && git config include.path info/attributes.cfg",
				"mkdir -p .git/worktrees/w && echo ../.. > .git/worktrees/w/commondir",
			}
			for _, a := range attacks {
				run(t, s, a) // whether it reports failure or not, nothing may stick
			}
			// A command that plants and keeps running while git runs
			// outside: the plant must not be visible outside even then.
			res := run(t, s, "echo ../evil > .git/commondir; ls .git/commondir && cat .git/commondir")
			if res.ExitCode != 0 || !strings.Contains(string(res.Output), "../evil") {
				t.Logf("commondir inside the view: %s", res.Output)
			}
			if len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, "\n"), "dropped .git/commondir") {
				t.Errorf("the result does not say the planted commondir was dropped: %q", res.Notes)
			}
			for _, dir := range []string{ws, filepath.Join(ws, "mod"), filepath.Join(ws, "nested")} {
				gitOutside(t, home, dir, "status")
				gitOutside(t, home, dir, "diff")
			}
			gitOutside(t, home, ws, "status", "--ignore-submodules=none")
			gitOutside(t, home, ws, "commit", "-q", "--allow-empty", "-m", "user commit runs pre-commit")
			if _, err := os.Stat(canary); err == nil {
				t.Fatalf("BREACH: git run outside executed what the command planted")
			}
			for _, p := range []string{".git/commondir", ".git/config.worktree", ".git/modules/mod/commondir", "nested/.git/commondir",
				".git/hooks/pre-commit", ".git/modules/mod/hooks/post-checkout", ".git/worktrees", ".git/info/attributes.cfg"} {
				if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
					t.Errorf("BREACH: %s exists on the host", p)
				}
			}
			if after := snapshot(t, ws, ".git/config", ".git/modules/mod/config", "nested/.git/config", "mod/.git"); after != before {
				t.Errorf("BREACH: a control file changed:\n%s\n---\n%s", before, after)
			}

			// Ordinary git inside still works, and its results are there
			// outside.
			mustSucceed(t, s, "echo agent > agent.txt && git add agent.txt && git -c user.name=a -c user.email=a@b commit -qm 'agent commit' && git status --short && git diff HEAD~1 --stat")
			mustSucceed(t, s, "echo more >> agent.txt && git diff | grep -q '+more' && git add -A && git status --short | grep -q '^M  agent.txt'")
			mustSucceed(t, s, "git -C nested checkout -qb topic && echo n > nested/n && git -C nested add n && git -C nested -c user.name=a -c user.email=a@b commit -qm nested")
			mustSucceed(t, s, "git -C mod log --oneline -1 && git -C mod status --short")
			if log := gitOutside(t, home, ws, "log", "--format=%s", "-1", "HEAD"); strings.TrimSpace(log) != "agent commit" {
				t.Errorf("the commit made inside is not HEAD outside: %q", log)
			}
			if st := gitOutside(t, home, ws, "status", "--short", "agent.txt"); strings.TrimSpace(st) != "M  agent.txt" {
				t.Errorf("the index written inside is not the index outside: %q", st)
			}
			if br := gitOutside(t, home, filepath.Join(ws, "nested"), "branch", "--show-current"); strings.TrimSpace(br) != "topic" {
				t.Errorf("nested HEAD not brought back: %q", br)
			}
			if _, err := os.Stat(canary); err == nil {
				t.Fatal("BREACH: canary after ordinary git")
			}
			if left, _ := os.ReadDir(filepath.Join(s.StateDir(), "git")); len(left) != 0 {
				t.Errorf("git shadows left in the state dir: %v", left)
			}
		})
	}
}

// snapshot concatenates files of ws (or notes that they are missing).
func snapshot(t *testing.T, ws string, rel ...string) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rel {
		data, err := os.ReadFile(filepath.Join(ws, r))
		b.WriteString("== " + r + "\n")
		if err != nil {
			b.WriteString("missing\n")
			continue
		}
		b.Write(data)
	}
	return b.String()
}
