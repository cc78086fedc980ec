package harness

import "context"

// Approver answers "ask" verdicts of the permission engine: the LSP server
// asks the editor (window/showMessageRequest), `agent-lsp run` asks the
// terminal or applies --ask. Calls are made one at a time.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// ApprovalRequest describes one risky tool call.
type ApprovalRequest struct {
	// Tool is the tool name; Subject the command or path it acts on.
	Tool    string
	Subject string
	// CallID is the tool call's id (the one its events carry), so that a
	// front-end can attach the prompt to the call it already shows.
	CallID string
	// Reason says why the engine asks (the rule or structural reason).
	Reason string
	// SessionRule is the generalised rule "Allow for this session" would
	// add, shown to the user; empty when none can be offered.
	SessionRule string
	// ServerRule, for an MCP tool, is the rule that allows every tool of
	// its server for the session (mcp__SERVER__*); an approver offers it
	// only as a separate, explicit choice (AllowServerForSession).
	ServerRule string
}

// Approval is the user's answer.
type Approval int

// Answers. The zero value denies, so a lost answer fails closed.
const (
	Deny Approval = iota
	Allow
	AllowForSession
	// AllowServerForSession adds ApprovalRequest.ServerRule.
	AllowServerForSession
)

func (a Approval) String() string {
	switch a {
	case Allow:
		return "allow"
	case AllowForSession:
		return "allow for this session"
	case AllowServerForSession:
		return "allow the server for this session"
	default:
		return "deny"
	}
}
