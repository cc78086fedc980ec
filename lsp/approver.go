package lsp

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-lsp/agent-lsp/harness"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// DefaultApprovalTimeout is how long a permission prompt waits for the
// user before it counts as a denial.
const DefaultApprovalTimeout = 5 * time.Minute

// Prompt actions of window/showMessageRequest. The safe choice comes first:
// clients that pre-select the first action (eglot's completing-read) then
// default to Deny.
const (
	ActionDeny    = "Deny"
	ActionAllow   = "Allow once"
	ActionSession = "Allow for this session"
	// ActionServer allows every tool of an MCP tool's server for the
	// session; offered only for MCP tools.
	ActionServer = "Allow this MCP server for this session"
)

// Choices of agent/approve's result.
const (
	ChoiceDeny    = "deny"
	ChoiceAllow   = "allow"
	ChoiceSession = "allow_session"
	ChoiceServer  = "allow_server"
)

// Approver asks the user: with agent/approve when the client declared
// capabilities.experimental.agentLsp.approve (our editors show it in the
// chat), else with window/showMessageRequest. No answer within Timeout, a
// dismissed prompt, an error or an unknown action all deny. Prompts are
// sent one at a time.
type Approver struct {
	c       *client
	log     *slog.Logger
	mu      sync.Mutex
	Timeout time.Duration
	sem     chan struct{}
	rich    atomic.Bool // the client takes agent/approve
}

var _ harness.Approver = (*Approver)(nil)

func (a *Approver) setTimeout(d time.Duration) {
	a.mu.Lock()
	a.Timeout = d
	a.mu.Unlock()
}

// sessionKey carries the id of the session a run belongs to, so that a
// prompt names it.
type sessionKey struct{}

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

	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var choice string
	var id jsonrpc2.ID
	var err error
	if a.rich.Load() {
		p := approveParams(req, timeout)
		p.SessionID, _ = ctx.Value(sessionKey{}).(string)
		var res *ApproveResult
		id, err = a.c.conn.Call(cctx, MethodApprove, p, &res)
		if err == nil && res != nil {
			choice = res.Choice
		}
	} else {
		var item *protocol.MessageActionItem
		id, err = a.c.conn.Call(cctx, protocol.MethodWindowShowMessageRequest, showMessageParams(req), &item)
		if err == nil && item != nil {
			choice = choiceOfTitle(item.Title)
		}
	}
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
	switch choice {
	case ChoiceAllow:
		return harness.Allow, nil
	case ChoiceSession:
		return harness.AllowForSession, nil
	case ChoiceServer:
		if req.ServerRule != "" {
			return harness.AllowServerForSession, nil
		}
	case "":
		a.log.Info("Permission denied: prompt dismissed", "tool", req.Tool, "subject", req.Subject)
	}
	return harness.Deny, nil
}

// showMessageParams words the prompt for plain clients: what and why in
// plain words, then the actions, Deny first.
func showMessageParams(req harness.ApprovalRequest) protocol.ShowMessageRequestParams {
	p := protocol.ShowMessageRequestParams{Type: protocol.MessageTypeWarning, Message: promptMessage(req),
		Actions: []protocol.MessageActionItem{{Title: ActionDeny}, {Title: ActionAllow}}}
	if req.SessionRule != "" {
		p.Actions = append(p.Actions, protocol.MessageActionItem{Title: ActionSession})
	}
	if req.ServerRule != "" {
		p.Actions = append(p.Actions, protocol.MessageActionItem{Title: ActionServer})
	}
	return p
}

func choiceOfTitle(title string) string {
	switch title {
	case ActionAllow:
		return ChoiceAllow
	case ActionSession:
		return ChoiceSession
	case ActionServer:
		return ChoiceServer
	case ActionDeny:
		return ChoiceDeny
	}
	return "unknown"
}

// approveParams is the rich prompt of agent/approve.
func approveParams(req harness.ApprovalRequest, timeout time.Duration) ApproveParams {
	p := ApproveParams{
		CallID: req.CallID, Tool: req.Tool, Subject: req.Subject, Action: actionWords(req.Tool),
		Reasons: plainReasons(req.Reason), Detail: req.Reason, Message: promptMessage(req),
		SessionRule: req.SessionRule, ServerRule: req.ServerRule, TimeoutSeconds: int(timeout / time.Second),
		Choices: []ApproveChoice{{ID: ChoiceDeny, Title: ActionDeny}, {ID: ChoiceAllow, Title: ActionAllow}},
	}
	if req.SessionRule != "" {
		p.Choices = append(p.Choices, ApproveChoice{ID: ChoiceSession, Title: ActionSession, Rule: req.SessionRule})
	}
	if req.ServerRule != "" {
		p.Choices = append(p.Choices, ApproveChoice{ID: ChoiceServer, Title: ActionServer, Rule: req.ServerRule})
	}
	return p
}

// idValue is a request id as JSON.
func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	s, _ := id.StringValue()
	return s
}
