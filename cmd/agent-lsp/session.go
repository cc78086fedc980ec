package main

import (
	"fmt"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/config"
	"github.com/agent-lsp/agent-lsp/tools"
)

// session wires one headless agent session: the provider from the
// configuration, the tools over the disk workspace, the dispatcher.
type session struct {
	agent *agent.Agent
	conv  *agent.Session
	ws    *tools.DiskWorkspace
}

func newSession(root string, cfg config.Config) (*session, error) {
	ws, err := tools.NewDiskWorkspace(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	reg := tools.NewRegistry(tools.ReadOnlyTools(ws)...)
	disp := tools.NewDispatcher(reg)
	provider := agent.NewOpenAI(agent.OpenAIConfig{
		BaseURL:     cfg.BaseURL,
		Model:       cfg.Model,
		APIKey:      cfg.APIKey,
		Headers:     cfg.Headers,
		IdleTimeout: cfg.IdleTimeout.Duration,
	})
	a := agent.New(provider, agent.NewToolSet(disp), agent.Config{
		MaxTurns:     cfg.MaxTurns,
		MaxToolCalls: cfg.MaxToolCalls,
		MaxTokens:    cfg.MaxTokens,
	})
	conv := agent.NewSession("run", agent.SystemPrompt(root, reg.Names()))
	return &session{agent: a, conv: conv, ws: ws}, nil
}

func (s *session) Close() error { return s.ws.Close() }
