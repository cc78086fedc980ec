package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// corpusConfig is exactly the rule set of the bash corpus
// (/work/shared/corpus/README.md).
const corpusConfig = `[permissions.bash]
builtin = false
default = "ask"
allow = ["ls*", "cat *", "grep *", "git status*", "git diff*", "go test*"]
deny = ["rm *", "sudo *", "curl *", "wget *", "git push*"]
`

// runStdin runs the binary in dir with stdin and the clean environment of
// runBinary.
func runStdin(t *testing.T, dir, stdin string, args ...string) runOut {
	t.Helper()
	return execBinary(t, dir, nil, strings.NewReader(stdin), args...)
}

type corpusRow struct {
	id, cmd, want string
	minAsk        bool
}

func loadCorpus(t *testing.T) []corpusRow {
	t.Helper()
	var rows []corpusRow
	for _, cols := range readCommandTSV(t, "../../permission/testdata/bash_cases.tsv") {
		id, _, _ := strings.Cut(cols[2], " ")
		rows = append(rows, corpusRow{id: id, cmd: cols[0], want: cols[1], minAsk: strings.Contains(cols[2], "[min:ask]")})
	}
	return rows
}

// readCommandTSV reads a permission corpus: a header line, then tab-separated
// rows whose first column is a Go-quoted command, returned unquoted.
func readCommandTSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var rows [][]string
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		cmd, err := strconv.Unquote(cols[0])
		if err != nil {
			t.Fatalf("%s line %d: %v", path, n+1, err)
		}
		cols[0] = cmd
		rows = append(rows, cols)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

var strictness = map[string]int{"allow": 1, "ask": 2, "deny": 3}

// TestPolicyCorpus runs `agent-lsp policy` on every row of the bash corpus
// with the corpus rule set, scored like permission's corpus test: no
// security failure, few usability failures.
func TestPolicyCorpus(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	cfg := filepath.Join(home, "rules.toml")
	writeFile(t, cfg, corpusConfig)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	rows := loadCorpus(t)
	if len(rows) != 150 {
		t.Errorf("corpus has %d rows, want 150", len(rows))
	}
	var security, usability []string
	for _, c := range rows {
		var r runOut
		if strings.ContainsRune(c.cmd, 0) || strings.HasPrefix(c.cmd, "-") {
			r = runStdin(t, home, c.cmd, "policy", "--config", cfg, "--workspace", ws) // argv cannot hold NUL
		} else {
			r = runStdin(t, home, "", "policy", "--config", cfg, "--workspace", ws, "--", c.cmd)
		}
		first, _, _ := strings.Cut(r.stdout, "\n")
		got, _, _ := strings.Cut(first, ":")
		got = strings.TrimSpace(got)
		if r.code != 0 || strictness[got] == 0 {
			t.Errorf("%s: exit %d, first line %q, stderr %s", c.id, r.code, first, r.stderr)
			security = append(security, c.id)
			continue
		}
		switch {
		case strictness[got] < strictness[c.want] && !(got == "ask" && c.minAsk):
			security = append(security, c.id)
			t.Errorf("SECURITY %s: got %s, want %s\n%s", c.id, got, c.want, r.stdout)
		case strictness[got] > strictness[c.want]:
			usability = append(usability, c.id)
		}
	}
	t.Logf("%d rows: %d security failures %v, %d usability failures %v", len(rows), len(security), security, len(usability), usability)
	if 10*len(usability) >= len(rows) {
		t.Errorf("%d usability failures reach 10%% of %d rows", len(usability), len(rows))
	}
}

