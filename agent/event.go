package agent

// EventType names an event the loop emits to its observer.
type EventType string

// Event types; the LSP server forwards them as agent/event notifications
// and `agent-lsp run --json` prints them, so the strings are protocol.
const (
	EvText      EventType = "text"
	EvReasoning EventType = "reasoning"
	EvToolStart EventType = "tool_start"
	EvToolEnd   EventType = "tool_result"
	// EvToolOutput carries output of a running call (bash), throttled;
	// Text is the new output, Tool names the call.
	EvToolOutput EventType = "tool_output"
	EvWarning    EventType = "warning"
	EvUsage      EventType = "usage"
	EvEnd        EventType = "end"
	// EvTodos carries the whole todo list after write_todos changed it.
	EvTodos EventType = "todos"
	// EvCompaction says the conversation was summarised to fit the window.
	EvCompaction EventType = "compaction"
	// EvPruned says old tool results were replaced by stubs (Text says
	// how many).
	EvPruned EventType = "pruned"
	// EvChanges lists the files the run changed, right before its end
	// event, when the session keeps a change journal.
	EvChanges EventType = "changes"
)

// Event is one thing that happened during a run.
type Event struct {
	Type EventType `json:"type"`
	// Text is the delta for text and reasoning events, the message for
	// warnings.
	Text string `json:"text,omitempty"`
	// Tool is set on tool_start and tool_result.
	Tool *ToolEvent `json:"tool,omitempty"`
	// Usage is the total so far on usage events.
	Usage *Usage `json:"usage,omitempty"`
	// Result is set on the end event.
	Result *Result `json:"result,omitempty"`
	// Todos is the whole list on todos events.
	Todos []Todo `json:"todos,omitempty"`
	// Compaction is set on compaction events.
	Compaction *CompactionInfo `json:"compaction,omitempty"`
	// Changes is the list on changes events.
	Changes []FileChange `json:"changes,omitempty"`
}

// ToolEvent describes one tool call.
type ToolEvent struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Result and IsError are set on tool_result.
	Result  string `json:"result,omitempty"`
	IsError bool   `json:"isError,omitempty"`
}

// Observer receives the events of a run, in order, from the run's
// goroutine. It must not block for long.
type Observer func(Event)
