package agent

import (
	"context"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// builtins adds the tools that act on the session itself (write_todos,
// read_skill, task) to the run's tools. A tool-less chat stays tool-less.
func (r *run) builtins(rest Tools) Tools {
	cfg := r.a.cfg
	if cfg.NoBuiltins || rest == nil {
		return rest
	}
	own := []*tools.Tool{newWriteTodos(r)}
	if len(cfg.Skills) > 0 {
		own = append(own, newReadSkill(cfg.Skills))
	}
	if cfg.Subagent != nil {
		own = append(own, newTask(r))
	}
	names := make(map[string]bool, len(own))
	for _, t := range own {
		names[t.Name()] = true
	}
	// A subagent may take as long as a run; cancelling the parent still
	// ends it at once.
	disp := tools.NewDispatcher(tools.NewRegistry(own...), tools.WithToolTimeout("task", time.Hour))
	return &mergedTools{own: disp, names: names, rest: rest}
}

// BuiltinNames lists the tools the loop adds to a run under cfg (when it
// has tools at all), sorted, in the order the model sees them.
func BuiltinNames(cfg Config) []string {
	if cfg.NoBuiltins {
		return nil
	}
	var names []string
	if len(cfg.Skills) > 0 {
		names = append(names, "read_skill")
	}
	if cfg.Subagent != nil {
		names = append(names, "task")
	}
	return append(names, "write_todos")
}

// mergedTools routes calls to the built-in tools by name, the rest to the
// configured tools. Specs keep the configured tools' order, then the
// built-in ones, the same on every turn so the request prefix is stable.
type mergedTools struct {
	own   Tools
	names map[string]bool
	rest  Tools
}

func (m *mergedTools) Specs() []tools.Spec {
	var specs []tools.Spec
	for _, s := range m.rest.Specs() {
		if !m.names[s.Name] {
			specs = append(specs, s)
		}
	}
	return append(specs, m.own.Specs()...)
}

func (m *mergedTools) Dispatch(ctx context.Context, c tools.Call) tools.Result {
	if m.names[strings.TrimPrefix(strings.TrimSpace(c.Name), "functions.")] {
		return m.own.Dispatch(ctx, c)
	}
	return m.rest.Dispatch(ctx, c)
}