func TestPolicyOutputAndErrors(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfg := filepath.Join(home, "rules.toml")
	writeFile(t, cfg, corpusConfig)
	r := runStdin(t, home, "", "policy", "--config", cfg, "--", "ls -la && rm -rf build")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "deny: deny rule `rm *`") ||
		!strings.Contains(r.stdout, "allow ls -la  (allow rule `ls*`") || !strings.Contains(r.stdout, "deny  rm -rf build") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runStdin(t, home, "tsc --build\n", "policy", "--config", cfg, "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "ask: no rule matches") || !strings.Contains(r.stdout, "[allow for session: `tsc *`]") {
		t.Errorf("stdin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runStdin(t, home, "", "policy", "--config", cfg, "--tool", "write_file", ".git/hooks/pre-commit")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "deny: protected path") {
		t.Errorf("path: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runStdin(t, home, "", "policy", "--config", cfg, "--rules")
	if r.code != 0 || !strings.Contains(r.stdout, "deny  `rm *`") || !strings.Contains(r.stdout, "default ask") {
		t.Errorf("rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A workspace file only tightens: its allow list is ignored, its deny
	// list applies.
	ws := filepath.Join(home, "ws")
	writeFile(t, filepath.Join(ws, ".agent-lsp", "config.toml"), "[permissions.bash]\nallow = [\"curl *\", \"tsc *\"]\ndeny = [\"make *\"]\n")
	r = runStdin(t, home, "", "policy", "--config", cfg, "--workspace", ws, "--", "curl -s example.com; tsc -b; make all")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "deny: deny rule `curl *`") || !strings.Contains(r.stdout, "ask   tsc -b") ||
		!strings.Contains(r.stdout, "deny  make all  (deny rule `make *` ("+filepath.Join(ws, ".agent-lsp", "config.toml")) ||
		!strings.Contains(r.stderr, "allow ignored: a workspace file can only tighten") {
		t.Errorf("workspace rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	bad := []struct{ text, want string }{
		{"[permissions.bash]\ndefault = \"ask\"\nalow = [\"ls\"]\n", "bad.toml:3: permissions.bash.alow: unknown key"},
		{"[permissions.bash]\n\ndefault = \"maybe\"\n", "bad.toml:3"},
		{"[permissions.bassh]\nallow = [\"ls\"]\n", "bad.toml:1: permissions.bassh: unknown tool"},
		{"model = \"m\"\n[sandbox]\nbackend = \"docker\"\n", "bad.toml:3: sandbox.backend"},
	}
	for _, b := range bad {
		f := filepath.Join(home, "bad.toml")
		writeFile(t, f, b.text)
		r := runStdin(t, home, "", "policy", "--config", f, "--", "ls")
		if r.code != 2 || !strings.Contains(r.stderr, b.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", b.text, r.code, r.stderr, b.want)
		}
	}
	if r := runStdin(t, home, "", "policy", "--config", cfg); r.code != 2 || !strings.Contains(r.stderr, "no command") {
		t.Errorf("no command: exit %d %q", r.code, r.stderr)
	}
}

// TestRunBashAllowedThenDenied: the scripted model runs an allowed command,
// then a denied one; the denial is a tool result, the run goes on.
func TestRunBashAllowedThenDenied(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "x", "keep.txt"), "keep\n")
	cfg := filepath.Join(t.TempDir(), "rules.toml")
	writeFile(t, cfg, corpusConfig)
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c2", Name: "bash", Arguments: `{"command":"rm -rf x"}`}}},
		agenttest.Reply{Text: "I may not delete x."},
	)
	r := runBinary(t, ws, "run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "clean up")
	if r.code != 0 || !strings.Contains(lastLine(r.stdout), `"reason":"end_turn"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	t.Logf("results:\n%s\n---\n%s\n---\nstderr:\n%s", reqs[1].LastToolResult(), reqs[2].LastToolResult(), r.stderr)
	if got := reqs[1].LastToolResult(); !strings.HasPrefix(got, "exit status 0\n") || !strings.Contains(got, "x") {
		t.Errorf("ls result:\n%s", got)
	}
	if got := reqs[2].LastToolResult(); !strings.Contains(got, "bash call denied") || !strings.Contains(got, "deny rule `rm *`") {
		t.Errorf("rm result:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "x", "keep.txt")); err != nil {
		t.Errorf("x was removed: %v", err)
	}
}

// TestRunAskFlag: a command the rules ask about is refused by default
// (headless, fail closed) and runs with --ask=allow.
func TestRunAskFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag    []string
		created bool
		want    string
	}{
		{nil, false, "--ask=allow"},
		{[]string{"--ask=deny"}, false, "--ask=allow"},
		{[]string{"--ask=allow"}, true, "exit status 0"},
	} {
		ws := t.TempDir()
		cfg := filepath.Join(t.TempDir(), "rules.toml")
		writeFile(t, cfg, corpusConfig)
		srv := newServer(t,
			agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: `{"command":"touch made-by-agent"}`}}},
			agenttest.Reply{Text: "done"},
		)
		args := append([]string{"run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted"}, c.flag...)
		r := runBinary(t, ws, append(args, "make a file")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", c.flag, r.code, r.stdout, r.stderr)
		}
		reqs := srv.Requests()
		t.Logf("%v: %s", c.flag, reqs[len(reqs)-1].LastToolResult())
		if got := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(got, c.want) {
			t.Errorf("%v: tool result lacks %q:\n%s", c.flag, c.want, got)
		}
		_, err := os.Stat(filepath.Join(ws, "made-by-agent"))
		if (err == nil) != c.created {
			t.Errorf("%v: file created = %v, want %v", c.flag, err == nil, c.created)
		}
	}
	if r := runBinary(t, t.TempDir(), "run", "--ask=maybe", "x"); r.code != 2 || !strings.Contains(r.stderr, "want deny or allow") {
		t.Errorf("bad --ask: exit %d %s", r.code, r.stderr)
	}
}

// TestRunWithoutSandboxAsks: with backend "none" even an allowed command
// needs approval, and a headless run refuses it.
func TestRunWithoutSandboxAsks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "rules.toml")
	writeFile(t, cfg, corpusConfig+"\n[sandbox]\nbackend = \"none\"\n")
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}},
		agenttest.Reply{Text: "done"},
	)
	r := runBinary(t, ws, "run", "--json", "--config", cfg, "--base-url", srv.URL, "--model", "scripted", "list")
	if r.code != 0 || !strings.Contains(r.stderr, "NO SANDBOX") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].LastToolResult(); !strings.Contains(got, "denied") || !strings.Contains(got, "no OS sandbox") {
		t.Errorf("tool result:\n%s", got)
	}
}

func TestDoctorReportsSandbox(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := newServer(t)
	r := runBinary(t, ws, "doctor", "--base-url", srv.URL, "--model", "scripted")
	if !strings.Contains(r.stdout, "sandbox:   ") || !strings.Contains(r.stdout, "network: off") {
		t.Errorf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "c.toml")
	writeFile(t, cfg, "[sandbox]\nbackend = \"none\"\n")
	r = runBinary(t, ws, "doctor", "--config", cfg, "--base-url", srv.URL, "--model", "scripted")
	if !strings.Contains(r.stdout, "sandbox:   NONE") || !strings.Contains(r.stdout, "NO SANDBOX LAYER IS AVAILABLE") {
		t.Errorf("doctor without sandbox: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRunLeavesNoProcesses: a command still running when the run is
// interrupted (SIGINT) or the process is killed (SIGKILL) does not survive
// it, background children included.
func TestRunLeavesNoProcesses(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, os.Kill} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			marker := "agent-lsp-e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			args, _ := json.Marshal(map[string]string{"command": "(exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000"})
			srv := newServer(t,
				agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: string(args)}}},
				agenttest.Reply{Text: "done"},
			)
			cmd, out := startBinary(t, ws, "run", "--json", "--ask=allow", "--base-url", srv.URL, "--model", "scripted", "sleep")
			deadline := time.Now().Add(10 * time.Second)
			for len(processesWith(marker)) < 2 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the command did not start:\n%s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("agent-lsp did not stop on %v", sig)
			}
			for time.Now().Before(deadline.Add(5 * time.Second)) {
				if len(processesWith(marker)) == 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if left := processesWith(marker); len(left) > 0 {
				t.Errorf("processes outlive agent-lsp after %v: %v", sig, left)
			}
			if sig == os.Interrupt && !strings.Contains(out.String(), `"reason":"aborted"`) {
				t.Errorf("interrupted run:\n%s", out.String())
			}
		})
	}
}

// processesWith lists the live pids whose command line contains marker.
func processesWith(marker string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, filepath.Base(d))
	}
	return out
}

// TestRunInterruptedWhileWaiting: SIGINT while the model has not answered
// (no tool started, the grace before the signals are taken over passed)
// ends the run cleanly: an aborted ending, a summary, exit status 1.
func TestRunInterruptedWhileWaiting(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := newServer(t, agenttest.Reply{Text: "late", Delay: "60s"})
	cmd, out := startBinary(t, ws, "run", "--json", "--base-url", srv.URL, "--model", "scripted", "wait")
	waitUntil(t, func() bool { return len(srv.Requests()) == 1 }, "the request")
	time.Sleep(2 * interruptGrace)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFail || !strings.Contains(lastLine(out.String()), `"reason":"aborted"`) {
		t.Errorf("interrupted run: %v\n%s", err, out.String())
	}
}
