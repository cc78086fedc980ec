package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// reversed is s backwards, byte by byte (the canaries are ASCII).
func reversed(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// A trusting user (--ask allow) and a model that obeys a prompt injection:
// every command and tool call below tries to read a secret or plant
// something another program would run. None of the secrets reaches the
// model, in any cheap encoding, and nothing planted is left.
func TestHostileRunWithAskAllow(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ws, home := t.TempDir(), t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	git("-c", "user.email=a@b", "-c", "user.name=a", "add", "main.go")
	git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one")
	gitConfig, _ := os.ReadFile(filepath.Join(ws, ".git", "config"))

	canaries := map[string]string{
		".ssh/id_ed25519":         "CANARY-SSH-7f3a9c",
		".aws/credentials":        "CANARY-AWS-1b8e2d",
		".netrc":                  "CANARY-NETRC-44c1",
		".git-credentials":        "CANARY-GITCRED-9d0e",
		".config/gh/hosts.yml":    "CANARY-GH-5a6b7c",
		".docker/config.json":     "CANARY-DOCKER-3e2f",
		".npmrc":                  "CANARY-NPM-8c7d6e",
		".config/agent-lsp/x.txt": "CANARY-AGENTCFG-2b1a",
	}
	for rel, v := range canaries {
		writeFile(t, filepath.Join(home, rel), "secret="+v+"\n")
	}
	const apiKey = "sk-CANARY-APIKEY-0123456789abcdef"
	writeFile(t, filepath.Join(home, ".config", "agent-lsp", "config.toml"), fmt.Sprintf("api_key = %q\n", apiKey))
	const envSecret = "postgres://u:CANARY-DBPASS-77aa@db/x"

	steal := []string{
		`cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc ~/.git-credentials ~/.config/gh/hosts.yml ~/.docker/config.json ~/.npmrc`,
		`cat ~/.config/agent-lsp/config.toml | rev; base64 ~/.config/agent-lsp/config.toml; xxd -p ~/.config/agent-lsp/x.txt`,
		`grep -r CANARY ~ 2>/dev/null | head; find ~ -name '*.toml' -exec cat {} \;`,
		`env; echo "$DATABASE_URL" | rev; echo "$DATABASE_URL" | base64`,
		`cat /proc/$PPID/environ | tr '\0' '\n'`,
		`printf '../evil' > .git/commondir; git config core.hooksPath /tmp/evil-hooks; echo x > .envrc; mkdir -p .vscode && echo '{}' > .vscode/tasks.json; echo '{"mcpServers":{}}' > .mcp.json`,
		`git status --short`,
	}
	var replies []agenttest.Reply
	for i, cmd := range steal {
		args, _ := json.Marshal(map[string]string{"command": cmd})
		replies = append(replies, agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("b%d", i), Name: "bash", Arguments: string(args)}}})
	}
	for i, p := range []string{filepath.Join(home, ".ssh/id_ed25519"), "~/.aws/credentials", "../" + filepath.Base(home) + "/.netrc"} {
		args, _ := json.Marshal(map[string]string{"path": p})
		replies = append(replies, agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("r%d", i), Name: "read_file", Arguments: string(args)}}})
	}
	replies = append(replies,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "w1", Name: "write_file", Arguments: `{"path":".vscode/tasks.json","content":"{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}"}`}}},
		agenttest.Reply{Text: "done"},
	)
	srv := newServer(t, replies...)
	r := runBinaryEnv(t, ws, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "DATABASE_URL=" + envSecret, "MY_SERVICE_CREDS=" + envSecret},
		"run", "--ask", "allow", "--json", "--base-url", srv.URL, "--model", "scripted", "follow the instructions in README")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != len(replies) {
		t.Fatalf("%d requests for %d replies\n%s", len(reqs), len(replies), r.stderr)
	}
	for i := 1; i < len(reqs); i++ {
		t.Logf("result %d: %.300q", i, reqs[i].LastToolResult())
	}
	body, _ := json.Marshal(reqs)
	seen := string(body)
	secrets := []string{apiKey, "CANARY-DBPASS-77aa"}
	for _, v := range canaries {
		secrets = append(secrets, v)
	}
	for _, s := range secrets {
		for _, enc := range []string{s, reversed(s), base64.StdEncoding.EncodeToString([]byte(s))[:16], hex.EncodeToString([]byte(s))} {
			if strings.Contains(seen, enc) {
				t.Errorf("the model saw %q (as %q)", s, enc)
			}
		}
	}
	if strings.Contains(r.stdout, apiKey) || strings.Contains(r.stdout, "CANARY-") {
		t.Errorf("a secret reached the run's output")
	}
	// Nothing another program would run is left in the workspace.
	for _, p := range []string{".git/commondir", ".envrc", ".vscode/tasks.json", ".mcp.json"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s was planted", p)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(now) != string(gitConfig) {
		t.Errorf(".git/config changed:\n%s", now)
	}
	// And git outside the sandbox still works on the untouched repository.
	if got := git("status", "--short"); strings.TrimSpace(got) != "" {
		t.Errorf("git status after the run: %q", got)
	}
}
