package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// lazyRun is a fresh process (no probe cached in memory) that makes a
// sandbox the way a run does and reports how many processes the sandbox
// had started after New, after Status and after one command.
func lazyRun() int {
	var n atomic.Int64
	execHook = func(Backend) { n.Add(1) }
	s, err := New(Options{
		Workspace: os.Getenv("SANDBOX_TEST_WS"),
		StateDir:  os.Getenv("SANDBOX_TEST_STATE"),
		Backend:   Backend(os.Getenv("SANDBOX_TEST_BACKEND")),
	})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	defer s.Close() // without a state dir it made a temporary one
	fmt.Println("new", n.Load())
	b := s.Status().Backend
	fmt.Println("status", n.Load(), b)
	before := n.Load()
	fmt.Println("status-again", n.Load()-before)
	res, err := s.Run(context.Background(), "echo ran", RunOptions{Timeout: time.Minute})
	if err != nil || strings.TrimSpace(string(res.Output)) != "ran" {
		fmt.Println("error", err, res.Output)
		return 1
	}
	fmt.Println("run", n.Load()-before)
	return 0
}

// TestNoProbeBeforeNeeded proves issue 15 item 4 with a process count: New
// starts nothing, backend "none" never probes, the first Status probes
// once, and a later run with the cache warm starts only its command.
func TestNoProbeBeforeNeeded(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	lazy := func(backend Backend, state string) map[string]string {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SANDBOX_TEST_ROLE=lazy", "SANDBOX_TEST_WS="+ws,
			"SANDBOX_TEST_STATE="+state, "SANDBOX_TEST_BACKEND="+string(backend))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("lazy run (%s): %v\n%s", backend, err, out)
		}
		got := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			k, v, _ := strings.Cut(line, " ")
			got[k] = v
		}
		return got
	}
	none := lazy(BackendNone, state)
	if none["new"] != "0" || none["status"] != "0 none" || none["run"] != "1" {
		t.Errorf("backend none started probes: %v", none)
	}
	if _, err := os.Stat(filepath.Join(state, "probe.json")); err == nil {
		t.Error("backend none wrote a probe cache")
	}
	cold := lazy(BackendAuto, state)
	if cold["new"] != "0" {
		t.Errorf("New started %s processes", cold["new"])
	}
	if n := strings.Fields(cold["status"]); len(n) != 2 || n[0] == "0" {
		t.Errorf("the first Status did not probe: %v", cold)
	}
	if cold["status-again"] != "0" || cold["run"] != "1" {
		t.Errorf("probed more than once: %v", cold)
	}
	warm := lazy(BackendAuto, state)
	if warm["new"] != "0" || warm["status"] != "0 "+strings.Fields(cold["status"])[1] || warm["run"] != "1" {
		t.Errorf("warm cache still probed: %v (cold %v)", warm, cold)
	}
	// Without a state directory (doctor) nothing is cached: it probes.
	if fresh := lazy(BackendAuto, ""); strings.HasPrefix(fresh["status"], "0 ") {
		t.Errorf("no state dir, yet no probe: %v", fresh)
	}
}

func TestProbeCacheKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "probe.json")
	// A cache written for another kernel or binary is not believed.
	stale := `{"key":"other-kernel","status":{"backend":"landlock","landlock":99,"landlockOk":true}}`
	if err := os.WriteFile(path, []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := cachedProbe(path); st.Landlock == 99 {
		t.Fatalf("stale cache used: %+v", st)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), probeKey()) {
		t.Fatalf("cache not rewritten for this machine: %s %v", b, err)
	}
}

// TestSetUpAtFirstUse: New neither resolves nor makes the state directory
// (a session without commands leaves no trace of its sandbox); the first
// command does, and a state directory that cannot be made fails that
// command and Status with the reason, not New.
func TestSetUpAtFirstUse(t *testing.T) {
	ws := t.TempDir()
	state := filepath.Join(t.TempDir(), "a", "b")
	s, err := New(Options{Workspace: ws, StateDir: state, Backend: BackendNone})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("New made the state directory (stat: %v)", err)
	}
	res, err := s.Run(context.Background(), "echo ran", RunOptions{Timeout: time.Minute})
	if err != nil || strings.TrimSpace(string(res.Output)) != "ran" {
		t.Fatalf("run: %v %q", err, res.Output)
	}
	if fi, err := os.Stat(state); err != nil || !fi.IsDir() {
		t.Fatalf("the first command did not make the state directory: %v", err)
	}
	s.Close()

	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad, err := New(Options{Workspace: ws, StateDir: filepath.Join(file, "state"), Backend: BackendNone})
	if err != nil {
		t.Fatalf("New failed on a state directory it does not need yet: %v", err)
	}
	if _, err := bad.Run(context.Background(), "echo ran", RunOptions{Timeout: time.Minute}); err == nil || !strings.Contains(err.Error(), "state dir") {
		t.Errorf("a command with no state directory: err = %v, want the state dir's error", err)
	}
	if st := bad.Status(); st.Confined() || !strings.Contains(st.Warning, "state dir") {
		t.Errorf("Status = %+v, want unconfined with the state dir's error", st)
	}

	// Closed before its first use: never set up, nothing left behind.
	tmp, err := New(Options{Workspace: ws, Backend: BackendNone})
	if err != nil {
		t.Fatal(err)
	}
	tmp.Close()
	if _, err := tmp.Run(context.Background(), "true", RunOptions{Timeout: time.Minute}); err == nil {
		t.Error("a closed sandbox ran a command")
	}
	if d := tmp.StateDir(); d != "" {
		t.Errorf("a sandbox closed unused made %s", d)
	}
}

// TestHasBash: New's quick look for bash agrees with exec.LookPath on
// every kind of PATH entry.
func TestHasBash(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, mode os.FileMode, isDir bool) string {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, "bash")
		if isDir {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return d
	}
	exe, plain, asDir := mk("exe", 0o755, false), mk("plain", 0o644, false), mk("dir", 0, true)
	missing := filepath.Join(dir, "missing")
	for _, path := range []string{
		"", exe, plain, asDir, missing, "relative", ".",
		plain + ":" + asDir + ":" + missing,
		plain + ":" + exe,
		"/usr/bin:" + plain, missing + ":/bin", "/nonexistent",
		os.Getenv("PATH"),
	} {
		t.Setenv("PATH", path)
		_, err := exec.LookPath("bash")
		if got, want := hasBash(path), err == nil; got != want {
			t.Errorf("PATH=%q: hasBash %v, LookPath found it: %v (%v)", path, got, want, err)
		}
	}
}
