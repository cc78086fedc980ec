package sandbox

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allBackends adds the unconfined backend: lifecycle guarantees hold
// without a sandbox too.
var allBackends = append([]Backend{BackendNone}, confined...)

func TestTimeoutKillsProcessGroup(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			marker := randName("agent-lsp-timeout")
			// Children in the background, a grandchild, one that ignores
			// SIGTERM, then a long foreground sleep.
			command := "(exec -a " + marker + " sleep 1000) & (bash -c '(exec -a " + marker + " sleep 1000) & wait') & " +
				"(trap '' TERM; exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000"
			cmd, err := s.Command(context.Background(), command)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := Run(context.Background(), cmd, RunOptions{Timeout: 500 * time.Millisecond, Grace: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || res.ExitCode == 0 {
				t.Errorf("result = %+v, want timed out with non-zero exit", res)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("Run took %v", d)
			}
			pgid := cmd.Process.Pid
			if err := syscall.Kill(-pgid, 0); !GroupGone(pgid) {
				t.Errorf("process group %d survives Run: kill(-pgid, 0) = %v, live %v", pgid, err, LiveGroupMembers(pgid))
			}
			if left := waitNoMarker(marker, 2*time.Second); len(left) > 0 {
				t.Errorf("processes survive the timeout: %v", left)
			}
		})
	}
}

func TestRunKillsBackgroundChildrenAfterExit(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{Grace: 300 * time.Millisecond})
			marker := randName("agent-lsp-bg")
			cmd, err := s.Command(context.Background(), "(exec -a "+marker+" sleep 1000) & echo done")
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), cmd, RunOptions{Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if res.TimedOut || res.ExitCode != 0 || strings.TrimSpace(string(res.Output)) != "done" {
				t.Errorf("result = %+v %q", res, res.Output)
			}
			if left := waitNoMarker(marker, 2*time.Second); len(left) > 0 {
				t.Errorf("background child survives: %v", left)
			}
		})
	}
}

// TestSetsidEscapeKilled: a child that leaves the process group still dies
// with the command in the backends that use a PID namespace.
func TestSetsidEscapeKilled(t *testing.T) {
	for _, b := range confined {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			if !strings.Contains(strings.Join(s.Status().Layers, ","), "pidns") {
				t.Skip("no PID namespace on this machine")
			}
			marker := randName("agent-lsp-setsid")
			cmd, _ := s.Command(context.Background(), "setsid bash -c 'exec -a "+marker+" sleep 1000' & sleep 0.2; echo started")
			res, err := Run(context.Background(), cmd, RunOptions{Timeout: time.Minute})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("%v %+v %s", err, res, res.Output)
			}
			if left := waitNoMarker(marker, 2*time.Second); len(left) > 0 {
				t.Errorf("setsid child survives: %v", left)
			}
		})
	}
}

func TestCancelStopsCommand(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{Grace: 5 * time.Second})
			ctx, cancel := context.WithCancel(context.Background())
			cmd, _ := s.Command(ctx, "sleep 1000; touch after")
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			res, err := Run(ctx, cmd, RunOptions{Grace: 5 * time.Second})
			// SIGTERM ends it well within the grace: no SIGKILL needed.
			if err != nil || !res.Cancelled || res.TimedOut || res.ExitCode != 128+int(syscall.SIGTERM) {
				t.Fatalf("cancelled run: %v %+v %s", err, res, res.Output)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("cancel took %v", d)
			}
			if _, err := os.Stat(s.Workspace() + "/after"); err == nil {
				t.Error("the command went on after SIGTERM")
			}
		})
	}
}

func TestExitStatusPassesThrough(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{})
			res := run(t, s, "echo out; echo err >&2; exit 7")
			if res.ExitCode != 7 || !strings.Contains(string(res.Output), "out") || !strings.Contains(string(res.Output), "err") {
				t.Errorf("result %+v %q", res, res.Output)
			}
			if res := run(t, s, "kill -KILL $$"); res.ExitCode != 128+int(syscall.SIGKILL) {
				t.Errorf("self-kill exit = %d", res.ExitCode)
			}
			if out := mustSucceed(t, s, `printf '%s|' "$0" 'a b' "it's"`); !strings.HasSuffix(out, "bash|a b|it's|") {
				t.Errorf("quoting: %q", out)
			}
		})
	}
}

