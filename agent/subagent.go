package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-lsp/agent-lsp/tools"
)

// SubagentConfig offers the task tool: a nested run with its own tools
// (read-only ones: the harness passes a dispatcher in read-only mode), its
// own smaller limits and a fresh conversation. Only its final answer goes
// back to the parent; its usage is added to the parent's; cancelling the
// parent cancels it.
type SubagentConfig struct {
	// Tools are the subagent's tools; nil makes it a tool-less chat.
	Tools Tools
	// Provider defaults to the parent's.
	Provider Provider
	// System is the subagent's system prompt (default SubagentPrompt).
	System string
	// Config bounds the subagent (default 20 turns, 40 tool calls); it
	// never gets builtins, so it cannot start subagents itself.
	Config Config
}

// SubagentPrompt is the default system prompt of a subagent.
const SubagentPrompt = `You are a subagent of agent-lsp, started by another agent to do one research task in the user's workspace. You have read-only tools: read files, search with grep and glob. You cannot change anything.
Do the task, then answer with a self-contained report: the findings, with file paths and line numbers, and what you could not find. Your answer is all the other agent will see of your work, so include every fact it needs, and nothing else.`

// TaskParams are the arguments of the task tool.
type TaskParams struct {
	Description string `json:"description" jsonschema:"A short (3-6 words) label for the task, shown to the user"`
	Prompt      string `json:"prompt" jsonschema:"The task in full: what to find or check, and what to report back. The subagent sees nothing of this conversation."`
}

const taskDescription = `Start a subagent with a fresh context and read-only tools to do one research task: find where something is done, read many files to answer a question, check a hypothesis. It returns only its final report, so your own context stays small. Give it a complete, self-contained prompt. It cannot edit files or run commands.`

// subUsage collects the usage of subagents while their tool call runs
// (on the dispatcher's goroutine); the loop adds it after the call.
type subUsage struct {
	mu sync.Mutex
	u  Usage
}

func (s *subUsage) add(u Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.u = s.u.Add(u)
}

func (s *subUsage) take() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.u
	s.u = Usage{}
	return u
}

var taskSeq atomic.Int64

func newTask(r *run) *tools.Tool {
	sc := *r.a.cfg.Subagent
	// The child shares the parent's spill store and window unless told.
	if sc.Config.Spill == nil {
		sc.Config.Spill = r.a.cfg.Spill
	}
	if sc.Config.Context.Window == 0 {
		sc.Config.Context.Window = r.cc.Window
	}
	return tools.Define("task", taskDescription, true, func(ctx context.Context, p *TaskParams) (tools.Result, error) {
		if strings.TrimSpace(p.Prompt) == "" {
			return tools.Errorf("task needs a prompt saying what to do and what to report"), nil
		}
		res := RunSubagent(ctx, r.a.provider, sc, r.s.ID, p.Prompt)
		r.sub.add(res.Usage)
		head := fmt.Sprintf("Subagent %q: %s after %d turns and %d tool calls.", p.Description, res.Reason, res.Turns, res.ToolCalls)
		if res.Reason == EndAborted {
			return tools.Result{}, ctx.Err()
		}
		if res.Reason != EndTurn {
			text := head
			if res.Error != "" {
				text += " " + res.Error
			}
			if res.Text != "" {
				text += "\nIts last words:\n" + res.Text
			}
			return tools.Result{Text: text, IsError: true}, nil
		}
		return tools.Result{Text: head + "\n\n" + res.Text}, nil
	})
}

// RunSubagent runs one subagent to its end on a fresh session named after
// the parent's and returns its result; parent is the fallback provider.
func RunSubagent(ctx context.Context, parent Provider, sc SubagentConfig, parentID, prompt string) Result {
	p := sc.Provider
	if p == nil {
		p = parent
	}
	cfg := sc.Config
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 20
	}
	if cfg.MaxToolCalls <= 0 {
		cfg.MaxToolCalls = 40
	}
	cfg.NoBuiltins = true
	cfg.Subagent = nil
	system := sc.System
	if system == "" {
		system = SubagentPrompt
	}
	child := New(p, sc.Tools, cfg)
	s := NewSession(fmt.Sprintf("%s/task-%d", parentID, taskSeq.Add(1)), system)
	return child.Run(ctx, s, prompt, nil)
}
