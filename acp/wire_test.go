package acp_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// wire is the real binary speaking ACP on raw pipes: the test writes any
// bytes and reads every message.
type wire struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	msgs chan map[string]any
	errb strings.Builder
}

func startWire(t *testing.T, ws, modelURL string, args ...string) *wire {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"acp", "--base-url", modelURL, "--model", "scripted"}, args...)...)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + ws, "XDG_CONFIG_HOME=" + filepath.Join(ws, ".config"), "XDG_STATE_HOME=" + t.TempDir()}
	w := &wire{t: t, cmd: cmd, msgs: make(chan map[string]any, 1000)}
	var err error
	if w.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &w.errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		defer close(w.msgs)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the agent wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			w.msgs <- m
		}
	}()
	return w
}

func (w *wire) raw(s string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, s+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wire) send(m map[string]any) {
	w.t.Helper()
	m["jsonrpc"] = "2.0"
	b, _ := json.Marshal(m)
	w.raw(string(b))
}

// next returns the next message that pred accepts; the others are kept
// in seen. A closed output or a long silence (a hang) fails the test.
func (w *wire) next(seen *[]map[string]any, pred func(map[string]any) bool) map[string]any {
	w.t.Helper()
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				w.t.Fatalf("the agent closed its output; stderr:\n%s", w.errb.String())
			}
			if pred(m) {
				return m
			}
			if seen != nil {
				*seen = append(*seen, m)
			}
		case <-time.After(30 * time.Second):
			w.t.Fatalf("no message in 30 s (a hang); stderr:\n%s", w.errb.String())
		}
	}
}

// reply waits for the response to id.
func (w *wire) reply(id any, seen *[]map[string]any) map[string]any {
	w.t.Helper()
	want, _ := json.Marshal(id)
	return w.next(seen, func(m map[string]any) bool {
		got, _ := json.Marshal(m["id"])
		_, isReq := m["method"]
		return !isReq && string(got) == string(want)
	})
}

// request waits for the agent's request of method.
func (w *wire) request(method string, seen *[]map[string]any) map[string]any {
	w.t.Helper()
	return w.next(seen, func(m map[string]any) bool { return m["method"] == method && m["id"] != nil })
}

// errCode is a response's error code, 0 for a result.
func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	n, _ := e["code"].(float64)
	return int(n)
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

