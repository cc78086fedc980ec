package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// DefaultApprovalTimeout is how long a permission prompt waits for the
// user before it counts as a denial.
const DefaultApprovalTimeout = 5 * time.Minute

// Prompt actions, in the order the editor shows them.
const (
	ActionAllow   = "Allow"
	ActionSession = "Allow for this session"
	ActionDeny    = "Deny"
	// ActionServer allows every tool of an MCP tool's server for the
	// session; offered only for MCP tools.
	ActionServer = "Allow this MCP server for this session"
)

// Approver asks the user through window/showMessageRequest. No answer
// within Timeout, a dismissed prompt, an error or an unknown action all
// deny. Prompts are sent one at a time. LSP has no capability for
// showMessageRequest, so every client is asked.
type Approver struct {
	c       *client
	log     *slog.Logger
	mu      sync.Mutex
	Timeout time.Duration
	sem     chan struct{}
}

var _ harness.Approver = (*Approver)(nil)

func (a *Approver) setTimeout(d time.Duration) {
	a.mu.Lock()
	a.Timeout = d
	a.mu.Unlock()
}

// Approve asks the user about req.
func (a *Approver) Approve(ctx context.Context, req harness.ApprovalRequest) (harness.Approval, error) {
	select {
	case a.sem <- struct{}{}:
	case <-ctx.Done():
		return harness.Deny, ctx.Err()
	}
	defer func() { <-a.sem }()
	a.mu.Lock()
	timeout := a.Timeout
	a.mu.Unlock()

	msg := fmt.Sprintf("agent-lsp: %s wants to act on %s", req.Tool, req.Subject)
	if req.Reason != "" {
		msg += "\nReason: " + req.Reason
	}
	if req.SessionRule != "" {
		msg += "\n\"" + ActionSession + "\" allows: " + req.SessionRule
	}
	p := protocol.ShowMessageRequestParams{Type: protocol.MessageTypeWarning, Message: msg, Actions: []protocol.MessageActionItem{
		{Title: ActionAllow}, {Title: ActionSession}, {Title: ActionDeny},
	}}
	if req.ServerRule != "" {
		p.Message += "\n\"" + ActionServer + "\" allows: " + req.ServerRule
		p.Actions = []protocol.MessageActionItem{{Title: ActionAllow}, {Title: ActionSession}, {Title: ActionServer}, {Title: ActionDeny}}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var item *protocol.MessageActionItem
	id, err := a.c.conn.Call(cctx, protocol.MethodWindowShowMessageRequest, p, &item)
	if err != nil {
		if cctx.Err() != nil {
			// Withdraw the prompt; a late answer is ignored.
			a.c.cancel(id)
		}
		a.log.Info("Permission denied: no answer", "tool", req.Tool, "subject", req.Subject, "error", err)
		if ctx.Err() != nil {
			return harness.Deny, ctx.Err()
		}
		return harness.Deny, nil
	}
	if item == nil {
		a.log.Info("Permission denied: prompt dismissed", "tool", req.Tool, "subject", req.Subject)
		return harness.Deny, nil
	}
	switch item.Title {
	case ActionAllow:
		return harness.Allow, nil
	case ActionSession:
		return harness.AllowForSession, nil
	case ActionServer:
		if req.ServerRule != "" {
			return harness.AllowServerForSession, nil
		}
		return harness.Deny, nil
	default:
		return harness.Deny, nil
	}
}

// idValue is a request id as JSON.
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	s, _ := id.StringValue()
	return s
}
