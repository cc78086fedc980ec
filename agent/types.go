package agent

import "github.com/agent-lsp/agent-lsp/provider"

// The conversation's types are the provider contract's: the loop, the
// session, the transcript and the front-ends all speak them, and a
// provider translates them to its wire format. These aliases let callers
// of the loop write agent.Message without importing the contract.
type (
	Message    = provider.Message
	ToolCall   = provider.ToolCall
	Usage      = provider.Usage
	Role       = provider.Role
	Provider   = provider.Provider
	Request    = provider.Request
	MessageEnd = provider.MessageEnd
)

// The roles, re-exported with the types.
const (
	RoleSystem    = provider.RoleSystem
	RoleUser      = provider.RoleUser
	RoleAssistant = provider.RoleAssistant
	RoleTool      = provider.RoleTool
)
