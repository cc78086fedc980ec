package acp

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Tool call statuses of the schema.
const (
	statusPending    = "pending"
	statusInProgress = "in_progress"
	statusCompleted  = "completed"
	statusFailed     = "failed"
)

// maxShownResult caps the result text put in a tool_call_update; the
// model gets its own (already capped) copy.
const maxShownResult = 64 << 10

// updater turns one run's events into session/update notifications:
//
//	text             → agent_message_chunk
//	reasoning        → agent_thought_chunk
//	tool_start       → tool_call (title, kind, locations, rawInput; in_progress)
//	tool_result      → tool_call_update (completed | failed, the result text,
//	                   a diff block for every edit the call made)
//	todos            → plan
//	usage            → usage_update (context used and window size)
//	warning, compaction → agent_message_chunk, marked as agent-lsp's
//
// It remembers which calls started, so that every one gets a final
// update even when the run is cut short (finish).
type updater struct {
	c      *conn
	sid    string
	root   string
	ws     *workspace
	window int

	mu      sync.Mutex
	open    map[string]bool
	order   []string
	last    agent.Usage
	ctxUsed int
}

func newUpdater(c *conn, sid, root string, ws *workspace, window int) *updater {
	return &updater{c: c, sid: sid, root: root, ws: ws, window: window, open: map[string]bool{}}
}

func (u *updater) send(update any) {
	u.c.notify("session/update", sessionNotification{SessionID: u.sid, Update: update})
}

func (u *updater) chunk(kind, text string) {
	if text != "" {
		u.send(chunkUpdate{SessionUpdate: kind, Content: textBlock{Type: "text", Text: text}})
	}
}

// note shows agent-lsp's own message (a warning, the reason a run
// stopped) in the answer, apart from the model's text.
func (u *updater) note(text string) {
	u.chunk("agent_message_chunk", "\n\n> agent-lsp: "+strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n> ")+"\n")
}

// observe is the run's agent.Observer.
func (u *updater) observe(ev agent.Event) {
	switch ev.Type {
	case agent.EvText:
		u.chunk("agent_message_chunk", ev.Text)
	case agent.EvReasoning:
		u.chunk("agent_thought_chunk", ev.Text)
	case agent.EvToolStart:
		if ev.Tool != nil {
			u.start(ev.Tool.ID, ev.Tool.Name, ev.Tool.Arguments)
		}
	case agent.EvToolEnd:
		if ev.Tool != nil {
			u.end(ev.Tool)
		}
	case agent.EvTodos:
		u.send(plan(ev.Todos))
	case agent.EvUsage:
		if ev.Usage != nil {
			u.usage(*ev.Usage)
		}
	case agent.EvWarning:
		u.note(ev.Text)
	case agent.EvCompaction:
		if c := ev.Compaction; c != nil {
			u.note(fmt.Sprintf("the conversation was summarised to fit the context window (about %d → %d tokens)", c.TokensBefore, c.TokensAfter))
		}
	}
}

func (u *updater) start(id, name, args string) {
	title, kind, locs, raw := describe(u.root, name, args)
	u.mu.Lock()
	u.open[id] = true
	u.order = append(u.order, id)
	u.mu.Unlock()
	u.send(toolCall{SessionUpdate: "tool_call", ToolCallID: id, Title: title, Kind: kind, Status: statusInProgress, Locations: locs, RawInput: raw})
}

func (u *updater) end(t *agent.ToolEvent) {
	u.mu.Lock()
	started := u.open[t.ID]
	delete(u.open, t.ID)
	u.mu.Unlock()
	if !started {
		// A call answered without running (cancelled, over a limit): the
		// client has not seen it yet.
		title, kind, locs, raw := describe(u.root, t.Name, t.Arguments)
		u.send(toolCall{SessionUpdate: "tool_call", ToolCallID: t.ID, Title: title, Kind: kind, Status: statusPending, Locations: locs, RawInput: raw})
	}
	status := statusCompleted
	if t.IsError {
		status = statusFailed
	}
	upd := toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: t.ID, Status: status}
	if started && u.ws != nil {
		upd.Content = append(upd.Content, diffs(u.root, u.ws.takeEdits())...)
	}
	upd.Content = append(upd.Content, resultText(t.Name, t.Result))
	u.send(upd)
}

// finish gives every call still open a final "failed" update: the run
// ended (cancelled) before its result came.
func (u *updater) finish(why string) {
	u.mu.Lock()
	var left []string
	for _, id := range u.order {
		if u.open[id] {
			left = append(left, id)
			delete(u.open, id)
		}
	}
	u.mu.Unlock()
	for _, id := range left {
		u.send(toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: id, Status: statusFailed,
			Content: []toolCallContent{{Type: "content", Content: &textBlock{Type: "text", Text: why}}}})
	}
}

// usage reports the context in use: the last request's prompt and reply
// (the events carry running totals, so the difference to the previous
// total is the last request).
func (u *updater) usage(total agent.Usage) {
	u.mu.Lock()
	d := agent.Usage{InputTokens: total.InputTokens - u.last.InputTokens, OutputTokens: total.OutputTokens - u.last.OutputTokens}
	u.last = total
	if d.InputTokens > 0 {
		u.ctxUsed = d.InputTokens + d.OutputTokens
	}
	used := u.ctxUsed
	u.mu.Unlock()
	u.send(usageUpdate{SessionUpdate: "usage_update", Used: used, Size: u.window})
}

// diffs are the diff blocks of a call's edits: whole old and new texts,
// as the protocol's review expects.
func diffs(root string, edits []tools.Change) []toolCallContent {
	var out []toolCallContent
	for _, e := range edits {
		d := toolCallContent{Type: "diff", Path: absPath(root, e.Path)}
		if e.Old != nil {
			old := string(e.Old)
			d.OldText = &old
		}
		nt := string(e.New)
		d.NewText = &nt
		out = append(out, d)
	}
	return out
}

// resultText is a tool result as shown to the user: a command's output
// in a code block.
func resultText(name, text string) toolCallContent {
	if len(text) > maxShownResult {
		text = text[:maxShownResult] + "\n[… cut]"
	}
	if name == "bash" {
		text = "```\n" + strings.TrimRight(text, "\n") + "\n```"
	}
	return toolCallContent{Type: "content", Content: &textBlock{Type: "text", Text: text}}
}

// plan is the todo list as a plan update.
func plan(todos []agent.Todo) planUpdate {
	p := planUpdate{SessionUpdate: "plan", Entries: []planEntry{}}
	for _, t := range todos {
		st := t.Status
		if st != agent.TodoInProgress && st != agent.TodoCompleted {
			st = agent.TodoPending
		}
		p.Entries = append(p.Entries, planEntry{Content: t.Content, Priority: "medium", Status: st})
	}
	return p
}
