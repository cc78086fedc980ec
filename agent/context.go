package agent

import (
	"fmt"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/tools"
)

// DefaultWindow is the context window assumed when neither the
// configuration nor a probe of the server gives one. It is small on
// purpose: compacting too early costs a summary, overflowing costs the run.
const DefaultWindow = 32768

// ContextConfig says how the loop keeps a long session's prompt small and
// its prefix stable. Zero values take the defaults. Three mechanisms act,
// from cheapest to dearest:
//
//  1. a result over MaxResultBytes is cut, its full text saved to a spill
//     file the model can read back;
//  2. when the tool results still shown whole hold more than PruneAbove
//     tokens, the oldest are replaced by stubs in one batch, down to
//     PruneTo. Between batches the history only grows at its end, so the
//     provider's prompt cache keeps hitting; a batch breaks it once;
//  3. when the prompt passes CompactAt of Window, the model summarises the
//     conversation and the run goes on from the pinned content, the
//     summary and the latest turns.
type ContextConfig struct {
	// Window is the model's context window in tokens, from the
	// configuration or ProbeContextWindow (default DefaultWindow).
	Window int
	// CompactAt is the share of Window the prompt may reach before the
	// conversation is compacted (default 0.8).
	CompactAt float64
	// PruneAbove is the token count of whole tool results that starts a
	// pruning batch (default min(16000, Window/4)).
	PruneAbove int
	// PruneTo is how many tokens of the latest results a batch leaves
	// whole (default 30% of PruneAbove: the last two results of 2,000
	// tokens with the default PruneAbove).
	PruneTo int
	// KeepRecent is about how many tokens of the latest turns compaction
	// keeps verbatim (default Window/8).
	KeepRecent int
	// MaxResultBytes caps the text of one tool result; the rest goes to a
	// spill file (default 16 KiB).
	MaxResultBytes int
	// Off sends the full history every turn, as a baseline: no pruning,
	// no compaction (results are still capped).
	Off bool
	// WindowHint names the server setting that raises the window, for
	// the messages that say the prompt does not fit or was cut.
	WindowHint string
	// RejectsOverflow says the endpoint refuses a prompt longer than its
	// window instead of cutting it (a hosted API): Estimator's window
	// rule, which only catches silent cuts, is then off, since there it
	// could only raise false alarms (gpt-4o counts the default tool
	// schemas low enough to land just under 2048).
	RejectsOverflow bool
}

// EffectiveWindow is the window the loop compacts against: Window, or
// DefaultWindow when neither the configuration nor a probe gave one. A
// context gauge divides by it.
func (c ContextConfig) EffectiveWindow() int { return c.withDefaults().Window }

func (c ContextConfig) withDefaults() ContextConfig {
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.CompactAt <= 0 || c.CompactAt >= 1 {
		c.CompactAt = 0.8
	}
	if c.PruneAbove <= 0 {
		c.PruneAbove = min(16000, c.Window/4)
	}
	if c.PruneTo <= 0 || c.PruneTo >= c.PruneAbove {
		c.PruneTo = c.PruneAbove * 3 / 10
	}
	if c.KeepRecent <= 0 {
		c.KeepRecent = c.Window / 8
	}
	if c.MaxResultBytes <= 0 {
		// An eighth of the window at four bytes a token, between 2 and 16
		// KiB: 2 KiB at 4k, 4 KiB at 8k, 8 KiB at 16k, 16 KiB from 32k.
		c.MaxResultBytes = min(max(c.Window/8*4, 2<<10), 16<<10)
	}
	return c
}

// Estimator counts the tokens of a request without a tokenizer: about four
// bytes a token, corrected by the ratio between the server's prompt_tokens
// and the raw estimate of the last request it reported on.
type Estimator struct {
	mu    sync.Mutex
	ratio float64
	// noWindowRule turns off Observe's window rule
	// (ContextConfig.RejectsOverflow).
	noWindowRule bool
}

// RawTokens estimates a request's prompt tokens at four bytes a token,
// plus a few tokens of framing per message and per tool.
func RawTokens(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += MessageTokens(m)
	}
	return n + specTokens(req.Tools)
}

