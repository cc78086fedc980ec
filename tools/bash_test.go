package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/sandbox"
)

type bashEnv struct {
	ws    string
	spill *Spill
	sb    *sandbox.Sandbox
	d     *Dispatcher
}

func newBashEnv(t *testing.T, opts BashOptions) *bashEnv {
	t.Helper()
	ws := t.TempDir()
	sb, err := sandbox.New(sandbox.Options{Workspace: ws, StateDir: t.TempDir(), Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if !sb.Status().Confined() {
		t.Logf("no sandbox layer here; testing unconfined:\n%s", sb.Status())
	}
	opts.Shell = sb
	if opts.Spill == nil {
		opts.Spill = NewSpill(filepath.Join(t.TempDir(), "spill"))
	}
	opts.Grace = 300 * time.Millisecond
	return &bashEnv{ws: ws, spill: opts.Spill, sb: sb, d: NewDispatcher(NewRegistry(NewBash(opts)))}
}

func (e *bashEnv) run(t *testing.T, command string, timeout int) Result {
	t.Helper()
	args := map[string]any{"command": command}
	if timeout > 0 {
		args["timeout"] = timeout
	}
	raw, _ := json.Marshal(args)
	return e.d.Dispatch(context.Background(), Call{ID: "c1", Name: "bash", Arguments: string(raw)})
}

func TestBashExitStatus(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	tests := []struct {
		command string
		isError bool
		want    []string
	}{
		{"echo hello", false, []string{"exit status 0\nhello"}},
		{"true", false, []string{"exit status 0\n(no output)"}},
		{"echo out; echo err >&2; exit 3", true, []string{"exit status 3\nout\nerr"}},
		{"kill -TERM $$", true, []string{"exit status 143 (killed by signal 15)"}},
		{"pwd", false, []string{e.sb.Workspace()}},
		{"printf 'a\\x00b\\xff\\n'", false, []string{"a\uFFFDb\uFFFD", "binary output"}},
	}
	for _, tt := range tests {
		r := e.run(t, tt.command, 0)
		if r.IsError != tt.isError {
			t.Errorf("%q: IsError = %v, want %v\n%s", tt.command, r.IsError, tt.isError, r.Text)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%q: result lacks %q:\n%s", tt.command, w, r.Text)
			}
		}
	}
}

func TestBashAccessAndSchema(t *testing.T) {
	t.Parallel()
	p := &BashParams{Command: "ls"}
	if a := p.Access(); a.Kind != AccessExec || a.Command != "ls" {
		t.Errorf("Access = %+v", a)
	}
	e := newBashEnv(t, BashOptions{})
	for _, args := range []string{`{"command":""}`, `{"command":"ls","timeout":601}`, `{"command":"ls","timeout":0.5}`, `{}`} {
		r := e.d.Dispatch(context.Background(), Call{ID: "c", Name: "bash", Arguments: args})
		if !r.IsError {
			t.Errorf("%s: want an error, got %s", args, r.Text)
		}
	}
}

func TestBashNoStdin(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	start := time.Now()
	r := e.run(t, "cat; echo done; tty || true", 5)
	if time.Since(start) > 3*time.Second || !strings.Contains(r.Text, "exit status 0\ndone") || !strings.Contains(r.Text, "not a tty") {
		t.Errorf("cat should see end of input at once (%v):\n%s", time.Since(start), r.Text)
	}
}

func TestBashScrubsSecrets(t *testing.T) {
	// Not parallel: it sets the process environment.
	t.Setenv("FOO_TOKEN", "tok-123")
	t.Setenv("MY_API_KEY", "key-456")
	t.Setenv("DB_SECRET", "sec-789")
	t.Setenv("PLAIN_VALUE", "not on the allow-list")
	e := newBashEnv(t, BashOptions{})
	r := e.run(t, "env", 0)
	for _, s := range []string{"FOO_TOKEN", "tok-123", "MY_API_KEY", "key-456", "DB_SECRET", "sec-789"} {
		if strings.Contains(r.Text, s) {
			t.Errorf("env output shows %s", s)
		}
	}
	// An allow-list: a variable nobody listed stays out, PATH and HOME
	// come in.
	if strings.Contains(r.Text, "PLAIN_VALUE") || !strings.Contains(r.Text, "\nPATH=") || !strings.Contains(r.Text, "\nHOME=") {
		t.Errorf("env output:\n%s", r.Text)
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	marker := fmt.Sprintf("agent-lsp-bash-%d", rand.Int64())
	command := "(exec -a " + marker + " sleep 1000) & (trap '' TERM; exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000"
	start := time.Now()
	r := e.run(t, command, 1)
	t.Logf("result:\n%s", r.Text)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call took %v", d)
	}
	for _, w := range []string{"timed out after 1s", "killed", "Background jobs are not supported", "maximum 600 s"} {
		if !r.IsError || !strings.Contains(r.Text, w) {
			t.Errorf("result lacks %q:\n%s", w, r.Text)
		}
	}
	if left := processesWith(marker); len(left) > 0 {
		t.Errorf("processes of the command survive the timeout: %v", left)
	}
}

func TestBashBackgroundChildDoesNotOutliveCall(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	marker := fmt.Sprintf("agent-lsp-bg-%d", rand.Int64())
	r := e.run(t, "(exec -a "+marker+" sleep 1000) & echo started", 0)
	if !strings.Contains(r.Text, "started") {
		t.Errorf("result:\n%s", r.Text)
	}
	if left := processesWith(marker); len(left) > 0 {
		t.Errorf("background child survives the call: %v", left)
	}
}

// processesWith lists the pids whose command line contains marker.
func processesWith(marker string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie runs no code
			}
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

var spillPath = regexp.MustCompile(`full output saved to (\S+\.txt)`)

func TestBashOutputCapAndSpill(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{MaxOutput: 4 << 10})
	r := e.run(t, "seq 1 100000", 0)
	t.Logf("result tail:\n%s", r.Text[len(r.Text)-400:])
	if len(r.Text) > 6<<10 {
		t.Errorf("result is %d bytes", len(r.Text))
	}
	for _, w := range []string{"exit status 0\n1\n2\n3\n", "\n99999\n100000\n", "lines /", "output cut"} {
		if !strings.Contains(r.Text, w) {
			t.Errorf("result lacks %q", w)
		}
	}
	m := spillPath.FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("no spill path in:\n%s", r.Text[len(r.Text)-300:])
	}
	full, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if string(full) != want.String() {
		t.Errorf("spill file holds %d bytes, want %d", len(full), want.Len())
	}
	if !e.spill.Owns(m[1]) || strings.HasPrefix(m[1], e.ws) {
		t.Errorf("spill file %s: owned %v, in workspace %v", m[1], e.spill.Owns(m[1]), strings.HasPrefix(m[1], e.ws))
	}
	// Short output is not spilled.
	if r := e.run(t, "echo short", 0); strings.Contains(r.Text, "saved to") {
		t.Errorf("short output spilled:\n%s", r.Text)
	}
}

