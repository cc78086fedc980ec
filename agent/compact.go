package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/internal/text"
	"github.com/agent-lsp/agent-lsp/provider"
)

// summaryPrompt asks for the fixed structure every compaction keeps.
const summaryPrompt = `The conversation is about to be compacted to fit the context window: the messages above will be replaced by your summary, followed by the latest turns. Write that summary now, for yourself, in exactly these sections:

## Goal
What the user asked for, in their words where it matters.
## Decisions
What was decided and why, including approaches that failed.
## Files touched
Each file read or changed, with what matters about it (paths, symbols, line numbers).
## State of the work
What is done, what is half done, what was verified (tests, builds) and their results.
## Next steps
What to do next, in order.

Keep every fact you will still need: names, paths, values, commands, error messages. Do not call tools; answer with the summary only.`

// summaryName tags the summary message (Name is never sent for user
// messages), so that a later compaction replaces it instead of keeping it.
const summaryName = "summary"

// CompactionInfo is what a compaction event tells clients.
type CompactionInfo struct {
	TokensBefore int `json:"tokensBefore"`
	TokensAfter  int `json:"tokensAfter"`
	// Messages is how many messages the summary replaced.
	Messages int `json:"messages"`
	// Fallback is set when the model gave no summary and a mechanical one
	// (requests, files, last answer) was used.
	Fallback bool   `json:"fallback,omitempty"`
	Summary  string `json:"summary"`
}

// maybeCompact compacts when the next request would pass CompactAt of the
// window. It returns an error only when ctx ended.
func (r *run) maybeCompact(ctx context.Context) error {
	if r.cc.Off {
		return nil
	}
	all, _ := r.s.tokens()
	tokens := r.a.est.scale(all + specTokens(r.specs))
	if float64(tokens) <= r.cc.CompactAt*float64(r.cc.Window) {
		return nil
	}
	return r.compact(ctx, tokens)
}

// Compact summarises the session now, as a user's /compact command does,
// whatever its size. It returns an error only when ctx ended.
func (a *Agent) Compact(ctx context.Context, s *Session, obs Observer) error {
	if obs == nil {
		obs = func(Event) {}
	}
	r := &run{a: a, s: s, obs: obs, cc: a.cfg.Context}
	r.tools = r.builtins(a.tools)
	if r.tools != nil {
		r.specs = r.tools.Specs()
	}
	req := Request{Messages: s.Messages(), Tools: r.specs}
	err := r.compact(ctx, a.est.Tokens(req))
	if u := r.res.Usage; u != (Usage{}) {
		obs(Event{Type: EvUsage, Usage: &u})
	}
	return err
}

// overflowMarks are how servers say a prompt is over the context window:
// OpenAI, vLLM, llama.cpp, Ollama, OpenRouter, Anthropic and others.
var overflowMarks = []string{
	"context_length_exceeded", "maximum context length", "context length",
	"context window", "context size", "too many tokens", "prompt is too long",
	"exceeds the available context", "input is too long", "reduce the length",
}

