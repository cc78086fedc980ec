package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/agent-lsp/agent-lsp/provider"
	"github.com/agent-lsp/agent-lsp/tools"
)

// history is a conversation of n turns as the loop keeps it: each an
// assistant tool call and a result of about 1 KiB.
func history(n int) []provider.Message {
	msgs := []provider.Message{
		{Role: provider.RoleSystem, Content: strings.Repeat("You are a coding agent. ", 200)},
		{Role: provider.RoleUser, Content: "fix the failing test"},
	}
	for i := range n {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"pkg/file%d.go"}`, i)}}},
			provider.Message{Role: provider.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat(fmt.Sprintf("%d\tline of code\n", i), 64)},
		)
	}
	return msgs
}

func benchSpecs() []tools.Spec {
	var specs []tools.Spec
	for _, n := range []string{"read_file", "glob", "grep", "str_replace", "write_file", "bash"} {
		specs = append(specs, tools.Spec{Name: n, Description: strings.Repeat("Does things. ", 40), Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)})
	}
	return specs
}

// BenchmarkRealPathTurn is one turn on the real HTTP path: the request for
// a history of N turns posted to a server on 127.0.0.1 (TCP_NODELAY, as Go
// sets it) that reads the whole body and streams a short reply, which is
// read to its end. The history grows by one turn per request as in a run,
// so each message is encoded once. "anchor" marshals the whole request
// with go-openai each turn instead, as the adapter did before, without the
// HTTP round trip: the part of the cost the cache removes.
func BenchmarkRealPathTurn(b *testing.B) {
	const reply = "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	const native = "{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"done\":false}\n{\"done\":true,\"done_reason\":\"stop\"}\n"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/api/chat" {
			_, _ = io.WriteString(w, native)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, reply)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	specs := benchSpecs()
	for _, c := range []struct {
		turns  int
		numCtx int // Ollama's /api/chat
	}{{10, 0}, {200, 0}, {200, 32768}} {
		turns, name := c.turns, fmt.Sprintf("turn_%d", c.turns)
		if c.numCtx > 0 {
			name += "_ollama_api_chat"
		}
		b.Run(name, func(b *testing.B) {
			p := New(Config{BaseURL: "http://" + ln.Addr().String() + "/v1", Model: "m", OllamaNumCtx: c.numCtx})
			// The history at turn `turns`: every request has the same
			// earlier turns and a new last one, as a run's next request
			// has, so the adapter encodes one turn and reuses the rest.
			msgs := history(turns)
			fresh := history(0)
			fresh = fresh[:0]
			for i := range b.N {
				id := fmt.Sprintf("new_%d", i)
				fresh = append(fresh,
					provider.Message{Role: provider.RoleAssistant, ToolCalls: []provider.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"new%d.go"}`, i)}}},
					provider.Message{Role: provider.RoleTool, ToolCallID: id, Name: "read_file", Content: strings.Repeat(fmt.Sprintf("%d\tnew line\n", i), 64)})
			}
			last := len(msgs) - 2
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				msgs[last], msgs[last+1] = fresh[2*i], fresh[2*i+1]
				s, err := p.Stream(context.Background(), provider.Request{Messages: msgs, Tools: specs})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := s.Recv(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/turn")
		})
		if c.numCtx > 0 {
			continue
		}
		b.Run(fmt.Sprintf("turn_%d_go-openai_marshal", turns), func(b *testing.B) {
			msgs := history(turns)
			for i := 0; i < b.N; i++ {
				req := goopenai.ChatCompletionRequest{Model: "m", Stream: true}
				for _, m := range msgs {
					req.Messages = append(req.Messages, goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID})
				}
				for _, t := range specs {
					req.Tools = append(req.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
				}
				if _, err := json.Marshal(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
