package acp

import (
	"context"
	"fmt"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
	"github.com/agent-lsp/agent-lsp/internal/text"
)

// DefaultApprovalTimeout is how long a permission request waits for the
// user before it counts as a denial.
const DefaultApprovalTimeout = 5 * time.Minute

// Permission option ids; the kinds are the schema's.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// approver asks the user through session/request_permission, attached to
// the tool call the client already shows. A "cancelled" outcome, an
// unknown option, an error, or no answer within timeout all deny.
type approver struct {
	c         *conn
	sessionID string
	root      string
	timeout   time.Duration
	sem       chan struct{} // one request at a time
}

var _ harness.Approver = (*approver)(nil)

// Approve asks about req.
func (a *approver) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.Approval, error) {
	select {
	case a.sem <- struct{}{}:
	case <-ctx.Done():
		return harness.Deny, ctx.Err()
	}
	defer func() { <-a.sem }()
	opts := []permissionOption{{OptionID: optAllowOnce, Name: "Allow", Kind: "allow_once"}}
	if req.SessionRule != "" {
		// allow_always means "for this session" here: the rule lives as
		// long as the session, never in a file.
		opts = append(opts, permissionOption{OptionID: optAllowAlways, Name: "Allow for this session: " + text.OneLine(req.SessionRule, 80), Kind: "allow_always"})
	}
	opts = append(opts, permissionOption{OptionID: optRejectOnce, Name: "Deny", Kind: "reject_once"})
	tc := toolCallUpdate{ToolCallID: req.CallID, Status: "pending"}
	if tc.ToolCallID == "" {
		tc.ToolCallID = "approval"
	}
	tc.Title = req.Tool + " " + text.OneLine(req.Subject, 100)
	if req.Tool == "bash" {
		tc.Title, tc.Kind = "Run "+text.OneLine(req.Subject, 100), kindExecute
	}
	why := "agent-lsp asks before this " + req.Tool + " call"
	if req.Reason != "" {
		why += ": " + req.Reason
	}
	tc.Content = []toolCallContent{{Type: "content", Content: &textBlock{Type: "text", Text: why}}}

	cctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	var res permissionResult
	err := a.c.call(cctx, "session/request_permission", permissionParams{SessionID: a.sessionID, ToolCall: tc, Options: opts}, &res)
	switch {
	case ctx.Err() != nil:
		return harness.Deny, ctx.Err()
	case cctx.Err() != nil:
		return harness.Deny, fmt.Errorf("no answer within %s", a.timeout)
	case err != nil:
		// An error or a malformed answer: deny, and say so to the guard,
		// which tells the model.
		return harness.Deny, err
	case res.Outcome.Outcome != "selected":
		return harness.Deny, nil
	}
	switch res.Outcome.OptionID {
	case optAllowOnce:
		return harness.Allow, nil
	case optAllowAlways:
		if req.SessionRule != "" {
			return harness.AllowForSession, nil
		}
	}
	return harness.Deny, nil
}
