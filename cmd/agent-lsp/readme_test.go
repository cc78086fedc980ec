package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// firstCommand is the README's first command: the first sh block under
// "## Two commands", without its comment lines.
func firstCommand(t *testing.T, readme string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## Two commands\n")
	if !ok {
		t.Fatal(`README.md has no "## Two commands" section`)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("no sh block under Two commands")
	}
	block, _, _ = strings.Cut(block, "```")
	var cmd []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			cmd = append(cmd, l)
		}
	}
	return strings.Join(cmd, "\n")
}

// TestReadmeFirstCommand clones the repository into a temporary folder and
// runs the README's first command there, as the README writes it, against
// the scripted model server: it builds the binary and the agent fixes the
// demo's bug, after which the demo's tests pass and the clone has no
// change but the fix.
func TestReadmeFirstCommand(t *testing.T) {
	t.Parallel()
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	dir := t.TempDir()
	clone := filepath.Join(dir, "agent-lsp")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-hardlinks", strings.TrimSpace(string(root)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	readme, err := os.ReadFile(filepath.Join(clone, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	command := firstCommand(t, string(readme))
	if !strings.Contains(command, "examples/demo") {
		t.Fatalf("the README's first command does not run the demo: %q", command)
	}

	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"wordcount.go"}`}}},
		agenttest.Reply{Text: "Count splits on single spaces.", ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "str_replace",
			Arguments: `{"path":"wordcount.go","old_str":"strings.Split(strings.ToLower(text), \" \")","new_str":"strings.Fields(strings.ToLower(text))"}`}}},
		agenttest.Reply{Text: "The bug: Count split on single spaces, so runs of white space made empty words. It now uses strings.Fields."},
	)
	// The build uses this machine's Go caches; everything else is the
	// newcomer's: a fresh home, no configuration.
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".state"), "AGENT_LSP_BASE_URL=" + srv.URL, "AGENT_LSP_MODEL=scripted"}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTOOLCHAIN", "GOFLAGS", "GOPROXY"} {
		if v, err := exec.Command("go", "env", k).Output(); err == nil && strings.TrimSpace(string(v)) != "" {
			env = append(env, k+"="+strings.TrimSpace(string(v)))
		}
	}
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", command)
	cmd.Dir, cmd.Env = clone, env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", command, err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "It now uses strings.Fields.") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3", n)
	}
	test := exec.Command("go", "test", "./...")
	test.Dir, test.Env = filepath.Join(clone, "examples", "demo"), env
	if out, err := test.CombinedOutput(); err != nil {
		t.Errorf("the demo's tests after the fix: %v\n%s", err, out)
	}
	status, err := exec.Command("git", "-C", clone, "status", "--porcelain").Output()
	if err != nil || strings.TrimSpace(string(status)) != "M examples/demo/wordcount.go" {
		t.Errorf("git status of the clone after the first command: %q %v", status, err)
	}
}

// TestDocsJSONSnippetsParse: every ```json block of the README and the docs
// is JSON a user can paste as is (editor settings, ACP agent entries).
func TestDocsJSONSnippetsParse(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rest := string(data)
		for {
			_, after, ok := strings.Cut(rest, "```json\n")
			if !ok {
				break
			}
			block, tail, _ := strings.Cut(after, "```")
			rest = tail
			n++
			if !json.Valid([]byte(block)) {
				t.Errorf("%s: a json block does not parse:\n%s", f, block)
			}
		}
	}
	if n < 3 {
		t.Fatalf("found %d json blocks; the README's ACP section has two", n)
	}
}
