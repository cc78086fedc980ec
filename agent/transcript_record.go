package agent

import (
	"maps"
	"slices"
	"time"
)

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

// detach copies what rec shares with its writer (slices, maps), so that
// it can be encoded later, as it was when written.
func detach(rec Record) Record {
	if rec.Message != nil {
		m := *rec.Message
		m.ToolCalls = slices.Clone(m.ToolCalls)
		rec.Message = &m
	}
	if rec.Messages != nil {
		ms := slices.Clone(rec.Messages)
		for i := range ms {
			ms[i].ToolCalls = slices.Clone(ms[i].ToolCalls)
		}
		rec.Messages = ms
	}
	rec.Stubs = maps.Clone(rec.Stubs)
	rec.Todos = slices.Clone(rec.Todos)
	if rec.Usage != nil {
		u := *rec.Usage
		rec.Usage = &u
	}
	if rec.Result != nil {
		r := *rec.Result
		r.Changes = slices.Clone(r.Changes)
		rec.Result = &r
	}
	return rec
}
