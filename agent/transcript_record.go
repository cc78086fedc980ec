package agent

import "time"

// Record is one line of a transcript.
type Record struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// Header (type "session").
	Version   int    `json:"v,omitempty"`
	ID        string `json:"id,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Model     string `json:"model,omitempty"`

	Message  *Message          `json:"message,omitempty"`  // message, pin, system
	Messages []Message         `json:"messages,omitempty"` // replace
	Stubs    map[string]string `json:"stubs,omitempty"`    // stubs: call id → stub text
	Todos    []Todo            `json:"todos,omitempty"`    // todos
	Usage    *Usage            `json:"usage,omitempty"`    // usage
	Result   *Result           `json:"result,omitempty"`   // end
	CallID   string            `json:"callId,omitempty"`   // spill
	Path     string            `json:"path,omitempty"`     // spill
}

// Record types.
const (
	recSession = "session"
	recMessage = "message"
	recReplace = "replace"
	recStubs   = "stubs"
	recPin     = "pin"
	recTodos   = "todos"
	recUsage   = "usage"
	recEnd     = "end"
	recSpill   = "spill"
	recSystem  = "system"
)
