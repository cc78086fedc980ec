package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

func TestOllamaContext(t *testing.T) {
	t.Parallel()
	ps := "ollama /api/ps (the loaded model)"
	for _, c := range []struct {
		name       string
		ep         Endpoint
		configured int
		want       int
	}{
		{"not ollama", Endpoint{Server: ServerLlamaCpp, Window: 4096}, 0, 0},
		{"unknown server", Endpoint{}, 32768, 0},
		{"2048 loaded, 32k native", Endpoint{Server: ServerOllama, Window: 2048, WindowSource: ps, NativeWindow: 32768}, 0, 32768},
		{"4096 loaded, 128k native: the default, not the native", Endpoint{Server: ServerOllama, Window: 4096, WindowSource: ps, NativeWindow: 131072}, 0, DefaultOllamaContext},
		{"8k native caps the default", Endpoint{Server: ServerOllama, Window: 2048, WindowSource: ps, NativeWindow: 8192}, 0, 8192},
		{"not loaded: the native window is no running window", Endpoint{Server: ServerOllama, Window: 131072, WindowSource: sourceOllamaNative, NativeWindow: 131072}, 0, DefaultOllamaContext},
		{"loaded larger than the default: kept", Endpoint{Server: ServerOllama, Window: 65536, WindowSource: ps, NativeWindow: 131072}, 0, 65536},
		{"loaded at what we ask: still native, same size", Endpoint{Server: ServerOllama, Window: 32768, WindowSource: ps, NativeWindow: 32768}, 0, 32768},
		{"no native reported", Endpoint{Server: ServerOllama, Window: 2048, WindowSource: ps}, 0, DefaultOllamaContext},
		{"configured, capped at native", Endpoint{Server: ServerOllama, Window: 2048, WindowSource: ps, NativeWindow: 32768}, 65536, 32768},
		{"configured smaller than loaded: the user's choice", Endpoint{Server: ServerOllama, Window: 65536, WindowSource: ps, NativeWindow: 131072}, 16384, 16384},
		{"configured, no native", Endpoint{Server: ServerOllama}, 12000, 12000},
	} {
		if got := OllamaContext(c.ep, c.configured); got != c.want {
			t.Errorf("%s: OllamaContext = %d, want %d", c.name, got, c.want)
		}
	}
}

// ndjson joins lines into an /api/chat body.
func ndjson(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// serveOllama answers /api/chat with body; other paths are 404s.
func serveOllama(t *testing.T, body string, cfg Config) *Client {
	t.Helper()
	if cfg.OllamaNumCtx == 0 {
		cfg.OllamaNumCtx = 32768
	}
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, body)
	}, cfg)
}

