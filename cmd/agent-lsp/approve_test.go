package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
)

func TestTermApprover(t *testing.T) {
	t.Parallel()
	in, w := io.Pipe()
	var out strings.Builder
	a := newTermApprover(in, &out)
	req := harness.ApprovalRequest{Tool: "bash", Subject: "go test ./a\u202e\x1b[2J", Reason: "no rule matches", SessionRule: "go test *"}
	answers := []struct {
		line string
		want harness.Approval
	}{{"y", harness.Allow}, {"maybe\ns", harness.AllowForSession}, {"n", harness.Deny}, {"", harness.Deny}}
	for _, ans := range answers {
		go w.Write([]byte(ans.line + "\n"))
		got, err := a.Approve(context.Background(), req)
		if err != nil || got != ans.want {
			t.Errorf("answer %q: %v, %v; want %v", ans.line, got, err, ans.want)
		}
	}
	// No session rule offered: "s" is not an answer.
	req.SessionRule = ""
	go w.Write([]byte("s\ny\n"))
	if got, _ := a.Approve(context.Background(), req); got != harness.Allow {
		t.Errorf("s without a session rule: %v", got)
	}
	// A timeout denies; the next prompt still reads the next line.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if got, err := a.Approve(ctx, req); got != harness.Deny || err == nil {
		t.Errorf("timeout: %v, %v", got, err)
	}
	w.Close()
	if got, err := a.Approve(context.Background(), req); got != harness.Deny || err != nil {
		t.Errorf("end of input: %v, %v", got, err)
	}
	text := out.String()
	for _, want := range []string{"wants to run bash", `go test ./a\u202e\u001b[2J`, "why asked: no rule matches", "[s] allow for this session (rule: go test *)", "[y] allow once / [n] deny?"} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.ContainsAny(text, "\u202e\x1b") {
		t.Errorf("prompt shows raw control characters:\n%q", text)
	}
}

func TestAskFlag(t *testing.T) {
	t.Parallel()
	var f askFlag
	if f.Set("allow") != nil || f != askAllow || f.Set("deny") != nil || f != askDeny || f.Set("ask") == nil {
		t.Errorf("askFlag.Set: %q", f)
	}
	if a, hint := approverFor(askDeny, strings.NewReader(""), io.Discard); a != nil || !strings.Contains(hint, "--ask=allow") {
		t.Errorf("deny: %v %q", a, hint)
	}
	if a, _ := approverFor(askUnset, strings.NewReader(""), io.Discard); a != nil {
		t.Errorf("no terminal: %v", a)
	}
	if a, _ := approverFor(askAllow, nil, io.Discard); a == nil {
		t.Error("allow: nil approver")
	} else if got, _ := a.Approve(context.Background(), harness.ApprovalRequest{}); got != harness.Allow {
		t.Errorf("allow: %v", got)
	}
}