// TestHostileWire sends malformed and hostile input on the ACP wire: each
// gets a clear JSON-RPC error, the connection goes on, nothing hangs.
func TestHostileWire(t *testing.T) {
	t.Parallel()
	m, ws := agenttest.Fixture(t, map[string]string{"main.go": "package main // disk\n"},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("r1", "read_file", `{"path":"main.go"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("r2", "read_file", `{"path":"main.go"}`)}},
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("b1", "bash", `{"command":"touch never.txt"}`)}},
		agenttest.Reply{Text: "ok"},
		agenttest.Reply{Status: 400, Body: `{"error":{"message":"model not found: scripted"}}`},
	)
	w := startWire(t, ws, m.URL, "--approval-timeout", "1s")
	type errCase struct {
		line string
		id   any
		code int
		want string
	}
	check := func(c errCase) {
		t.Helper()
		w.raw(c.line)
		r := w.reply(c.id, nil)
		if errCode(r) != c.code || !strings.Contains(errMessage(r), c.want) {
			t.Errorf("%s\n → %v; want code %d and %q", c.line, r, c.code, c.want)
		}
	}
	for _, c := range []errCase{
		{`not json`, nil, -32700, "parse error"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, nil, -32700, "parse error"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`, nil, -32600, "batches"},
		{`{"id":2,"method":"initialize","params":{"protocolVersion":1}}`, 2, -32600, "jsonrpc"},
		{`{"jsonrpc":"2.0","id":3}`, 3, -32600, "method"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}`, nil, -32600, "id must be"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"` + ws + `","mcpServers":[]}}`, 4, -32600, "before initialize"},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}`, 5, -32602, "protocolVersion"},
	} {
		check(c)
	}
	w.send(map[string]any{"id": 6, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}}}})
	if r := w.reply(6, nil); errCode(r) != 0 {
		t.Fatalf("initialize: %v", r)
	}
	w.raw(`{"jsonrpc":"2.0","method":"no/such/notification","params":{}}`)
	w.raw(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`)
	w.raw(`{"jsonrpc":"2.0","id":99,"result":{"content":"an answer to nothing"}}`)
	for _, c := range []errCase{
		{`{"jsonrpc":"2.0","id":7,"method":"frobnicate","params":{}}`, 7, -32601, "frobnicate"},
		{`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, 8, -32002, "session/new"},
		{`{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, 9, -32602, "not an absolute path"},
		{`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, 10, -32602, "file system root"},
		{`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"` + ws + `/missing","mcpServers":[]}}`, 11, -32602, "missing"},
		{`{"jsonrpc":"2.0","id":12,"method":"session/new","params":null}`, 12, -32602, "needs params"},
		{`{"jsonrpc":"2.0","id":13,"method":"session/new","params":{"cwd":7}}`, 13, -32602, "invalid params"},
		{`{"jsonrpc":"2.0","id":14,"method":"session/load","params":{"sessionId":"20990101-000000-abcdef","cwd":"` + ws + `","mcpServers":[]}}`, 14, -32002, "no recorded session"},
		{`{"jsonrpc":"2.0","id":15,"method":"session/load","params":{"sessionId":"../../etc/passwd","cwd":"` + ws + `","mcpServers":[]}}`, 15, -32602, "bad session id"},
	} {
		check(c)
	}
	w.send(map[string]any{"id": 20, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{}}})
	r := w.reply(20, nil)
	sid, _ := r["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", r)
	}
	for _, c := range []errCase{
		{`{"jsonrpc":"2.0","id":21,"method":"session/prompt","params":{"sessionId":"` + sid + `x","prompt":[{"type":"text","text":"hi"}]}}`, 21, -32002, "no session"},
		{`{"jsonrpc":"2.0","id":22,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[]}}`, 22, -32602, "empty"},
		{`{"jsonrpc":"2.0","id":23,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}`, 23, -32602, "image"},
		{`{"jsonrpc":"2.0","id":24,"method":"session/set_mode","params":{"sessionId":"` + sid + `","modeId":"yolo"}}`, 24, -32602, "yolo"},
	} {
		check(c)
	}

	// A prompt whose reads are answered badly: first an answer with a
	// wrong id (dropped), then the right one; then an answer that is not
	// a ReadTextFileResponse. Then a permission request nobody answers.
	w.send(map[string]any{"id": 30, "method": "session/prompt", "params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "read it"}}}})
	var seen []map[string]any
	rd := w.request("fs/read_text_file", &seen)
	if p := rd["params"].(map[string]any); p["path"] != filepath.Join(ws, "main.go") || p["sessionId"] != sid {
		t.Errorf("fs/read_text_file params %v", p)
	}
	id := rd["id"].(float64)
	w.send(map[string]any{"id": id + 1000, "result": map[string]any{"content": "WRONG FILE"}})
	w.send(map[string]any{"id": id, "result": map[string]any{"content": "package main // buffer\n"}})
	rd = w.request("fs/read_text_file", &seen)
	w.send(map[string]any{"id": rd["id"], "result": map[string]any{"content": 42}})
	perm := w.request("session/request_permission", &seen)
	// Not answered: the approval timeout (1s) denies it.
	resp := w.reply(30, &seen)
	if res, _ := resp["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Errorf("prompt 30: %v", resp)
	}
	reqs := m.Requests()
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "package main // buffer") || strings.Contains(got, "WRONG") {
		t.Errorf("first read gave the model %q", got)
	}
	if got := reqs[2].LastToolResult(); !strings.Contains(got, "not valid") {
		t.Errorf("second read gave the model %q", got)
	}
	if got := reqs[3].LastToolResult(); !strings.Contains(got, "denied") || !strings.Contains(got, "no answer within 1s") {
		t.Errorf("unanswered permission gave the model %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "never.txt")); err == nil {
		t.Error("the command ran without an answer")
	}
	withdrawn := false
	for _, m := range seen {
		if m["method"] == "$/cancel_request" {
			p, _ := m["params"].(map[string]any)
			withdrawn = p["requestId"] == perm["id"]
		}
	}
	if !withdrawn {
		t.Errorf("the unanswered permission request was not withdrawn with $/cancel_request: %v", seen)
	}
	// A late answer to the withdrawn request is dropped.
	w.send(map[string]any{"id": perm["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})

	// The model server fails: a JSON-RPC error with the reason.
	w.send(map[string]any{"id": 31, "method": "session/prompt", "params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "again"}}}})
	resp = w.reply(31, nil)
	if errCode(resp) != -32603 || !strings.Contains(errMessage(resp), "model not found") {
		t.Errorf("model failure: %v", resp)
	}

	// Still alive and well: set_mode works; end of input ends the agent.
	w.send(map[string]any{"id": 32, "method": "session/set_mode", "params": map[string]any{"sessionId": sid, "modeId": "read-only"}})
	if r := w.reply(32, nil); errCode(r) != 0 {
		t.Errorf("set_mode: %v", r)
	}
	w.in.Close()
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, w.errb.String())
	}
}