func TestOllamaRequest(t *testing.T) {
	t.Parallel()
	var raw []byte
	var hdr http.Header
	var path string
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hdr, path = r.Header.Clone(), r.URL.Path
		raw, _ = io.ReadAll(r.Body)
		io.WriteString(w, ndjson(`{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`))
	}, Config{OllamaNumCtx: 32768, APIKey: "sk-test", Headers: map[string]string{"X-Title": "agent-lsp"}})
	req := provider.Request{
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "be brief"},
			{Role: provider.RoleUser, Content: "list files"},
			{Role: provider.RoleAssistant, Reasoning: "secret thoughts", ToolCalls: []provider.ToolCall{
				{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`}, {ID: "call_2", Name: "pwd"}, {ID: "call_3", Name: "ls", Arguments: `{"path":`},
			}},
			{Role: provider.RoleTool, ToolCallID: "call_1", Name: "ls", Content: "a.go"},
			{Role: provider.RoleTool, ToolCallID: "call_2", Content: ""}, // no Name: found from the call
			{Role: provider.RoleTool, ToolCallID: "call_3", Name: "ls", Content: "bad arguments", IsError: true},
		},
		Tools:     []tools.Spec{{Name: "ls", Description: "list", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "pwd"}},
		MaxTokens: 100,
	}
	r := collectReq(t, context.Background(), p, req)
	if mustEnd(t, r).Message.Content != "ok" {
		t.Fatalf("reply %+v", r.end)
	}
	if path != "/api/chat" || hdr.Get("Accept") != "application/x-ndjson" || hdr.Get("Authorization") != "Bearer sk-test" || hdr.Get("X-Title") != "agent-lsp" {
		t.Errorf("path %q, headers %v", path, hdr)
	}
	var body struct {
		Model    string           `json:"model"`
		Stream   bool             `json:"stream"`
		Options  map[string]any   `json:"options"`
		Messages []map[string]any `json:"messages"`
		Tools    []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, raw)
	}
	if body.Model != "test-model" || !body.Stream || body.Options["num_ctx"] != 32768.0 || body.Options["num_predict"] != 100.0 {
		t.Errorf("model/stream/options: %q %v %v", body.Model, body.Stream, body.Options)
	}
	for _, k := range []string{"max_tokens", "stream_options"} {
		if bytes.Contains(raw, []byte(`"`+k+`"`)) {
			t.Errorf("OpenAI field %s sent to /api/chat", k)
		}
	}
	if len(body.Tools) != 2 || body.Tools[0]["type"] != "function" {
		t.Errorf("tools %v", body.Tools)
	}
	asst := body.Messages[2]
	if c, ok := asst["content"]; !ok || c != "" {
		t.Errorf("assistant content %v (present %v), want \"\"", c, ok)
	}
	if bytes.Contains(raw, []byte("secret thoughts")) {
		t.Errorf("reasoning sent back")
	}
	calls := asst["tool_calls"].([]any)
	wantArgs := []string{`{"path":"."}`, `{}`, `{}`}
	for i, c := range calls {
		f := c.(map[string]any)["function"].(map[string]any)
		args, _ := json.Marshal(f["arguments"])
		if string(args) != wantArgs[i] || c.(map[string]any)["id"] != fmt.Sprintf("call_%d", i+1) {
			t.Errorf("call %d sent as %v, want arguments object %s", i, c, wantArgs[i])
		}
	}
	for i, want := range []struct{ id, name, content string }{{"call_1", "ls", "a.go"}, {"call_2", "pwd", ""}, {"call_3", "ls", "bad arguments"}} {
		m := body.Messages[3+i]
		if m["role"] != "tool" || m["tool_call_id"] != want.id || m["tool_name"] != want.name || m["content"] != want.content {
			t.Errorf("tool message %d: %v", i, m)
		}
	}
}

// TestOllamaEncodingCache: as the history grows, and when an earlier
// message changes, the cached body is byte for byte what a fresh client
// encodes, on both formats.
func TestOllamaEncodingCache(t *testing.T) {
	t.Parallel()
	for _, numCtx := range []int{0, 8192} {
		cached := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", OllamaNumCtx: numCtx})
		msgs := history(6)
		// The tool messages lose their names: the Ollama encoding finds
		// them in the calls before, which the cache must not confuse.
		for i := range msgs {
			msgs[i].Name = ""
		}
		check := func(what string, msgs []provider.Message) {
			req := provider.Request{Messages: msgs, Tools: benchSpecs(), MaxTokens: 50}
			fresh := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", OllamaNumCtx: numCtx})
			got, want := bytes.Join(cached.enc.body("m", req), nil), bytes.Join(fresh.enc.body("m", req), nil)
			if !bytes.Equal(got, want) || !json.Valid(got) {
				t.Errorf("num_ctx %d, %s: cached body differs from a fresh one\n got %.300s\nwant %.300s", numCtx, what, got, want)
			}
		}
		for n := 2; n <= len(msgs); n++ {
			check(fmt.Sprintf("%d messages", n), msgs[:n])
		}
		named := append([]provider.Message(nil), msgs...)
		named[3].Name = "other" // differs from the call it answers
		check("a tool result's name set", named)
		changed := append([]provider.Message(nil), msgs...)
		changed[2].ToolCalls = []provider.ToolCall{{ID: "call_0", Name: "grep", Arguments: `{"q":"x"}`}}
		check("an earlier call renamed", changed)
	}
}

// TestNDJSONConvert shows the chunk each /api/chat line becomes.
func TestNDJSONConvert(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, want string }{
		{`{"model":"m","message":{"role":"assistant","content":"Hel"},"done":false}`,
			`{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`},
		{`{"message":{"role":"assistant","content":"","thinking":"hmm"},"done":false}`,
			`{"choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}`},
		{`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":0,"name":"read_file","arguments":{"path":"a.go"}}}]},"done":false}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"id1","type":"function","function":{"name":"read_file","arguments":{"path":"a.go"}}}]},"finish_reason":null}]}`},
		{`{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"name":"pwd"}}]},"done":false}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_x","type":"function","function":{"name":"pwd","arguments":{}}}]},"finish_reason":null}]}`},
		{`{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":1,"prompt_eval_count":26,"eval_count":282}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":26,"completion_tokens":282}}`},
		{`{"error":"an error was encountered while running the model"}`,
			`{"error":"an error was encountered while running the model"}`},
		{`not json`, `not json`},
	} {
		r := newNDJSON(nil, func() string { return "id1" })
		r.calls = strings.Count(c.want, `"index":1`) // the second call of its reply
		if got := string(r.convert([]byte(c.line))); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.line, got, c.want)
		}
	}
}

var callIDPattern = regexp.MustCompile(`^call_[a-z0-9]{8}$`)

// TestOllamaStream runs /api/chat bodies through the adapter: what the
// accumulator makes of them is what it makes of the same reply on /v1.
func TestOllamaStream(t *testing.T) {
	t.Parallel()
	msg := func(fields string) string {
		return `{"model":"m","message":{"role":"assistant",` + fields + `},"done":false}`
	}
	done := func(reason string, p, e int) string {
		return fmt.Sprintf(`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":%q,"prompt_eval_count":%d,"eval_count":%d}`, reason, p, e)
	}
	specs := []tools.Spec{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}
	for _, c := range []struct {
		name       string
		body       string
		text, rsn  string
		calls      []provider.ToolCall // "" ids: generated, checked by pattern
		stop       provider.StopReason
		raw        string
		usage      provider.Usage
		textCalls  bool
		err        error
		errContent string
	}{
		{name: "text in pieces, done with usage",
			body: ndjson(msg(`"content":"Hel"`), msg(`"content":"lo"`), done("stop", 26, 2)),
			text: "Hello", stop: provider.StopEndTurn, raw: "stop", usage: provider.Usage{InputTokens: 26, OutputTokens: 2}},
		{name: "thinking field is reasoning",
			body: ndjson(msg(`"content":"","thinking":"let me "`), msg(`"content":"","thinking":"see"`), msg(`"content":"42"`), done("stop", 5, 3)),
			text: "42", rsn: "let me see", stop: provider.StopEndTurn, raw: "stop", usage: provider.Usage{InputTokens: 5, OutputTokens: 3}},
		{name: "inline <think> in the content is split out",
			body: ndjson(msg(`"content":"<think>hm"`), msg(`"content":"m</think>\n\nyes"`), done("stop", 5, 3)),
			text: "yes", rsn: "hmm", stop: provider.StopEndTurn, raw: "stop", usage: provider.Usage{InputTokens: 5, OutputTokens: 3}},
		{name: "two calls in one line, no ids, arguments objects",
			body:  ndjson(msg(`"content":"","tool_calls":[{"function":{"index":0,"name":"read_file","arguments":{"path":"a.go"}}},{"function":{"index":1,"name":"read_file","arguments":{"path":"b.go"}}}]`), done("stop", 100, 20)),
			calls: []provider.ToolCall{{Name: "read_file", Arguments: `{"path":"a.go"}`}, {Name: "read_file", Arguments: `{"path":"b.go"}`}},
			stop:  provider.StopToolCalls, raw: "stop", usage: provider.Usage{InputTokens: 100, OutputTokens: 20}},
		{name: "calls on separate lines, every index 0, with ids (0.12.10+)",
			body: ndjson(msg(`"content":"","tool_calls":[{"id":"call_a","function":{"index":0,"name":"read_file","arguments":{"path":"a.go"}}}]`),
				msg(`"content":"","tool_calls":[{"id":"call_b","function":{"index":0,"name":"pwd","arguments":null}}]`), done("stop", 1, 1)),
			calls: []provider.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`}, {ID: "call_b", Name: "pwd", Arguments: `{}`}},
			stop:  provider.StopToolCalls, raw: "stop", usage: provider.Usage{InputTokens: 1, OutputTokens: 1}},
		{name: "a repeated id is replaced, the calls stay apart",
			body:  ndjson(msg(`"content":"","tool_calls":[{"id":"call_a","function":{"name":"read_file","arguments":{"path":"a.go"}}},{"id":"call_a","function":{"name":"read_file","arguments":{"path":"b.go"}}}]`), done("stop", 1, 1)),
			calls: []provider.ToolCall{{ID: "call_a", Name: "read_file", Arguments: `{"path":"a.go"}`}, {Name: "read_file", Arguments: `{"path":"b.go"}`}},
			stop:  provider.StopToolCalls, raw: "stop", usage: provider.Usage{InputTokens: 1, OutputTokens: 1}},
		{name: "a call written as text is recovered",
			body:  ndjson(msg(`"content":"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"`), done("stop", 9, 9)),
			calls: []provider.ToolCall{{Name: "read_file", Arguments: `{"path": "a.go"}`}}, textCalls: true,
			stop: provider.StopToolCalls, raw: "stop", usage: provider.Usage{InputTokens: 9, OutputTokens: 9}},
		{name: "num_predict reached",
			body: ndjson(msg(`"content":"a long"`), done("length", 10, 100)),
			text: "a long", stop: provider.StopLength, raw: "length", usage: provider.Usage{InputTokens: 10, OutputTokens: 100}},
		{name: "content on the done line, no newline at the end, lines after done ignored",
			body: msg(`"content":"a"`) + "\n" + `{"message":{"role":"assistant","content":"b"},"done":true}` + "\n" + `{"error":"ignored"}`,
			text: "ab", stop: provider.StopEndTurn, raw: "stop"},
		{name: "an error line mid-stream",
			body: ndjson(msg(`"content":"Yes"`), `{"error":"an error was encountered while running the model"}`),
			err:  provider.ErrProvider, errContent: "reported an error during the reply: an error was encountered while running the model"},
		{name: "an error after done is not read",
			body: ndjson(done("stop", 1, 1), `{"error":"late"}`), stop: provider.StopEndTurn, raw: "stop", usage: provider.Usage{InputTokens: 1, OutputTokens: 1}},
		{name: "cut: the body ends without done",
			body: ndjson(msg(`"content":"Hel"`)),
			err:  provider.ErrTruncated, errContent: `no line with "done": true`},
		{name: "cut in the middle of a line",
			body: msg(`"content":"Hel"`) + "\n" + `{"message":{"role":"assis`,
			err:  provider.ErrProvider, errContent: "malformed stream"},
		{name: "empty body",
			body: "",
			err:  provider.ErrTruncated, errContent: `does it support "stream": true on /api/chat?`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := serveOllama(t, c.body, Config{MaxRetries: -1})
			r := collectReq(t, context.Background(), p, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}, Tools: specs})
			if c.err != nil {
				if !errors.Is(r.err, c.err) || !strings.Contains(fmt.Sprint(r.err), c.errContent) {
					t.Fatalf("error %v, want %v containing %q", r.err, c.err, c.errContent)
				}
				return
			}
			end := mustEnd(t, r)
			if end.Message.Content != c.text || end.Message.Reasoning != c.rsn || end.StopReason != c.stop || end.RawStopReason != c.raw || end.Usage != c.usage {
				t.Errorf("got text %q reasoning %q stop %q/%q usage %+v", end.Message.Content, end.Message.Reasoning, end.StopReason, end.RawStopReason, end.Usage)
			}
			if (end.TextCalls != nil) != c.textCalls {
				t.Errorf("TextCalls %+v, want recovered %v", end.TextCalls, c.textCalls)
			}
			if len(end.Message.ToolCalls) != len(c.calls) {
				t.Fatalf("calls %+v, want %+v", end.Message.ToolCalls, c.calls)
			}
			seen := map[string]bool{}
			for i, got := range end.Message.ToolCalls {
				want := c.calls[i]
				if want.ID == "" && !callIDPattern.MatchString(got.ID) && !c.textCalls || want.ID != "" && got.ID != want.ID || seen[got.ID] {
					t.Errorf("call %d id %q (want %q, or call_ and 8 characters, unique)", i, got.ID, want.ID)
				}
				seen[got.ID] = true
				if got.Name != want.Name || got.Arguments != want.Arguments {
					t.Errorf("call %d = %s %s, want %s %s", i, got.Name, got.Arguments, want.Name, want.Arguments)
				}
			}
		})
	}
}

// TestOllamaStartErrors: a refused /api/chat names the key that goes back
// to /v1; a 5xx is retried like on /v1.
func TestOllamaStartErrors(t *testing.T) {
	t.Parallel()
	p := serveOllama(t, "", Config{MaxRetries: -1})
	p.transport.url = strings.Replace(p.transport.url, "/api/chat", "/api/missing", 1)
	r := collect(t, p)
	var pe *provider.Error
	if !errors.As(r.err, &pe) || pe.StatusCode != 404 || !strings.Contains(pe.Msg, "ollama_native = false") || !strings.Contains(pe.Msg, "num_ctx 32768") {
		t.Errorf("404 on /api/chat: %v", r.err)
	}
	n := 0
	p = serve(t, func(w http.ResponseWriter, r *http.Request) {
		if n++; n == 1 {
			http.Error(w, `{"error":"loading"}`, http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, ndjson(`{"message":{"role":"assistant","content":"ok"},"done":true}`))
	}, Config{OllamaNumCtx: 4096})
	if end := mustEnd(t, collect(t, p)); end.Message.Content != "ok" || n != 2 {
		t.Errorf("503 then ok: %d requests, %+v", n, end)
	}
}

// FuzzNDJSON feeds arbitrary /api/chat bodies through the reader and the
// accumulator: no panic, nothing is read after the done line, and the
// calls have unique non-empty ids (each Ollama call is whole: none may be
// appended to another).
func FuzzNDJSON(f *testing.F) {
	f.Add([]byte(ndjson(`{"message":{"content":"a","thinking":"b","tool_calls":[{"function":{"name":"x","arguments":{"k":1}}}]},"done":false}`, `{"done":true,"done_reason":"stop","prompt_eval_count":3,"eval_count":1}`)))
	f.Add([]byte(ndjson(`{"message":{"tool_calls":[{"id":"call_a","function":{"name":"x","arguments":null}},{"id":"call_a","function":{"name":"y"}}]}}`, `{"error":{"message":"x"}}`)))
	f.Add([]byte(`{"message":{"content":"<think>x</think><tool_call>{\"name\":\"x\"}</tool_call>"},"done":true}` + "\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		n := 0
		r := newNDJSON(bytes.NewReader(in), func() string { n++; return fmt.Sprintf("call_gen%d", n) })
		a := newAccumulator()
		for {
			payload, err := r.next()
			if err != nil {
				break
			}
			if _, err := a.add(payload); err != nil {
				break
			}
		}
		if r.ended() {
			if _, err := r.next(); err != io.EOF {
				t.Fatalf("read after the done line: %v", err)
			}
		}
		_, end := a.end()
		seen := map[string]bool{}
		for _, c := range end.Message.ToolCalls {
			if c.ID == "" || seen[c.ID] {
				t.Fatalf("call %+v in %+v", c, end.Message.ToolCalls)
			}
			seen[c.ID] = true
		}
	})
}
