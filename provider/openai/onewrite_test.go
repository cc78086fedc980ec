package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/provider"
)

// TestRequestLeavesInOneWrite sends requests to a raw TCP server that
// reads once: a body that fits the write buffer arrives with its headers
// in that one read (a loopback write of under 64 KiB is one segment); a
// larger one arrives whole over several, from its parts. Both are the
// exact request the encoder built.
func TestRequestLeavesInOneWrite(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		oneRead bool
	}{{"small", 12 << 10, true}, {"large", 200 << 10, false}} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			type seen struct {
				first, whole int
				body         []byte
				err          error
			}
			got := make(chan seen, 1)
			go func() {
				var s seen
				defer func() { got <- s }()
				c, err := ln.Accept()
				if err != nil {
					s.err = err
					return
				}
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				buf := make([]byte, 1<<20)
				n, err := c.Read(buf)
				if err != nil {
					s.err = err
					return
				}
				s.first = n
				// The rest, if any, through a real HTTP parser.
				req, err := http.ReadRequest(bufio.NewReader(io.MultiReader(bytes.NewReader(buf[:n]), c)))
				if err != nil {
					s.err = err
					return
				}
				if s.body, s.err = io.ReadAll(req.Body); s.err != nil {
					return
				}
				head := bytes.Index(buf[:n], []byte("\r\n\r\n")) + 4
				s.whole = head + len(s.body)
				reply := sse(`{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}`)
				_, s.err = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"+reply)
			}()
			p := New(Config{BaseURL: "http://" + ln.Addr().String() + "/v1", Model: "m", MaxRetries: -1})
			big := strings.Repeat("x", tc.size)
			r := collectReq(t, context.Background(), p, provider.Request{Messages: []provider.Message{{Role: provider.RoleSystem, Content: big}, {Role: provider.RoleUser, Content: "hi"}}})
			if r.end == nil || r.end.Message.Content != "ok" {
				t.Fatalf("reply %+v", r)
			}
			s := <-got
			if s.err != nil {
				t.Fatal(s.err)
			}
			var body struct {
				Messages []struct{ Content string }
			}
			if err := json.Unmarshal(s.body, &body); err != nil || len(body.Messages) != 2 || body.Messages[0].Content != big {
				t.Fatalf("the server got a different body (%d bytes): %v", len(s.body), err)
			}
			if tc.oneRead && s.first != s.whole {
				t.Fatalf("the first read got %d of the request's %d bytes: headers and body left in separate writes", s.first, s.whole)
			}
		})
	}
}