// MessageTokens estimates one message as sent (reasoning is not sent).
func MessageTokens(m Message) int {
	b := len(m.Content)
	for _, c := range m.ToolCalls {
		b += len(c.ID) + len(c.Name) + len(c.Arguments) + 8
	}
	return 4 + (b+3)/4
}

// specTokens estimates the tool schemas of a request.
func specTokens(specs []tools.Spec) int {
	n := 0
	for _, t := range specs {
		n += 8 + (len(t.Name)+len(t.Description)+len(t.Parameters)+3)/4
	}
	return n
}

// Tokens estimates req, calibrated.
func (e *Estimator) Tokens(req Request) int { return e.scale(RawTokens(req)) }

func (e *Estimator) scale(raw int) int {
	e.mu.Lock()
	r := e.ratio
	e.mu.Unlock()
	if r == 0 {
		return raw
	}
	return int(float64(raw)*r + 0.5)
}

// Observe calibrates the estimator with the server's count for req. It
// reports false when the count shows the server cut the prompt (Ollama
// does so silently past its num_ctx), in two cases:
//
//  1. the count is under half the estimate of the messages alone: our
//     estimate is four bytes a token, and tokenizers pack 3-4.5 bytes a
//     token on prose, code and JSON (more tokens, not fewer, on other
//     scripts), so even deeply indented code does not pack eight. The
//     tool schemas are left out of this rule because servers count them
//     in their own form, not as the JSON we send: the recorded streams
//     (TestEstimateRecordedStreams, docs/local-models.md) put honest
//     tool-heavy requests at 0.40 of the whole estimate (Gemini) and
//     0.70 (OpenAI);
//  2. the count is under 80% of the whole estimate and lands on a window
//     size: within 5% under a power of two from 2048 to 131072. A server
//     that truncates reports the window it cut to (Ollama logs
//     "truncating input prompt limit=2048 prompt=3940 keep=5 new=2048",
//     ed-donner/llm_engineering#80). This rule counts the schemas, which
//     a truncating server cuts first.
//
// Such counts are not used, lest compaction never start.
func (e *Estimator) Observe(req Request, promptTokens int) bool {
	raw := RawTokens(req)
	if promptTokens <= 0 || raw < 200 {
		return true
	}
	msgs := 0
	for _, m := range req.Messages {
		msgs += MessageTokens(m)
	}
	switch cutRule(msgs, raw, promptTokens) {
	case cutUnderHalf:
		return raw < 2000
	case cutOnWindow:
		if !e.noWindowRule {
			return false
		}
	}
	// The latest request holds most of the earlier ones, so its ratio is
	// the best guess for the next: no averaging.
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ratio = min(float64(promptTokens)/float64(raw), 4)
	return true
}

// The rules of Observe, and their thresholds.
const (
	cutNone = iota
	cutUnderHalf
	cutOnWindow

	// cutShare of the messages' estimate: a count under it is a cut.
	cutShare = 0.5
	// windowShare of the whole estimate: a count under it that lands on a
	// window size is a cut.
	windowShare = 0.8
)

// cutRule says which rule of Observe takes promptTokens as a cut of a
// request estimated at raw tokens, msgs of them its messages, before the
// floors for small requests.
func cutRule(msgs, raw, promptTokens int) int {
	switch {
	case float64(promptTokens) < cutShare*float64(msgs):
		return cutUnderHalf
	case float64(promptTokens) < windowShare*float64(raw) && onWindowSize(promptTokens):
		return cutOnWindow
	}
	return cutNone
}

// onWindowSize says whether n is at most 5% under a common context
// window (2048 ... 131072 tokens).
func onWindowSize(n int) bool {
	for w := 2048; w <= 131072; w *= 2 {
		if n <= w && n >= w*95/100 {
			return true
		}
	}
	return false
}

