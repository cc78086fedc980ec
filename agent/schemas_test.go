package agent

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// TestBuiltinSchemasResolve resolves the parameter schemas of the loop's
// own tools, which are otherwise resolved only at their first call.
func TestBuiltinSchemasResolve(t *testing.T) {
	r := &run{a: &Agent{cfg: Config{Subagent: &SubagentConfig{}}}}
	for _, tool := range []*tools.Tool{newWriteTodos(r), newReadSkill([]Skill{{Name: "s"}}), newTask(r)} {
		if err := tool.CheckSchema(); err != nil {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
}
