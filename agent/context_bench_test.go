package agent_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/agenttest"
	"github.com/agent-lsp/agent-lsp/tools"
)

// The long-session scenario of the context issue: 40 tool calls, one per
// turn, each returning about 2,000 tokens, under a system prompt and tool
// schemas of about 6,000 tokens; a fact planted in the third result is
// needed by the last turn.
const (
	longCalls    = 40
	resultTokens = 2000
	plantedFact  = "the release codename is PELICAN-7731"
	plantedIn    = 3
)

// cacheSim is a provider that counts prompt tokens with agent.RawTokens
// and simulates a provider's prefix cache: the cached part of a request
// is its longest common prefix with the previous one.
type cacheSim struct {
	mu       sync.Mutex
	prev     []string
	input    int
	cost     float64 // uncached tokens at 1, cached at 0.1
	peak     int
	requests int
	// reachable is whether the last turn could see the planted fact.
	reachable bool
	turn      int
}

// units splits a request into the pieces that are compared for the
// prefix: each tool spec, then each message as sent.
func units(req agent.Request) []string {
	var u []string
	for _, t := range req.Tools {
		u = append(u, "T"+t.Name+"\x00"+t.Description+"\x00"+string(t.Parameters))
	}
	for _, m := range req.Messages {
		var b strings.Builder
		b.WriteString(string(m.Role) + "\x00" + m.ToolCallID + "\x00" + m.Content)
		for _, c := range m.ToolCalls {
			b.WriteString("\x00" + c.ID + c.Name + c.Arguments)
		}
		u = append(u, b.String())
	}
	return u
}

func (c *cacheSim) usage(req agent.Request) agent.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := units(req)
	total := agent.RawTokens(req)
	// Cached chars: whole equal units, then the common prefix of the first
	// unit that differs. Tokens in proportion.
	chars, all := 0, 0
	for _, u := range cur {
		all += len(u)
	}
	for i := range min(len(cur), len(c.prev)) {
		if cur[i] == c.prev[i] {
			chars += len(cur[i])
			continue
		}
		k := 0
		for k < len(cur[i]) && k < len(c.prev[i]) && cur[i][k] == c.prev[i][k] {
			k++
		}
		chars += k
		break
	}
	cached := 0
	if all > 0 {
		cached = int(float64(total) * float64(chars) / float64(all))
	}
	c.prev = cur
	c.input += total
	c.cost += float64(total-cached) + 0.1*float64(cached)
	c.peak = max(c.peak, total)
	c.requests++
	return agent.Usage{InputTokens: total, CachedInputTokens: cached, OutputTokens: 30}
}

// spillRef finds the spill file named next to the planted file's call:
// in a stub ("Full text: PATH (read it…") or in the index of earlier
// outputs after a summary ("- read_file {…}: PATH").
var spillRef = regexp.MustCompile(`file_0` + fmt.Sprint(plantedIn) + `\.go[^\n]*?(/\S+\.txt)`)

// factReachable says whether the fact is in the request or in the spill
// file a stub in it points to.
func factReachable(req agent.Request) bool {
	for _, m := range req.Messages {
		if strings.Contains(m.Content, plantedFact) {
			return true
		}
		if sm := spillRef.FindStringSubmatch(m.Content); sm != nil {
			data, err := os.ReadFile(sm[1])
			if err == nil && strings.Contains(string(data), plantedFact) {
				return true
			}
		}
	}
	return false
}

func (c *cacheSim) reply(req agent.Request) agenttest.Turn {
	u := c.usage(req)
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleUser && strings.Contains(last.Content, "about to be compacted") {
		return agenttest.Turn{Text: "## Goal\nread every file\n## Decisions\n-\n## Files touched\n-\n## State of the work\n-\n## Next steps\n-", Usage: u}
	}
	c.mu.Lock()
	c.turn++
	n := c.turn
	c.mu.Unlock()
	if n > longCalls {
		ok := factReachable(req)
		c.mu.Lock()
		c.reachable = ok
		c.mu.Unlock()
		return agenttest.Turn{Text: "The codename is PELICAN-7731.", Usage: u}
	}
	return agenttest.Turn{
		Text:  fmt.Sprintf("Reading file %d.", n),
		Calls: []agent.ToolCall{{ID: fmt.Sprintf("call_%d", n), Name: "read_file", Arguments: fmt.Sprintf(`{"path":"src/file_%02d.go"}`, n)}},
		Usage: u,
	}
}

// longTools answers read_file with about resultTokens tokens of text.
type longTools struct{}

func (longTools) Specs() []tools.Spec {
	var specs []tools.Spec
	for _, n := range []string{"glob", "grep", "read_file", "str_replace"} {
		specs = append(specs, tools.Spec{Name: n, Description: strings.Repeat("Describes the tool at length. ", 60), Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)})
	}
	return specs
}

func (longTools) Dispatch(_ context.Context, c tools.Call) tools.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "contents of %s\n", c.Arguments)
	if strings.Contains(c.Arguments, fmt.Sprintf("file_%02d", plantedIn)) {
		b.WriteString("// Note: " + plantedFact + "\n")
	}
	for b.Len() < resultTokens*4-40 {
		fmt.Fprintf(&b, "func f%04d() int { return %d }\n", b.Len(), b.Len())
	}
	return tools.Result{Text: b.String()}
}

