package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// sse frames data payloads as server-sent events and ends with [DONE].
func sse(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: " + p + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// serve starts a real HTTP server on 127.0.0.1 and an adapter pointed at it.
func serve(t *testing.T, h http.HandlerFunc, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = time.Millisecond
	}
	return New(cfg)
}

// serveSSE answers every request with body.
func serveSSE(t *testing.T, body string) *Client {
	return serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}, Config{})
}

// reply is everything one stream produced.
type reply struct {
	text, reasoning string
	progress        []provider.ToolCallDelta
	end             *provider.MessageEnd
	ends            int
	err             error
}

func collect(t *testing.T, p provider.Provider) reply {
	t.Helper()
	return collectCtx(t, context.Background(), p)
}

func collectCtx(t *testing.T, ctx context.Context, p provider.Provider) reply {
	t.Helper()
	return collectReq(t, ctx, p, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "hi"}}})
}

func collectReq(t *testing.T, ctx context.Context, p provider.Provider, req provider.Request) reply {
	t.Helper()
	var r reply
	s, err := p.Stream(ctx, req)
	if err != nil {
		r.err = err
		return r
	}
	defer s.Close()
	for {
		ev, err := s.Recv()
		if err == io.EOF {
			if r.ends != 1 {
				t.Fatalf("io.EOF after %d provider.MessageEnd events, want 1", r.ends)
			}
			return r
		}
		if err != nil {
			r.err = err
			return r
		}
		if r.ends > 0 {
			t.Fatalf("event %v after MessageEnd", ev.Type)
		}
		switch ev.Type {
		case provider.EventTextDelta:
			r.text += ev.Text
		case provider.EventReasoningDelta:
			r.reasoning += ev.Text
		case provider.EventToolCallDelta:
			r.progress = append(r.progress, *ev.ToolCall)
		case provider.EventMessageEnd:
			r.end = ev.End
			r.ends++
		}
	}
}

func mustEnd(t *testing.T, r reply) *provider.MessageEnd {
	t.Helper()
	if r.err != nil {
		t.Fatalf("stream failed: %v", r.err)
	}
	if r.end.Message.Content != r.text || r.end.Message.Reasoning != r.reasoning {
		t.Fatalf("deltas %q/%q disagree with the end message %q/%q", r.text, r.reasoning, r.end.Message.Content, r.end.Message.Reasoning)
	}
	return r.end
}

func TestOpenAIRequest(t *testing.T) {
	t.Parallel()
	var body map[string]any
	var hdr http.Header
	var path string
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hdr, path = r.Header.Clone(), r.URL.Path
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		io.WriteString(w, sse(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`))
	}, Config{APIKey: "sk-test", Headers: map[string]string{"X-Title": "agent-lsp", "HTTP-Referer": "https://example.org"}})
	req := provider.Request{
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: "be brief"},
			{Role: provider.RoleUser, Content: "list files"},
			{Role: provider.RoleAssistant, Reasoning: "secret thoughts", ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`}, {ID: "call_2", Name: "pwd"}}},
			{Role: provider.RoleTool, ToolCallID: "call_1", Name: "ls", Content: "a.go"},
			{Role: provider.RoleTool, ToolCallID: "call_2", Name: "pwd", Content: ""},
		},
		Tools:     []tools.Spec{{Name: "ls", Description: "list", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}, {Name: "pwd"}},
		MaxTokens: 100,
	}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := s.Recv(); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	s.Close()

	if path != "/v1/chat/completions" {
		t.Errorf("path %q", path)
	}
	if got := hdr.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	if hdr.Get("X-Title") != "agent-lsp" || hdr.Get("HTTP-Referer") != "https://example.org" {
		t.Errorf("extra headers missing: %v", hdr)
	}
	if body["stream"] != true || body["model"] != "test-model" || body["max_tokens"] != 100.0 {
		t.Errorf("stream/model/max_tokens: %v %v %v", body["stream"], body["model"], body["max_tokens"])
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options %v", body["stream_options"])
	}
	tools, _ := body["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools %v", body["tools"])
	}
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	if tools[0].(map[string]any)["type"] != "function" || fn["name"] != "ls" || fn["parameters"].(map[string]any)["type"] != "object" {
		t.Errorf("tool 0 %v", tools[0])
	}
	if params := tools[1].(map[string]any)["function"].(map[string]any)["parameters"]; params.(map[string]any)["type"] != "object" {
		t.Errorf("tool without parameters got %v", params)
	}
	msgs := body["messages"].([]any)
	asst := msgs[2].(map[string]any)
	if c, ok := asst["content"]; !ok || c != nil {
		t.Errorf("assistant tool-call message content = %v (present %v), want null", c, ok)
	}
	for k := range asst {
		if strings.Contains(k, "reasoning") {
			t.Errorf("reasoning sent back: %v", asst)
		}
	}
	calls := asst["tool_calls"].([]any)
	if f := calls[1].(map[string]any)["function"].(map[string]any); f["arguments"] != "{}" || calls[1].(map[string]any)["id"] != "call_2" {
		t.Errorf("call without arguments sent as %v", calls[1])
	}
	for i, want := range []string{"call_1", "call_2"} {
		m := msgs[3+i].(map[string]any)
		if m["role"] != "tool" || m["tool_call_id"] != want {
			t.Errorf("tool message %d: %v", i, m)
		}
		if c, ok := m["content"]; !ok || c == nil {
			t.Errorf("tool message %d has no string content: %v", i, m)
		}
	}
}

func TestOpenAIStatusErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status int
		body   string
		want   []string
	}{
		{401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, []string{"rejected the API key", "test-model", "AGENT_LSP_API_KEY", "Incorrect API key provided"}},
		{403, `forbidden`, []string{"rejected the API key", "AGENT_LSP_API_KEY", "forbidden"}},
		{404, `{"error":"model \"test-model\" not found, try pulling it first"}`, []string{"test-model", "not found", "/v1", "try pulling it first"}},
		{400, `{"error":{"message":"messages: bad role"}}`, []string{"HTTP 400", "messages: bad role"}},
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			p := serve(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(c.status)
				io.WriteString(w, c.body)
			}, Config{})
			r := collect(t, p)
			if !errors.Is(r.err, provider.ErrProvider) {
				t.Fatalf("err = %v, want ErrProvider", r.err)
			}
			t.Log(r.err)
			for _, want := range append(c.want, p.cfg.BaseURL) {
				if !strings.Contains(r.err.Error(), want) {
					t.Errorf("%q does not mention %q", r.err, want)
				}
			}
			if calls.Load() != 1 {
				t.Errorf("%d attempts for a %d, want 1", calls.Load(), c.status)
			}
		})
	}
}

// refusedBaseURL is a base URL on 127.0.0.1 where nothing listens.
func refusedBaseURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String() + "/v1"
}

func TestOpenAIConnectionRefused(t *testing.T) {
	t.Parallel()
	base := refusedBaseURL(t)
	p := New(Config{BaseURL: base, Model: "m", RetryBaseDelay: time.Millisecond})
	r := collect(t, p)
	if !errors.Is(r.err, provider.ErrProvider) || !strings.Contains(r.err.Error(), "nothing answers at "+base) || !strings.Contains(r.err.Error(), "AGENT_LSP_BASE_URL") {
		t.Fatalf("err = %v", r.err)
	}
}

func TestOpenAIConnectionDropped(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"delta":{"content":"par"}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}, Config{})
	r := collect(t, p)
	if !errors.Is(r.err, provider.ErrProvider) || r.end != nil || r.text != "par" {
		t.Fatalf("err = %v, end = %v, text %q", r.err, r.end, r.text)
	}
	if calls.Load() != 1 {
		t.Errorf("%d attempts: a reply already under way must not be retried", calls.Load())
	}
}

func TestOpenAIEmptyStreamRetried(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			// Headers, then the connection closes before the first byte.
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
			buf.Flush()
			conn.Close()
			return
		}
		io.WriteString(w, sse(`{"choices":[{"delta":{"content":"second"},"finish_reason":"stop"}]}`))
	}, Config{})
	if end := mustEnd(t, collect(t, p)); end.Message.Content != "second" || calls.Load() != 2 {
		t.Fatalf("content %q after %d attempts", end.Message.Content, calls.Load())
	}
}

// block answers with one chunk, then sends nothing until the test ends.
func block(t *testing.T, headers bool) (http.HandlerFunc, chan struct{}) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(w http.ResponseWriter, r *http.Request) {
		// Read the body so the server notices when the client hangs up.
		io.Copy(io.Discard, r.Body)
		if headers {
			io.WriteString(w, `data: {"choices":[{"delta":{"content":"wait"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}, release
}

func TestOpenAIIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, headers := range []bool{true, false} {
		t.Run(fmt.Sprint("headers=", headers), func(t *testing.T) {
			t.Parallel()
			h, _ := block(t, headers)
			p := serve(t, h, Config{IdleTimeout: 100 * time.Millisecond})
			r := collect(t, p)
			if !errors.Is(r.err, provider.ErrIdleTimeout) || !errors.Is(r.err, provider.ErrProvider) {
				t.Fatalf("err = %v, want ErrIdleTimeout", r.err)
			}
		})
	}
}

func TestOpenAIContextCancel(t *testing.T) {
	t.Parallel()
	h, _ := block(t, true)
	p := serve(t, h, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	s, err := p.Stream(ctx, provider.Request{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Recv(); err != nil || ev.Text != "wait" {
		t.Fatalf("first event %v, %v", ev, err)
	}
	cancel()
	if _, err := s.Recv(); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	// Cancelled while waiting to retry.
	ctx, cancel = context.WithCancel(context.Background())
	p = serve(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, Config{})
	p.transport.sleep = func(context.Context, time.Duration) error { cancel(); return ctx.Err() }
	if _, err := p.Stream(ctx, provider.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel during backoff: %v", err)
	}
}

func TestOpenAIRequestMaxTokens(t *testing.T) {
	t.Parallel()
	for model, wantCompletion := range map[string]bool{"llama3.1:8b": false, "gpt-4o": false, "gpt-5-mini": true, "o3": true} {
		var r head
		if err := json.Unmarshal(append([]byte{'{'}, encodeHead(model, 64)[1:]...), &r); err != nil {
			t.Fatal(err)
		}
		if got := r.MaxCompletionTokens == 64 && r.MaxTokens == 0; got != wantCompletion {
			t.Errorf("%s: max_tokens %d, max_completion_tokens %d", model, r.MaxTokens, r.MaxCompletionTokens)
		}
	}
}
