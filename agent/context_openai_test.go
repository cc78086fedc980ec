package agent_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/provider/openai"
)

// Through the real adapter and a scripted HTTP server: the server's
// prompt_tokens start compaction, the compaction prompt has the fixed
// structure, and the transcript holds neither the key nor the headers.
func TestCompactionOverHTTP(t *testing.T) {
	t.Parallel()
	srv, err := agenttest.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	n := 0
	srv.SetFunc(func(req agenttest.ChatRequest) agenttest.Reply {
		mu.Lock()
		defer mu.Unlock()
		// A tokenizer that counts one token per two bytes.
		size := 0
		for _, m := range req.Messages {
			s, _ := m["content"].(string)
			size += len(s)
		}
		last, _ := req.Messages[len(req.Messages)-1]["content"].(string)
		if strings.Contains(last, "## State of the work") {
			return agenttest.Reply{Text: "## Goal\nread\n## Decisions\n-\n## Files touched\nf1\n## State of the work\n-\n## Next steps\nanswer", PromptTokens: size / 2}
		}
		n++
		if n <= 5 {
			return agenttest.Reply{PromptTokens: size / 2, ToolCalls: []agenttest.ScriptCall{{ID: fmt.Sprintf("c%d", n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"f%d"}`, n)}}}
		}
		return agenttest.Reply{Text: "done", PromptTokens: size / 2}
	})
	const key = "sk-live-abcdefghijklmnop"
	p := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", APIKey: key, Headers: map[string]string{"X-Org": "org-secret-123456"}})
	st := agent.NewStore(t.TempDir(), key, "org-secret-123456")
	s, err := st.Create("SYSTEM", agent.TranscriptHeader{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	// 5 results of 4,000 bytes: about 5,000 tokens by the estimate, 10,000
	// by the server; an 11,000 window compacts only if the server is heard.
	a := agent.New(p, bigTools{n: 4000}, agent.Config{Context: agent.ContextConfig{Window: 11000, PruneAbove: 1 << 20}})
	rec := &recorder{}
	res := a.Run(context.Background(), s, "read them", rec.observe)
	if res.Reason != agent.EndTurn {
		t.Fatalf("result = %+v", res)
	}
	if rec.count(agent.EvCompaction) == 0 {
		t.Logf("usage %+v, est %d", res.Usage, a.Estimator().Tokens(agent.Request{Messages: s.Messages()}))
		t.Error("no compaction although prompt_tokens passed 80% of the window")
	}
	s.Transcript().Close()
	data, err := os.ReadFile(s.Transcript().Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), key) || strings.Contains(string(data), "org-secret") || strings.Contains(string(data), "Bearer") {
		t.Error("the transcript holds a secret")
	}
	for _, r := range srv.Requests() {
		if r.Header.Get("Authorization") != "Bearer "+key {
			t.Fatal("the key was not sent")
		}
	}
}
