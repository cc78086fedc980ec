package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestConsoleKeepsAnswerAndNoticesApart: with stdout and stderr on one
// screen (one buffer here), a notice after half a line of answer starts
// on a line of its own, and the answer goes on below it.
func TestConsoleKeepsAnswerAndNoticesApart(t *testing.T) {
	t.Parallel()
	var screen bytes.Buffer
	c := newConsole(&screen, &screen)
	c.Text("The fix is")
	c.Line("agent-lsp: warning: slow server")
	c.Text(" in parse.go.\n")
	c.Write([]byte("time=now level=WARN msg=x\n"))
	c.Text("Done")
	c.EndAnswer()
	c.EndAnswer()
	want := "The fix is\nagent-lsp: warning: slow server\n in parse.go.\ntime=now level=WARN msg=x\nDone\n"
	if screen.String() != want {
		t.Errorf("screen:\n%q\nwant\n%q", screen.String(), want)
	}
	if c.color || c.tty {
		t.Error("a buffer is not a terminal: no colours, no status line")
	}
}

func TestPreview(t *testing.T) {
	t.Parallel()
	hint := "Error: bash needs approval, and " + denyHint + " — the end"
	many := "exit status 1\n--- FAIL: TestA\n    a_test.go:3: boom\nline 4\nline 5\nline 6\nFAIL\nFAIL\tpkg\t0.01s"
	cases := []struct {
		name  string
		in    string
		width int
		isErr bool
		want  []string
	}{
		{"lines kept", "exit status 0\nok  pkg 0.1s\n", 40, false, []string{"exit status 0", "ok  pkg 0.1s"}},
		{"first and last", many, 40, true, []string{"exit status 1", "--- FAIL: TestA", "    a_test.go:3: boom", "… 3 more lines", "FAIL", "FAIL    pkg    0.01s"}},
		{"success cut to width", strings.Repeat("x", 50), 10, false, []string{"xxxxxxxxx…"}},
		{"error hint never cut", hint, 10, true, []string{hint}},
		{"empty", "\n", 10, false, []string{"(no output)"}},
		{"escapes", "a\x1b[2Jb\r\n", 20, false, []string{`a\u001b[2Jb`}},
	}
	for _, c := range cases {
		got := preview(c.in, c.width, c.isErr)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: got\n%q\nwant\n%q", c.name, got, c.want)
		}
	}
}

func TestCallSubject(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"command":"go test ./...\n&& echo ok"}`: "go test ./... && echo ok",
		`{"path":"a.go","old_str":"x"}`:           "a.go",
		`{"pattern":"**/*.go"}`:                   "**/*.go",
		`{"todos":[]}`:                            `{"todos":[]}`,
		`not json`:                                "not json",
	} {
		if got := callSubject(in); got != want {
			t.Errorf("callSubject(%s) = %q, want %q", in, got, want)
		}
	}
}