// capResult cuts a result over the cap and saves its full text to the
// spill store, saying where in the text the model sees.
func (r *run) capResult(c ToolCall, text string) string {
	limit := r.cc.MaxResultBytes
	if len(text) <= limit {
		return text
	}
	cut := tools.Truncate(text, 0, limit)
	path := r.save(c, text)
	if path == "" {
		return cut + fmt.Sprintf("\n[Output cut to about %d of %d bytes; narrow the call to see the rest.]", limit, len(text))
	}
	r.s.setSpilled(c.ID, path)
	return cut + fmt.Sprintf("\n[Output cut to about %d of %d bytes. The full text is in %s: read it with read_file (offset and limit) if you need the rest.]", limit, len(text), path)
}

// save writes text to the spill store and returns its path, or "".
func (r *run) save(c ToolCall, text string) string {
	sp := r.a.cfg.Spill
	if sp == nil {
		return ""
	}
	path, err := sp.Save(c.Name, []byte(text))
	if err != nil {
		r.warn(fmt.Sprintf("could not keep the full output of %s: %v", c.Name, err))
		return ""
	}
	return path
}

// minStubbed is the smallest result worth replacing by a stub.
const minStubbed = 250

// prune replaces the oldest whole tool results by stubs, in one batch,
// once the whole ones hold more than PruneAbove tokens. The results of the
// last assistant message are never touched: the model has not seen them.
// A result keeps its place after its call; only its text changes.
func (r *run) prune() {
	if r.cc.Off {
		return
	}
	// This runs before every request: the common case (nothing to prune)
	// costs O(1) through the session's running sums.
	if _, live := r.s.tokens(); r.a.est.scale(live) <= r.cc.PruneAbove {
		return
	}
	msgs := r.s.Messages()
	last := -1
	total := 0
	for i, m := range msgs {
		switch {
		case m.Role == RoleAssistant && len(m.ToolCalls) > 0:
			last = i
		case m.Role == RoleTool:
			if t := r.a.est.scale(MessageTokens(m)); t >= minStubbed && !r.s.isStubbed(m.ToolCallID) {
				total += t
			}
		}
	}
	if total <= r.cc.PruneAbove {
		return
	}
	type live struct {
		i, tokens int
	}
	var lives []live
	calls := make(map[string]ToolCall)
	for i, m := range msgs {
		switch {
		case m.Role == RoleAssistant:
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
		case m.Role == RoleTool:
			if t := r.a.est.scale(MessageTokens(m)); t >= minStubbed && !r.s.isStubbed(m.ToolCallID) {
				lives = append(lives, live{i, t})
			}
		}
	}
	stubs := make(map[string]string)
	for _, l := range lives {
		if total <= r.cc.PruneTo || l.i > last {
			break
		}
		m := msgs[l.i]
		stubs[m.ToolCallID] = r.stubText(calls[m.ToolCallID], m)
		total -= l.tokens
	}
	if len(stubs) > 0 {
		r.s.stub(stubs)
		r.obs(Event{Type: EvPruned, Text: fmt.Sprintf("replaced %d old tool results by stubs", len(stubs))})
	}
}

// stubText is what stays of a pruned result: the call, the size, where
// the full text is and its first line.
func (r *run) stubText(c ToolCall, m Message) string {
	path := r.s.spillPath(m.ToolCallID)
	if path == "" {
		path = r.save(ToolCall{ID: m.ToolCallID, Name: m.Name}, m.Content)
		if path != "" {
			r.s.setSpilled(m.ToolCallID, path)
		}
	}
	name := m.Name
	if name == "" {
		name = c.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Pruned to save context: %s %s returned %d bytes", name, text.Clip(text.OneLine(c.Arguments, 0), 160), len(m.Content))
	if m.IsError {
		b.WriteString(" (an error)")
	}
	if path != "" {
		fmt.Fprintf(&b, ". Full text: %s (read it with read_file if you need it again).", path)
	} else {
		b.WriteString(". Run the call again if you need it.")
	}
	first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
	if first != "" {
		fmt.Fprintf(&b, " It began: %s", text.Clip(first, 120))
	}
	b.WriteString("]")
	return b.String()
}
