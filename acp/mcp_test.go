package acp_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
)

// The mcpServers of session/new start with the session: their tools are
// offered as mcp__NAME__TOOL, ask like any MCP tool, and run once allowed.
// A malformed entry is a clear -32602.
func TestSessionMCPServers(t *testing.T) {
	t.Parallel()
	m, ws := agenttest.Fixture(t, nil,
		agenttest.Reply{ToolCalls: []agenttest.ScriptCall{call("e1", "mcp__editor__echo", `{"text":"from the editor's server"}`)}},
		agenttest.Reply{Text: "done"},
	)
	w := startWire(t, ws, m.URL)
	w.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	init := w.reply(1, nil)
	caps, _ := init["result"].(map[string]any)["agentCapabilities"].(map[string]any)
	if mc, _ := caps["mcpCapabilities"].(map[string]any); mc["http"] != true || mc["sse"] != false {
		t.Errorf("mcpCapabilities %v", caps["mcpCapabilities"])
	}

	w.send(map[string]any{"id": 2, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{
		map[string]any{"type": "sse", "name": "old", "url": "http://127.0.0.1:1/sse", "headers": []any{}},
	}}})
	if r := w.reply(2, nil); errCode(r) != -32602 || !strings.Contains(errMessage(r), `transport "sse" is not supported`) {
		t.Errorf("an SSE server: %v", r)
	}

	w.send(map[string]any{"id": 3, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{
		map[string]any{"name": "editor", "command": os.Args[0], "args": []any{}, "env": []any{map[string]any{"name": "MCP_TEST_ROLE", "value": "server"}}},
	}}})
	r := w.reply(3, nil)
	sid, _ := r["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v\n%s", r, w.errb.String())
	}
	w.send(map[string]any{"id": 4, "method": "session/prompt", "params": map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "echo"}}}})
	var seen []map[string]any
	perm := w.request("session/request_permission", &seen)
	w.send(map[string]any{"id": perm["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}}})
	if res, _ := w.reply(4, &seen)["result"].(map[string]any); res["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v\n%s", res, w.errb.String())
	}
	reqs := m.Requests()
	if !reqs[0].HasTool("mcp__editor__echo") {
		t.Errorf("the editor's MCP tool was not offered: %v", reqs[0].Tools)
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "from the editor's server") {
		t.Errorf("the MCP tool's result: %q", got)
	}
}
