package acp

import (
	"github.com/agent-lsp/agent-lsp/agent"
)

// replay sends a recorded conversation as session/update notifications,
// the way it streamed: the user's requests as user_message_chunk, answers
// as agent_message_chunk (reasoning as agent_thought_chunk), each tool
// call as tool_call followed by its tool_call_update with the final
// status, and the last todo list as a plan. It reads the transcript's
// message records, so what a compaction summarised away is still shown;
// agent-lsp's own messages (instructions, nudges) are not.
func replay(u *updater, recs []agent.Record) {
	calls := map[string]agent.ToolCall{}
	var todos []agent.Todo
	for _, rec := range recs {
		switch {
		case rec.Type == "todos":
			todos = rec.Todos
			continue
		case rec.Type != "message" || rec.Message == nil:
			continue
		}
		m := rec.Message
		switch m.Role {
		case agent.RoleUser:
			if m.Name == "" {
				u.chunk("user_message_chunk", m.Content)
			}
		case agent.RoleAssistant:
			u.chunk("agent_thought_chunk", m.Reasoning)
			u.chunk("agent_message_chunk", m.Content)
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
				title, kind, locs, raw := describe(u.root, c.Name, c.Arguments)
				u.send(toolCall{SessionUpdate: "tool_call", ToolCallID: c.ID, Title: title, Kind: kind, Status: statusPending, Locations: locs, RawInput: raw})
			}
		case agent.RoleTool:
			c, ok := calls[m.ToolCallID]
			if !ok {
				continue
			}
			delete(calls, m.ToolCallID)
			status := statusCompleted
			if m.IsError {
				status = statusFailed
			}
			u.send(toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: m.ToolCallID, Status: status,
				Content: []toolCallContent{resultText(c.Name, m.Content)}})
		}
	}
	// Calls whose result was never recorded (the process died).
	for id := range calls {
		u.send(toolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: id, Status: statusFailed,
			Content: []toolCallContent{{Type: "content", Content: &textBlock{Type: "text", Text: "No result was recorded: the session stopped before this call finished."}}}})
	}
	if len(todos) > 0 {
		u.send(plan(todos))
	}
}
