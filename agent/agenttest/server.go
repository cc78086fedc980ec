package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reply is one scripted answer of the OpenAI-compatible Server.
type Reply struct {
	Text      string       `json:"text,omitempty"`
	Reasoning string       `json:"reasoning,omitempty"`
	ToolCalls []ScriptCall `json:"toolCalls,omitempty"`
	// Finish defaults to "tool_calls" when ToolCalls is set, else "stop".
	Finish string `json:"finish,omitempty"`
	// PromptTokens and CompletionTokens are reported in a final usage
	// chunk with no choices, as OpenAI does with include_usage.
	PromptTokens     int `json:"promptTokens,omitempty"`
	CompletionTokens int `json:"completionTokens,omitempty"`
	// Status, when not 0 or 200, answers with that HTTP status and Body.
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	// Raw, when set, is sent verbatim as the response body (SSE).
	Raw string `json:"raw,omitempty"`
	// Delay waits before answering (e.g. "2s"), to test cancellation.
	Delay string `json:"delay,omitempty"`
}

// ScriptCall is a tool call in a scripted reply.
type ScriptCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatRequest is what the server received, decoded loosely.
type ChatRequest struct {
	Model         string           `json:"model"`
	Stream        bool             `json:"stream"`
	StreamOptions map[string]any   `json:"stream_options"`
	Messages      []map[string]any `json:"messages"`
	Tools         []map[string]any `json:"tools"`
	Header        http.Header      `json:"-"`
}

// LastToolResult returns the content of the last tool message, or "".
func (r ChatRequest) LastToolResult() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i]["role"] == "tool" {
			s, _ := r.Messages[i]["content"].(string)
			return s
		}
	}
	return ""
}

// HasTool reports whether the request offered the tool name.
func (r ChatRequest) HasTool(name string) bool {
	for _, t := range r.Tools {
		if f, ok := t["function"].(map[string]any); ok && f["name"] == name {
			return true
		}
	}
	return false
}

// Server is a scripted OpenAI-compatible chat server on 127.0.0.1. It
// answers /v1/chat/completions with the next Reply as a real SSE stream and
// /v1/models with its model list.
type Server struct {
	URL string // base URL, ending in /v1

	srv      *http.Server
	ln       net.Listener
	mu       sync.Mutex
	replies  []Reply
	next     func(ChatRequest) Reply
	requests []ChatRequest
	modelIDs []string
	arrived  chan struct{} // closed when the first chat request is recorded
}

// NewServer starts a server that answers with replies in order. Requests
// past the script get HTTP 500, which a test will notice.
func NewServer(replies ...Reply) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, replies: replies, URL: "http://" + ln.Addr().String() + "/v1", modelIDs: []string{"scripted"}, arrived: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.chat)
	mux.HandleFunc("/v1/models", s.models)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// SetFunc makes the server ask fn for each reply instead of the script.
func (s *Server) SetFunc(fn func(ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = fn
}

// SetModels sets what /v1/models lists. It takes the lock because the
// server is already serving: a field written after NewServer races with
// the handler (the client that asks is another process, invisible to the
// race detector's happens-before).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelIDs = append([]string(nil), ids...)
}

// Arrived is closed once the first chat request has been received, before
// it is answered. A test that must act while a run waits on the model
// (cancel it, disconnect) waits on this rather than swapping in a SetFunc
// after starting the run: the request may already have been taken from the
// script by then.
func (s *Server) Arrived() <-chan struct{} { return s.arrived }

// Requests returns the chat requests received so far.
func (s *Server) Requests() []ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ChatRequest(nil), s.requests...)
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	s.mu.Lock()
	ids := s.modelIDs
	s.mu.Unlock()
	for _, m := range ids {
		list.Data = append(list.Data, model{ID: m, Object: "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req ChatRequest
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, `{"error":{"message":"bad request body"}}`, http.StatusBadRequest)
		return
	}
	req.Header = r.Header.Clone()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	if len(s.requests) == 1 {
		close(s.arrived)
	}
	var rep Reply
	ok := true
	switch {
	case s.next != nil:
		fn := s.next
		s.mu.Unlock()
		rep = fn(req)
		s.mu.Lock()
	case len(s.replies) > 0:
		rep, s.replies = s.replies[0], s.replies[1:]
	default:
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"scripted server: no more replies"}}`, http.StatusInternalServerError)
		return
	}
	if d, err := time.ParseDuration(rep.Delay); err == nil && d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		_, _ = io.WriteString(w, rep.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if rep.Raw != "" {
		_, _ = io.WriteString(w, rep.Raw)
		return
	}
	_, _ = io.WriteString(w, SSE(req.Model, rep))
}

// SSE renders a reply as an OpenAI chat.completion.chunk stream: a role
// chunk, text in small pieces, each tool call opened with id and name and
// its arguments split in two, the finish chunk, a usage chunk with no
// choices, and [DONE].
func SSE(model string, rep Reply) string {
	var b strings.Builder
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{
			"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
		data, _ := json.Marshal(c)
		fmt.Fprintf(&b, "data: %s\n\n", data)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, piece := range pieces(rep.Reasoning, 16) {
		chunk(map[string]any{"reasoning_content": piece}, nil)
	}
	for _, piece := range pieces(rep.Text, 16) {
		chunk(map[string]any{"content": piece}, nil)
	}
	for i, c := range rep.ToolCalls {
		half := len(c.Arguments) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": c.Arguments[:half]},
		}}}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "function": map[string]any{"arguments": c.Arguments[half:]},
		}}}, nil)
	}
	finish := rep.Finish
	if finish == "" {
		finish = "stop"
		if len(rep.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	chunk(map[string]any{}, finish)
	usage, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": model, "choices": []any{},
		"usage": map[string]any{"prompt_tokens": rep.PromptTokens, "completion_tokens": rep.CompletionTokens, "total_tokens": rep.PromptTokens + rep.CompletionTokens},
	})
	fmt.Fprintf(&b, "data: %s\n\ndata: [DONE]\n\n", usage)
	return b.String()
}

// pieces splits s into runs of about n bytes without cutting a UTF-8
// sequence.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && k > 0 && s[k]&0xC0 == 0x80 {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}
