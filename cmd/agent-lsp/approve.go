package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"

	"github.com/agent-lsp/agent-lsp/harness"
)

// askFlag is the value of `run --ask`: how "ask" verdicts are answered
// when no one is asked.
type askFlag string

const (
	askUnset askFlag = ""      // a terminal prompt if stdin is a terminal, else deny
	askDeny  askFlag = "deny"  // refuse (headless default: fail closed)
	askAllow askFlag = "allow" // allow once, every time
)

func (a *askFlag) String() string { return string(*a) }

func (a *askFlag) Set(s string) error {
	switch askFlag(s) {
	case askDeny, askAllow:
		*a = askFlag(s)
		return nil
	}
	return fmt.Errorf("want deny or allow, not %q", s)
}

// denyHint ends the result of a call refused for want of an approver.
const denyHint = "this run refuses calls that need approval (--ask=deny, the default without a terminal); rerun with --ask=allow, or add an allow rule to [permissions.TOOL] in your configuration (`agent-lsp policy -- COMMAND` shows which rule decides)"

// approverFor returns the Approver `run` uses and the hint a refusal shows.
// With --ask=allow every ask is allowed once; with --ask=deny, or without a
// terminal, none is (nil); otherwise the user is asked on the terminal.
func approverFor(ask askFlag, stdin io.Reader, stderr io.Writer) (harness.Approver, string) {
	a, hint, _ := approversFor(ask, stdin, stderr)
	return a, hint
}

// approversFor is approverFor plus the approver of a workspace's MCP
// servers: the terminal when there is one, whatever --ask says (--ask=allow
// answers tool calls, it does not vouch for what a repository would run),
// else nil. Both share one terminal reader.
func approversFor(ask askFlag, stdin io.Reader, stderr io.Writer) (harness.Approver, string, harness.Approver) {
	hint := denyHint
	var term harness.Approver
	if f, ok := stdin.(*os.File); ok && isTerminal(f) {
		in := io.Reader(f)
		if tty, err := os.Open("/dev/tty"); err == nil {
			in = tty // stays open for the life of the process
		}
		term = newTermApprover(in, stderr)
	}
	switch ask {
	case askAllow:
		return allowAll{}, "", term
	case askDeny:
		return nil, hint, term
	}
	if term == nil {
		return nil, hint, nil
	}
	return term, hint, term
}

// allowAll answers every request with "allow once".
type allowAll struct{}

func (allowAll) Approve(context.Context, harness.ApprovalRequest) (harness.Approval, error) {
	return harness.Allow, nil
}

// termApprover asks on a terminal: the request on out, the answer a line
// of in. The guard sends one request at a time.
type termApprover struct {
	out   io.Writer
	lines chan string // closed at end of input
	start sync.Once
	in    io.Reader
}

func newTermApprover(in io.Reader, out io.Writer) *termApprover {
	return &termApprover{in: in, out: out, lines: make(chan string)}
}

// Approve shows the request and waits for y, s or n.
func (t *termApprover) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.Approval, error) {
	// One reader for the life of the approver: a read cannot be
	// cancelled, so a prompt that timed out leaves it for the next one.
	t.start.Do(func() {
		go func() {
			sc := bufio.NewScanner(t.in)
			for sc.Scan() {
				t.lines <- sc.Text()
			}
			close(t.lines)
		}()
	})
	// The prompt comes in the middle of a tool call: keep the call's
	// status line off the screen while it asks.
	if h, ok := t.out.(interface{ Hold() func() }); ok {
		defer h.Hold()()
	}
	fmt.Fprintf(t.out, "\nagent-lsp: the agent wants to run %s:\n", req.Tool)
	for _, l := range strings.Split(strings.TrimRight(req.Subject, "\n"), "\n") {
		fmt.Fprintf(t.out, "    %s\n", printable(l))
	}
	for _, l := range strings.Split(req.Reason, "\n") {
		fmt.Fprintf(t.out, "  why asked: %s\n", printable(l))
	}
	choices := "[y] allow once / [n] deny"
	if req.SessionRule != "" {
		choices = fmt.Sprintf("[y] allow once / [s] allow for this session (rule: %s) / [n] deny", printable(req.SessionRule))
	}
	if req.ServerRule != "" {
		choices = strings.Replace(choices, " / [n] deny", fmt.Sprintf(" / [a] allow every tool of this server for this session (rule: %s) / [n] deny", printable(req.ServerRule)), 1)
	}
	for {
		fmt.Fprintf(t.out, "%s? ", choices)
		select {
		case <-ctx.Done():
			fmt.Fprintln(t.out, "\nagent-lsp: no answer in time; denied")
			return harness.Deny, ctx.Err()
		case line, ok := <-t.lines:
			if !ok {
				fmt.Fprintln(t.out, "\nagent-lsp: end of input; denied")
				return harness.Deny, nil
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return harness.Allow, nil
			case "s", "session":
				if req.SessionRule != "" {
					return harness.AllowForSession, nil
				}
			case "a", "server":
				if req.ServerRule != "" {
					return harness.AllowServerForSession, nil
				}
			case "n", "no", "":
				return harness.Deny, nil
			}
		}
	}
}

// printable escapes control, bidi and invisible characters so that a
// command cannot hide part of itself on the terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
