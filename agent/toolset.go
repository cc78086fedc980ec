package agent

import (
	"context"

	"github.com/agent-lsp/agent-lsp/tools"
)

// Dispatcher is what the loop needs from tools.Dispatcher.
type Dispatcher interface {
	Specs() []tools.Spec
	Dispatch(ctx context.Context, call tools.Call) tools.Result
}

// NewToolSet adapts a tools dispatcher to the loop's Tools.
func NewToolSet(d Dispatcher) Tools { return toolSet{d} }

type toolSet struct{ d Dispatcher }

func (t toolSet) Specs() []ToolSpec {
	specs := t.d.Specs()
	out := make([]ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = ToolSpec{Name: s.Name, Description: s.Description, Parameters: s.Parameters}
	}
	return out
}

func (t toolSet) Run(ctx context.Context, c ToolCall) ToolOutput {
	r := t.d.Dispatch(ctx, tools.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	return ToolOutput{Text: r.Text, IsError: r.IsError}
}
