// Package harness wires one agent from the configuration: the provider,
// the tools over a workspace, the dispatcher and its guard. The headless
// runner and the language server both build their agents here, so a tool
// behaves the same with or without an editor.
package harness

import (
	"fmt"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Options say what to build.
type Options struct {
	// Root is the absolute workspace root.
	Root   string
	Config config.Config
	// Workspace is the view the tools act on; nil means the disk.
	Workspace tools.Workspace
	// Approver answers "ask" verdicts; nil denies them.
	Approver agent.Approver
}

// Harness is a wired agent and what it holds open.
type Harness struct {
	Agent    *agent.Agent
	Registry *tools.Registry
	closers  []func() error
}

// New builds a harness.
func New(opts Options) (*Harness, error) {
	h := &Harness{}
	ws := opts.Workspace
	if ws == nil {
		disk, err := tools.NewDiskWorkspace(opts.Root)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", opts.Root, err)
		}
		h.closers = append(h.closers, disk.Close)
		ws = disk
	}
	cfg := opts.Config
	h.Registry = tools.NewRegistry(tools.ReadOnlyTools(ws)...)
	disp := tools.NewDispatcher(h.Registry)
	provider := agent.NewOpenAI(agent.OpenAIConfig{
		BaseURL:     cfg.BaseURL,
		Model:       cfg.Model,
		APIKey:      cfg.APIKey,
		Headers:     cfg.Headers,
		IdleTimeout: cfg.IdleTimeout.Duration,
	})
	h.Agent = agent.New(provider, agent.NewToolSet(disp), agent.Config{
		MaxTurns:     cfg.MaxTurns,
		MaxToolCalls: cfg.MaxToolCalls,
		MaxTokens:    cfg.MaxTokens,
	})
	return h, nil
}

// NewSession starts a conversation with the system prompt for this
// workspace and tool set.
func (h *Harness) NewSession(id, root string) *agent.Session {
	return agent.NewSession(id, agent.SystemPrompt(root, h.Registry.Names()))
}

// Close releases what the harness holds.
func (h *Harness) Close() error {
	var first error
	for _, c := range h.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
