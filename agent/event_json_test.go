package agent

import (
	"encoding/json"
	"testing"
)

func TestEventJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ev   Event
		want string
	}{
		{Event{Type: EvText, Text: "Hi"}, `{"type":"text","text":"Hi"}`},
		{Event{Type: EvToolStart, Tool: &ToolEvent{ID: "c", Name: "grep", Arguments: `{}`}}, `{"type":"tool_start","id":"c","name":"grep","arguments":"{}"}`},
		{Event{Type: EvToolEnd, Tool: &ToolEvent{ID: "c", Name: "grep", Arguments: `{}`, Result: "x", IsError: true}}, `{"type":"tool_result","id":"c","name":"grep","arguments":"{}","result":"x","isError":true}`},
		{Event{Type: EvToolOutput, Text: "ok\n", Tool: &ToolEvent{ID: "c", Name: "bash"}}, `{"type":"tool_output","id":"c","name":"bash","text":"ok\n"}`},
		{Event{Type: EvUsage, Usage: &Usage{InputTokens: 3, OutputTokens: 4}}, `{"type":"usage","usage":{"inputTokens":3,"outputTokens":4}}`},
		{Event{Type: EvEnd, Result: &Result{Reason: EndTurn, Turns: 2, ToolCalls: 1, Usage: Usage{InputTokens: 5, OutputTokens: 6}, Text: "done"}},
			`{"type":"end","reason":"end_turn","turns":2,"toolCalls":1,"usage":{"inputTokens":5,"outputTokens":6},"text":"done"}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.ev)
		if err != nil || string(b) != c.want {
			t.Errorf("got %s (%v), want %s", b, err, c.want)
		}
	}
}
