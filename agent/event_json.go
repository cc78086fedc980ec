package agent

import "encoding/json"

// MarshalJSON writes an event as one flat object, the shape that
// `agent-lsp run --json` prints and agent/event carries:
//
//	{"type":"text","text":"Hel"}
//	{"type":"tool_start","id":"call_1","name":"read_file","arguments":"{…}"}
//	{"type":"tool_output","id":"call_1","name":"bash","text":"ok\n"}
//	{"type":"tool_result","id":"call_1","name":"read_file","arguments":"{…}","result":"…","isError":false}
//	{"type":"usage","usage":{"inputTokens":10,"outputTokens":2}}
//	{"type":"end","reason":"end_turn","turns":2,"toolCalls":1,"usage":{…},"text":"…"}
//	{"type":"todos","todos":[{"content":"…","status":"in_progress"}]}
//	{"type":"changes","changes":[{"path":"a.go","kind":"modified","added":2,"removed":1}]}
//	{"type":"compaction","tokensBefore":30000,"tokensAfter":6000,"messages":40,"summary":"…"}
func (e Event) MarshalJSON() ([]byte, error) {
	switch {
	case e.Type == EvTodos:
		todos := e.Todos
		if todos == nil {
			todos = []Todo{}
		}
		return json.Marshal(struct {
			Type  EventType `json:"type"`
			Todos []Todo    `json:"todos"`
		}{e.Type, todos})
	case e.Type == EvChanges:
		ch := e.Changes
		if ch == nil {
			ch = []FileChange{}
		}
		return json.Marshal(struct {
			Type    EventType    `json:"type"`
			Changes []FileChange `json:"changes"`
		}{e.Type, ch})
	case e.Type == EvCompaction && e.Compaction != nil:
		return json.Marshal(struct {
			Type EventType `json:"type"`
			CompactionInfo
		}{e.Type, *e.Compaction})
	case e.Type == EvEnd && e.Result != nil:
		return json.Marshal(struct {
			Type EventType `json:"type"`
			*Result
		}{e.Type, e.Result})
	case e.Type == EvToolOutput && e.Tool != nil:
		return json.Marshal(struct {
			Type EventType `json:"type"`
			ID   string    `json:"id"`
			Name string    `json:"name"`
			Text string    `json:"text"`
		}{e.Type, e.Tool.ID, e.Tool.Name, e.Text})
	case e.Tool != nil:
		t := e.Tool
		type start struct {
			Type      EventType `json:"type"`
			ID        string    `json:"id"`
			Name      string    `json:"name"`
			Arguments string    `json:"arguments"`
		}
		if e.Type != EvToolEnd {
			return json.Marshal(start{e.Type, t.ID, t.Name, t.Arguments})
		}
		return json.Marshal(struct {
			start
			Result  string `json:"result"`
			IsError bool   `json:"isError"`
		}{start{e.Type, t.ID, t.Name, t.Arguments}, t.Result, t.IsError})
	default:
		return json.Marshal(struct {
			Type  EventType `json:"type"`
			Text  string    `json:"text,omitempty"`
			Usage *Usage    `json:"usage,omitempty"`
		}{e.Type, e.Text, e.Usage})
	}
}