// TestPdeathsig kills a fake server that started a confined command; the
// command and its children must die with it.
func TestPdeathsig(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			newSandbox(t, b, Options{}) // skips when b is unavailable
			marker := randName("agent-lsp-pdeath")
			srv := exec.Command("/proc/self/exe", "-test.run=^$")
			srv.Env = append(os.Environ(), "SANDBOX_TEST_ROLE=server", "SANDBOX_TEST_WS="+t.TempDir(), "SANDBOX_TEST_STATE="+t.TempDir(),
				"SANDBOX_TEST_BACKEND="+string(b), "SANDBOX_TEST_MARKER="+marker)
			stdout, _ := srv.StdoutPipe()
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Process.Kill()
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "pid ") {
				t.Fatalf("fake server said %q, %v", line, err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "pid ")))
			// Wait for the sleeps themselves (argv[0] is the marker), not
			// just bwrap or the helper: bwrap sets its own Pdeathsig only
			// once its namespace init runs.
			want := 1
			if b != BackendNone {
				want = 2
			}
			deadline := time.Now().Add(5 * time.Second)
			for countArgv0(marker) < want && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := countArgv0(marker); n < want {
				t.Fatalf("%d of %d sleeps started", n, want)
			}
			srv.Process.Kill()
			srv.Wait()
			if left := waitNoMarker(marker, 5*time.Second); len(left) > 0 {
				t.Errorf("command (leader %d) survives its server: %v", pid, left)
			}
		})
	}
}

// TestRunPlainCommand: Run also takes a cmd that did not come from a
// Sandbox (with or without a context) and still cleans up its group.
func TestRunPlainCommand(t *testing.T) {
	t.Parallel()
	marker := randName("agent-lsp-plain")
	for _, cmd := range []*exec.Cmd{
		exec.Command("bash", "-c", "(exec -a "+marker+" sleep 1000) & echo hi"),
		exec.CommandContext(context.Background(), "bash", "-c", "(exec -a "+marker+" sleep 1000) & echo hi"),
	} {
		res, err := Run(context.Background(), cmd, RunOptions{Timeout: time.Minute, Grace: 200 * time.Millisecond})
		if err != nil || res.ExitCode != 0 || strings.TrimSpace(string(res.Output)) != "hi" {
			t.Fatalf("Run: %v %+v %q", err, res, res.Output)
		}
		if !GroupGone(cmd.Process.Pid) {
			t.Errorf("group %d survives", cmd.Process.Pid)
		}
	}
	if left := waitNoMarker(marker, 2*time.Second); len(left) > 0 {
		t.Errorf("background children survive: %v", left)
	}
}

// TestRunTee: the live copy gets the output as the command prints it,
// before the command ends (the test reads it while the command waits on
// its input), and the captured output is unchanged by it.
func TestRunTee(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	tee := &lineTee{lines: make(chan string, 4)}
	cmd := exec.Command("bash", "-c", "echo first; echo err >&2; read -r _ <&3; echo last")
	cmd.ExtraFiles = []*os.File{pr}
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(context.Background(), cmd, RunOptions{Timeout: time.Minute, Tee: tee})
		done <- res
	}()
	// The pipe may join writes: collect until both lines are in.
	var seen string
	for seen != "first\nerr\n" {
		seen += <-tee.lines
		if !strings.HasPrefix("first\nerr\n", seen) {
			t.Fatalf("tee got %q", seen)
		}
	}
	pw.WriteString("go\n")
	pw.Close()
	res := <-done
	if string(res.Output) != "first\nerr\nlast\n" {
		t.Fatalf("output %q", res.Output)
	}
	if got := <-tee.lines; got != "last\n" {
		t.Fatalf("tee got %q", got)
	}
}

type lineTee struct{ lines chan string }

func (l *lineTee) Write(p []byte) (int, error) {
	l.lines <- string(p)
	return len(p), errors.New("ignored")
}

// TestCancelRightAfterStart cancels commands at once or within a few
// milliseconds of their start, when the PID namespace's init may not have
// its SIGTERM trap yet (the kernel drops a signal to an init without a
// handler), or bwrap's inner init may not have armed its parent-death
// signal. Each must still end by its SIGTERM, never by the SIGKILL after
// the (long) grace.
func TestCancelRightAfterStart(t *testing.T) {
	for _, b := range allBackends {
		t.Run(string(b), func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t, b, Options{Grace: time.Minute})
			for i := range 40 {
				ctx, cancel := context.WithCancel(context.Background())
				cmd, _ := s.Command(ctx, "sleep 1000")
				time.AfterFunc(time.Duration(i%8)*500*time.Microsecond, cancel)
				start := time.Now()
				res, err := Run(ctx, cmd, RunOptions{Grace: time.Minute})
				cancel()
				if errors.Is(err, context.Canceled) {
					continue // cancelled before it started
				}
				if err != nil || !res.Cancelled {
					t.Fatalf("run %d: %v %+v %s", i, err, res, res.Output)
				}
				// Not a speed check: a lost SIGTERM shows as a run that
				// waited out the whole minute of grace for the SIGKILL.
				if res.ExitCode == 128+int(syscall.SIGKILL) || time.Since(start) >= time.Minute {
					t.Fatalf("run %d needed the SIGKILL after the grace: the SIGTERM was lost (%+v %s)", i, res, res.Output)
				}
			}
		})
	}
}