func TestBashWritesOnlyInWorkspace(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	if !e.sb.Status().Confined() {
		t.Skip("no sandbox layer on this machine:\n" + e.sb.Status().String())
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	r := e.run(t, "echo x > "+outside, 0)
	if !r.IsError || !strings.Contains(r.Text, "exit status 1") {
		t.Errorf("write outside: %s", r.Text)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written", outside)
	}
	r = e.run(t, "echo inside > in.txt && cat in.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"", 0)
	if r.IsError || !strings.Contains(r.Text, "inside\nt") {
		t.Errorf("write inside: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "in.txt")); string(b) != "inside\n" {
		t.Errorf("in.txt = %q", b)
	}
}

func TestBashCancel(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start := time.Now()
	r := e.d.Dispatch(ctx, Call{ID: "c", Name: "bash", Arguments: `{"command":"echo partial; sleep 100"}`})
	if time.Since(start) > 10*time.Second || !r.IsError || !strings.Contains(r.Text, "cancelled") {
		t.Errorf("cancel (%v): %s", time.Since(start), r.Text)
	}
}

func TestBashRedactsSecretValues(t *testing.T) {
	t.Parallel()
	e := newBashEnv(t, BashOptions{Redactor: NewRedactor("sk-live-0123456789", "short")})
	if err := os.WriteFile(filepath.Join(e.ws, "leak.txt"), []byte("key=sk-live-0123456789\nshort\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run(t, "cat leak.txt; seq 1 1", 0)
	if strings.Contains(r.Text, "sk-live") || !strings.Contains(r.Text, "key=[REDACTED]\nshort\n") || !strings.Contains(r.Text, "1 secret value(s)") {
		t.Errorf("result:\n%s", r.Text)
	}
}
