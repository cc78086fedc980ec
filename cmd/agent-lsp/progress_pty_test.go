//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// ptyReader collects what the binary writes to a terminal and lets the
// test wait for a pattern in it (no sleeps: the test waits on output).
type ptyReader struct {
	mu   sync.Mutex
	cond *sync.Cond
	buf  bytes.Buffer
	eof  bool
}

func readPTY(master *os.File) *ptyReader {
	p := &ptyReader{}
	p.cond = sync.NewCond(&p.mu)
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			p.mu.Lock()
			p.buf.Write(b[:n])
			if err != nil {
				p.eof = true
			}
			p.cond.Broadcast()
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

// waitFor blocks until re matches the output or the output ends.
func (p *ptyReader) waitFor(re *regexp.Regexp) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !re.Match(p.buf.Bytes()) {
		if p.eof {
			return false
		}
		p.cond.Wait()
	}
	return true
}

// waitEOF blocks until the terminal's output ends (every writer closed).
func (p *ptyReader) waitEOF() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.eof {
		p.cond.Wait()
	}
}

func (p *ptyReader) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// screen replays terminal output the way a terminal shows it: carriage
// return, erase to end of line and new lines; colours are dropped.
func screen(out string) []string {
	out = sgr.ReplaceAllString(out, "")
	lines := [][]rune{nil}
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur := &lines[len(lines)-1]
			*cur = (*cur)[:min(col, len(*cur))]
			i += 3
			continue
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, nil)
			col = 0
		default:
			r := []rune(out[i:])[0]
			cur := &lines[len(lines)-1]
			if col < len(*cur) {
				(*cur)[col] = r
			} else {
				*cur = append(*cur, r)
			}
			col++
			i += len(string(r))
			continue
		}
		i++
	}
	var s []string
	for _, l := range lines {
		s = append(s, string(l))
	}
	return s
}

func ptyCommand(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(dir, ".state")}, env...)
	return cmd
}

// TestRunShowsProgressOnTerminal: with stderr a terminal, a tool call
// that runs longer than a second gets a live status line (elapsed time and
// the command), rewritten in place and erased when the result comes; the
// result keeps its lines. The command waits for a file the test creates
// once it has seen the status line, so nothing depends on timing.
func TestRunShowsProgressOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Fatal(err)
	}
	out := readPTY(master)
	ws := t.TempDir()
	const slow = "echo warming up; until [ -e go-on ]; do sleep 0.1; done; echo first; echo finished"
	srv := newServer(t,
		agenttest.Reply{Text: "Running it.", ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "bash", Arguments: `{"command":"` + slow + `","timeout":60}`}}},
		agenttest.Reply{Text: "It finished."},
	)
	cmd := ptyCommand(t, ws, []string{"TERM=xterm-256color"}, "run", "--ask=allow", "--base-url", srv.URL, "--model", "scripted", "wait for it")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The terminal's output ends when the run does: had the status line
	// never come, the command's timeout would end the wait.
	done := make(chan error, 1)
	go func() { err := cmd.Wait(); slave.Close(); done <- err }()
	// The status line names the command and, once it printed something,
	// its last line of output.
	status := regexp.MustCompile(`\r\x1b\[K\x1b\[36m[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+\.\ds bash echo warming up; until[^\r]*· warming up`)
	seen := out.waitFor(status)
	writeFile(t, filepath.Join(ws, "go-on"), "")
	err := <-done
	out.waitEOF()
	raw := out.String()
	if !seen {
		t.Fatalf("no live status line for the slow command:\n%q", raw)
	}
	if err != nil {
		t.Fatalf("%v\nstdout %s\nterminal %q", err, stdout.String(), raw)
	}
	lines := screen(raw)
	shown := strings.Join(lines, "\n")
	t.Logf("terminal:\n%s", shown)
	for _, l := range lines {
		if strings.ContainsAny(l, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏") {
			t.Errorf("the status line was left on the screen: %q", l)
		}
	}
	want := "→ bash " + slow + "\n  ✓ exit status 0\n    warming up\n    first\n    finished\n"
	if !strings.Contains(shown, want) {
		t.Errorf("the screen lacks the call and its result, lines kept:\n%s", want)
	}
	if !strings.Contains(raw, "\x1b[32m✓") {
		t.Error("no colour on a terminal without NO_COLOR")
	}
	if stdout.String() != "Running it.\nIt finished.\n" {
		t.Errorf("stdout %q", stdout.String())
	}
}

// TestTerminalWithoutColour: NO_COLOR turns the colours off (the status
// line's erase stays); agent-lsp alone on a terminal prints help instead
// of waiting for LSP.
func TestTerminalWithoutColour(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	out := readPTY(master)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.go"), "package a\n")
	srv := newServer(t,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{{ID: "c1", Name: "glob", Arguments: `{"pattern":"*.go"}`}}},
		agenttest.Reply{Text: "a.go"},
	)
	cmd := ptyCommand(t, ws, []string{"TERM=xterm", "NO_COLOR=1"}, "run", "--base-url", srv.URL, "--model", "scripted", "list")
	cmd.Stdout, cmd.Stderr = slave, slave
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	help := ptyCommand(t, ws, nil)
	var stdout bytes.Buffer
	help.Stdin, help.Stdout = slave, &stdout
	if err := help.Run(); err != nil {
		t.Fatalf("agent-lsp on a terminal: %v", err)
	}
	slave.Close()
	out.waitEOF()
	if raw := out.String(); sgr.MatchString(raw) || !strings.Contains(raw, "→ glob *.go") {
		t.Errorf("with NO_COLOR:\n%q", raw)
	}
	if !strings.Contains(stdout.String(), "Usage:") || !strings.Contains(stdout.String(), "agent-lsp run [flags] PROMPT") {
		t.Errorf("agent-lsp alone on a terminal printed %q", stdout.String())
	}
}
