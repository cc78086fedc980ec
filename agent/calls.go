package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// runCalls answers every call of one assistant message, in order, exactly
// once. It returns a non-empty Ending when the run must stop after them.
func (r *run) runCalls(ctx context.Context, calls []ToolCall, oversized []bool, truncated bool) (Ending, string) {
	cfg := r.a.cfg
	var ending Ending
	var why string
	for i, c := range calls {
		var out tools.Result
		switch {
		case ctx.Err() != nil:
			out = tools.Result{Text: "cancelled by user before this call ran", IsError: true}
			if ending == "" {
				ending = EndAborted
			}
		case ending != "":
			out = tools.Result{Text: fmt.Sprintf("not run: the run stopped (%s)", ending), IsError: true}
		case truncated:
			// A reply cut by the token limit may hold a call whose
			// arguments parse but are incomplete: run none of them.
			out = tools.Result{Text: "not run: your reply was cut off by the output token limit, so this call may be incomplete. Send it again, with smaller arguments (for large files, write in parts with str_replace).", IsError: true}
		case oversized[i]:
			out = tools.Result{Text: "not run: this call was too large to receive whole (over 1 MiB of arguments, or too many calls in one reply). Send smaller calls: write large files in parts.", IsError: true}
		case i >= cfg.MaxCallsPerMessage:
			out = tools.Result{Text: fmt.Sprintf("not run: too many tool calls in one reply (at most %d run); resend the rest in your next reply", cfg.MaxCallsPerMessage), IsError: true}
		case r.res.ToolCalls >= cfg.MaxToolCalls:
			out = tools.Result{Text: fmt.Sprintf("not run: the run reached its limit of %d tool calls", cfg.MaxToolCalls), IsError: true}
		case r.tools == nil:
			out = tools.Result{Text: "no tools are available in this session; answer in text", IsError: true}
		default:
			out, ending, why = r.runOne(ctx, c)
		}
		r.answer(c, out)
	}
	return ending, why
}

// runOne runs one call, tracking identical failing calls in a row.
func (r *run) runOne(ctx context.Context, c ToolCall) (tools.Result, Ending, string) {
	r.res.ToolCalls++
	r.obs(Event{Type: EvToolStart, Tool: &ToolEvent{ID: c.ID, Name: c.Name, Arguments: c.Arguments}})
	gen := r.s.todoVersion()
	live := newLiveEmitter(r.obs, c)
	out := r.tools.Dispatch(live.context(ctx), c)
	live.close()
	if r.s.todoVersion() != gen {
		r.obs(Event{Type: EvTodos, Todos: r.s.Todos()})
	}
	if u := r.sub.take(); u != (Usage{}) {
		r.res.Usage = r.res.Usage.Add(u)
		r.s.Transcript().usage(u)
		total := r.res.Usage
		r.obs(Event{Type: EvUsage, Usage: &total})
	}
	if ctx.Err() != nil {
		return out, EndAborted, ""
	}
	key := c.Name + "\x00" + c.Arguments
	if !out.IsError {
		r.streak.key, r.streak.count = "", 0
		return out, "", ""
	}
	if key == r.streak.key {
		r.streak.count++
	} else {
		r.streak.key, r.streak.count = key, 1
	}
	if r.streak.count >= r.a.cfg.RepeatLimit {
		msg := fmt.Sprintf("%s failed %d times in a row with the same arguments: %s", c.Name, r.streak.count, text.Clip(c.Arguments, 200))
		r.warn(msg)
		return out, EndRepeatedFailure, msg
	}
	return out, "", ""
}

// answer records the one result of a call and reports it.
func (r *run) answer(c ToolCall, out tools.Result) {
	text := out.Text
	if out.IsError && !strings.HasPrefix(text, "Error") {
		text = "Error: " + text
	}
	text = r.capResult(c, text)
	r.s.Append(Message{Role: RoleTool, ToolCallID: c.ID, Name: c.Name, Content: text, IsError: out.IsError})
	r.obs(Event{Type: EvToolEnd, Tool: &ToolEvent{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Result: text, IsError: out.IsError}})
}