func isContextOverflow(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, m := range overflowMarks {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// overflow handles a request the server refused as too long: the window
// is taken to be 90% of that request, and the conversation compacted.
func (r *run) overflow(ctx context.Context) error {
	all, _ := r.s.tokens()
	tokens := r.a.est.scale(all + specTokens(r.specs))
	if w := tokens * 9 / 10; w < r.cc.Window {
		r.cc.Window = w
		r.cc.KeepRecent = min(r.cc.KeepRecent, w/8)
	}
	return r.compact(ctx, tokens)
}

// compact replaces the history by the system prompt, the pinned messages,
// a summary written by the model and the latest turns. A tool call is
// never separated from its results: the kept tail starts at a user or
// assistant message.
func (r *run) compact(ctx context.Context, before int) error {
	msgs := r.s.Messages()
	head := 0
	if len(msgs) > 0 && msgs[0].Role == RoleSystem {
		head = 1
	}
	start := r.tailStart(msgs, head)
	if start <= head {
		if !r.warnedFull {
			r.warnedFull = true
			r.warn("the context is nearly full but the latest turns alone fill it; nothing left to compact")
		}
		return nil
	}
	info := CompactionInfo{TokensBefore: before, Messages: start - head}
	summary, err := r.summarise(ctx, msgs)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil || strings.TrimSpace(summary) == "" {
		if err != nil {
			r.warn("the model could not summarise the conversation (" + err.Error() + "); compacting with a mechanical summary")
		}
		summary = r.mechanicalSummary(msgs[head:start])
		info.Fallback = true
	}
	// A summary must leave room for the work: at most a sixth of the window.
	if limit := r.cc.Window / 6 * 4; len(summary) > limit {
		summary = text.Cut(summary, limit) + "\n[… summary cut to fit the context window]"
	}
	view := slices.Clone(msgs[:head])
	pinned := r.s.Pinned()
	view = append(view, pinned...)
	view = append(view, Message{Role: RoleUser, Name: summaryName, Content: "[Summary of the earlier conversation, written by you when it was compacted to fit the context window. The latest turns follow it.]\n\n" + strings.TrimSpace(summary) + r.outputIndex(msgs[head:start])})
	if r.prompt != nil && !containsMessage(pinned, *r.prompt) && !containsMessage(msgs[start:], *r.prompt) {
		view = append(view, *r.prompt)
	}
	for _, m := range msgs[start:] {
		if m.Role == RoleUser && (m.Name == summaryName || containsMessage(pinned, m)) {
			continue
		}
		view = append(view, m)
	}
	r.s.replace(view)
	info.TokensAfter = r.a.est.Tokens(Request{Messages: view, Tools: r.specs})
	info.Summary = summary
	r.obs(Event{Type: EvCompaction, Compaction: &info})
	return nil
}

// outputsHeading starts the index of earlier tool outputs that follows
// every summary.
const outputsHeading = "\n\n## Earlier tool outputs\nThe full text of each earlier tool result is kept in a file; read it back with read_file when you need its details:\n"

// maxIndexed caps the index of earlier outputs (the most recent are kept).
const maxIndexed = 100

// outputIndex lists where the full results of the summarised calls are,
// after those listed by earlier summaries, so that no result summarised
// away is out of reach. Results not in a spill file yet are saved now.
func (r *run) outputIndex(msgs []Message) string {
	var lines []string
	results := map[string]Message{}
	for _, m := range msgs {
		if m.Role == RoleTool {
			results[m.ToolCallID] = m
		}
		if m.Role == RoleUser && m.Name == summaryName {
			if _, idx, ok := strings.Cut(m.Content, outputsHeading); ok {
				for _, l := range strings.Split(idx, "\n") {
					if strings.HasPrefix(l, "- ") {
						lines = append(lines, l)
					}
				}
			}
		}
	}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			res, ok := results[c.ID]
			if !ok || r.a.cfg.Spill == nil {
				continue
			}
			path := r.s.spillPath(c.ID)
			if path == "" && !r.s.isStubbed(c.ID) && len(res.Content) > 200 {
				if path = r.save(c, res.Content); path != "" {
					r.s.setSpilled(c.ID, path)
				}
			}
			if path != "" {
				lines = append(lines, fmt.Sprintf("- %s %s: %s", c.Name, text.Clip(text.OneLine(c.Arguments, 0), 100), path))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > maxIndexed {
		lines = lines[len(lines)-maxIndexed:]
	}
	return outputsHeading + strings.Join(lines, "\n")
}

// tailStart picks where the verbatim tail begins: about KeepRecent tokens
// from the end, moved back to a message that is not a tool result, and
// past pinned and summary messages. It returns head when nothing before
// the tail could be summarised.
func (r *run) tailStart(msgs []Message, head int) int {
	budget := r.cc.KeepRecent
	start := len(msgs)
	for start > head {
		t := r.a.est.scale(MessageTokens(msgs[start-1]))
		if budget-t < 0 && start < len(msgs) {
			break
		}
		budget -= t
		start--
	}
	for start > head && msgs[start].Role == RoleTool {
		start--
	}
	// Summarising only earlier summaries and pinned text gains nothing.
	useful := false
	for _, m := range msgs[head:start] {
		if !(m.Role == RoleUser && (m.Name == summaryName || r.isPinned(m))) {
			useful = true
			break
		}
	}
	if !useful {
		return head
	}
	return start
}

func (r *run) isPinned(m Message) bool { return containsMessage(r.s.Pinned(), m) }

func containsMessage(ms []Message, m Message) bool {
	for _, p := range ms {
		if p.Role == m.Role && p.Content == m.Content {
			return true
		}
	}
	return false
}

// summarise asks the model for the summary. It sends the same tools and
// the same history as the last request, so the provider's prompt cache
// serves all but the instruction.
func (r *run) summarise(ctx context.Context, msgs []Message) (string, error) {
	req := Request{Messages: append(slices.Clip(msgs), Message{Role: RoleUser, Content: summaryPrompt}), Tools: r.specs, MaxTokens: r.a.cfg.MaxTokens}
	st, err := r.a.provider.Stream(ctx, req)
	if err != nil {
		return "", err
	}
	defer st.Close()
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return "", errors.New("no summary in the reply")
		}
		if err != nil {
			return "", err
		}
		if ev.Type == provider.EventMessageEnd && ev.End != nil {
			r.res.Usage = r.res.Usage.Add(ev.End.Usage)
			r.s.Transcript().usage(ev.End.Usage)
			if ev.End.Usage.InputTokens > 0 {
				r.a.est.Observe(req, ev.End.Usage.InputTokens)
			}
			return ev.End.Message.Content, nil
		}
	}
}

// mechanicalSummary is the summary when the model gives none: the user's
// requests, the files the calls named, and the last thing the model said.
func (r *run) mechanicalSummary(msgs []Message) string {
	var requests []string
	files := map[string]bool{}
	last := ""
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			if m.Name == "" {
				requests = append(requests, text.Clip(text.OneLine(m.Content, 0), 500))
			}
		case RoleAssistant:
			if m.Content != "" {
				last = m.Content
			}
			for _, c := range m.ToolCalls {
				for _, p := range callPaths(c.Arguments) {
					files[p] = true
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("## Goal\n")
	for _, q := range requests {
		fmt.Fprintf(&b, "- %s\n", q)
	}
	b.WriteString("## Decisions\n(no summary could be written; see the latest turns)\n## Files touched\n")
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	fmt.Fprintf(&b, "## State of the work\n%s\n## Next steps\nRe-read what you need, then continue from the latest turns.\n", text.Clip(strings.TrimSpace(last), 2000))
	return b.String()
}

// callPaths returns the path-like string arguments of a call.
func callPaths(args string) []string {
	var obj map[string]any
	if json.Unmarshal([]byte(args), &obj) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"path", "file", "file_path", "filename"} {
		if s, ok := obj[k].(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}
