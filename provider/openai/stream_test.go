package openai

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/provider"
)

// tc builds one tool-call delta chunk; fields is the JSON of the call.
func tc(fields ...string) string {
	var calls []string
	for _, f := range fields {
		calls = append(calls, "{"+f+"}")
	}
	return `{"choices":[{"index":0,"delta":{"tool_calls":[` + strings.Join(calls, ",") + `]}}]}`
}

const finishTools = `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`

func TestOpenAIStreamVariants(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		body   string
		calls  []provider.ToolCall
		stop   provider.StopReason
		raw    string
		text   string
		reason string
		usage  provider.Usage
	}{
		{
			name: "no index, correlated by id",
			body: sse(
				tc(`"id":"a","function":{"name":"read","arguments":"{\"p\":"}`),
				tc(`"id":"b","function":{"name":"grep","arguments":"{\"q\":1}"}`),
				tc(`"id":"a","function":{"arguments":"1}"}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "a", Name: "read", Arguments: `{"p":1}`}, {ID: "b", Name: "grep", Arguments: `{"q":1}`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "no index, no id: a name opens a call, fragments continue it",
			body: sse(
				tc(`"function":{"name":"read","arguments":"{\"p\""}`),
				tc(`"function":{"arguments":":1}"}`),
				tc(`"function":{"name":"grep","arguments":"{}"}`),
				tc(`"function":{"name":"pwd","arguments":""}`),
				tc(`"function":{"name":"ls","arguments":"{}"}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "call_0", Name: "read", Arguments: `{"p":1}`}, {ID: "call_1", Name: "grep", Arguments: `{}`}, {ID: "call_2", Name: "pwd", Arguments: ``}, {ID: "call_3", Name: "ls", Arguments: `{}`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "index without id gets a stable synthetic id",
			body: sse(
				tc(`"index":0,"function":{"name":"read","arguments":""}`),
				tc(`"index":1,"function":{"name":"read","arguments":""}`),
				tc(`"index":0,"function":{"arguments":"{}"}`),
				tc(`"index":1,"function":{"arguments":"[]"}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "call_0", Name: "read", Arguments: `{}`}, {ID: "call_1", Name: "read", Arguments: `[]`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "every call on index 0 with different ids",
			body: sse(
				tc(`"index":0,"id":"x","type":"function","function":{"name":"w","arguments":"{\"f\":1}"}`),
				tc(`"index":0,"id":"y","type":"function","function":{"name":"w","arguments":"{\"f\":"}`),
				tc(`"index":0,"function":{"arguments":"2}"}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "x", Name: "w", Arguments: `{"f":1}`}, {ID: "y", Name: "w", Arguments: `{"f":2}`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "arguments split anywhere, name split, interleaved",
			body: sse(
				tc(`"index":0,"id":"p","function":{"name":"read_","arguments":""}`),
				tc(`"index":0,"function":{"name":"file"}`),
				tc(`"index":1,"id":"q","function":{"name":"grep","arguments":"{\"s\":\"\\u00"}`),
				tc(`"index":0,"function":{"arguments":"{\"path\":\"caf"}`),
				tc(`"index":1,"function":{"arguments":"e9 \\"}`),
				tc(`"index":0,"function":{"arguments":"é.go\"}"}`),
				tc(`"index":1,"function":{"arguments":"\"\"}"}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "p", Name: "read_file", Arguments: `{"path":"café.go"}`}, {ID: "q", Name: "grep", Arguments: `{"s":"\u00e9 \""}`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "finish stop with complete tool calls runs them",
			body: sse(
				tc(`"id":"call_ms2p0r8v","function":{"name":"weather","arguments":"{\"l\":\"Boston\"}"}`),
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			calls: []provider.ToolCall{{ID: "call_ms2p0r8v", Name: "weather", Arguments: `{"l":"Boston"}`}},
			stop:  provider.StopToolCalls, raw: "stop",
		},
		{
			name: "whole calls in one delta, empty and null ids in continuations",
			body: sse(
				`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{"}},{"index":1,"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
				tc(`"index":0,"id":"","type":"","function":{"name":"","arguments":"}"}`),
				tc(`"index":0,"id":null,"type":null,"function":{"name":null,"arguments":null}`),
				tc(`"index":0,"id":"","function":{"arguments":""}`),
				finishTools),
			calls: []provider.ToolCall{{ID: "a", Name: "f", Arguments: `{}`}, {ID: "b", Name: "g", Arguments: `{}`}},
			stop:  provider.StopToolCalls, raw: "tool_calls",
		},
		{
			name: "tool_calls finish without any call is an end of turn",
			body: sse(`{"choices":[{"delta":{"content":"done"},"finish_reason":"tool_calls"}]}`),
			text: "done", stop: provider.StopEndTurn, raw: "tool_calls",
		},
		{
			name: "usage in a last chunk with no choices, cached tokens",
			body: sse(
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}],"usage":null}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
				`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":8}}}`),
			text: "hi", stop: provider.StopEndTurn, raw: "stop", usage: provider.Usage{InputTokens: 10, OutputTokens: 2, CachedInputTokens: 8},
		},
		{
			name: "usage in every chunk: the last wins",
			body: sse(
				`{"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
				`{"choices":[{"delta":{"content":"b"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`,
				`{"choices":[],"usage":{}}`),
			text: "ab", stop: provider.StopLength, raw: "length", usage: provider.Usage{InputTokens: 5, OutputTokens: 2},
		},
		{
			name: "loosely typed numbers",
			body: sse(
				`{"choices":[{"index":"0","delta":{"tool_calls":[{"index":0.0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":7.0,"completion_tokens":"3","prompt_tokens_details":{"cached_tokens":true}}}`),
			calls: []provider.ToolCall{{ID: "a", Name: "f", Arguments: "{}"}},
			stop:  provider.StopToolCalls, raw: "tool_calls", usage: provider.Usage{InputTokens: 7, OutputTokens: 3},
		},
		{
			name: "reasoning fields and content parts stay apart from text",
			body: sse(
				`{"choices":[{"delta":{"reasoning_content":"r1 "}}]}`,
				`{"choices":[{"delta":{"reasoning":"r2 ","reasoning_details":[{"type":"reasoning.text","text":"r2 "}]}}]}`,
				`{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"xx"},{"type":"reasoning.summary","summary":"r3 "}]}}]}`,
				`{"choices":[{"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"r4"}]},{"type":"text","text":"answer"}]}}]}`,
				`{"choices":[{"delta":{"content":"!"},"finish_reason":"stop"}]}`),
			text: "answer!", reason: "r1 r2 r3 r4", stop: provider.StopEndTurn, raw: "stop",
		},
		{
			name: "refusal",
			body: sse(
				`{"choices":[{"delta":{"role":"assistant","content":null,"refusal":""}}]}`,
				`{"choices":[{"delta":{"refusal":"I can't."}}]}`,
				`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
			stop: provider.StopRefusal, raw: "stop",
		},
		{
			name: "n=2: only choice 0",
			body: sse(
				`{"choices":[{"index":0,"delta":{"content":"zero"}},{"index":1,"delta":{"content":"one"}}]}`,
				`{"choices":[{"index":1,"delta":{"content":"!"},"finish_reason":"stop"}]}`,
				`{"choices":[{"index":0,"delta":{"content":"."},"finish_reason":"length"}]}`),
			text: "zero.", stop: provider.StopLength, raw: "length",
		},
		{
			name: "1000 keep-alive comments",
			body: strings.Repeat(": keep-alive\n\n", 500) +
				"data: " + `{"choices":[{"delta":{"content":"late"}}]}` + "\n\n" +
				strings.Repeat(": keep-alive\n\n", 500) +
				sse(`{"choices":[{"delta":{},"finish_reason":"stop"}]}`),
			text: "late", stop: provider.StopEndTurn, raw: "stop",
		},
		{
			name: "finish_reason then close without [DONE]",
			body: "data: " + `{"choices":[{"delta":{"content":"x"},"finish_reason":"stop"}]}` + "\n\n",
			text: "x", stop: provider.StopEndTurn, raw: "stop",
		},
		{
			name: "[DONE] without finish_reason",
			body: sse(`{"choices":[{"delta":{"content":"4"}}]}`),
			text: "4", stop: provider.StopEndTurn, raw: "",
		},
		{
			name: "last line without newline",
			body: "data: " + `{"choices":[{"delta":{"content":"x"}}]}` + "\n\ndata: [DONE]",
			text: "x", stop: provider.StopEndTurn, raw: "",
		},
		{
			name: "unknown finish reason",
			body: sse(`{"choices":[{"delta":{},"finish_reason":"function_call_filter: MALFORMED_FUNCTION_CALL"}]}`),
			stop: provider.StopOther, raw: "function_call_filter: MALFORMED_FUNCTION_CALL",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := collect(t, serveSSE(t, c.body))
			end := mustEnd(t, r)
			if !reflect.DeepEqual(end.Message.ToolCalls, c.calls) {
				t.Errorf("calls\n got %q\nwant %q", end.Message.ToolCalls, c.calls)
			}
			if end.StopReason != c.stop || end.RawStopReason != c.raw {
				t.Errorf("stop %q (%q), want %q (%q)", end.StopReason, end.RawStopReason, c.stop, c.raw)
			}
			if end.Message.Content != c.text || end.Message.Reasoning != c.reason {
				t.Errorf("text %q reasoning %q, want %q %q", end.Message.Content, end.Message.Reasoning, c.text, c.reason)
			}
			if end.Usage != c.usage {
				t.Errorf("usage %+v, want %+v", end.Usage, c.usage)
			}
			if end.Message.Role != provider.RoleAssistant || len(end.TruncatedCalls) != 0 {
				t.Errorf("role %q, truncated %v", end.Message.Role, end.TruncatedCalls)
			}
			if c.name == "refusal" && end.Refusal != "I can't." {
				t.Errorf("refusal %q", end.Refusal)
			}
			for _, p := range r.progress {
				if p.Index < 0 || p.Index >= len(end.Message.ToolCalls) || p.ID == "" {
					t.Errorf("progress %+v", p)
				}
			}
		})
	}
}

func TestOpenAIStreamErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body, want string
		truncated        bool
	}{
		{"error object first", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
			`data: {"error":{"message":"upstream overloaded","code":502}}` + "\n\n", "upstream overloaded", false},
		{"error object among other keys, after finish", sse(
			`{"choices":[{"delta":{"content":"a"},"finish_reason":"length"}]}`,
			`{"id":"x","error":{"code":400,"message":"Token limit reached"},"choices":[{"delta":{},"finish_reason":null}]}`),
			"Token limit reached", false},
		{"event: error after comments", ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n: x\n\n" +
			"event: error\ndata: {\"error\":{\"message\":\"validation failed\",\"code\":\"tool_use_failed\"}}\n\n", "validation failed", false},
		{"error as a string after finish", sse(`{"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}`, `{"error":"overloaded"}`), "overloaded", false},
		{"event: error with a bare object", "event: error\ndata: {\"message\":\"quota exceeded\"}\n\n", "quota exceeded", false},
		{"cut before [DONE] without finish reason", "data: " + tc(`"index":0,"id":"a","function":{"name":"rm","arguments":"{\"path\":"}`) + "\n\n", "before the reply was complete", true},
		{"cut inside a line", "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choi", "malformed", false},
		{"not JSON", "data: hello\n\n", "malformed", false},
		{"JSON instead of a stream", `{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`, "without any stream events", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := collect(t, serveSSE(t, c.body))
			if r.err == nil || !errors.Is(r.err, provider.ErrProvider) || r.end != nil {
				t.Fatalf("err = %v, end = %+v; want a provider error and no end", r.err, r.end)
			}
			if !strings.Contains(r.err.Error(), c.want) {
				t.Errorf("%q does not mention %q", r.err, c.want)
			}
			if errors.Is(r.err, provider.ErrTruncated) != c.truncated {
				t.Errorf("errors.Is(provider.ErrTruncated) = %v", !c.truncated)
			}
		})
	}
}

func TestAccumulatorCaps(t *testing.T) {
	t.Parallel()
	a := newAccumulator()
	big := strings.Repeat("x", 64<<10)
	add := func(line string) {
		t.Helper()
		if _, err := a.add([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	add(tc(`"index":0,"id":"big","function":{"name":"write","arguments":"{\"s\":\""}`))
	for range 20 { // 1.25 MiB
		add(tc(`"index":0,"function":{"arguments":"` + big + `"}`))
	}
	add(tc(`"index":1,"id":"small","function":{"name":"read","arguments":"{}"}`))
	for i := range maxToolCalls {
		add(tc(fmt.Sprintf(`"index":%d,"id":"c%d","function":{"name":"n","arguments":"{}"}`, i+2, i)))
	}
	add(finishTools)
	_, end := a.end()
	calls := end.Message.ToolCalls
	if len(calls) != maxToolCalls+2 {
		t.Fatalf("%d calls, want %d", len(calls), maxToolCalls+2)
	}
	if calls[0].ID != "big" || calls[0].Arguments != "" || calls[1].Arguments != "{}" {
		t.Errorf("capped call %q/%d bytes, next %q", calls[0].ID, len(calls[0].Arguments), calls[1].Arguments)
	}
	want := []string{"big", calls[maxToolCalls].ID, calls[maxToolCalls+1].ID}
	if !reflect.DeepEqual(end.TruncatedCalls, want) {
		t.Errorf("TruncatedCalls %v, want %v", end.TruncatedCalls, want)
	}
	if calls[maxToolCalls-1].Arguments != "{}" {
		t.Errorf("call %d under the count cap lost its arguments", maxToolCalls-1)
	}
}
