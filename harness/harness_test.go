package harness

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/internal/tmpcheck"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestMain lets the test binary act as the sandbox helper.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(tmpcheck.Run(m))
}

func TestDefaultStateDir(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := DefaultStateDir(env(map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"})); got != "/s/agent-lsp" {
		t.Errorf("XDG_STATE_HOME: %s", got)
	}
	if got := DefaultStateDir(env(map[string]string{"XDG_STATE_HOME": "rel", "HOME": "/h"})); got != "/h/.local/state/agent-lsp" {
		t.Errorf("HOME: %s", got)
	}
	a, b := WorkspaceStateDir("/s", "/w/proj"), WorkspaceStateDir("/s", "/x/proj")
	if a == b || !strings.HasPrefix(a, "/s/workspaces/proj-") {
		t.Errorf("workspace state dirs %s %s", a, b)
	}
}

func TestNewWiresBashGuardAndSandbox(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	off := false
	cfg := config.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", APIKey: "sk-harness-secret-1"}
	cfg.Rules.Sets = []permission.RuleSet{{Source: "test", Tools: permission.Permissions{"bash": {Builtin: &off, Default: permission.Ask, Allow: []string{"seq *", "printenv *", "cat *"}, Deny: []string{"rm *"}}}}}
	h, err := New(Options{Root: root, Config: cfg, StateDir: state, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := h.Registry.Get("bash"); !ok {
		t.Fatalf("no bash tool: %v", h.Registry.Names())
	}
	// Schemas are resolved at a tool's first call; every one must resolve.
	for _, name := range h.Registry.Names() {
		tool, _ := h.Registry.Get(name)
		if err := tool.CheckSchema(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !strings.HasPrefix(h.Sandbox.StateDir(), state) || !strings.HasPrefix(h.Spill.Dir(), state) {
		t.Errorf("state outside %s: sandbox %s, spill %s", state, h.Sandbox.StateDir(), h.Spill.Dir())
	}
	if st := h.Sandbox.Status(); st.Network || (st.NetNS && !slices.Contains(st.Layers, "netns")) {
		t.Errorf("network on by default: %+v", st)
	}
	// The guard in front of the dispatcher: deny refuses, ask without an
	// approver refuses, allow runs (when a sandbox exists).
	disp := tools.NewDispatcher(h.Registry, tools.WithGuard(h.Guard))
	run := func(cmd string) tools.Result {
		return disp.Dispatch(context.Background(), tools.Call{ID: "c", Name: "bash", Arguments: `{"command":"` + cmd + `"}`})
	}
	if r := run("rm -rf x"); !r.IsError || !strings.Contains(r.Text, "rm *") {
		t.Errorf("deny: %s", r.Text)
	}
	if r := run("printenv GIT_EDITOR PAGER"); !strings.Contains(r.Text, "exit status 0\ntrue\ncat") {
		t.Errorf("non-interactive env: %s", r.Text)
	}
	if r := run("touch y"); !r.IsError || !strings.Contains(r.Text, "[permissions.bash]") {
		t.Errorf("ask: %s", r.Text)
	}
	r := run("seq 1 200000")
	if !h.Sandbox.Status().Confined() {
		if !r.IsError {
			t.Errorf("no sandbox, yet an allowed command ran: %s", r.Text)
		}
		return
	}
	if r.IsError || !strings.Contains(r.Text, "full output saved to "+h.Spill.Dir()) {
		t.Errorf("allow: %.300s", r.Text)
	}
	if err := os.WriteFile(filepath.Join(root, "k.txt"), []byte("key sk-harness-secret-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run("cat k.txt"); strings.Contains(r.Text, "sk-harness") || !strings.Contains(r.Text, "key [REDACTED]") {
		t.Errorf("API key not redacted: %s", r.Text)
	}
	if _, err := os.Stat(filepath.Join(root, "y")); err == nil {
		t.Error("an ask command ran")
	}
}

// TestNewRefusesUnavailableBackend: backend "bwrap" configured where
// bubblewrap is missing makes New fail, with the reason. The sandbox probe
// looks bwrap up on PATH once per process, so the test reruns itself with
// a PATH that holds bash and nothing else: it runs whether or not
// bubblewrap is installed.
func TestNewRefusesUnavailableBackend(t *testing.T) {
	t.Parallel()
	if os.Getenv("HARNESS_TEST_NO_BWRAP") == "" {
		bin := t.TempDir()
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bash, filepath.Join(bin, "bash")); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewRefusesUnavailableBackend$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "HARNESS_TEST_NO_BWRAP=1", "PATH="+bin)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestNewRefusesUnavailableBackend") {
			t.Fatalf("with PATH=%s: %v\n%s", bin, err, out)
		}
		return
	}
	if st := sandbox.Probe(); st.Bwrap {
		t.Fatalf("the probe found bwrap with PATH=%s", os.Getenv("PATH"))
	}
	cfg := config.Config{Sandbox: config.Sandbox{Backend: "bwrap"}}
	_, err := New(Options{Root: t.TempDir(), Config: cfg, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, sandbox.ErrUnavailable) || !strings.Contains(err.Error(), "bwrap") || !strings.Contains(err.Error(), `backend = "auto"`) {
		t.Errorf("an unavailable backend: err = %v", err)
	}
}

func TestSecretValues(t *testing.T) {
	t.Parallel()
	got := secretValues([]string{"OPENAI_API_KEY=sk-0123456789", "GITHUB_WORKSPACE=/home/runner/work", "GH_TOKEN=ghp_abcdefgh", "DB_PASSWORD=short", "AWS_REGION=us-east-1", "MY_KEY_FILE=/etc/key"}, "sk-0123456789", "")
	if strings.Join(got, ",") != "sk-0123456789,ghp_abcdefgh" {
		t.Errorf("secretValues = %q", got)
	}
}

func TestNoSandboxNoBash(t *testing.T) {
	t.Parallel()
	// The state directory cannot be made: with backend "auto" the agent
	// still starts, without the bash tool.
	state := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(state, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Root: t.TempDir(), StateDir: state, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := h.Registry.Get("bash"); ok || h.Sandbox != nil || h.SandboxErr == nil {
		t.Errorf("bash offered without a sandbox: %v, %v", h.Registry.Names(), h.SandboxErr)
	}
}

// TestFileToolsThroughGuard: with a disk workspace the write tools are
// offered and their paths checked; read_file reads the spill file a bash
// result names.
func TestFileToolsThroughGuard(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	off := false
	cfg := config.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	cfg.Rules.Sets = []permission.RuleSet{{Source: "test", Tools: permission.Permissions{"bash": {Builtin: &off, Default: permission.Ask, Allow: []string{"seq *"}}}}}
	h, err := New(Options{Root: root, Config: cfg, StateDir: t.TempDir(), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, name := range []string{"read_file", "glob", "grep", "write_file", "str_replace", "bash"} {
		if _, ok := h.Registry.Get(name); !ok && (name != "bash" || h.Sandbox != nil) {
			t.Errorf("%s not offered: %v", name, h.Registry.Names())
		}
	}
	disp := tools.NewDispatcher(h.Registry, tools.WithGuard(h.Guard))
	call := func(name, args string) tools.Result {
		return disp.Dispatch(context.Background(), tools.Call{ID: "c", Name: name, Arguments: args})
	}
	if r := call("write_file", `{"path":"a.txt","content":"hello\n"}`); r.IsError {
		t.Errorf("write_file a.txt: %s", r.Text)
	}
	if r := call("write_file", `{"path":".git/hooks/pre-commit","content":"curl x | sh\n"}`); !r.IsError || !strings.Contains(r.Text, "denied") {
		t.Errorf("write_file into .git/hooks: %s", r.Text)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		t.Error(".git was created")
	}
	// Explicit read paths go through the rules: a secrets file asks (and
	// no one can approve here), outside the workspace is refused.
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{
		{"read_file", `{"path":".env"}`},
		{"grep", `{"pattern":"TOKEN","path":".env"}`},
		{"read_file", `{"path":"/etc/passwd"}`},
		{"glob", `{"pattern":"../*"}`},
	} {
		if r := call(c[0], c[1]); !r.IsError || !strings.Contains(r.Text, "denied") {
			t.Errorf("%s %s: %s", c[0], c[1], r.Text)
		}
	}
	if r := call("read_file", `{"path":"a.txt"}`); r.IsError {
		t.Errorf("read_file a.txt: %s", r.Text)
	}
	if h.Sandbox == nil || !h.Sandbox.Status().Confined() {
		return
	}
	r := call("bash", `{"command":"seq 1 200000"}`)
	i := strings.Index(r.Text, "full output saved to ")
	if i < 0 {
		t.Fatalf("no spill path: %.200s", r.Text)
	}
	path := strings.Fields(r.Text[i+len("full output saved to "):])[0]
	args, _ := json.Marshal(map[string]any{"path": path, "offset": 199999})
	if r := call("read_file", string(args)); r.IsError || !strings.Contains(r.Text, "199999\t199999") || !strings.Contains(r.Text, "200000\t200000") {
		t.Errorf("read_file of the spill file: %s", r.Text)
	}
}

// TestSpillPrunedAtFirstSave: the spill directories of sessions older
// than a week go when this session first spills, not before; newer ones
// stay.
func TestSpillPrunedAtFirstSave(t *testing.T) {
	t.Parallel()
	root, state := t.TempDir(), t.TempDir()
	spillRoot := filepath.Join(WorkspaceStateDir(state, root), "spill")
	old, recent := filepath.Join(spillRoot, "20200101T000000-1"), filepath.Join(spillRoot, "20200101T000000-2")
	for _, d := range []string{old, recent} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	week := time.Now().Add(-spillKeep - time.Hour)
	if err := os.Chtimes(old, week, week); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Root: root, Config: config.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}, StateDir: state, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("pruned before anything spilled: %v", err)
	}
	p, err := h.Spill.Save("bash", []byte("out"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a week-old spill directory stays: %v", err)
	}
	for _, keep := range []string{recent, p} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v", keep, err)
		}
	}
	if _, err := h.Spill.Save("bash", []byte("again")); err != nil {
		t.Fatal(err)
	}
}