// longFigures are the totals of one simulated session.
type longFigures struct {
	input, peak, requests int
	cost                  float64
	reachable             bool
	compactions, prunes   int
}

func simulateLong(tb testing.TB, cc agent.ContextConfig) longFigures {
	tb.Helper()
	sim := &cacheSim{}
	fake := agenttest.NewFunc(sim.reply)
	cfg := agent.Config{MaxTurns: 100, Context: cc, Spill: tools.NewSpill(tb.TempDir()), NoBuiltins: true}
	a := agent.New(fake, longTools{}, cfg)
	system := strings.Repeat("You are a careful coding agent. Follow the rules. ", 320) // ~4,000 tokens
	s := agent.NewSession("long", system)
	var f longFigures
	res := a.Run(context.Background(), s, "Read src/file_01.go to src/file_40.go, then tell me the release codename.", func(e agent.Event) {
		switch e.Type {
		case agent.EvCompaction:
			f.compactions++
		case agent.EvPruned:
			f.prunes++
		}
	})
	if res.Reason != agent.EndTurn {
		tb.Fatalf("run ended with %+v", res)
	}
	checkPairing(tb, s.Messages())
	f.input, f.peak, f.cost, f.requests, f.reachable = sim.input, sim.peak, sim.cost, sim.requests, sim.reachable
	return f
}

// TestLongSessionBudget is the check: at most 50% of the naive
// history's input tokens, at most 70% of its cache-weighted cost, a peak
// prompt under 40,000 tokens, and the planted fact still reachable.
func TestLongSessionBudget(t *testing.T) {
	naive := simulateLong(t, agent.ContextConfig{Off: true, Window: 200000})
	mine := simulateLong(t, agent.ContextConfig{Window: 131072})
	t.Logf("naive: %d requests, %d input tokens, cost %.0f, peak %d", naive.requests, naive.input, naive.cost, naive.peak)
	t.Logf("managed: %d requests, %d input tokens (%.1f%%), cost %.0f (%.1f%%), peak %d, %d pruning batches, %d compactions",
		mine.requests, mine.input, 100*float64(mine.input)/float64(naive.input), mine.cost, 100*mine.cost/naive.cost, mine.peak, mine.prunes, mine.compactions)
	if !naive.reachable || !mine.reachable {
		t.Errorf("planted fact reachable: naive %v, managed %v", naive.reachable, mine.reachable)
	}
	if float64(mine.input) > 0.5*float64(naive.input) {
		t.Errorf("input tokens %d over 50%% of naive %d", mine.input, naive.input)
	}
	if mine.cost > 0.7*naive.cost {
		t.Errorf("cost %.0f over 70%% of naive %.0f", mine.cost, naive.cost)
	}
	if mine.peak >= 40000 {
		t.Errorf("peak prompt %d tokens, want under 40,000", mine.peak)
	}
}

// TestLongSessionSweep logs the figures of other pruning settings, to
// show where the defaults sit.
func TestLongSessionSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("sweep")
	}
	naive := simulateLong(t, agent.ContextConfig{Off: true, Window: 200000})
	const r = resultTokens + 4 // one result as the estimator counts it
	for _, p := range []struct {
		name      string
		above, to int
	}{
		{"sliding window, last 5 whole", 5*r + 1, 5 * r},
		{"batches: keep 5, clear 10", 15*r + 1, 5 * r},
		{"", 8000, 2000},
		{"", 12000, 3600},
		{"default", 16000, 4800},
		{"", 20000, 6000},
		{"", 24000, 4000},
	} {
		m := simulateLong(t, agent.ContextConfig{Window: 131072, PruneAbove: p.above, PruneTo: p.to})
		t.Logf("prune above %5d to %5d: tokens %.1f%%, cost %.1f%%, peak %d, batches %d %s",
			p.above, p.to, 100*float64(m.input)/float64(naive.input), 100*m.cost/naive.cost, m.peak, m.prunes, p.name)
	}
	// Small windows with the defaults: compaction joins in.
	for _, w := range []int{16384, 32768} {
		m := simulateLong(t, agent.ContextConfig{Window: w})
		t.Logf("window %d, defaults: tokens %.1f%%, cost %.1f%%, peak %d, batches %d, compactions %d, fact reachable %v",
			w, 100*float64(m.input)/float64(naive.input), 100*m.cost/naive.cost, m.peak, m.prunes, m.compactions, m.reachable)
		if !m.reachable {
			t.Errorf("window %d: the planted fact was lost", w)
		}
	}
}

// BenchmarkLongSession reports the managed session's share of the naive
// one's tokens and cost, and its peak prompt.
func BenchmarkLongSession(b *testing.B) {
	for range b.N {
		naive := simulateLong(b, agent.ContextConfig{Off: true, Window: 200000})
		mine := simulateLong(b, agent.ContextConfig{Window: 131072})
		b.ReportMetric(100*float64(mine.input)/float64(naive.input), "tokens%")
		b.ReportMetric(100*mine.cost/naive.cost, "cost%")
		b.ReportMetric(float64(mine.peak), "peak-tokens")
		b.ReportMetric(float64(naive.input), "naive-tokens")
	}
}
