package lsptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/lsp"
	"github.com/agent-lsp/agent-lsp/lsp/lsptest"
)

// TestMCPWorkspaceServerApprovedInEditor: a server of the workspace's
// .mcp.json starts after the editor approves its definition
// (window/showMessageRequest), and its tool then asks, offering the
// server-wide choice, and runs.
func TestMCPWorkspaceServerApprovedInEditor(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := model(t, call("c1", "mcp__repo__echo", `{"text":"hi","times":2}`), agenttest.Reply{Text: "done"})
	opts := initOpts(m)
	var mu sync.Mutex
	var asked []string
	opts.OnShowMessageRequest = func(_ context.Context, _ *lsptest.Env, p json.RawMessage) any {
		var req struct {
			Message string
			Actions []struct{ Title string }
		}
		_ = json.Unmarshal(p, &req)
		mu.Lock()
		asked = append(asked, req.Message+fmt.Sprint(req.Actions))
		mu.Unlock()
		return map[string]string{"title": lsp.ActionAllow}
	}
	mcpJSON := fmt.Sprintf(`{"mcpServers":{"repo":{"command":%q,"args":["-test.run=^$"],"env":{"MCP_TEST_ROLE":"server"}}}}`, exe)
	e := lsptest.Connect(t, map[string]string{".mcp.json": mcpJSON}, opts)
	res := prompt(t, e, "echo")
	if res.Reason != "end_turn" {
		t.Fatalf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || !strings.Contains(asked[0], "the workspace's MCP server repo") || !strings.Contains(asked[0], "sha256:") ||
		!strings.Contains(asked[1], "mcp__repo__echo") || !strings.Contains(asked[1], "Allow this MCP server for this session") {
		t.Fatalf("prompts: %q", asked)
	}
	rs := toolResults(e)
	if len(rs) != 1 || rs[0].IsError || rs[0].Result != "hihi" {
		t.Fatalf("results %+v", rs)
	}
}
